# Kernels behind vecampfit.complex_vector: one block routine of
# complex_vector.pxd applied over whole arrays, in blocks of VECTOR_LENGTH with
# a zero-padded tail block (padding lanes are computed and discarded).

from cython cimport floating

cimport vecampfit.complex_vector as cv
from vecampfit.block cimport VECTOR_LENGTH, complex_vector, complex_vector_float32, complex_vector_float64

# Operation codes (kept in step with complex_vector.py).
cdef enum:
    ADD = 0
    SUBTRACT = 1
    MULTIPLY = 2
    DIVIDE = 3
    ADD_REAL = 4
    SUBTRACT_REAL = 5
    MULTIPLY_REAL = 6
    ADD_REAL_SCALAR = 7
    SUBTRACT_REAL_SCALAR = 8
    MULTIPLY_REAL_SCALAR = 9
    ADD_COMPLEX_SCALAR = 10
    SUBTRACT_COMPLEX_SCALAR = 11
    MULTIPLY_COMPLEX_SCALAR = 12
    NEGATE = 13
    INVERSE = 14
    CONJUGATE = 15
    SQRT_PHYSICAL = 16
    SQRT_UNPHYSICAL = 17
    MULTIPLY_ADD = 18
    MULTIPLY_ADD_REAL = 19
    MULTIPLY_ADD_COMPLEX_SCALAR = 20
    ABSOLUTE_VALUE = 21
    ABSOLUTE_VALUE_SQUARED = 22


cdef void _run(complex_vector *o, complex_vector *x, complex_vector *y, int op,
               const floating[::1] a_re, const floating[::1] a_im,
               const floating[::1] b_re, const floating[::1] b_im,
               floating s_re, floating s_im,
               floating[::1] out_re, floating[::1] out_im) noexcept nogil:
    """Apply operation ``op`` block by block.

    a: first complex operand; b: second operand (complex: b_re, b_im; real
    vector: b_re); s: scalar operand; for multiply-add, out holds the addend
    on entry.  Real results go to out_re.
    """
    cdef Py_ssize_t n = a_re.shape[0], nb, b, i, k
    cdef floating r[VECTOR_LENGTH]
    for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
        b = nb * VECTOR_LENGTH
        k = min(<Py_ssize_t>VECTOR_LENGTH, n - b)
        for i in range(VECTOR_LENGTH):
            x.re[i] = a_re[b + i] if i < k else 0
            x.im[i] = a_im[b + i] if i < k else 0
            if op == ADD or op == SUBTRACT or op == MULTIPLY or op == DIVIDE or op == MULTIPLY_ADD:
                y.re[i] = b_re[b + i] if i < k else 1
                y.im[i] = b_im[b + i] if i < k else 0
            elif op == ADD_REAL or op == SUBTRACT_REAL or op == MULTIPLY_REAL or op == MULTIPLY_ADD_REAL:
                r[i] = b_re[b + i] if i < k else 1
            if op == MULTIPLY_ADD or op == MULTIPLY_ADD_REAL or op == MULTIPLY_ADD_COMPLEX_SCALAR:
                o.re[i] = out_re[b + i] if i < k else 0
                o.im[i] = out_im[b + i] if i < k else 0
        if op == ADD:
            cv.add(o, x, y)
        elif op == SUBTRACT:
            cv.subtract(o, x, y)
        elif op == MULTIPLY:
            cv.multiply(o, x, y)
        elif op == DIVIDE:
            cv.divide(o, x, y)
        elif op == ADD_REAL:
            cv.add_real(o, x, r)
        elif op == SUBTRACT_REAL:
            cv.subtract_real(o, x, r)
        elif op == MULTIPLY_REAL:
            cv.multiply_real(o, x, r)
        elif op == ADD_REAL_SCALAR:
            cv.add_real_scalar(o, x, s_re)
        elif op == SUBTRACT_REAL_SCALAR:
            cv.subtract_real_scalar(o, x, s_re)
        elif op == MULTIPLY_REAL_SCALAR:
            cv.multiply_real_scalar(o, x, s_re)
        elif op == ADD_COMPLEX_SCALAR:
            cv.add_complex_scalar(o, x, s_re, s_im)
        elif op == SUBTRACT_COMPLEX_SCALAR:
            cv.subtract_complex_scalar(o, x, s_re, s_im)
        elif op == MULTIPLY_COMPLEX_SCALAR:
            cv.multiply_complex_scalar(o, x, s_re, s_im)
        elif op == NEGATE:
            cv.negate(o, x)
        elif op == INVERSE:
            cv.inverse(o, x)
        elif op == CONJUGATE:
            cv.conjugate(o, x)
        elif op == SQRT_PHYSICAL:
            cv.sqrt_physical(o, x)
        elif op == SQRT_UNPHYSICAL:
            cv.sqrt_unphysical(o, x)
        elif op == MULTIPLY_ADD:
            cv.multiply_add(o, x, y)
        elif op == MULTIPLY_ADD_REAL:
            cv.multiply_add_real(o, x, r)
        elif op == MULTIPLY_ADD_COMPLEX_SCALAR:
            cv.multiply_add_complex_scalar(o, x, s_re, s_im)
        elif op == ABSOLUTE_VALUE:
            cv.absolute_value(r, x)
        elif op == ABSOLUTE_VALUE_SQUARED:
            cv.absolute_value_squared(r, x)
        for i in range(k):
            if op == ABSOLUTE_VALUE or op == ABSOLUTE_VALUE_SQUARED:
                out_re[b + i] = r[i]
            else:
                out_re[b + i] = o.re[i]
                out_im[b + i] = o.im[i]


def apply(int op, const floating[::1] a_re, const floating[::1] a_im, const floating[::1] b_re,
          const floating[::1] b_im, floating s_re, floating s_im, floating[::1] out_re,
          floating[::1] out_im):
    """Run operation ``op`` over arrays (see _run)."""
    cdef complex_vector_float32 o32, x32, y32
    cdef complex_vector_float64 o64, x64, y64
    with nogil:
        if floating is float:
            _run(&o32, &x32, &y32, op, a_re, a_im, b_re, b_im, s_re, s_im, out_re, out_im)
        else:
            _run(&o64, &x64, &y64, op, a_re, a_im, b_re, b_im, s_re, s_im, out_re, out_im)


cdef void _sum(complex_vector *x, const floating[::1] a_re, const floating[::1] a_im,
               floating *re, floating *im) noexcept nogil:
    cdef Py_ssize_t n = a_re.shape[0], nb, b, i
    cdef floating br, bi
    re[0] = 0
    im[0] = 0
    for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
        b = nb * VECTOR_LENGTH
        for i in range(VECTOR_LENGTH):
            x.re[i] = a_re[b + i] if b + i < n else 0
            x.im[i] = a_im[b + i] if b + i < n else 0
        cv.sum(x, &br, &bi)
        re[0] += br
        im[0] += bi


def sum_kernel(const floating[::1] a_re, const floating[::1] a_im):
    """Sum of the elements: block sums (lane order) added block by block."""
    cdef complex_vector_float32 x32
    cdef complex_vector_float64 x64
    cdef floating re, im
    with nogil:
        if floating is float:
            _sum(&x32, a_re, a_im, &re, &im)
        else:
            _sum(&x64, a_re, a_im, &re, &im)
    return re, im
