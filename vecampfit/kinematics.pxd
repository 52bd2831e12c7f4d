# Block routines of vecampfit.kinematics (the paper's
# VECAMPFIT_KINEMATICS_VECTOR_#LENGTH#): covariant factor, two-body decay
# momentum (and its derivative with respect to the parent mass), complex two-body phase-space factor, momentum analytic
# continuation, Dalitz-plot routines.
#
# Real vectors are ``floating`` arrays of L = VECTOR_LENGTH values; complex
# vectors are ``complex_vector``; masses that are the same for all lanes are
# scalars.  Units: GeV (masses, momenta), GeV^2 (squared masses, s).
# Nothing here raises: where a routine is undefined (a momentum below
# threshold, a point outside the Dalitz plot) the result is NaN, as noted per
# routine; the complex routines continue analytically instead.
#
# Thresholds.  Differences such as m0 - (m1 + m2) or s - (m1 + m2)^2 vanish at
# threshold, where the rounding of m1 + m2 or (m1 + m2)^2 alone would decide
# the result.  They are therefore taken with the sum carried exactly (an
# error-free two-sum per lane) or with (m1 +- m2)^2, m0^2 - m3^2, ... held
# as unevaluated sums hi + lo (computed once per call, double-double in
# float64 and from float64 in float32), so that the differences keep their
# relative accuracy down to threshold: decay momenta, phase-space factors and
# Dalitz limits are accurate to a few ulps for masses between about 1e-150
# and 1e150 GeV (1e-18 and 1e18 in float32), however close to threshold.

from cython cimport floating
from libc.math cimport M_PI, sqrt

from vecampfit._libm cimport _copysign, _fabs, _sqrt

from vecampfit.block cimport (
    VECTOR_LENGTH, complex_vector, complex_vector_float32, complex_vector_float64,
)
from vecampfit.mathematical_functions cimport _two_product64


cdef inline void complex_sqrt_scalar(floating x, floating y, floating *re, floating *im) noexcept nogil:
    """Principal square root of x + i y (cut along the negative real axis; the
    sign of a zero imaginary part selects the side of the cut, as C99 csqrt)."""
    cdef floating r = _sqrt(x * x + y * y)
    cdef floating t
    if x >= 0:
        t = _sqrt((r + x) * <floating>0.5)
        re[0] = t
        im[0] = y / (2 * t) if t != 0 else y
    else:
        t = _sqrt((r - x) * <floating>0.5)
        re[0] = _fabs(y) / (2 * t)
        im[0] = _copysign(t, y)


# ---------------------------------------------------------------------------
# Exact sums and products of sums (threshold differences)
# ---------------------------------------------------------------------------

cdef inline floating _k_two_sum(floating a, floating b, floating *err) noexcept nogil:
    """fl(a + b); err = a + b - fl(a + b) exactly (Knuth's two-sum, any order of a, b)."""
    cdef floating s = a + b
    cdef floating bb = s - a
    err[0] = (a - (s - bb)) + (b - bb)
    return s


cdef inline void _k_pair_product(floating a, floating b, floating c, floating d, floating *hi,
                                 floating *lo) noexcept nogil:
    """(a + b)(c + d) = hi + lo, to about 2^-100 (float64) or 2^-48 (float32) relative."""
    cdef double x, p, pe, s1, e1, s2, e2, t
    if floating is float:
        x = (<double>a + <double>b) * (<double>c + <double>d)
        hi[0] = <float>x
        lo[0] = <float>(x - <double>hi[0])
    else:
        s1 = _k_two_sum(a, b, &e1)
        s2 = _k_two_sum(c, d, &e2)
        p, pe = _two_product64(s1, s2)
        t = pe + ((s1 * e2 + e1 * s2) + e1 * e2)
        hi[0] = p + t
        lo[0] = (p - hi[0]) + t


