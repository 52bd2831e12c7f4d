# Kernels behind vecampfit.kinematics: the block routines of kinematics.pxd
# applied over whole arrays, in blocks of VECTOR_LENGTH with a padded tail
# block (padding lanes are discarded).

from cython cimport floating

from vecampfit.block cimport (
    VECTOR_LENGTH, complex_vector, complex_vector_float32, complex_vector_float64,
)
from vecampfit.kinematics cimport (
    covariant_factor, decay_momentum, decay_momentum_squared, decay_momentum_s,
    decay_momentum_squared_s, phase_space_2body_complex, momentum_analytic_continuation,
    dalitz_m23_squared_range, dalitz_inside, dalitz_cos_helicity_angle,
)


cdef inline void _load(floating *dst, const floating[::1] src, Py_ssize_t start,
                       Py_ssize_t n, floating pad) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(VECTOR_LENGTH):
        dst[i] = src[start + i] if i < n else pad


def covariant_factor_kernel(const floating[::1] m12, floating m0, floating m3, floating[::1] out):
    cdef Py_ssize_t nb, n = m12.shape[0], b, i, k
    cdef floating xb[VECTOR_LENGTH]
    cdef floating ob[VECTOR_LENGTH]
    with nogil:
        for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
            b = nb * VECTOR_LENGTH
            k = min(<Py_ssize_t>VECTOR_LENGTH, n - b)
            _load(xb, m12, b, k, 1)
            covariant_factor(ob, xb, m0, m3)
            for i in range(k):
                out[b + i] = ob[i]


def decay_momentum_kernel(const floating[::1] m0, const floating[::1] m1, const floating[::1] m2,
                          int kind, floating[::1] out):
    """kind 0: q, 1: q^2 from masses; 2: q, 3: q^2 from s = m0 (array) and m1^2, m2^2 = m1[0], m2[0]."""
    cdef Py_ssize_t nb, n = m0.shape[0], b, i, k
    cdef floating ab[VECTOR_LENGTH]
    cdef floating bb[VECTOR_LENGTH]
    cdef floating cb[VECTOR_LENGTH]
    cdef floating ob[VECTOR_LENGTH]
    with nogil:
        for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
            b = nb * VECTOR_LENGTH
            k = min(<Py_ssize_t>VECTOR_LENGTH, n - b)
            _load(ab, m0, b, k, 1)
            if kind == 0 or kind == 1:
                _load(bb, m1, b, k, 0)
                _load(cb, m2, b, k, 0)
            if kind == 0:
                decay_momentum(ob, ab, bb, cb)
            elif kind == 1:
                decay_momentum_squared(ob, ab, bb, cb)
            elif kind == 2:
                decay_momentum_s(ob, ab, m1[0], m2[0])
            else:
                decay_momentum_squared_s(ob, ab, m1[0], m2[0])
            for i in range(k):
                out[b + i] = ob[i]


cdef void _run_phase_space(complex_vector *o, complex_vector *sv, const floating[::1] s_re,
                           const floating[::1] s_im, double m1, double m2,
                           floating[::1] out_re, floating[::1] out_im) noexcept nogil:
    cdef Py_ssize_t nb, n = s_re.shape[0], b, i, k
    for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
        b = nb * VECTOR_LENGTH
        k = min(<Py_ssize_t>VECTOR_LENGTH, n - b)
        for i in range(VECTOR_LENGTH):
            sv.re[i] = s_re[b + i] if i < k else 1
            sv.im[i] = s_im[b + i] if i < k else 0
        phase_space_2body_complex(o, sv, m1, m2)
        for i in range(k):
            out_re[b + i] = o.re[i]
            out_im[b + i] = o.im[i]


def phase_space_2body_complex_kernel(const floating[::1] s_re, const floating[::1] s_im,
                                     double m1, double m2, floating[::1] out_re,
                                     floating[::1] out_im):
    cdef complex_vector_float32 o32, s32
    cdef complex_vector_float64 o64, s64
    with nogil:
        if floating is float:
            _run_phase_space(&o32, &s32, s_re, s_im, m1, m2, out_re, out_im)
        else:
            _run_phase_space(&o64, &s64, s_re, s_im, m1, m2, out_re, out_im)


cdef void _run_continuation(complex_vector *o, const floating[::1] m0, floating m1, floating m2,
                            floating[::1] out_re, floating[::1] out_im) noexcept nogil:
    cdef Py_ssize_t nb, n = m0.shape[0], b, i, k
    cdef floating mb[VECTOR_LENGTH]
    for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
        b = nb * VECTOR_LENGTH
        k = min(<Py_ssize_t>VECTOR_LENGTH, n - b)
        _load(mb, m0, b, k, m1 + m2 + 1)
        momentum_analytic_continuation(o, mb, m1, m2)
        for i in range(k):
            out_re[b + i] = o.re[i]
            out_im[b + i] = o.im[i]


def momentum_analytic_continuation_kernel(const floating[::1] m0, floating m1, floating m2,
                                          floating[::1] out_re, floating[::1] out_im):
    cdef complex_vector_float32 o32
    cdef complex_vector_float64 o64
    with nogil:
        if floating is float:
            _run_continuation(&o32, m0, m1, m2, out_re, out_im)
        else:
            _run_continuation(&o64, m0, m1, m2, out_re, out_im)


def dalitz_kernel(const floating[::1] m12s, const floating[::1] m23s, floating m0, floating m1,
                  floating m2, floating m3, int kind, floating[::1] out, floating[::1] out2):
    """kind 0: m23^2 range (out, out2), 1: inside (out), 2: cos helicity angle (out)."""
    cdef Py_ssize_t nb, n = m12s.shape[0], b, i, k
    cdef floating xb[VECTOR_LENGTH]
    cdef floating yb[VECTOR_LENGTH]
    cdef floating ob[VECTOR_LENGTH]
    cdef floating o2[VECTOR_LENGTH]
    cdef floating pad = (m1 + m2) * (m1 + m2) * <floating>0.5 + (m0 - m3) * (m0 - m3) * <floating>0.5
    with nogil:
        for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
            b = nb * VECTOR_LENGTH
            k = min(<Py_ssize_t>VECTOR_LENGTH, n - b)
            _load(xb, m12s, b, k, pad)
            if kind == 0:
                dalitz_m23_squared_range(ob, o2, xb, m0, m1, m2, m3)
            else:
                _load(yb, m23s, b, k, 0)
                if kind == 1:
                    dalitz_inside(ob, xb, yb, m0, m1, m2, m3)
                else:
                    dalitz_cos_helicity_angle(ob, xb, yb, m0, m1, m2, m3)
            for i in range(k):
                out[b + i] = ob[i]
                if kind == 0:
                    out2[b + i] = o2[i]
