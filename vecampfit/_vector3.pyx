# Kernels behind vecampfit.vector3: the block routines of vector3.pxd applied
# over arrays of shape (n, 3), in blocks of VECTOR_LENGTH with a padded tail
# block (padding lanes hold (0, 0, 1) and are discarded).

from cython cimport floating

from vecampfit.block cimport VECTOR_LENGTH
cimport vecampfit.vector3 as v3


cdef inline void _load3(floating *dst, const floating[:, ::1] src, Py_ssize_t start,
                        Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i, c
    for c in range(3):
        for i in range(VECTOR_LENGTH):
            dst[c * VECTOR_LENGTH + i] = src[start + i, c] if i < n else (1 if c == 2 else 0)


def scalar_kernel(const floating[:, ::1] a, const floating[:, ::1] b, int kind,
                  floating[::1] out):
    """kind 0 dot, 1 norm, 2 norm_squared, 3 transverse, 4 cos_polar_angle,
    5 polar_angle, 6 azimuthal_angle, 7 cos_angle, 8 angle."""
    cdef Py_ssize_t nb, n = a.shape[0], b0, i, k
    cdef floating ab[3 * VECTOR_LENGTH]
    cdef floating bb[3 * VECTOR_LENGTH]
    cdef floating ob[VECTOR_LENGTH]
    with nogil:
        for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
            b0 = nb * VECTOR_LENGTH
            k = min(<Py_ssize_t>VECTOR_LENGTH, n - b0)
            _load3(ab, a, b0, k)
            _load3(bb, b, b0, k)
            if kind == 0:
                v3.dot(ob, ab, bb)
            elif kind == 1:
                v3.norm(ob, ab)
            elif kind == 2:
                v3.norm_squared(ob, ab)
            elif kind == 3:
                v3.transverse(ob, ab)
            elif kind == 4:
                v3.cos_polar_angle(ob, ab)
            elif kind == 5:
                v3.polar_angle(ob, ab)
            elif kind == 6:
                v3.azimuthal_angle(ob, ab)
            elif kind == 7:
                v3.cos_angle(ob, ab, bb)
            else:
                v3.angle(ob, ab, bb)
            for i in range(k):
                out[b0 + i] = ob[i]


def vector_kernel(const floating[:, ::1] a, const floating[:, ::1] b, const floating[::1] s,
                  int kind, floating[:, ::1] out):
    """kind 0 add, 1 subtract, 2 cross, 3 unit, 4 scale (by s)."""
    cdef Py_ssize_t nb, n = a.shape[0], b0, i, k, c
    cdef floating ab[3 * VECTOR_LENGTH]
    cdef floating bb[3 * VECTOR_LENGTH]
    cdef floating sb[VECTOR_LENGTH]
    cdef floating ob[3 * VECTOR_LENGTH]
    with nogil:
        for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
            b0 = nb * VECTOR_LENGTH
            k = min(<Py_ssize_t>VECTOR_LENGTH, n - b0)
            _load3(ab, a, b0, k)
            _load3(bb, b, b0, k)
            if kind == 0:
                v3.add(ob, ab, bb)
            elif kind == 1:
                v3.subtract(ob, ab, bb)
            elif kind == 2:
                v3.cross(ob, ab, bb)
            elif kind == 3:
                v3.unit(ob, ab)
            else:
                for i in range(VECTOR_LENGTH):
                    sb[i] = s[b0 + i] if i < k else 0
                v3.scale(ob, ab, sb)
            for c in range(3):
                for i in range(k):
                    out[b0 + i, c] = ob[c * VECTOR_LENGTH + i]
