# Block routines of vecampfit.geometry (the paper's
# VECAMPFIT_GEOMETRY_VECTOR_#LENGTH#): the difference of two azimuthal angles.
#
#     cimport vecampfit.geometry as geo
#     geo.azimuthal_angle_difference(dphi, phi1, phi2)
#
# The difference phi1 - phi2 (radians) is reduced to [-PI, PI), PI being the
# floating-point value nearest to pi of the precision (numpy.pi for float64):
# a result that rounds to PI is returned as -PI.  The difference is carried
# exactly (two-sum: phi1 - phi2 = d + dl) and the reduction subtracts k 2 pi
# with a three-part (Cody-Waite) 2 pi, exact for |phi1 - phi2| < 2^26 2 pi
# (about 4.2e8), so that the result is within an ulp of the correctly reduced
# exact difference, whatever the magnitudes of phi1 and phi2; float32 reduces
# in float64 and rounds once.  inf, NaN or a difference beyond 2^26 2 pi
# (where the reduction would not be exact) give NaN.

from cython cimport floating
from libc.math cimport NAN, fabs

from vecampfit.block cimport VECTOR_LENGTH
from vecampfit.mathematical_constants cimport PI_REAL32, PI_REAL64
from vecampfit.mathematical_functions cimport _as_double, _as_uint64, _select64, _select32


cdef inline double _azimuthal_angle_difference64(double phi1, double phi2) noexcept nogil:
    cdef double two_pi = 2.0 * PI_REAL64
    # 2 pi = t1 + t2 + t3: t1 has 26 significant bits, t2 = 2 PI - t1 (27 bits),
    # t3 = 2 (pi - PI) (0x1.1a62633145c07p-52).
    cdef double t1 = _as_double(_as_uint64(two_pi) & 0xFFFFFFFFF8000000ULL)
    cdef double t2 = two_pi - t1
    cdef double t3 = 2.4492935982947064e-16
    # phi1 - phi2 = d + dl exactly (Knuth's two-sum).
    cdef double d = phi1 - phi2
    cdef double bb = d - phi1
    cdef double dl = (phi1 - (d - bb)) + (-phi2 - bb)
    cdef double t = d * (0.5 / PI_REAL64) + 6755399441055744.0
    cdef double k = t - 6755399441055744.0
    # d - k t1 and the subtraction of k t2 are exact; dl and k t3 are small.
    cdef double r = ((d - k * t1) - k * t2) + (dl - k * t3)
    cdef double below = r - two_pi
    r = _select64(r >= PI_REAL64, below, r)
    cdef double above = r + two_pi
    r = _select64(r < -PI_REAL64, above, r)
    return _select64(fabs(d) < 421657428.0, r, NAN)          # 2^26 2 pi = 421657428.27


cdef inline floating azimuthal_angle_difference_scalar(floating phi1, floating phi2) noexcept nogil:
    """phi1 - phi2 reduced to [-PI, PI) (radians)."""
    cdef float r, below
    if floating is float:
        r = <float>_azimuthal_angle_difference64(<double>phi1, <double>phi2)
        # Rounding to float32 may give PI_REAL32 (> pi): map it to -PI_REAL32.
        below = r - 2 * PI_REAL32
        return _select32(r >= PI_REAL32, below, r)
    else:
        return _azimuthal_angle_difference64(phi1, phi2)


cdef inline void azimuthal_angle_difference(floating *out, const floating *phi1,
                                            const floating *phi2) noexcept nogil:
    """out = phi1 - phi2 reduced to [-PI, PI), lane by lane."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        out[i] = azimuthal_angle_difference_scalar(phi1[i], phi2[i])
