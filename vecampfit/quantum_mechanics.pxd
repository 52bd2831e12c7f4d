# Block routines of vecampfit.quantum_mechanics (the paper's
# VECAMPFIT_QUANTUM_MECHANICS): Wigner small-d functions d^j_{m1 m2}(theta).
#
# Angular momenta are passed doubled, as ints, so that half-integers are
# exact: two_j = 2 j, two_m1 = 2 m1, two_m2 = 2 m2 (j = 3/2, m1 = -1/2 is
# two_j = 3, two_m1 = -1).  The angle is passed as the cosine and sine of the
# half angle, cos_half = cos(theta/2) and sin_half = sin(theta/2) (any real
# theta, including negative angles), or, for 0 <= theta <= pi, as cos theta
# (d_function_cos_theta, the helicity-angle cosine of the Dalitz-plot routines).
#
# Convention (Wigner; Rose; the PDG's table of d functions):
#     d^j_{m1 m2}(theta) = <j m1| exp(-i theta J_y) |j m2>
#       = sqrt((j+m1)!(j-m1)!(j+m2)!(j-m2)!)
#         * sum_k (-1)^k cos(theta/2)^(2j+m2-m1-2k) (-sin(theta/2))^(m1-m2+2k)
#                 / ((j-m1-k)! (j+m2-k)! (k+m1-m2)! k!),
# k from max(0, m2 - m1) to min(j - m1, j + m2), the range where every
# factorial has a non-negative argument (the paper prints the limits with a
# typo).  d^1_{10} = -sin(theta)/sqrt(2), d^{1/2}_{1/2,-1/2} = -sin(theta/2).
#
# Two evaluations:
#   d_function_sum         the sum above, as a homogeneous polynomial in
#                          cos^2(theta/2), sin^2(theta/2) (Horner scheme);
#                          its terms alternate in sign and the rounding error
#                          grows with j like the largest term (largest
#                          absolute error over all m1, m2 in double, measured
#                          by tests/test_quantum_mechanics.py and by hand:
#                          about 5 eps at j = 6, 50 eps at j = 10, 2e4 eps at
#                          j = 20);
#   d_function_recurrence  the three-term recurrence in j at fixed m1, m2
#                          (that of the Jacobi polynomials) from the single-
#                          term value at j0 = max(|m1|, |m2|): stable, the
#                          error grows about linearly in j (about 16 eps at
#                          j = 6, 24 eps at j = 10, 50 eps at j = 20).
# d_function and d_function_cos_theta use the sum for
# j <= D_FUNCTION_SUM_MAX_TWO_J / 2 and the recurrence above.  Both work
# for any j whose loops fit in an int; values that underflow (a tiny
# sin(theta/2)^|m1-m2| at large j) come out as 0.
#
# Nothing here raises: invalid quantum numbers (two_j < 0, |two_m| > two_j,
# two_j - two_m odd) give NaN in every lane.  The loops over k and j are
# outside the loops over the lanes, with trip counts that are the same for
# all lanes, so that the lane loops vectorize.

from cython cimport floating
from libc.math cimport NAN, sqrt

from vecampfit._libm cimport _sqrt
from vecampfit.block cimport VECTOR_LENGTH

cdef enum:
    # d_function uses the sum formula up to this 2j, the recurrence above it.
    D_FUNCTION_SUM_MAX_TWO_J = 12


cdef inline bint d_function_valid(int two_j, int two_m1, int two_m2) noexcept nogil:
    """True if j >= 0, |m1| <= j, |m2| <= j and j - m1, j - m2 are integers (doubled arguments)."""
    return (two_j >= 0 and two_m1 <= two_j and -two_m1 <= two_j and two_m2 <= two_j
            and -two_m2 <= two_j and ((two_j + two_m1) & 1) == 0 and ((two_j + two_m2) & 1) == 0)


