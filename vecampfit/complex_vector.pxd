# Block routines on complex vectors (the paper's
# VECAMPFIT_COMPLEX_VECTOR_#LENGTH#): structure-of-arrays complex numbers,
# L = VECTOR_LENGTH lanes, real parts and imaginary parts in separate arrays.
#
# Usage from a user's model:
#     cimport vecampfit.complex_vector as cv
#     from vecampfit.block cimport complex_vector_float64
#     cdef complex_vector_float64 a, b
#     cv.multiply(&a, &a, &b)
#
# Every routine may be called in place (out may be the same vector as an
# input).  Real vectors are plain arrays of the same precision.  Nothing here
# raises; see each routine for its behaviour on special values.  Divisions
# and moduli use |z|^2 = re^2 + im^2 without scaling (vectorizable): they are
# accurate while |re|, |im| < 1e150 (float64) or 1e18 (float32) and above
# 1e-150 (1e-18) for the divisor; outside that range the result over- or
# underflows.

cimport cython
from cython cimport floating

from vecampfit._libm cimport _copysign, _fabs, _sqrt
from vecampfit.block cimport VECTOR_LENGTH, complex_vector


# ---------------------------------------------------------------------------
# Assignment, elements, sum
# ---------------------------------------------------------------------------

cdef inline void set_real(complex_vector *out, const floating *x) noexcept nogil:
    """out = x + 0i from a real vector."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        out.re[i] = x[i]
        out.im[i] = 0


cdef inline void set_complex(complex_vector *out, const floating *re, const floating *im) noexcept nogil:
    """out = re + i im from two real vectors."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        out.re[i] = re[i]
        out.im[i] = im[i]


cdef inline void set_real_constant(complex_vector *out, floating x) noexcept nogil:
    """out = x + 0i in every lane."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        out.re[i] = x
        out.im[i] = 0


cdef inline void set_complex_constant(complex_vector *out, floating re, floating im) noexcept nogil:
    """out = re + i im in every lane."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        out.re[i] = re
        out.im[i] = im


cdef inline void get_element(const complex_vector *z, int i, floating *re, floating *im) noexcept nogil:
    """(re, im) = z[i]; i must be in [0, L)."""
    re[0] = z.re[i]
    im[0] = z.im[i]


cdef inline void set_element(complex_vector *z, int i, floating re, floating im) noexcept nogil:
    """z[i] = re + i im; i must be in [0, L)."""
    z.re[i] = re
    z.im[i] = im


cdef inline void sum(const complex_vector *z, floating *re, floating *im) noexcept nogil:
    """(re, im) = sum of the L lanes, added in lane order."""
    cdef int i
    cdef floating sr = 0, si = 0
    for i in range(VECTOR_LENGTH):
        sr = sr + z.re[i]
        si = si + z.im[i]
    re[0] = sr
    im[0] = si


# ---------------------------------------------------------------------------
# Arithmetic with another complex vector
# ---------------------------------------------------------------------------

cdef inline void add(complex_vector *out, const complex_vector *a, const complex_vector *b) noexcept nogil:
    """out = a + b."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        out.re[i] = a.re[i] + b.re[i]
        out.im[i] = a.im[i] + b.im[i]


cdef inline void subtract(complex_vector *out, const complex_vector *a, const complex_vector *b) noexcept nogil:
    """out = a - b."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        out.re[i] = a.re[i] - b.re[i]
        out.im[i] = a.im[i] - b.im[i]


@cython.infer_types(True)
cdef inline void multiply(complex_vector *out, const complex_vector *a, const complex_vector *b) noexcept nogil:
    """out = a b = (a_re b_re - a_im b_im) + i (a_re b_im + a_im b_re)."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        re = a.re[i] * b.re[i] - a.im[i] * b.im[i]
        im = a.re[i] * b.im[i] + a.im[i] * b.re[i]
        out.re[i] = re
        out.im[i] = im


@cython.infer_types(True)
cdef inline void multiply_add(complex_vector *out, const complex_vector *a, const complex_vector *b) noexcept nogil:
    """out = out + a b (amplitude sums)."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        re = out.re[i] + a.re[i] * b.re[i] - a.im[i] * b.im[i]
        im = out.im[i] + a.re[i] * b.im[i] + a.im[i] * b.re[i]
        out.re[i] = re
        out.im[i] = im


@cython.infer_types(True)
cdef inline void divide(complex_vector *out, const complex_vector *a, const complex_vector *b) noexcept nogil:
    """out = a / b = a conj(b) / |b|^2; b = 0 gives inf/NaN lanes."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        d = 1 / (b.re[i] * b.re[i] + b.im[i] * b.im[i])
        re = (a.re[i] * b.re[i] + a.im[i] * b.im[i]) * d
        im = (a.im[i] * b.re[i] - a.re[i] * b.im[i]) * d
        out.re[i] = re
        out.im[i] = im


# ---------------------------------------------------------------------------
# Arithmetic with a real vector, a real scalar, a complex scalar
# ---------------------------------------------------------------------------

cdef inline void add_real(complex_vector *out, const complex_vector *a, const floating *x) noexcept nogil:
    """out = a + x, x a real vector."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        out.re[i] = a.re[i] + x[i]
        out.im[i] = a.im[i]


cdef inline void subtract_real(complex_vector *out, const complex_vector *a, const floating *x) noexcept nogil:
    """out = a - x, x a real vector."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        out.re[i] = a.re[i] - x[i]
        out.im[i] = a.im[i]


cdef inline void multiply_real(complex_vector *out, const complex_vector *a, const floating *x) noexcept nogil:
    """out = a x, x a real vector."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        out.re[i] = a.re[i] * x[i]
        out.im[i] = a.im[i] * x[i]


