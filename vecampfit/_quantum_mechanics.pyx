# Kernels behind vecampfit.quantum_mechanics: the block routines of
# quantum_mechanics.pxd applied over whole arrays, in blocks of VECTOR_LENGTH
# with a padded tail block (padding lanes are discarded).

from cython cimport floating

from vecampfit.block cimport VECTOR_LENGTH
from vecampfit.quantum_mechanics cimport (
    d_function, d_function_sum, d_function_recurrence, d_function_cos_theta, d_function_scalar,
)


cdef inline void _load(floating *dst, const floating[::1] src, Py_ssize_t start,
                       Py_ssize_t n, floating pad) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(VECTOR_LENGTH):
        dst[i] = src[start + i] if i < n else pad


def d_function_kernel(const floating[::1] a, const floating[::1] b, int two_j, int two_m1,
                      int two_m2, int kind, floating[::1] out):
    """kind 0: d_function, 1: d_function_sum, 2: d_function_recurrence, with
    a = cos(theta/2), b = sin(theta/2); 3: d_function_cos_theta with a = cos theta (b unused)."""
    cdef Py_ssize_t nb, n = a.shape[0], start, i, m
    cdef floating ab[VECTOR_LENGTH]
    cdef floating bb[VECTOR_LENGTH]
    cdef floating ob[VECTOR_LENGTH]
    with nogil:
        for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
            start = nb * VECTOR_LENGTH
            m = min(<Py_ssize_t>VECTOR_LENGTH, n - start)
            _load(ab, a, start, m, 1)
            if kind == 3:
                d_function_cos_theta(ob, two_j, two_m1, two_m2, ab)
            else:
                _load(bb, b, start, m, 0)
                if kind == 0:
                    d_function(ob, two_j, two_m1, two_m2, ab, bb)
                elif kind == 1:
                    d_function_sum(ob, two_j, two_m1, two_m2, ab, bb)
                else:
                    d_function_recurrence(ob, two_j, two_m1, two_m2, ab, bb)
            for i in range(m):
                out[start + i] = ob[i]


def d_function_scalar_kernel(int two_j, int two_m1, int two_m2, double cos_half, double sin_half):
    return d_function_scalar(two_j, two_m1, two_m2, cos_half, sin_half)