cdef inline void _d_function_sum_lanes(floating *out, int two_j, int two_m1, int two_m2,
                                       const floating *c, const floating *s, int n) noexcept nogil:
    """The sum formula in n <= VECTOR_LENGTH lanes (valid quantum numbers only).

    With a_k = (-1)^k binom(j+m2, k) binom(j-m2, j-m1-k) and
    R = sqrt((j+m1)!(j-m1)!/((j+m2)!(j-m2)!)), the sum is
        d = (-1)^(m1-m2) R c^(2j+m2-m1-2 kmax) s^(m1-m2+2 kmin)
            * sum_{t=0}^{K} a_{kmin+t} (c^2)^(K-t) (s^2)^t,   K = kmax - kmin.
    The binomials are exact integers in double while they stay below 2^53.
    """
    cdef int jpm1 = (two_j + two_m1) // 2
    cdef int jmm1 = (two_j - two_m1) // 2
    cdef int jpm2 = (two_j + two_m2) // 2
    cdef int jmm2 = (two_j - two_m2) // 2
    cdef int dm = jpm1 - jpm2
    cdef int kmin = 0 if dm >= 0 else -dm
    cdef int kmax = jmm1 if jmm1 < jpm2 else jpm2
    cdef int pc = jpm2 + jmm1 - 2 * kmax
    cdef int ps = dm + 2 * kmin
    cdef int t, i, k
    cdef double r2 = 1, b1 = 1, b2 = 1, a
    cdef floating fa
    cdef floating h[VECTOR_LENGTH]
    cdef floating y[VECTOR_LENGTH]
    cdef floating c2[VECTOR_LENGTH]
    cdef floating s2[VECTOR_LENGTH]
    # R^2 as a product of |m1 - m2| ratios of moderate size.
    if dm >= 0:
        for t in range(1, dm + 1):
            r2 *= <double>(jpm2 + t) / (jmm1 + t)
    else:
        for t in range(1, -dm + 1):
            r2 *= <double>(jmm2 + t) / (jpm1 + t)
    # b1 = binom(j+m2, kmin), b2 = binom(j-m2, j-m1-kmin)
    for t in range(kmin):
        b1 = b1 * (jpm2 - t) / (t + 1)
    for t in range(jmm1 - kmin):
        b2 = b2 * (jmm2 - t) / (t + 1)
    k = kmin
    a = b1 * b2
    fa = <floating>(-a if k & 1 else a)
    for i in range(n):
        h[i] = fa
        y[i] = 1
        c2[i] = c[i] * c[i]
        s2[i] = s[i] * s[i]
    while k < kmax:
        b1 = b1 * (jpm2 - k) / (k + 1)
        b2 = b2 * (jmm1 - k) / (dm + k + 1)
        k += 1
        a = b1 * b2
        fa = <floating>(-a if k & 1 else a)
        for i in range(n):
            y[i] = y[i] * s2[i]
            h[i] = h[i] * c2[i] + fa * y[i]
    fa = <floating>(-sqrt(r2) if dm & 1 else sqrt(r2))
    for i in range(n):
        h[i] = h[i] * fa
    for t in range(pc):
        for i in range(n):
            h[i] = h[i] * c[i]
    for t in range(ps):
        for i in range(n):
            h[i] = h[i] * s[i]
    for i in range(n):
        out[i] = h[i]


cdef inline void _d_function_recurrence_lanes(floating *out, int two_j, int two_m1, int two_m2,
                                              const floating *c, const floating *s,
                                              const floating *x, int n) noexcept nogil:
    """The recurrence in j in n <= VECTOR_LENGTH lanes (valid quantum numbers only); x = cos theta.

    Start: at j0 = max(|m1|, |m2|) the sum has the single term
        d^{j0} = (-1)^max(0, m1-m2) sqrt(binom(2 j0, |m1-m2|)) c^(2 j0 - |m1-m2|) s^|m1-m2|,
    built factor by factor so that no partial product exceeds 1 (each is
    sqrt(binom(p+t, t)) c^p s^t <= (c^2 + s^2)^((p+t)/2) = 1).  Then, for jj >= j0:
        jj sqrt(((jj+1)^2 - m1^2)((jj+1)^2 - m2^2)) d^{jj+1}
          = (2jj+1) (jj(jj+1) x - m1 m2) d^{jj}
            - (jj+1) sqrt((jj^2 - m1^2)(jj^2 - m2^2)) d^{jj-1},
    whose last term vanishes at jj = j0 (for j0 = 0: d^1_{00} = x, then jj >= 1).
    """
    cdef int two_j0 = two_m1 if two_m1 >= 0 else -two_m1
    cdef int two_am2 = two_m2 if two_m2 >= 0 else -two_m2
    cdef int dm = (two_m1 - two_m2) // 2
    cdef int adm = dm if dm >= 0 else -dm
    cdef int pc, two_jj, t, i
    cdef double m1 = 0.5 * two_m1, m2 = 0.5 * two_m2, jj, den
    cdef floating fa, fb, fc, v
    cdef floating prev[VECTOR_LENGTH]
    cdef floating cur[VECTOR_LENGTH]
    if two_am2 > two_j0:
        two_j0 = two_am2
    pc = two_j0 - adm
    fa = <floating>(-1 if (dm > 0 and dm & 1) else 1)
    for i in range(n):
        cur[i] = fa
        prev[i] = 0
    for t in range(pc):
        for i in range(n):
            cur[i] = cur[i] * c[i]
    for t in range(1, adm + 1):
        fa = <floating>sqrt(<double>(pc + t) / t)
        for i in range(n):
            cur[i] = cur[i] * (s[i] * fa)
    two_jj = two_j0
    if two_j0 == 0 and two_j >= 2:
        for i in range(n):
            prev[i] = cur[i]
            cur[i] = x[i]
        two_jj = 2
    while two_jj < two_j:
        jj = 0.5 * two_jj
        den = 1 / (jj * sqrt(((jj + 1) * (jj + 1) - m1 * m1) * ((jj + 1) * (jj + 1) - m2 * m2)))
        fa = <floating>((2 * jj + 1) * jj * (jj + 1) * den)
        fb = <floating>((2 * jj + 1) * m1 * m2 * den)
        fc = <floating>((jj + 1) * sqrt((jj * jj - m1 * m1) * (jj * jj - m2 * m2)) * den)
        for i in range(n):
            v = (fa * x[i] - fb) * cur[i] - fc * prev[i]
            prev[i] = cur[i]
            cur[i] = v
        two_jj += 2
    for i in range(n):
        out[i] = cur[i]