cdef inline void _k_threshold_pairs_s(floating m1s, floating m2s, floating *ah, floating *al,
                                      floating *bh, floating *bl) noexcept nogil:
    """(sqrt(m1s) + sqrt(m2s))^2 = ah + al and (sqrt(m1s) - sqrt(m2s))^2 = bh + bl,
    i.e. m1s + m2s +- 2 m1 m2, with m1 = sqrt(m1s), m2 = sqrt(m2s) and their
    product carried to double-double (no intermediate beyond m1s, m2s); float32
    works in float64, where m1s m2s is exact."""
    cdef double m1, m2, x, e1, e2, r, rl, rr, rre, sh, se, t, te
    if floating is float:
        # m1s m2s is exact in float64, so equal masses give 4 m1s exactly.
        r = sqrt(<double>m1s * <double>m2s)
        x = (<double>m1s + <double>m2s) + 2.0 * r
        ah[0] = <float>x
        al[0] = <float>(x - <double>ah[0])
        # (m1 - m2)^2 = (m1s - m2s)^2 / (m1 + m2)^2 without cancellation (m1s - m2s
        # is exact in float64); 0 when both masses vanish.
        x = (<double>m1s - <double>m2s) * (<double>m1s - <double>m2s) / x if x > 0 else 0.0
        bh[0] = <float>x
        bl[0] = <float>(x - <double>bh[0])
    else:
        # m1 + e1 = sqrt(m1s) to double-double: e1 = (m1s - m1^2) / (2 m1).
        m1 = sqrt(m1s)
        e1 = 0.0
        if m1 > 0:
            rr, rre = _two_product64(m1, m1)
            e1 = ((m1s - rr) - rre) / (2.0 * m1)
        m2 = sqrt(m2s)
        e2 = 0.0
        if m2 > 0:
            rr, rre = _two_product64(m2, m2)
            e2 = ((m2s - rr) - rre) / (2.0 * m2)
        r, rl = _two_product64(m1, m2)
        rl = rl + (m1 * e2 + e1 * m2)
        sh = _k_two_sum(m1s, m2s, &se)
        t = _k_two_sum(sh, 2.0 * r, &te)
        te = te + (se + 2.0 * rl)
        ah[0] = t + te
        al[0] = (t - ah[0]) + te
        t = _k_two_sum(sh, -2.0 * r, &te)
        te = te + (se - 2.0 * rl)
        bh[0] = t + te
        bl[0] = (t - bh[0]) + te


# ---------------------------------------------------------------------------
# Covariant factor and two-body decay momentum
# ---------------------------------------------------------------------------

cdef inline void covariant_factor(floating *out, const floating *m12, floating m0,
                                  floating m3) noexcept nogil:
    """out = f = sqrt(1 + y^2) = (m0^2 + m12^2 - m3^2) / (2 m12 m0) (paper eq. covariant_factor).

    Decay chain 0 -> R + 3, R -> 1 + 2, m12 the invariant mass of R (vector).
    """
    cdef int i
    cdef floating c = m0 * m0 - m3 * m3
    cdef floating h = 1 / (2 * m0)
    for i in range(VECTOR_LENGTH):
        out[i] = (c + m12[i] * m12[i]) * h / m12[i]


cdef inline floating decay_momentum_squared_scalar(floating m0, floating m1, floating m2) noexcept nogil:
    """q^2 = (m0^2 - (m1 + m2)^2)(m0^2 - (m1 - m2)^2) / (4 m0^2); negative below threshold.

    Evaluated as [(m0 - m1 - m2)(m0 + m1 + m2) / (2 m0)] [(m0 - m1 + m2)(m0 + m1 - m2) / (2 m0)]
    with m1 +- m2 carried exactly (two-sum), so that the factors that vanish at
    threshold and pseudothreshold keep their relative accuracy, and no
    intermediate is larger than about m0^2.
    """
    cdef floating spl, dml
    cdef floating sp = _k_two_sum(m1, m2, &spl)
    cdef floating dm = _k_two_sum(m1, -m2, &dml)
    cdef floating h = 1 / (2 * m0)
    return (((m0 - sp) - spl) * ((m0 + sp) + spl) * h) * (((m0 - dm) - dml) * ((m0 + dm) + dml) * h)


cdef inline floating decay_momentum_scalar(floating m0, floating m1, floating m2) noexcept nogil:
    """q = sqrt((m0^2 - (m1 + m2)^2)(m0^2 - (m1 - m2)^2)) / (2 m0) (paper eq. decay_momentum).

    The square root of decay_momentum_squared_scalar; NaN below threshold (m0 < m1 + m2).
    """
    return _sqrt(decay_momentum_squared_scalar(m0, m1, m2))


cdef inline void decay_momentum(floating *out, const floating *m0, const floating *m1,
                                const floating *m2) noexcept nogil:
    """out = q(m0, m1, m2), the momentum of 1 and 2 in the rest frame of 0 -> 1 + 2.

    All three masses are vectors; NaN below threshold.
    """
    cdef int i
    for i in range(VECTOR_LENGTH):
        out[i] = decay_momentum_scalar(m0[i], m1[i], m2[i])


