# Block routines of vecampfit.vector3 (the paper's VECAMPFIT_VECTOR3):
# three-vectors over the L = VECTOR_LENGTH lanes of a block.
#
# A block of three-vectors is a plain ``floating`` array of 3 * VECTOR_LENGTH
# values, component-major (structure of arrays): component c (0 = x, 1 = y,
# 2 = z) of lane i is v[c * VECTOR_LENGTH + i].  The first three components of
# a vector4 block (vecampfit/vector4.pxd) are such a block, so these routines
# also give the spatial parts of four-vectors.  Real results are vectors of L
# values.  Output blocks may alias input blocks (each lane is read before it
# is written).  Nothing here raises; the angle of a zero vector is 0 (atan2
# convention), the cosine of the polar angle of a zero vector is NaN.

from cython cimport floating

from vecampfit._libm cimport _atan2, _sqrt
from vecampfit.block cimport VECTOR_LENGTH


cdef inline void add(floating *out, const floating *a, const floating *b) noexcept nogil:
    """out = a + b."""
    cdef int i
    for i in range(3 * VECTOR_LENGTH):
        out[i] = a[i] + b[i]


cdef inline void subtract(floating *out, const floating *a, const floating *b) noexcept nogil:
    """out = a - b."""
    cdef int i
    for i in range(3 * VECTOR_LENGTH):
        out[i] = a[i] - b[i]


cdef inline void scale(floating *out, const floating *a, const floating *s) noexcept nogil:
    """out = s a, s a real vector (one factor per lane)."""
    cdef int i, c
    for c in range(3):
        for i in range(VECTOR_LENGTH):
            out[c * VECTOR_LENGTH + i] = s[i] * a[c * VECTOR_LENGTH + i]


cdef inline void dot(floating *out, const floating *a, const floating *b) noexcept nogil:
    """out = a . b = ax bx + ay by + az bz."""
    cdef int i
    cdef int L = VECTOR_LENGTH
    for i in range(VECTOR_LENGTH):
        out[i] = a[i] * b[i] + a[L + i] * b[L + i] + a[2 * L + i] * b[2 * L + i]


cdef inline void cross(floating *out, const floating *a, const floating *b) noexcept nogil:
    """out = a x b."""
    cdef int i
    cdef int L = VECTOR_LENGTH
    cdef floating x, y, z
    for i in range(VECTOR_LENGTH):
        x = a[L + i] * b[2 * L + i] - a[2 * L + i] * b[L + i]
        y = a[2 * L + i] * b[i] - a[i] * b[2 * L + i]
        z = a[i] * b[L + i] - a[L + i] * b[i]
        out[i] = x
        out[L + i] = y
        out[2 * L + i] = z


cdef inline void norm_squared(floating *out, const floating *a) noexcept nogil:
    """out = |a|^2."""
    dot(out, a, a)


cdef inline void norm(floating *out, const floating *a) noexcept nogil:
    """out = |a|."""
    cdef int i
    cdef int L = VECTOR_LENGTH
    for i in range(VECTOR_LENGTH):
        out[i] = _sqrt(a[i] * a[i] + a[L + i] * a[L + i] + a[2 * L + i] * a[2 * L + i])


cdef inline void transverse(floating *out, const floating *a) noexcept nogil:
    """out = sqrt(ax^2 + ay^2), the component transverse to z."""
    cdef int i
    cdef int L = VECTOR_LENGTH
    for i in range(VECTOR_LENGTH):
        out[i] = _sqrt(a[i] * a[i] + a[L + i] * a[L + i])


cdef inline void cos_polar_angle(floating *out, const floating *a) noexcept nogil:
    """out = cos(theta) = az / |a| (NaN for a zero vector)."""
    cdef int i
    cdef int L = VECTOR_LENGTH
    for i in range(VECTOR_LENGTH):
        out[i] = a[2 * L + i] / _sqrt(a[i] * a[i] + a[L + i] * a[L + i] + a[2 * L + i] * a[2 * L + i])


cdef inline void polar_angle(floating *out, const floating *a) noexcept nogil:
    """out = theta = atan2(sqrt(ax^2 + ay^2), az), in [0, pi]."""
    cdef int i
    cdef int L = VECTOR_LENGTH
    for i in range(VECTOR_LENGTH):
        out[i] = _atan2(_sqrt(a[i] * a[i] + a[L + i] * a[L + i]), a[2 * L + i])


cdef inline void azimuthal_angle(floating *out, const floating *a) noexcept nogil:
    """out = phi = atan2(ay, ax), in [-pi, pi]."""
    cdef int i
    cdef int L = VECTOR_LENGTH
    for i in range(VECTOR_LENGTH):
        out[i] = _atan2(a[L + i], a[i])


cdef inline void cos_angle(floating *out, const floating *a, const floating *b) noexcept nogil:
    """out = cos of the angle between a and b = a.b / (|a| |b|) (NaN if either is zero)."""
    cdef int i
    cdef int L = VECTOR_LENGTH
    cdef floating ab, aa, bb
    for i in range(VECTOR_LENGTH):
        ab = a[i] * b[i] + a[L + i] * b[L + i] + a[2 * L + i] * b[2 * L + i]
        aa = a[i] * a[i] + a[L + i] * a[L + i] + a[2 * L + i] * a[2 * L + i]
        bb = b[i] * b[i] + b[L + i] * b[L + i] + b[2 * L + i] * b[2 * L + i]
        out[i] = ab / _sqrt(aa * bb)


cdef inline void angle(floating *out, const floating *a, const floating *b) noexcept nogil:
    """out = angle between a and b = atan2(|a x b|, a.b), in [0, pi] (accurate near 0 and pi)."""
    cdef int i
    cdef int L = VECTOR_LENGTH
    cdef floating x, y, z, ab
    for i in range(VECTOR_LENGTH):
        x = a[L + i] * b[2 * L + i] - a[2 * L + i] * b[L + i]
        y = a[2 * L + i] * b[i] - a[i] * b[2 * L + i]
        z = a[i] * b[L + i] - a[L + i] * b[i]
        ab = a[i] * b[i] + a[L + i] * b[L + i] + a[2 * L + i] * b[2 * L + i]
        out[i] = _atan2(_sqrt(x * x + y * y + z * z), ab)


cdef inline void unit(floating *out, const floating *a) noexcept nogil:
    """out = a / |a| (NaN for a zero vector)."""
    cdef int i
    cdef int L = VECTOR_LENGTH
    cdef floating s
    for i in range(VECTOR_LENGTH):
        s = 1 / _sqrt(a[i] * a[i] + a[L + i] * a[L + i] + a[2 * L + i] * a[2 * L + i])
        out[i] = a[i] * s
        out[L + i] = a[L + i] * s
        out[2 * L + i] = a[2 * L + i] * s