cdef inline void _d_function_lanes(floating *out, int two_j, int two_m1, int two_m2,
                                   const floating *c, const floating *s, const floating *x,
                                   int n, int method) noexcept nogil:
    """method 0: the sum up to D_FUNCTION_SUM_MAX_TWO_J, the recurrence above; 1: sum; 2: recurrence."""
    cdef int i
    if not d_function_valid(two_j, two_m1, two_m2) or method < 0 or method > 2:
        for i in range(n):
            out[i] = NAN
    elif method == 1 or (method == 0 and two_j <= D_FUNCTION_SUM_MAX_TWO_J):
        _d_function_sum_lanes(out, two_j, two_m1, two_m2, c, s, n)
    else:
        _d_function_recurrence_lanes(out, two_j, two_m1, two_m2, c, s, x, n)


cdef inline void _d_function_half_angle(floating *out, int two_j, int two_m1, int two_m2,
                                        const floating *cos_half, const floating *sin_half,
                                        int method) noexcept nogil:
    cdef floating x[VECTOR_LENGTH]
    cdef int i
    for i in range(VECTOR_LENGTH):
        # cos theta = cos^2(theta/2) - sin^2(theta/2), without cancellation near theta = pi/2
        x[i] = (cos_half[i] - sin_half[i]) * (cos_half[i] + sin_half[i])
    _d_function_lanes(out, two_j, two_m1, two_m2, cos_half, sin_half, x, VECTOR_LENGTH, method)


# ---------------------------------------------------------------------------
# Public routines
# ---------------------------------------------------------------------------

cdef inline floating d_function_scalar(int two_j, int two_m1, int two_m2, floating cos_half,
                                       floating sin_half) noexcept nogil:
    """d^j_{m1 m2}(theta) for one angle: cos_half = cos(theta/2), sin_half = sin(theta/2).

    Doubled quantum numbers; NaN for invalid ones.  Same evaluation as d_function.
    """
    cdef floating x = (cos_half - sin_half) * (cos_half + sin_half)
    cdef floating out
    _d_function_lanes(&out, two_j, two_m1, two_m2, &cos_half, &sin_half, &x, 1, 0)
    return out


cdef inline void d_function(floating *out, int two_j, int two_m1, int two_m2,
                            const floating *cos_half, const floating *sin_half) noexcept nogil:
    """out[i] = d^j_{m1 m2}(theta_i), cos_half[i] = cos(theta_i/2), sin_half[i] = sin(theta_i/2).

    Any real theta_i (negative angles: a negative sin_half).  Doubled quantum
    numbers; NaN in every lane for invalid ones.  The sum formula for
    two_j <= D_FUNCTION_SUM_MAX_TWO_J, the recurrence in j above.
    """
    _d_function_half_angle(out, two_j, two_m1, two_m2, cos_half, sin_half, 0)


cdef inline void d_function_sum(floating *out, int two_j, int two_m1, int two_m2,
                                const floating *cos_half, const floating *sin_half) noexcept nogil:
    """d_function evaluated with the sum formula for every j (accurate for small j only)."""
    _d_function_half_angle(out, two_j, two_m1, two_m2, cos_half, sin_half, 1)


cdef inline void d_function_recurrence(floating *out, int two_j, int two_m1, int two_m2,
                                       const floating *cos_half, const floating *sin_half) noexcept nogil:
    """d_function evaluated with the recurrence in j for every j."""
    _d_function_half_angle(out, two_j, two_m1, two_m2, cos_half, sin_half, 2)


cdef inline void d_function_cos_theta(floating *out, int two_j, int two_m1, int two_m2,
                                      const floating *cos_theta) noexcept nogil:
    """out[i] = d^j_{m1 m2}(theta_i) for 0 <= theta_i <= pi given cos_theta[i] = cos theta_i.

    cos(theta/2) = sqrt((1 + cos theta)/2), sin(theta/2) = sqrt((1 - cos theta)/2);
    cos_theta is clamped to [-1, 1] (a rounding excess gives the endpoint
    value, not NaN).  NaN in every lane for invalid quantum numbers.
    """
    cdef floating c[VECTOR_LENGTH]
    cdef floating s[VECTOR_LENGTH]
    cdef floating x[VECTOR_LENGTH]
    cdef floating v
    cdef int i
    for i in range(VECTOR_LENGTH):
        v = cos_theta[i]
        v = 1 if v > 1 else v
        v = -1 if v < -1 else v
        x[i] = v
        c[i] = _sqrt((1 + v) * <floating>0.5)
        s[i] = _sqrt((1 - v) * <floating>0.5)
    _d_function_lanes(out, two_j, two_m1, two_m2, c, s, x, VECTOR_LENGTH, 0)
