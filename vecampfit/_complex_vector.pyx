# Kernels behind vecampfit.complex_vector: the block routines of
# complex_vector.pxd over whole arrays, one <routine>_kernel each, generated
# during the build from tools/block_routines.py (see
# tools/generate_block_wrappers.py); below, the sum of all elements.

# The include also defines the padded loads and stores (_load_padded*,
# _store_lanes*) that the loops below share with the generated ones.
include "vecampfit/_complex_vector_blocks.pxi"

from cython cimport floating

from vecampfit.block cimport (
    VECTOR_LENGTH, complex_vector, complex_vector_float32, complex_vector_float64,
)
cimport vecampfit.complex_vector as cv


cdef void _sum(complex_vector *x, const floating[::1] a_re, const floating[::1] a_im,
               floating *re, floating *im) noexcept nogil:
    cdef Py_ssize_t n = a_re.shape[0], nb, b
    cdef floating br, bi
    re[0] = 0
    im[0] = 0
    for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
        b = nb * VECTOR_LENGTH
        _load_padded_complex(x, a_re, a_im, b, min(<Py_ssize_t>VECTOR_LENGTH, n - b), 0, 0)
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
