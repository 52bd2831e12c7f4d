# Kernels behind vecampfit.interpolation: the block routines of
# interpolation.pxd applied over arrays, in blocks of VECTOR_LENGTH with a
# padded tail block (padding lanes hold the first node and are discarded).

from cython cimport floating

from vecampfit.block cimport VECTOR_LENGTH
from vecampfit.interpolation cimport interpolate, interpolate_uniform


def uniform(const floating[::1] x, const floating[::1] table, floating x_min, floating x_max,
            floating inverse_step, int outside, floating[::1] out):
    """out = interpolate_uniform(x) over the whole array."""
    cdef Py_ssize_t n = x.shape[0], nb, b, i, k
    cdef int nt = table.shape[0]
    cdef floating xb[VECTOR_LENGTH]
    cdef floating ob[VECTOR_LENGTH]
    with nogil:
        for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
            b = nb * VECTOR_LENGTH
            k = min(<Py_ssize_t>VECTOR_LENGTH, n - b)
            for i in range(VECTOR_LENGTH):
                xb[i] = x[b + i] if i < k else x_min
            interpolate_uniform(ob, xb, &table[0], nt, x_min, x_max, inverse_step, outside)
            for i in range(k):
                out[b + i] = ob[i]


def nonuniform(const floating[::1] x, const floating[::1] nodes, const floating[::1] table, int outside,
               floating[::1] out):
    """out = interpolate(x) over the whole array."""
    cdef Py_ssize_t n = x.shape[0], nb, b, i, k
    cdef int nt = table.shape[0]
    cdef floating xb[VECTOR_LENGTH]
    cdef floating ob[VECTOR_LENGTH]
    with nogil:
        for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
            b = nb * VECTOR_LENGTH
            k = min(<Py_ssize_t>VECTOR_LENGTH, n - b)
            for i in range(VECTOR_LENGTH):
                xb[i] = x[b + i] if i < k else nodes[0]
            interpolate(ob, xb, &nodes[0], &table[0], nt, outside)
            for i in range(k):
                out[b + i] = ob[i]