cdef inline void decay_momentum_squared(floating *out, const floating *m0, const floating *m1,
                                        const floating *m2) noexcept nogil:
    """out = q^2(m0, m1, m2), negative below threshold (analytic continuation of q^2)."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        out[i] = decay_momentum_squared_scalar(m0[i], m1[i], m2[i])


cdef inline void decay_momentum_gradient_scalar(floating m0, floating m1, floating m2, floating *q,
                                                floating *dq_dm0) noexcept nogil:
    """q(m0, m1, m2) and its derivative with respect to the parent mass m0.

    dq/dm0 = E1 E2 / (m0 q) = (m0^4 - (m1^2 - m2^2)^2) / (4 m0^3 q), with the
    daughters' energies in the parent's rest frame
    E1 = ((m0 - m2)(m0 + m2) + m1^2) / (2 m0), E2 = ((m0 - m1)(m0 + m1) + m2^2) / (2 m0),
    sums of non-negative terms above threshold (no cancellation near it).
    NaN below threshold (m0 < m1 + m2); at threshold q = 0 and dq/dm0 = +inf,
    except with a massless daughter (m1 = 0: E1 = q, q = (m0^2 - m2^2) / (2 m0)),
    where dq/dm0 = (m0^2 + m2^2) / (2 m0^2) is 1 at threshold.
    """
    cdef floating qq = decay_momentum_scalar(m0, m1, m2)
    cdef floating h = 1 / (2 * m0)
    cdef floating e1 = ((m0 - m2) * (m0 + m2) + m1 * m1) * h
    cdef floating e2 = ((m0 - m1) * (m0 + m1) + m2 * m2) * h
    q[0] = qq
    # 0 / 0 at threshold with a massless daughter: the limit is 1.
    dq_dm0[0] = <floating>1 if (qq == 0 and (m1 == 0 or m2 == 0)) else e1 * e2 / (m0 * qq)


cdef inline void decay_momentum_gradient(floating *out, floating *dq_dm0, const floating *m0,
                                         const floating *m1, const floating *m2) noexcept nogil:
    """out = q(m0, m1, m2) and dq_dm0 = dq/dm0 (see decay_momentum_gradient_scalar).

    All three masses are vectors; NaN below threshold, dq/dm0 = +inf at threshold
    (1 with a massless daughter).
    """
    cdef int i
    cdef floating qq, dq
    for i in range(VECTOR_LENGTH):
        decay_momentum_gradient_scalar(m0[i], m1[i], m2[i], &qq, &dq)
        out[i] = qq
        dq_dm0[i] = dq


cdef inline void decay_momentum_s(floating *out, const floating *s, floating m1s,
                                  floating m2s) noexcept nogil:
    """out = q from squared masses: s = m0^2 (vector), m1s = m1^2, m2s = m2^2 (scalars).

    q = sqrt((s - (m1 + m2)^2)(s - (m1 - m2)^2) / (4 s)); NaN below threshold.
    """
    cdef int i
    cdef floating ah, al, bh, bl
    _k_threshold_pairs_s(m1s, m2s, &ah, &al, &bh, &bl)
    for i in range(VECTOR_LENGTH):
        out[i] = _sqrt(((s[i] - ah) - al) * (((s[i] - bh) - bl) / (4 * s[i])))


cdef inline void decay_momentum_squared_s(floating *out, const floating *s, floating m1s,
                                          floating m2s) noexcept nogil:
    """out = q^2 = (s - (m1 + m2)^2)(s - (m1 - m2)^2) / (4 s); negative below threshold.

    (m1 +- m2)^2 = m1s + m2s +- 2 sqrt(m1s m2s) are carried as hi + lo pairs, so
    that s - (m1 + m2)^2 is accurate down to threshold."""
    cdef int i
    cdef floating ah, al, bh, bl
    _k_threshold_pairs_s(m1s, m2s, &ah, &al, &bh, &bl)
    for i in range(VECTOR_LENGTH):
        out[i] = ((s[i] - ah) - al) * (((s[i] - bh) - bl) / (4 * s[i]))


# ---------------------------------------------------------------------------
# Complex phase-space factor and momentum analytic continuation
# ---------------------------------------------------------------------------

cdef inline void _phase_space_2body_pairs(floating s_re, floating s_im, floating ah, floating al,
                                          floating bh, floating bl, floating *re,
                                          floating *im) noexcept nogil:
    """rho(s) with (m1 + m2)^2 = ah + al and (m1 - m2)^2 = bh + bl."""
    cdef floating ur, ui, vr, vi, wr, wi, d
    # u = i sqrt(-(s - a)); a - s_re and s_re - b keep their accuracy at the thresholds.
    complex_sqrt_scalar((ah - s_re) + al, -s_im, &ur, &ui)
    ur, ui = -ui, ur
    complex_sqrt_scalar((s_re - bh) - bl, s_im, &vr, &vi)
    wr = ur * vr - ui * vi
    wi = ur * vi + ui * vr
    # w / s / (16 pi)
    d = 1 / ((s_re * s_re + s_im * s_im) * <floating>(16 * M_PI))
    re[0] = (wr * s_re + wi * s_im) * d
    im[0] = (wi * s_re - wr * s_im) * d


cdef inline void phase_space_2body_complex_scalar(floating s_re, floating s_im, floating m1,
                                                  floating m2, floating *re,
                                                  floating *im) noexcept nogil:
    """rho(s) = (1 / 16 pi) sqrt((s - (m1 + m2)^2)(s - (m1 - m2)^2)) / s on the physical sheet.

    The square root is taken as i sqrt(-(s - (m1+m2)^2)) * sqrt(s - (m1-m2)^2)
    with principal roots: the unitarity cut runs along real s > (m1 + m2)^2,
    with the physical values (rho > 0) on its upper lip, s + i0 (a real s with
    imaginary part +0.0); the first factor has Im >= 0 everywhere (Im q > 0,
    the physical sheet); below threshold, (m1 - m2)^2 < s < (m1 + m2)^2, rho
    is i |rho| (the analytic continuation of q, see
    momentum_analytic_continuation).  A second cut (pseudothreshold) runs
    along real s < (m1 - m2)^2, and rho has a pole at s = 0 for m1 != m2.
    """
    cdef floating ah, al, bh, bl
    _k_pair_product(m1, m2, m1, m2, &ah, &al)
    _k_pair_product(m1, -m2, m1, -m2, &bh, &bl)
    _phase_space_2body_pairs(s_re, s_im, ah, al, bh, bl, re, im)


cdef inline void phase_space_2body_complex(complex_vector *out, const complex_vector *s,
                                           double m1, double m2) noexcept nogil:
    """out = rho(s) for complex s (vector), on the physical sheet (see the scalar version)."""
    cdef int i
    cdef float ah32, al32, bh32, bl32
    cdef double ah64, al64, bh64, bl64
    if complex_vector is complex_vector_float32:
        _k_pair_product(<float>m1, <float>m2, <float>m1, <float>m2, &ah32, &al32)
        _k_pair_product(<float>m1, -<float>m2, <float>m1, -<float>m2, &bh32, &bl32)
        for i in range(VECTOR_LENGTH):
            _phase_space_2body_pairs(s.re[i], s.im[i], ah32, al32, bh32, bl32,
                                     &out.re[i], &out.im[i])
    else:
        _k_pair_product(m1, m2, m1, m2, &ah64, &al64)
        _k_pair_product(m1, -m2, m1, -m2, &bh64, &bl64)
        for i in range(VECTOR_LENGTH):
            _phase_space_2body_pairs(s.re[i], s.im[i], ah64, al64, bh64, bl64,
                                     &out.re[i], &out.im[i])


cdef inline void phase_space_2body_real_s(complex_vector *out, const floating *s, floating m1,
                                          floating m2) noexcept nogil:
    """out = rho(s + i0) for real s (vector): real above threshold, i |rho| below it."""
    cdef int i
    cdef floating re, im, ah, al, bh, bl
    _k_pair_product(m1, m2, m1, m2, &ah, &al)
    _k_pair_product(m1, -m2, m1, -m2, &bh, &bl)
    for i in range(VECTOR_LENGTH):
        _phase_space_2body_pairs(s[i], 0, ah, al, bh, bl, &re, &im)
        out.re[i] = re
        out.im[i] = im


cdef inline void momentum_analytic_continuation_scalar(floating m0, floating m1, floating m2,
                                                       floating *re, floating *im) noexcept nogil:
    """q_cont = q for q^2 >= 0 (m0 >= m1 + m2), i sqrt(-q^2) for q^2 < 0 (below threshold)."""
    cdef floating q2 = decay_momentum_squared_scalar(m0, m1, m2)
    if q2 >= 0:
        re[0] = _sqrt(q2)
        im[0] = 0
    else:
        re[0] = 0
        im[0] = _sqrt(-q2)


cdef inline void momentum_analytic_continuation(complex_vector *out, const floating *m0,
                                                floating m1, floating m2) noexcept nogil:
    """out = q_cont(m0[i], m1, m2): the decay momentum, continued to i |q| below threshold.

    Below the pseudothreshold (m0 < |m1 - m2|) q^2 is positive again and the
    result is real.  Precision: that of m0 (the fused types of out and m0 must match).
    """
    cdef int i
    cdef floating re, im
    for i in range(VECTOR_LENGTH):
        momentum_analytic_continuation_scalar(m0[i], m1, m2, &re, &im)
        out.re[i] = re
        out.im[i] = im


# ---------------------------------------------------------------------------
# Dalitz plot: decay 0 -> 1 + 2 + 3, m12s = m12^2, m23s = m23^2
# ---------------------------------------------------------------------------

cdef inline void _dalitz_constants(floating *k, floating m0, floating m1, floating m2,
                                   floating m3) noexcept nogil:
    """The mass combinations of the Dalitz routines as hi + lo pairs:
    k[0:2] = (m1 + m2)^2, k[2:4] = (m1 - m2)^2, k[4:6] = m1^2 - m2^2,
    k[6:8] = (m0 - m3)^2, k[8:10] = (m0 + m3)^2, k[10:12] = m0^2 - m3^2,
    k[12] = m2^2, k[13] = m3^2."""
    _k_pair_product(m1, m2, m1, m2, &k[0], &k[1])
    _k_pair_product(m1, -m2, m1, -m2, &k[2], &k[3])
    _k_pair_product(m1, -m2, m1, m2, &k[4], &k[5])
    _k_pair_product(m0, -m3, m0, -m3, &k[6], &k[7])
    _k_pair_product(m0, m3, m0, m3, &k[8], &k[9])
    _k_pair_product(m0, -m3, m0, m3, &k[10], &k[11])
    k[12] = m2 * m2
    k[13] = m3 * m3


cdef inline void _dalitz_frame(floating m12s, const floating *k, floating *e2, floating *e3,
                               floating *p2, floating *p3) noexcept nogil:
    """Energies and momenta of 2 and 3 in the (12) rest frame:
    E2* = (m12^2 - m1^2 + m2^2) / (2 m12), E3* = (m0^2 - m3^2 - m12^2) / (2 m12),
    p2* = sqrt((m12^2 - (m1 + m2)^2)(m12^2 - (m1 - m2)^2)) / (2 m12),
    p3* = sqrt(((m0 - m3)^2 - m12^2)((m0 + m3)^2 - m12^2)) / (2 m12),
    each difference taken against a hi + lo pair of _dalitz_constants (accurate
    at the ends of the m12^2 range); NaN momenta outside it.  (The second
    factors are taken in absolute value: inside the range they are not below
    the first ones, and outside it both may be negative, with a positive
    product below the pseudothreshold (m1 - m2)^2.)"""
    cdef floating h = 1 / (2 * _sqrt(m12s))
    e2[0] = ((m12s - k[4]) - k[5]) * h
    e3[0] = ((k[10] - m12s) + k[11]) * h
    p2[0] = _sqrt(((m12s - k[0]) - k[1]) * _fabs((m12s - k[2]) - k[3])) * h
    p3[0] = _sqrt(((k[6] - m12s) + k[7]) * _fabs((k[8] - m12s) + k[9])) * h


cdef inline void _dalitz_range_lane(floating m12s, const floating *k, floating *lo,
                                    floating *hi) noexcept nogil:
    """m23^2 range: m2^2 + m3^2 + 2 (E2* E3* -+ p2* p3*), the lower end as
    m2^2 + m3^2 + 2 (m2^2 p3*^2 + m3^2 E2*^2) / (E2* E3* + p2* p3*) (a sum of
    non-negative terms: no cancellation; 0/0 where E2* E3* = 0 is 0)."""
    cdef floating e2, e3, p2, p3, den, num
    _dalitz_frame(m12s, k, &e2, &e3, &p2, &p3)
    den = e2 * e3 + p2 * p3
    num = k[12] * (p3 * p3) + k[13] * (e2 * e2)
    lo[0] = (k[12] + k[13]) + 2 * (num / (den + <floating>(den == 0)))
    hi[0] = (k[12] + k[13]) + 2 * den


cdef inline void dalitz_m23_squared_range_scalar(floating m12s, floating m0, floating m1,
                                                 floating m2, floating m3, floating *lo,
                                                 floating *hi) noexcept nogil:
    """Range of m23^2 at fixed m12^2 (PDG kinematics review):

    (E2* + E3*)^2 - (p2* +- p3*)^2 with E2*, E3*, p2*, p3* the energies and
    momenta of 2 and 3 in the (12) rest frame, evaluated without cancellation
    (see _dalitz_range_lane), also for massless particles and at the ends of
    the m12^2 range.  NaN outside (m1 + m2)^2 <= m12s <= (m0 - m3)^2.
    """
    cdef floating k[14]
    _dalitz_constants(k, m0, m1, m2, m3)
    _dalitz_range_lane(m12s, k, lo, hi)


cdef inline void dalitz_m23_squared_range(floating *lo, floating *hi, const floating *m12s,
                                          floating m0, floating m1, floating m2,
                                          floating m3) noexcept nogil:
    """lo[i], hi[i] = range of m23^2 at m12^2 = m12s[i]; NaN outside the m12^2 range."""
    cdef int i
    cdef floating a, b
    cdef floating k[14]
    _dalitz_constants(k, m0, m1, m2, m3)
    for i in range(VECTOR_LENGTH):
        _dalitz_range_lane(m12s[i], k, &a, &b)
        lo[i] = a
        hi[i] = b


cdef inline floating _dalitz_inside_lane(floating m12s, floating m23s, const floating *k) noexcept nogil:
    cdef floating lo, hi
    if not (((m12s - k[0]) - k[1]) >= 0 and ((k[6] - m12s) + k[7]) >= 0):
        return 0
    _dalitz_range_lane(m12s, k, &lo, &hi)
    return 1 if (m23s >= lo and m23s <= hi) else 0


cdef inline floating dalitz_inside_scalar(floating m12s, floating m23s, floating m0, floating m1,
                                          floating m2, floating m3) noexcept nogil:
    """1 if (m12^2, m23^2) lies in the kinematic region (boundary included), else 0."""
    cdef floating k[14]
    _dalitz_constants(k, m0, m1, m2, m3)
    return _dalitz_inside_lane(m12s, m23s, k)


cdef inline void dalitz_inside(floating *out, const floating *m12s, const floating *m23s,
                               floating m0, floating m1, floating m2, floating m3) noexcept nogil:
    """out[i] = 1 inside the Dalitz plot (boundary included), 0 outside (and for NaN)."""
    cdef int i
    cdef floating k[14]
    _dalitz_constants(k, m0, m1, m2, m3)
    for i in range(VECTOR_LENGTH):
        out[i] = _dalitz_inside_lane(m12s[i], m23s[i], k)


cdef inline floating _dalitz_cos_helicity_lane(floating m12s, floating m23s, const floating *k) noexcept nogil:
    cdef floating e2, e3, p2, p3
    _dalitz_frame(m12s, k, &e2, &e3, &p2, &p3)
    return ((k[12] + k[13]) + 2 * e2 * e3 - m23s) / (2 * p2 * p3)


cdef inline floating dalitz_cos_helicity_angle_scalar(floating m12s, floating m23s, floating m0,
                                                      floating m1, floating m2,
                                                      floating m3) noexcept nogil:
    """cos theta of particle 1 in the (12) rest frame, relative to the (12) flight direction
    in the rest frame of 0 (that is, to -p3 in the (12) frame):

    cos theta = (m2^2 + m3^2 + 2 E2* E3* - m23^2) / (2 p* p3*),

    E2*, E3* the energies of 2 and 3 and p* = |p1*| = |p2*|, p3* = |p3*| the
    momenta in the (12) rest frame (see _dalitz_frame).  Linear in m23^2: -1
    and +1 at the ends of the m23^2 range (cos theta = +1 at its lower end).
    NaN outside the m12^2 range and at its ends.
    """
    cdef floating k[14]
    _dalitz_constants(k, m0, m1, m2, m3)
    return _dalitz_cos_helicity_lane(m12s, m23s, k)


cdef inline void dalitz_cos_helicity_angle(floating *out, const floating *m12s,
                                           const floating *m23s, floating m0, floating m1,
                                           floating m2, floating m3) noexcept nogil:
    """out[i] = cos theta (see dalitz_cos_helicity_angle_scalar)."""
    cdef int i
    cdef floating k[14]
    _dalitz_constants(k, m0, m1, m2, m3)
    for i in range(VECTOR_LENGTH):
        out[i] = _dalitz_cos_helicity_lane(m12s[i], m23s[i], k)
