# A user's model in its own folder: it cimports vecampfit's block types and is
# compiled once per vector length by vecampfit.model_compiler.compile_model.
from cython cimport floating
from vecampfit.block cimport VECTOR_LENGTH, complex_vector, complex_vector_float32, complex_vector_float64


cdef inline void square_block(complex_vector *out, const complex_vector *z) noexcept nogil:
    cdef int i
    for i in range(VECTOR_LENGTH):
        out.re[i] = z.re[i] * z.re[i] - z.im[i] * z.im[i]
        out.im[i] = 2 * z.re[i] * z.im[i]


def vector_length():
    return VECTOR_LENGTH


cdef void square_lanes(complex_vector *z, complex_vector *o, floating[::1] re,
                       floating[::1] im, Py_ssize_t b, list out_re, list out_im):
    """Square the L numbers re[b + i] + i im[b + i] through the work blocks z
    and o, into out_re[b + i], out_im[b + i]."""
    cdef Py_ssize_t i
    for i in range(VECTOR_LENGTH):
        z.re[i] = re[b + i]
        z.im[i] = im[b + i]
    square_block(o, z)
    for i in range(VECTOR_LENGTH):
        out_re[b + i] = o.re[i]
        out_im[b + i] = o.im[i]


def square(floating[::1] re, floating[::1] im):
    """Square complex numbers block by block; len(re) must be a multiple of L."""
    cdef Py_ssize_t n = re.shape[0], b
    cdef complex_vector_float32 z32, o32
    cdef complex_vector_float64 z64, o64
    out_re = [0.0] * n
    out_im = [0.0] * n
    for b in range(0, n, VECTOR_LENGTH):
        if floating is float:
            square_lanes(&z32, &o32, re, im, b, out_re, out_im)
        else:
            square_lanes(&z64, &o64, re, im, b, out_re, out_im)
    return out_re, out_im
