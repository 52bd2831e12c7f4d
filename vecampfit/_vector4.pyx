# Kernels behind vecampfit.vector4: the block routines of vector4.pxd applied
# over arrays of shape (n, 4) (columns px, py, pz, E), in blocks of
# VECTOR_LENGTH with a padded tail block (padding lanes hold (0, 0, 0, 1) and
# are discarded).

from cython cimport floating

from vecampfit.block cimport VECTOR_LENGTH
cimport vecampfit.vector4 as v4


cdef inline void _load(floating *dst, const floating[:, ::1] src, Py_ssize_t start,
                       Py_ssize_t n, Py_ssize_t ncomp) noexcept nogil:
    cdef Py_ssize_t i, c
    for c in range(ncomp):
        for i in range(VECTOR_LENGTH):
            dst[c * VECTOR_LENGTH + i] = src[start + i, c] if i < n else (1 if c == 3 else 0)


def scalar_kernel(const floating[:, ::1] a, const floating[:, ::1] b, int kind,
                  floating[::1] out):
    """kind 0 dot, 1 mass_squared, 2 mass, 3 invariant_mass_squared, 4 momentum."""
    cdef Py_ssize_t nb, n = a.shape[0], b0, i, k
    cdef floating ab[4 * VECTOR_LENGTH]
    cdef floating bb[4 * VECTOR_LENGTH]
    cdef floating ob[VECTOR_LENGTH]
    with nogil:
        for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
            b0 = nb * VECTOR_LENGTH
            k = min(<Py_ssize_t>VECTOR_LENGTH, n - b0)
            _load(ab, a, b0, k, 4)
            _load(bb, b, b0, k, 4)
            if kind == 0:
                v4.dot(ob, ab, bb)
            elif kind == 1:
                v4.mass_squared(ob, ab)
            elif kind == 2:
                v4.mass(ob, ab)
            elif kind == 3:
                v4.invariant_mass_squared(ob, ab, bb)
            else:
                v4.momentum(ob, ab)
            for i in range(k):
                out[b0 + i] = ob[i]


def vector_kernel(const floating[:, ::1] a, const floating[:, ::1] b, int kind,
                  floating[:, ::1] out):
    """kind 0 add, 1 subtract, 2 boost_to_rest_frame(a, b), 3 boost_from_rest_frame(a, b),
    4 boost(a, beta = b[:, :3])."""
    cdef Py_ssize_t nb, n = a.shape[0], b0, i, k, c
    cdef floating ab[4 * VECTOR_LENGTH]
    cdef floating bb[4 * VECTOR_LENGTH]
    cdef floating ob[4 * VECTOR_LENGTH]
    with nogil:
        for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
            b0 = nb * VECTOR_LENGTH
            k = min(<Py_ssize_t>VECTOR_LENGTH, n - b0)
            _load(ab, a, b0, k, 4)
            _load(bb, b, b0, k, 3 if kind == 4 else 4)
            if kind == 0:
                v4.add(ob, ab, bb)
            elif kind == 1:
                v4.subtract(ob, ab, bb)
            elif kind == 2:
                v4.boost_to_rest_frame(ob, ab, bb)
            elif kind == 3:
                v4.boost_from_rest_frame(ob, ab, bb)
            else:
                if k < VECTOR_LENGTH:
                    for i in range(k, VECTOR_LENGTH):
                        bb[i] = 0
                        bb[VECTOR_LENGTH + i] = 0
                        bb[2 * VECTOR_LENGTH + i] = 0
                v4.boost(ob, ab, bb)
            for c in range(4):
                for i in range(k):
                    out[b0 + i, c] = ob[c * VECTOR_LENGTH + i]
