# Block routines of vecampfit.vector4 (the paper's VECAMPFIT_VECTOR4):
# Lorentz four-vectors over the L = VECTOR_LENGTH lanes of a block.
#
# A block of four-vectors is a plain ``floating`` array of 4 * VECTOR_LENGTH
# values, component-major: component c (0 = px, 1 = py, 2 = pz, 3 = E) of
# lane i is p[c * VECTOR_LENGTH + i].  Its first 3 * VECTOR_LENGTH values are
# a vector3 block (the spatial part), so the routines of vecampfit/vector3.pxd
# (angles, dot products, norms) apply to it directly.  Metric (+, -, -, -):
# p.q = E_p E_q - p.q (spatial).  Units: GeV.  Output blocks may alias input
# blocks.  Nothing here raises: the mass of a space-like vector is
# -sqrt(-m^2) (ROOT's convention); boosting into the rest frame of a vector
# that is not time-like gives NaN or infinities.

from cython cimport floating

from vecampfit.block cimport VECTOR_LENGTH
from vecampfit._libm cimport _sqrt


cdef inline void add(floating *out, const floating *a, const floating *b) noexcept nogil:
    """out = a + b."""
    cdef int i
    for i in range(4 * VECTOR_LENGTH):
        out[i] = a[i] + b[i]


cdef inline void subtract(floating *out, const floating *a, const floating *b) noexcept nogil:
    """out = a - b."""
    cdef int i
    for i in range(4 * VECTOR_LENGTH):
        out[i] = a[i] - b[i]


cdef inline void dot(floating *out, const floating *a, const floating *b) noexcept nogil:
    """out = a.b = Ea Eb - ax bx - ay by - az bz (Minkowski product)."""
    cdef int i
    cdef int L = VECTOR_LENGTH
    for i in range(VECTOR_LENGTH):
        out[i] = (a[3 * L + i] * b[3 * L + i] - a[i] * b[i] - a[L + i] * b[L + i]
                  - a[2 * L + i] * b[2 * L + i])


cdef inline void mass_squared(floating *out, const floating *a) noexcept nogil:
    """out = m^2 = E^2 - |p|^2."""
    dot(out, a, a)


cdef inline void mass(floating *out, const floating *a) noexcept nogil:
    """out = m = sqrt(E^2 - |p|^2); -sqrt(|p|^2 - E^2) for a space-like vector."""
    cdef int i
    cdef int L = VECTOR_LENGTH
    cdef floating m2
    for i in range(VECTOR_LENGTH):
        m2 = (a[3 * L + i] * a[3 * L + i] - a[i] * a[i] - a[L + i] * a[L + i]
              - a[2 * L + i] * a[2 * L + i])
        out[i] = _sqrt(m2) if m2 >= 0 else -_sqrt(-m2)


cdef inline void invariant_mass_squared(floating *out, const floating *a, const floating *b) noexcept nogil:
    """out = (a + b)^2, the squared invariant mass of a pair."""
    cdef int i
    cdef int L = VECTOR_LENGTH
    cdef floating x, y, z, e
    for i in range(VECTOR_LENGTH):
        x = a[i] + b[i]
        y = a[L + i] + b[L + i]
        z = a[2 * L + i] + b[2 * L + i]
        e = a[3 * L + i] + b[3 * L + i]
        out[i] = e * e - x * x - y * y - z * z


cdef inline void momentum(floating *out, const floating *a) noexcept nogil:
    """out = |p| (spatial momentum)."""
    cdef int i
    cdef int L = VECTOR_LENGTH
    for i in range(VECTOR_LENGTH):
        out[i] = _sqrt(a[i] * a[i] + a[L + i] * a[L + i] + a[2 * L + i] * a[2 * L + i])


cdef inline void _boost_frame(floating *out, const floating *p, const floating *f,
                              floating sign) noexcept nogil:
    """The boosts into (sign = -1) and out of (sign = +1) the rest frame of f.

    With M = sqrt(f^2) and s = sign: E' = (E_f E + s f.p) / M and
    p' = p + s f (E + E') / (E_f + M).  The products with s f are exact, so
    each is the expression written out with - or +.
    """
    cdef int i
    cdef int L = VECTOR_LENGTH
    cdef floating fx, fy, fz, fe, m, e, es, c
    for i in range(VECTOR_LENGTH):
        fx = f[i]
        fy = f[L + i]
        fz = f[2 * L + i]
        fe = f[3 * L + i]
        m = _sqrt(fe * fe - fx * fx - fy * fy - fz * fz)
        e = p[3 * L + i]
        es = (fe * e + sign * fx * p[i] + sign * fy * p[L + i] + sign * fz * p[2 * L + i]) / m
        c = (e + es) / (fe + m)
        out[i] = p[i] + sign * fx * c
        out[L + i] = p[L + i] + sign * fy * c
        out[2 * L + i] = p[2 * L + i] + sign * fz * c
        out[3 * L + i] = es


cdef inline void boost_to_rest_frame(floating *out, const floating *p, const floating *f) noexcept nogil:
    """out = p in the rest frame of f (axes kept: a pure boost).

    With M = sqrt(f^2): E* = (E_f E - f.p) / M and p* = p - f (E + E*) / (E_f + M),
    where f.p is the spatial product.  NaN or infinities unless f is time-like
    with E_f > 0.
    """
    _boost_frame(out, p, f, -1)


cdef inline void boost_from_rest_frame(floating *out, const floating *p, const floating *f) noexcept nogil:
    """out = p given in the rest frame of f, transformed to the frame in which f is given.

    The inverse of boost_to_rest_frame: E' = (E_f E + f.p) / M and
    p' = p + f (E + E') / (E_f + M), M = sqrt(f^2).
    """
    _boost_frame(out, p, f, 1)


cdef inline void boost(floating *out, const floating *p, const floating *beta) noexcept nogil:
    """out = Lambda(beta) p: the boost that gives a particle at rest the velocity beta.

    beta is a vector3 block (|beta| < 1).  With gamma = 1/sqrt(1 - beta^2):
    E' = gamma (E + beta.p), p' = p + beta [gamma^2/(gamma + 1) beta.p + gamma E].
    """
    cdef int i
    cdef int L = VECTOR_LENGTH
    cdef floating bx, by, bz, b2, g, bp, e, c
    for i in range(VECTOR_LENGTH):
        bx = beta[i]
        by = beta[L + i]
        bz = beta[2 * L + i]
        b2 = bx * bx + by * by + bz * bz
        g = 1 / _sqrt(1 - b2)
        bp = bx * p[i] + by * p[L + i] + bz * p[2 * L + i]
        e = p[3 * L + i]
        c = g * g / (g + 1) * bp + g * e
        out[i] = p[i] + bx * c
        out[L + i] = p[L + i] + by * c
        out[2 * L + i] = p[2 * L + i] + bz * c
        out[3 * L + i] = g * (e + bp)