cdef inline void multiply_add_real(complex_vector *out, const complex_vector *a, const floating *x) noexcept nogil:
    """out = out + a x, x a real vector."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        out.re[i] = out.re[i] + a.re[i] * x[i]
        out.im[i] = out.im[i] + a.im[i] * x[i]


cdef inline void add_real_scalar(complex_vector *out, const complex_vector *a, floating s) noexcept nogil:
    """out = a + s, s real."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        out.re[i] = a.re[i] + s
        out.im[i] = a.im[i]


cdef inline void subtract_real_scalar(complex_vector *out, const complex_vector *a, floating s) noexcept nogil:
    """out = a - s, s real."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        out.re[i] = a.re[i] - s
        out.im[i] = a.im[i]


cdef inline void multiply_real_scalar(complex_vector *out, const complex_vector *a, floating s) noexcept nogil:
    """out = a s, s real."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        out.re[i] = a.re[i] * s
        out.im[i] = a.im[i] * s


cdef inline void add_complex_scalar(complex_vector *out, const complex_vector *a, floating c_re,
                                    floating c_im) noexcept nogil:
    """out = a + c, c = c_re + i c_im."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        out.re[i] = a.re[i] + c_re
        out.im[i] = a.im[i] + c_im


cdef inline void subtract_complex_scalar(complex_vector *out, const complex_vector *a, floating c_re,
                                         floating c_im) noexcept nogil:
    """out = a - c, c = c_re + i c_im."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        out.re[i] = a.re[i] - c_re
        out.im[i] = a.im[i] - c_im


@cython.infer_types(True)
cdef inline void multiply_complex_scalar(complex_vector *out, const complex_vector *a, floating c_re,
                                         floating c_im) noexcept nogil:
    """out = a c, c = c_re + i c_im."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        re = a.re[i] * c_re - a.im[i] * c_im
        im = a.re[i] * c_im + a.im[i] * c_re
        out.re[i] = re
        out.im[i] = im


@cython.infer_types(True)
cdef inline void multiply_add_complex_scalar(complex_vector *out, const complex_vector *a, floating c_re,
                                             floating c_im) noexcept nogil:
    """out = out + a c, c = c_re + i c_im (a coupling times an amplitude)."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        re = out.re[i] + a.re[i] * c_re - a.im[i] * c_im
        im = out.im[i] + a.re[i] * c_im + a.im[i] * c_re
        out.re[i] = re
        out.im[i] = im


# ---------------------------------------------------------------------------
# Unary operations
# ---------------------------------------------------------------------------

cdef inline void negate(complex_vector *out, const complex_vector *a) noexcept nogil:
    """out = -a."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        out.re[i] = -a.re[i]
        out.im[i] = -a.im[i]


cdef inline void conjugate(complex_vector *out, const complex_vector *a) noexcept nogil:
    """out = conj(a) = a_re - i a_im."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        out.re[i] = a.re[i]
        out.im[i] = -a.im[i]


@cython.infer_types(True)
cdef inline void inverse(complex_vector *out, const complex_vector *a) noexcept nogil:
    """out = 1 / a = conj(a) / |a|^2; a = 0 gives inf/NaN lanes."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        d = 1 / (a.re[i] * a.re[i] + a.im[i] * a.im[i])
        out.re[i] = a.re[i] * d
        out.im[i] = -a.im[i] * d


cdef inline void absolute_value(floating *out, const complex_vector *a) noexcept nogil:
    """out = |a| = sqrt(a_re^2 + a_im^2) (a real vector)."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        out[i] = _sqrt(a.re[i] * a.re[i] + a.im[i] * a.im[i])


cdef inline void absolute_value_squared(floating *out, const complex_vector *a) noexcept nogil:
    """out = |a|^2 = a_re^2 + a_im^2 (a real vector; the density of an amplitude)."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        out[i] = a.re[i] * a.re[i] + a.im[i] * a.im[i]


cdef inline void _sqrt_lane(complex_vector *out, int i, floating re, floating im,
                            bint physical) noexcept nogil:
    """Lane i of the physical-sheet (or unphysical-sheet) square root of re + i im."""
    # Principal root w: (t, im / 2t) for re >= 0, (|im| / 2t, copysign(t, im)) for
    # re < 0, with t = sqrt((|z| + |re|) / 2); w = 0 at z = 0.
    cdef floating t = _sqrt((_sqrt(re * re + im * im) + _fabs(re)) / 2)
    cdef floating u = im / (2 * t) if t != 0 else im * 0
    cdef floating wr, wi
    if re >= 0:
        wr = t
        wi = u
    else:
        wr = _fabs(u)
        wi = _copysign(t, im)
    # Physical sheet: Im w >= 0.
    if wi < 0:
        wr = -wr
        wi = -wi
    if physical:
        out.re[i] = wr
        out.im[i] = wi
    else:
        out.re[i] = -wr
        out.im[i] = -wi


cdef inline void sqrt_physical(complex_vector *out, const complex_vector *a) noexcept nogil:
    """Square root on the physical sheet: Im sqrt(a) >= 0.

    The cut is the positive real axis: for a = x > 0 the value is +sqrt(x)
    (the limit from Im a > 0, whatever the sign of a zero imaginary part);
    just below the axis it is close to -sqrt(x).  For a = -x < 0 it is
    +i sqrt(x): a breakup momentum q = sqrt(q^2) below threshold.
    sqrt(0) = 0.
    """
    cdef int i
    for i in range(VECTOR_LENGTH):
        _sqrt_lane(out, i, a.re[i], a.im[i], True)


cdef inline void sqrt_unphysical(complex_vector *out, const complex_vector *a) noexcept nogil:
    """Square root on the unphysical sheet: minus the physical-sheet value (Im <= 0)."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        _sqrt_lane(out, i, a.re[i], a.im[i], False)
