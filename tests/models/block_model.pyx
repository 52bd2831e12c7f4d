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


def square(floating[::1] re, floating[::1] im):
    """Square complex numbers block by block; len(re) must be a multiple of L."""
    cdef Py_ssize_t n = re.shape[0], b, i
    cdef complex_vector_float32 z32, o32
    cdef complex_vector_float64 z64, o64
    out_re = [0.0] * n
    out_im = [0.0] * n
    for b in range(0, n, VECTOR_LENGTH):
        if floating is float:
            for i in range(VECTOR_LENGTH):
                z32.re[i] = re[b + i]
                z32.im[i] = im[b + i]
            square_block(&o32, &z32)
            for i in range(VECTOR_LENGTH):
                out_re[b + i] = o32.re[i]
                out_im[b + i] = o32.im[i]
        else:
            for i in range(VECTOR_LENGTH):
                z64.re[i] = re[b + i]
                z64.im[i] = im[b + i]
            square_block(&o64, &z64)
            for i in range(VECTOR_LENGTH):
                out_re[b + i] = o64.re[i]
                out_im[b + i] = o64.im[i]
    return out_re, out_im
