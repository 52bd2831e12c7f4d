# Block routines of vecampfit.high_energy_physics (the paper's
# VECAMPFIT_HIGH_ENERGY_PHYSICS_VECTOR_#LENGTH#): Blatt-Weisskopf formfactors,
# covariant factors, Legendre polynomials and Breit-Wigner amplitudes.
#
# Every block routine works on the L = VECTOR_LENGTH lanes of a block; real
# vectors are ``floating`` arrays, complex results are ``complex_vector``.
# Parameters (masses, widths, radii, and what the paper precomputes into
# parameter buffers: 1/q0, 1/F(q0) and their derivatives) are scalars.
# Routines named *_scalar compute one event (the lane body of the block
# routine of the same name): a density that sums several terms calls them
# inside one loop over the lanes, so that every term of an event stays in
# registers and the compiler vectorizes the whole loop.
# Units: GeV for masses, widths and momenta, GeV^-1 for radii.
# Nothing here raises: an orbital angular momentum outside 0..5 (or spin
# outside 0..4 for covariant factors) gives NaN.

from cython cimport floating
from libc.math cimport NAN

from vecampfit._libm cimport _sqrt
from vecampfit.block cimport VECTOR_LENGTH, complex_vector


cdef inline floating _ipow(floating x, int n) noexcept nogil:
    """x**n for 0 <= n <= 11 (NaN otherwise), uniform across lanes.

    Written without a loop: after inlining with a constant n the branches
    fold away and the caller's lane loop vectorizes (a loop here would stay a
    loop under the build's --param=max-completely-peel-times=1).
    """
    cdef floating x2
    if n == 0:
        return 1
    elif n == 1:
        return x
    x2 = x * x
    if n == 2:
        return x2
    elif n == 3:
        return x2 * x
    elif n == 4:
        return x2 * x2
    elif n == 5:
        return x2 * x2 * x
    elif n == 6:
        return x2 * x2 * x2
    elif n == 7:
        return x2 * x2 * x2 * x
    elif n == 8:
        return (x2 * x2) * (x2 * x2)
    elif n == 9:
        return (x2 * x2) * (x2 * x2) * x
    elif n == 10:
        return (x2 * x2) * (x2 * x2) * x2
    elif n == 11:
        return (x2 * x2) * (x2 * x2) * x2 * x
    return NAN


# ---------------------------------------------------------------------------
# Blatt-Weisskopf formfactors
# ---------------------------------------------------------------------------

cdef inline floating blatt_weisskopf_polynomial_scalar(floating x, int l) noexcept nogil:
    """P_l(x), x = z^2 = (q r)^2, with F(q, r, l) = 1 / sqrt(P_l(z^2))."""
    if l == 0:
        return 1
    elif l == 1:
        return x + 1
    elif l == 2:
        return (x + 3) * x + 9
    elif l == 3:
        return ((x + 6) * x + 45) * x + 225
    elif l == 4:
        return (((x + 10) * x + 135) * x + 1575) * x + 11025
    elif l == 5:
        return ((((x + 15) * x + 315) * x + 6300) * x + 99225) * x + 893025
    return NAN


cdef inline floating blatt_weisskopf_polynomial_derivative_scalar(floating x, int l) noexcept nogil:
    """dP_l/dx."""
    if l == 0:
        return 0
    elif l == 1:
        return 1
    elif l == 2:
        return 2 * x + 3
    elif l == 3:
        return (3 * x + 12) * x + 45
    elif l == 4:
        return ((4 * x + 30) * x + 270) * x + 1575
    elif l == 5:
        return (((5 * x + 60) * x + 945) * x + 12600) * x + 99225
    return NAN


cdef inline floating blatt_weisskopf_scalar(floating q, floating r, int l) noexcept nogil:
    """F(q, r, l) = 1 / sqrt(P_l((q r)^2))."""
    return 1 / _sqrt(blatt_weisskopf_polynomial_scalar(q * q * r * r, l))


cdef inline void blatt_weisskopf_inverse_gradient_scalar(
        floating q, floating r, int l, floating *inverse, floating *dinverse_dq,
        floating *dinverse_dr) noexcept nogil:
    """1/F(q, r, l) = sqrt(P_l(z^2)) and its derivatives with respect to q and r.

    For parameter buffers: with q = q0(m0), d(1/F0)/dm0 = dinverse_dq * dq0/dm0.
    """
    cdef floating x = q * q * r * r
    cdef floating s = _sqrt(blatt_weisskopf_polynomial_scalar(x, l))
    cdef floating dp = blatt_weisskopf_polynomial_derivative_scalar(x, l)
    inverse[0] = s
    # d sqrt(P)/dq = P' * 2 q r^2 / (2 sqrt(P)), likewise for r.
    dinverse_dq[0] = dp * q * r * r / s
    dinverse_dr[0] = dp * q * q * r / s


cdef inline void blatt_weisskopf_inverse_gradient_q2_scalar(
        floating q2, floating r, int l, floating *inverse, floating *dinverse_dq2,
        floating *dinverse_dr) noexcept nogil:
    """1/F = sqrt(P_l(q2 r^2)) from the squared momentum, and its derivatives by q2 and r.

    P_l is a polynomial in z^2 = q2 r^2, so this continues 1/F analytically below
    threshold (q2 < 0) while P_l(q2 r^2) > 0 (NaN beyond), with a finite
    derivative at threshold, where dq/dm diverges but dq^2/dm does not.
    """
    cdef floating x = q2 * r * r
    cdef floating s = _sqrt(blatt_weisskopf_polynomial_scalar(x, l))
    cdef floating dp = blatt_weisskopf_polynomial_derivative_scalar(x, l)
    inverse[0] = s
    dinverse_dq2[0] = dp * r * r / (2 * s)
    dinverse_dr[0] = dp * q2 * r / s


cdef inline void blatt_weisskopf(floating *out, const floating *q, floating r, int l) noexcept nogil:
    """out[i] = F(q[i], r, l)."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        out[i] = blatt_weisskopf_scalar(q[i], r, l)


cdef inline void blatt_weisskopf_squared(floating *out, const floating *q, floating r, int l) noexcept nogil:
    """out[i] = F^2(q[i], r, l) = 1 / P_l((q r)^2)."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        out[i] = 1 / blatt_weisskopf_polynomial_scalar(q[i] * q[i] * r * r, l)


cdef inline void blatt_weisskopf_ratio(floating *out, const floating *q, floating r,
                                       floating inverse_f0, int l) noexcept nogil:
    """out[i] = F(q[i]) / F(q0), with inverse_f0 = 1 / F(q0) from the parameter buffer."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        out[i] = blatt_weisskopf_scalar(q[i], r, l) * inverse_f0


cdef inline void blatt_weisskopf_ratio_squared(floating *out, const floating *q, floating r,
                                               floating inverse_f0, int l) noexcept nogil:
    """out[i] = F^2(q[i]) / F^2(q0)."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        out[i] = inverse_f0 * inverse_f0 / blatt_weisskopf_polynomial_scalar(q[i] * q[i] * r * r, l)


cdef inline void blatt_weisskopf_gradient_scalar(floating q, floating r, int l, floating *f,
                                                 floating *df_dr) noexcept nogil:
    """F(q, r, l) and dF/dr = -F P_l'(z^2) q^2 r / P_l(z^2), z = q r, for one event."""
    cdef floating x = q * q * r * r
    cdef floating fq = 1 / _sqrt(blatt_weisskopf_polynomial_scalar(x, l))
    f[0] = fq
    # 1/P_l = F^2: one division fewer.
    df_dr[0] = -fq * fq * fq * blatt_weisskopf_polynomial_derivative_scalar(x, l) * q * q * r


cdef inline void blatt_weisskopf_gradient(floating *out, floating *d_dr, const floating *q,
                                          floating r, int l) noexcept nogil:
    """out[i] = F(q[i], r, l) and d_dr[i] = dF/dr = -F P_l'(z^2) q^2 r / P_l(z^2)."""
    cdef int i
    cdef floating f, df
    for i in range(VECTOR_LENGTH):
        blatt_weisskopf_gradient_scalar(q[i], r, l, &f, &df)
        out[i] = f
        d_dr[i] = df


# ---------------------------------------------------------------------------
# Covariant factors, Legendre polynomials, covariant angular distribution
# ---------------------------------------------------------------------------

cdef inline floating covariant_factor_j_scalar(floating f, int j) noexcept nogil:
    """F_J^(cov) from f = sqrt(1 + y^2) (paper eq. covariant_factor_j); F_0 = 1."""
    cdef floating f2 = f * f
    if j == 0:
        return 1
    elif j == 1:
        return f
    elif j == 2:
        return <floating>0.5 + f2
    elif j == 3:
        return f * (<floating>1.5 + f2)
    elif j == 4:
        return ((8 * f2 + 24) * f2 + 3) / 35
    return NAN


cdef inline void covariant_factor_j(floating *out, const floating *f, int j) noexcept nogil:
    """out[i] = F_J^(cov)(f[i])."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        out[i] = covariant_factor_j_scalar(f[i], j)


cdef inline floating legendre_scalar(floating x, int l) noexcept nogil:
    """Legendre polynomial P_l(x), l = 0..5."""
    cdef floating x2 = x * x
    if l == 0:
        return 1
    elif l == 1:
        return x
    elif l == 2:
        return (3 * x2 - 1) * <floating>0.5
    elif l == 3:
        return (5 * x2 - 3) * x * <floating>0.5
    elif l == 4:
        return ((35 * x2 - 30) * x2 + 3) * <floating>0.125
    elif l == 5:
        return ((63 * x2 - 70) * x2 + 15) * x * <floating>0.125
    return NAN


cdef inline double legendre_laura_factor_scalar(int l) noexcept nogil:
    """(-1)^l 2^(2l) / binom(2l, l): Laura++'s normalization of P_l."""
    if l == 0:
        return 1
    elif l == 1:
        return -2
    elif l == 2:
        return 8.0 / 3.0
    elif l == 3:
        return -16.0 / 5.0
    elif l == 4:
        return 128.0 / 35.0
    elif l == 5:
        return -256.0 / 63.0
    return NAN


cdef inline void legendre(floating *out, const floating *x, int l) noexcept nogil:
    """out[i] = P_l(x[i])."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        out[i] = legendre_scalar(x[i], l)


cdef inline void legendre_laura(floating *out, const floating *x, int l) noexcept nogil:
    """out[i] = (-1)^l 2^(2l) / binom(2l, l) P_l(x[i])."""
    cdef int i
    cdef floating c = <floating>legendre_laura_factor_scalar(l)
    for i in range(VECTOR_LENGTH):
        out[i] = c * legendre_scalar(x[i], l)


cdef inline void covariant_angular_distribution(
        floating *out, const floating *p_star, const floating *q, const floating *f,
        const floating *cos_theta, int l) noexcept nogil:
    """out[i] = (p* q)^l F_l^(cov)(f) P_l^(Leg Laura)(cos theta) (paper section 9.2)."""
    cdef int i
    cdef floating c = <floating>legendre_laura_factor_scalar(l)
    for i in range(VECTOR_LENGTH):
        out[i] = (_ipow(p_star[i] * q[i], l) * covariant_factor_j_scalar(f[i], l)
                  * c * legendre_scalar(cos_theta[i], l))


# ---------------------------------------------------------------------------
# Breit-Wigner amplitudes
# ---------------------------------------------------------------------------
# m0^2 - m^2 is computed as (m0 - m)(m0 + m): near the pole of a narrow
# resonance it is much smaller than m0^2, and the difference of the squares
# would lose the digits that m0 Gamma(m) << m0^2 makes matter.

cdef inline void breit_wigner_constant_width_m(complex_vector *out, const floating *m,
                                               floating m0, floating gamma0) noexcept nogil:
    """out = 1 / (m0^2 - m^2 - i m Gamma0)."""
    cdef int i
    cdef floating a, b, d
    for i in range(VECTOR_LENGTH):
        a = (m0 - m[i]) * (m0 + m[i])
        b = m[i] * gamma0
        d = 1 / (a * a + b * b)
        out.re[i] = a * d
        out.im[i] = b * d


cdef inline void breit_wigner_constant_width_m0(complex_vector *out, const floating *m,
                                                floating m0, floating gamma0) noexcept nogil:
    """out = 1 / (m0^2 - m^2 - i m0 Gamma0)."""
    cdef int i
    cdef floating a, b = m0 * gamma0, d
    for i in range(VECTOR_LENGTH):
        a = (m0 - m[i]) * (m0 + m[i])
        d = 1 / (a * a + b * b)
        out.re[i] = a * d
        out.im[i] = b * d


cdef inline void breit_wigner_general(complex_vector *out, const floating *s, floating m0,
                                      const complex_vector *numerator,
                                      const floating *width_term) noexcept nogil:
    """out = N / (m0^2 - s - i G), N = alpha g_a n_a(m), G = m0 Gamma(m) = sum_b g_b^2 rho_b n_b^2."""
    cdef int i
    cdef floating a, b, d
    for i in range(VECTOR_LENGTH):
        a = m0 * m0 - s[i]
        b = width_term[i]
        d = 1 / (a * a + b * b)
        # N (a + i b) / (a^2 + b^2)
        out.re[i] = (numerator.re[i] * a - numerator.im[i] * b) * d
        out.im[i] = (numerator.re[i] * b + numerator.im[i] * a) * d


cdef inline void _breit_wigner_q_f_lane(
        floating m, floating q, floating m0, floating gamma0, floating inverse_q0,
        floating r, floating inverse_f0, int l, bint phase_space,
        floating *re, floating *im) noexcept nogil:
    """One lane of breit_wigner_q_f(_nophsp)."""
    cdef floating x = q * inverse_q0
    cdef floating p = blatt_weisskopf_polynomial_scalar(q * q * r * r, l)
    # One division serves both R = F(q)/F(q0) = (1/F(q0)) / sqrt(P) =
    # (1/F(q0)) m sqrt(P) u and R^2 / m = (1/F(q0))^2 u, with u = 1 / (P m).
    cdef floating u = 1 / (p * m)
    cdef floating ratio = inverse_f0 * m * _sqrt(p) * u
    cdef floating xl = _ipow(x, l)
    # m0 Gamma(m) = Gamma0 m0^2 x^(2l+1) R^2 / m
    cdef floating b = gamma0 * m0 * m0 * xl * xl * x * (inverse_f0 * inverse_f0 * u)
    cdef floating a = (m0 - m) * (m0 + m)
    cdef floating n = ratio * xl if phase_space else ratio
    cdef floating d = n / (a * a + b * b)
    re[0] = a * d
    im[0] = b * d


cdef inline void breit_wigner_q_f_nophsp_scalar(
        floating m, floating q, floating m0, floating gamma0, floating inverse_q0,
        floating r, floating inverse_f0, int l, floating *re, floating *im) noexcept nogil:
    """re + i im = [F(q)/F(q0)] / (m0^2 - m^2 - i m0 Gamma(m)) for one event.

    The lane body of breit_wigner_q_f_nophsp, for a density that sums several
    resonances inside one loop over the lanes (every term of one event stays
    in registers).  Arguments as in breit_wigner_q_f_nophsp, m and q scalars.
    """
    _breit_wigner_q_f_lane(m, q, m0, gamma0, inverse_q0, r, inverse_f0, l, False, re, im)


cdef inline void breit_wigner_q_f_scalar(
        floating m, floating q, floating m0, floating gamma0, floating inverse_q0,
        floating r, floating inverse_f0, int l, floating *re, floating *im) noexcept nogil:
    """re + i im = (q/q0)^l [F(q)/F(q0)] / (m0^2 - m^2 - i m0 Gamma(m)) for one event
    (the lane body of breit_wigner_q_f)."""
    _breit_wigner_q_f_lane(m, q, m0, gamma0, inverse_q0, r, inverse_f0, l, True, re, im)


cdef inline void breit_wigner_q_f_nophsp(
        complex_vector *out, const floating *m, const floating *q, floating m0,
        floating gamma0, floating inverse_q0, floating r, floating inverse_f0, int l) noexcept nogil:
    """out = [F(q)/F(q0)] / (m0^2 - m^2 - i m0 Gamma(m)) (paper eq. breit_wigner_q_f_nophsp).

    Gamma(m) = Gamma0 (q/q0)^(2l+1) (m0/m) F^2(q)/F^2(q0).  q: breakup momentum at
    m (event buffer); inverse_q0 = 1/q0 and inverse_f0 = 1/F(q0) (parameter buffer).
    """
    cdef int i
    cdef floating re, im
    for i in range(VECTOR_LENGTH):
        breit_wigner_q_f_nophsp_scalar(m[i], q[i], m0, gamma0, inverse_q0, r, inverse_f0, l,
                                       &re, &im)
        out.re[i] = re
        out.im[i] = im


cdef inline void breit_wigner_q_f(
        complex_vector *out, const floating *m, const floating *q, floating m0,
        floating gamma0, floating inverse_q0, floating r, floating inverse_f0, int l) noexcept nogil:
    """out = (q/q0)^l [F(q)/F(q0)] / (m0^2 - m^2 - i m0 Gamma(m)) (paper eq. breit_wigner_q_f)."""
    cdef int i
    cdef floating re, im
    for i in range(VECTOR_LENGTH):
        breit_wigner_q_f_scalar(m[i], q[i], m0, gamma0, inverse_q0, r, inverse_f0, l, &re, &im)
        out.re[i] = re
        out.im[i] = im


cdef inline void breit_wigner_m2(
        floating *out, const floating *m, const floating *q, floating m0, floating gamma0,
        floating inverse_q0, floating r, floating inverse_f0, int l) noexcept nogil:
    """out = (q/q0)^(2l+1) [F^2(q)/F^2(q0)] / ((m0^2 - m^2)^2 + m0^2 Gamma^2(m)) (eq. breit_wigner_m2)."""
    cdef int i
    cdef floating x, xl, r2, a, b, w
    for i in range(VECTOR_LENGTH):
        x = q[i] * inverse_q0
        xl = _ipow(x, l)
        r2 = inverse_f0 * inverse_f0 / blatt_weisskopf_polynomial_scalar(q[i] * q[i] * r * r, l)
        w = xl * xl * x * r2
        a = (m0 - m[i]) * (m0 + m[i])
        b = gamma0 * m0 * m0 * w / m[i]
        out[i] = w / (a * a + b * b)


cdef inline void _breit_wigner_q_f_gradient_lane(
        floating m, floating q, floating m0, floating gamma0, floating inverse_q0,
        floating dinverse_q0_dm0, floating r, floating inverse_f0, floating dinverse_f0_dm0,
        floating dinverse_f0_dr, int l, bint phase_space, floating *re, floating *im,
        floating *dm0_re, floating *dm0_im, floating *dg_re, floating *dg_im,
        floating *dr_re, floating *dr_im) noexcept nogil:
    """One lane of a Breit-Wigner amplitude N/D and its derivatives.

    N = R (no phase space) or x^l R, R = F(q) / F(q0), x = q / q0;
    D = A - i B, A = m0^2 - m^2, B = Gamma0 m0^2 x^(2l+1) R^2 / m.
    d(N/D) = (dN - (N/D) dD) / D.
    """
    cdef floating zq = q * q * r * r
    cdef floating p = blatt_weisskopf_polynomial_scalar(zq, l)
    cdef floating fq = 1 / _sqrt(p)
    # 1/p = fq^2: one division fewer per lane.
    cdef floating dfq_dr = -fq * fq * fq * blatt_weisskopf_polynomial_derivative_scalar(zq, l) * q * q * r
    cdef floating ratio = fq * inverse_f0
    cdef floating dratio_dm0 = fq * dinverse_f0_dm0
    cdef floating dratio_dr = dfq_dr * inverse_f0 + fq * dinverse_f0_dr
    cdef floating x = q * inverse_q0
    cdef floating dx_dm0 = q * dinverse_q0_dm0
    cdef floating xl = _ipow(x, l)
    cdef floating xlm1 = _ipow(x, l - 1) if l > 0 else 0
    cdef floating x2l1 = xl * xl * x
    cdef floating a = (m0 - m) * (m0 + m)
    cdef floating inv_m = 1 / m
    cdef floating g = m0 * m0 * x2l1 * ratio * ratio * inv_m      # dB/dGamma0
    cdef floating b = gamma0 * g
    # dB/dm0 = Gamma0/m [2 m0 x^(2l+1) R^2 + m0^2 (2l+1) x^(2l) x' R^2 + 2 m0^2 x^(2l+1) R R']
    cdef floating db_dm0 = gamma0 * inv_m * (
        2 * m0 * x2l1 * ratio * ratio
        + m0 * m0 * (2 * l + 1) * xl * xl * dx_dm0 * ratio * ratio
        + 2 * m0 * m0 * x2l1 * ratio * dratio_dm0)
    cdef floating db_dr = gamma0 * inv_m * 2 * m0 * m0 * x2l1 * ratio * dratio_dr
    cdef floating n, dn_dm0, dn_dr
    if phase_space:
        n = xl * ratio
        dn_dm0 = xl * dratio_dm0 + (l * xlm1 * dx_dm0 * ratio if l > 0 else 0)
        dn_dr = xl * dratio_dr
    else:
        n = ratio
        dn_dm0 = dratio_dm0
        dn_dr = dratio_dr
    # 1/D = (A + i B) / (A^2 + B^2)
    cdef floating inv_den = 1 / (a * a + b * b)
    cdef floating id_re = a * inv_den
    cdef floating id_im = b * inv_den
    cdef floating v_re = n * id_re
    cdef floating v_im = n * id_im
    re[0] = v_re
    im[0] = v_im
    # dD/dm0 = 2 m0 - i dB/dm0; (N/D) dD = (v_re + i v_im)(dA - i dB)
    cdef floating t_re, t_im
    t_re = dn_dm0 - (v_re * 2 * m0 + v_im * db_dm0)
    t_im = -(v_im * 2 * m0 - v_re * db_dm0)
    dm0_re[0] = t_re * id_re - t_im * id_im
    dm0_im[0] = t_re * id_im + t_im * id_re
    # dD/dGamma0 = -i g
    t_re = -(v_im * g)
    t_im = v_re * g
    dg_re[0] = t_re * id_re - t_im * id_im
    dg_im[0] = t_re * id_im + t_im * id_re
    # dD/dr = -i dB/dr
    t_re = dn_dr - v_im * db_dr
    t_im = v_re * db_dr
    dr_re[0] = t_re * id_re - t_im * id_im
    dr_im[0] = t_re * id_im + t_im * id_re


cdef inline void breit_wigner_q_f_nophsp_gradient_scalar(
        floating m, floating q, floating m0, floating gamma0, floating inverse_q0,
        floating dinverse_q0_dm0, floating r, floating inverse_f0, floating dinverse_f0_dm0,
        floating dinverse_f0_dr, int l, floating *re, floating *im, floating *dm0_re,
        floating *dm0_im, floating *dgamma0_re, floating *dgamma0_im, floating *dr_re,
        floating *dr_im) noexcept nogil:
    """breit_wigner_q_f_nophsp and its derivatives by m0, Gamma0 and r for one event.

    The lane body of breit_wigner_q_f_nophsp_gradient (arguments as there, m
    and q scalars; results as real and imaginary parts), for densities that
    sum several resonances inside one loop over the lanes.
    """
    _breit_wigner_q_f_gradient_lane(
        m, q, m0, gamma0, inverse_q0, dinverse_q0_dm0, r, inverse_f0, dinverse_f0_dm0,
        dinverse_f0_dr, l, False, re, im, dm0_re, dm0_im, dgamma0_re, dgamma0_im, dr_re, dr_im)


cdef inline void breit_wigner_q_f_gradient_scalar(
        floating m, floating q, floating m0, floating gamma0, floating inverse_q0,
        floating dinverse_q0_dm0, floating r, floating inverse_f0, floating dinverse_f0_dm0,
        floating dinverse_f0_dr, int l, floating *re, floating *im, floating *dm0_re,
        floating *dm0_im, floating *dgamma0_re, floating *dgamma0_im, floating *dr_re,
        floating *dr_im) noexcept nogil:
    """breit_wigner_q_f and its derivatives by m0, Gamma0 and r for one event
    (the lane body of breit_wigner_q_f_gradient)."""
    _breit_wigner_q_f_gradient_lane(
        m, q, m0, gamma0, inverse_q0, dinverse_q0_dm0, r, inverse_f0, dinverse_f0_dm0,
        dinverse_f0_dr, l, True, re, im, dm0_re, dm0_im, dgamma0_re, dgamma0_im, dr_re, dr_im)


cdef inline void _breit_wigner_q_f_gradient_block(
        complex_vector *out, complex_vector *d_dm0, complex_vector *d_dgamma0,
        complex_vector *d_dr, const floating *m, const floating *q, floating m0,
        floating gamma0, floating inverse_q0, floating dinverse_q0_dm0, floating r,
        floating inverse_f0, floating dinverse_f0_dm0, floating dinverse_f0_dr,
        int l, bint phase_space) noexcept nogil:
    """The lanes of breit_wigner_q_f_nophsp_gradient (phase_space False) and
    breit_wigner_q_f_gradient (True): _breit_wigner_q_f_gradient_lane per lane."""
    cdef int i
    cdef floating v[8]
    for i in range(VECTOR_LENGTH):
        _breit_wigner_q_f_gradient_lane(
            m[i], q[i], m0, gamma0, inverse_q0, dinverse_q0_dm0, r, inverse_f0,
            dinverse_f0_dm0, dinverse_f0_dr, l, phase_space, &v[0], &v[1], &v[2], &v[3], &v[4],
            &v[5], &v[6], &v[7])
        out.re[i] = v[0]
        out.im[i] = v[1]
        d_dm0.re[i] = v[2]
        d_dm0.im[i] = v[3]
        d_dgamma0.re[i] = v[4]
        d_dgamma0.im[i] = v[5]
        d_dr.re[i] = v[6]
        d_dr.im[i] = v[7]


cdef inline void breit_wigner_q_f_nophsp_gradient(
        complex_vector *out, complex_vector *d_dm0, complex_vector *d_dgamma0,
        complex_vector *d_dr, const floating *m, const floating *q, floating m0,
        floating gamma0, floating inverse_q0, floating dinverse_q0_dm0, floating r,
        floating inverse_f0, floating dinverse_f0_dm0, floating dinverse_f0_dr,
        int l) noexcept nogil:
    """breit_wigner_q_f_nophsp and its derivatives with respect to m0, Gamma0 and r.

    The parameter-buffer values and their derivatives: inverse_q0 = 1/q0(m0),
    dinverse_q0_dm0 = -q0'/q0^2, inverse_f0 = 1/F(q0, r), dinverse_f0_dm0 and
    dinverse_f0_dr (see blatt_weisskopf_inverse_gradient_scalar).  The radius r
    here is the resonance's (in F(q) and F(q0)).
    """
    _breit_wigner_q_f_gradient_block(out, d_dm0, d_dgamma0, d_dr, m, q, m0, gamma0, inverse_q0,
                                     dinverse_q0_dm0, r, inverse_f0, dinverse_f0_dm0, dinverse_f0_dr,
                                     l, False)


cdef inline void breit_wigner_q_f_gradient(
        complex_vector *out, complex_vector *d_dm0, complex_vector *d_dgamma0,
        complex_vector *d_dr, const floating *m, const floating *q, floating m0,
        floating gamma0, floating inverse_q0, floating dinverse_q0_dm0, floating r,
        floating inverse_f0, floating dinverse_f0_dm0, floating dinverse_f0_dr,
        int l) noexcept nogil:
    """breit_wigner_q_f and its derivatives with respect to m0, Gamma0 and r."""
    _breit_wigner_q_f_gradient_block(out, d_dm0, d_dgamma0, d_dr, m, q, m0, gamma0, inverse_q0,
                                     dinverse_q0_dm0, r, inverse_f0, dinverse_f0_dm0, dinverse_f0_dr,
                                     l, True)


# ---------------------------------------------------------------------------
# Flatte distribution
# ---------------------------------------------------------------------------
#
# A(m) = 1 / (m0^2 - m^2 - i m0 (g1 rho1(m) + g2 rho2(m))),  rho_k = 2 q_k / m,
# q_k the decay momentum of channel k at mass m, continued analytically below
# its threshold (q_k = i sqrt(-q_k^2), kinematics.momentum_analytic_continuation):
# there -i m0 g_k rho_k = + m0 g_k 2 |q_k| / m moves the real part of the
# denominator.  g1, g2 in GeV (widths' units).

from vecampfit.kinematics cimport decay_momentum_squared_scalar as _hep_decay_momentum_squared


cdef inline void _flatte_lane(floating m, floating q1_squared, floating q2_squared, floating m0,
                              floating g1, floating g2, floating *re, floating *im) noexcept nogil:
    """One lane of the Flatte amplitude from the squared momenta (negative below threshold)."""
    cdef floating w = 2 * m0 / m
    cdef floating t1 = g1 * w * _sqrt(q1_squared if q1_squared >= 0 else -q1_squared)
    cdef floating t2 = g2 * w * _sqrt(q2_squared if q2_squared >= 0 else -q2_squared)
    # D = a - i b
    cdef floating a = m0 * m0 - m * m + (t1 if q1_squared < 0 else 0) + (t2 if q2_squared < 0 else 0)
    cdef floating b = (t1 if q1_squared >= 0 else 0) + (t2 if q2_squared >= 0 else 0)
    cdef floating d = 1 / (a * a + b * b)
    re[0] = a * d
    im[0] = b * d


cdef inline void flatte(complex_vector *out, const floating *m, const floating *q1_squared,
                        const floating *q2_squared, floating m0, floating g1, floating g2) noexcept nogil:
    """out = 1 / (m0^2 - m^2 - i m0 (g1 rho1 + g2 rho2)), rho_k = 2 q_k / m (Flatte).

    q1_squared, q2_squared: squared decay momenta of the two channels at mass m
    (event buffer; kinematics.decay_momentum_squared, negative below
    threshold, where q_k = i sqrt(-q_k^2)).  m0 (GeV), g1, g2 (GeV).
    """
    cdef int i
    cdef floating re, im
    for i in range(VECTOR_LENGTH):
        _flatte_lane(m[i], q1_squared[i], q2_squared[i], m0, g1, g2, &re, &im)
        out.re[i] = re
        out.im[i] = im


cdef inline void flatte_masses(complex_vector *out, const floating *m, floating m0, floating g1,
                               floating g2, floating m11, floating m12, floating m21,
                               floating m22) noexcept nogil:
    """flatte with the squared momenta computed here: channel 1 -> (m11, m12), channel 2 -> (m21, m22)."""
    cdef int i
    cdef floating re, im
    for i in range(VECTOR_LENGTH):
        _flatte_lane(m[i], _hep_decay_momentum_squared(m[i], m11, m12),
                     _hep_decay_momentum_squared(m[i], m21, m22), m0, g1, g2, &re, &im)
        out.re[i] = re
        out.im[i] = im


# ---------------------------------------------------------------------------
# K-matrix (paper section "Physical subprograms"; Chung et al.)
# ---------------------------------------------------------------------------
#
#   K_ab = b_ab + sum_R g_a g_b / (m_R^2 - s),   P_a = a_a + sum_R A_R g_a / (m_R^2 - s),
#   A = n [I - i K rho n^2]^-1 P,
# rho = diag(rho_a) the phase-space factors (kinematics.phase_space_2body_real_s
# gives rho(s + i0): real above threshold, i |rho| below, the analytic
# continuation), n = diag(n_a), n_a = (q_a/q0_a)^L F(q_a)/F(q0_a)
# (k_matrix_n_factor, continued below threshold).  One channel: scalars per
# lane; two channels: K as three real vectors k11, k12 = k21, k22 (K real
# symmetric), P as two complex vectors, the matrix I - i K rho n^2 as a
# linear_algebra complex_matrix_2x2.  The "add pole" routines add to their
# outputs: start from the non-resonant parts b and a.  Units: s, m_R^2 in
# GeV^2, g in GeV (K dimensionless), A_R in the units of P times GeV.

cimport cython

from vecampfit.linear_algebra cimport (
    complex_matrix_2x2, complex_matrix_2x2_float32, complex_matrix_2x2_float64,
    solve as _hep_la_solve,
)


cdef inline void k_matrix_add_pole_1(floating *k11, const floating *s, floating m_pole,
                                     floating g) noexcept nogil:
    """k11 += g^2 / (m_pole^2 - s): one pole of a one-channel K-matrix."""
    cdef int i
    cdef floating c = g * g, mp2 = m_pole * m_pole
    for i in range(VECTOR_LENGTH):
        k11[i] = k11[i] + c / (mp2 - s[i])


cdef inline void k_matrix_add_pole_2(floating *k11, floating *k12, floating *k22, const floating *s,
                                     floating m_pole, floating g1, floating g2) noexcept nogil:
    """K_ab += g_a g_b / (m_pole^2 - s): one pole of a two-channel K-matrix (k21 = k12)."""
    cdef int i
    cdef floating t, mp2 = m_pole * m_pole
    cdef floating c11 = g1 * g1, c12 = g1 * g2, c22 = g2 * g2
    for i in range(VECTOR_LENGTH):
        t = 1 / (mp2 - s[i])
        k11[i] = k11[i] + c11 * t
        k12[i] = k12[i] + c12 * t
        k22[i] = k22[i] + c22 * t


cdef inline void p_vector_add_pole_1(complex_vector *p1, const floating *s, floating m_pole,
                                     floating production_re, floating production_im,
                                     floating g) noexcept nogil:
    """p1 += A_R g / (m_pole^2 - s), A_R = production_re + i production_im."""
    cdef int i
    cdef floating t, mp2 = m_pole * m_pole
    cdef floating cr = production_re * g, ci = production_im * g
    for i in range(VECTOR_LENGTH):
        t = 1 / (mp2 - s[i])
        p1.re[i] = p1.re[i] + cr * t
        p1.im[i] = p1.im[i] + ci * t


cdef inline void p_vector_add_pole_2(complex_vector *p1, complex_vector *p2, const floating *s,
                                     floating m_pole, floating production_re,
                                     floating production_im, floating g1, floating g2) noexcept nogil:
    """P_a += A_R g_a / (m_pole^2 - s), a = 1, 2."""
    cdef int i
    cdef floating t, mp2 = m_pole * m_pole
    cdef floating c1r = production_re * g1, c1i = production_im * g1
    cdef floating c2r = production_re * g2, c2i = production_im * g2
    for i in range(VECTOR_LENGTH):
        t = 1 / (mp2 - s[i])
        p1.re[i] = p1.re[i] + c1r * t
        p1.im[i] = p1.im[i] + c1i * t
        p2.re[i] = p2.re[i] + c2r * t
        p2.im[i] = p2.im[i] + c2i * t


cdef inline void k_matrix_p_vector_add_pole_1(floating *k11, complex_vector *p1, const floating *s,
                                              floating m_pole, floating production_re,
                                              floating production_im, floating g) noexcept nogil:
    """k_matrix_add_pole_1 and p_vector_add_pole_1 for the same pole, with one division per lane."""
    cdef int i
    cdef floating t, mp2 = m_pole * m_pole
    cdef floating c = g * g, cr = production_re * g, ci = production_im * g
    for i in range(VECTOR_LENGTH):
        t = 1 / (mp2 - s[i])
        k11[i] = k11[i] + c * t
        p1.re[i] = p1.re[i] + cr * t
        p1.im[i] = p1.im[i] + ci * t


cdef inline void k_matrix_p_vector_add_pole_2(floating *k11, floating *k12, floating *k22,
                                              complex_vector *p1, complex_vector *p2,
                                              const floating *s, floating m_pole,
                                              floating production_re, floating production_im,
                                              floating g1, floating g2) noexcept nogil:
    """k_matrix_add_pole_2 and p_vector_add_pole_2 for the same pole, with one division per lane."""
    cdef int i
    cdef floating t, mp2 = m_pole * m_pole
    cdef floating c11 = g1 * g1, c12 = g1 * g2, c22 = g2 * g2
    cdef floating c1r = production_re * g1, c1i = production_im * g1
    cdef floating c2r = production_re * g2, c2i = production_im * g2
    for i in range(VECTOR_LENGTH):
        t = 1 / (mp2 - s[i])
        k11[i] = k11[i] + c11 * t
        k12[i] = k12[i] + c12 * t
        k22[i] = k22[i] + c22 * t
        p1.re[i] = p1.re[i] + c1r * t
        p1.im[i] = p1.im[i] + c1i * t
        p2.re[i] = p2.re[i] + c2r * t
        p2.im[i] = p2.im[i] + c2i * t


cdef inline void k_matrix_n_factor(complex_vector *n, const floating *q_squared, floating inverse_q0,
                                   floating r, floating inverse_f0, int l) noexcept nogil:
    """n = (q/q0)^l F(q, r, l) / F(q0, r, l), continued below threshold.

    q_squared: squared decay momentum of the channel (event buffer; negative
    below threshold, where q = i sqrt(-q^2) and (q/q0)^l = i^l |q/q0|^l);
    F(q) = 1/sqrt(P_l(q^2 r^2)) continues as a polynomial in q^2 (real while
    P_l(q^2 r^2) > 0, NaN beyond; see blatt_weisskopf_inverse_gradient_q2_scalar).
    inverse_q0 = 1/q0, inverse_f0 = 1/F(q0) from the parameter buffer.  l = 0..5
    (NaN otherwise).
    """
    cdef int i
    cdef floating a, mag
    cdef bint below
    # i^l for l = 0, 1, 2, 3 (mod 4)
    cdef floating ph_re = 1 if l % 4 == 0 else (-1 if l % 4 == 2 else 0)
    cdef floating ph_im = 1 if l % 4 == 1 else (-1 if l % 4 == 3 else 0)
    for i in range(VECTOR_LENGTH):
        below = q_squared[i] < 0
        a = _sqrt(-q_squared[i] if below else q_squared[i]) * inverse_q0
        mag = (_ipow(a, l) * inverse_f0
               / _sqrt(blatt_weisskopf_polynomial_scalar(q_squared[i] * r * r, l)))
        n.re[i] = mag * ph_re if below else mag
        n.im[i] = mag * ph_im if below else 0


cdef inline void k_matrix_denominator_1(complex_vector *d, const floating *k11,
                                        const complex_vector *rho1,
                                        const complex_vector *n1) noexcept nogil:
    """d = 1 - i K rho n^2 for one channel (rho, n complex: continued below threshold)."""
    cdef int i
    cdef floating cr, ci, nr, ni
    for i in range(VECTOR_LENGTH):
        nr = n1.re[i]
        ni = n1.im[i]
        # c = rho n^2
        cr = rho1.re[i] * (nr * nr - ni * ni) - rho1.im[i] * (2 * nr * ni)
        ci = rho1.re[i] * (2 * nr * ni) + rho1.im[i] * (nr * nr - ni * ni)
        # 1 - i k c = (1 + k c_im) - i k c_re
        d.re[i] = 1 + k11[i] * ci
        d.im[i] = -k11[i] * cr


cdef inline void k_matrix_denominator_s_wave_1(complex_vector *d, const floating *k11,
                                               const complex_vector *rho1) noexcept nogil:
    """d = 1 - i K rho for one channel (S wave: n = 1)."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        d.re[i] = 1 + k11[i] * rho1.im[i]
        d.im[i] = -k11[i] * rho1.re[i]


cdef inline void _k_matrix_denominator_2_from_c(complex_matrix_2x2 *d, const floating *k11,
                                                const floating *k12, const floating *k22, int i,
                                                floating c1r, floating c1i, floating c2r,
                                                floating c2i) noexcept nogil:
    """Lane i of D = I - i K diag(c1, c2): D_ab = delta_ab - i K_ab c_b."""
    d.m11.re[i] = 1 + k11[i] * c1i
    d.m11.im[i] = -k11[i] * c1r
    d.m12.re[i] = k12[i] * c2i
    d.m12.im[i] = -k12[i] * c2r
    d.m21.re[i] = k12[i] * c1i
    d.m21.im[i] = -k12[i] * c1r
    d.m22.re[i] = 1 + k22[i] * c2i
    d.m22.im[i] = -k22[i] * c2r


cdef inline void k_matrix_denominator_2(complex_matrix_2x2 *d, const floating *k11,
                                        const floating *k12, const floating *k22,
                                        const complex_vector *rho1, const complex_vector *rho2,
                                        const complex_vector *n1,
                                        const complex_vector *n2) noexcept nogil:
    """D = I - i K rho n^2 for two channels: D_ab = delta_ab - i K_ab rho_b n_b^2."""
    cdef int i
    cdef floating c1r, c1i, c2r, c2i, ar, ai, br, bi
    for i in range(VECTOR_LENGTH):
        ar = n1.re[i] * n1.re[i] - n1.im[i] * n1.im[i]
        ai = 2 * n1.re[i] * n1.im[i]
        br = n2.re[i] * n2.re[i] - n2.im[i] * n2.im[i]
        bi = 2 * n2.re[i] * n2.im[i]
        c1r = rho1.re[i] * ar - rho1.im[i] * ai
        c1i = rho1.re[i] * ai + rho1.im[i] * ar
        c2r = rho2.re[i] * br - rho2.im[i] * bi
        c2i = rho2.re[i] * bi + rho2.im[i] * br
        _k_matrix_denominator_2_from_c(d, k11, k12, k22, i, c1r, c1i, c2r, c2i)


cdef inline void k_matrix_denominator_s_wave_2(complex_matrix_2x2 *d, const floating *k11,
                                               const floating *k12, const floating *k22,
                                               const complex_vector *rho1,
                                               const complex_vector *rho2) noexcept nogil:
    """D = I - i K rho for two channels (S wave: n = 1)."""
    cdef int i
    cdef floating c1r, c1i, c2r, c2i
    for i in range(VECTOR_LENGTH):
        c1r = rho1.re[i]
        c1i = rho1.im[i]
        c2r = rho2.re[i]
        c2i = rho2.im[i]
        _k_matrix_denominator_2_from_c(d, k11, k12, k22, i, c1r, c1i, c2r, c2i)


@cython.infer_types(True)
cdef inline void k_matrix_amplitude_s_wave_1(complex_vector *a, const complex_vector *d,
                                             const complex_vector *p1) noexcept nogil:
    """a = P / D for one channel (S wave: n = 1); D from k_matrix_denominator_s_wave_1."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        dr = d.re[i]
        di = d.im[i]
        pr = p1.re[i]
        pim = p1.im[i]
        w = 1 / (dr * dr + di * di)
        a.re[i] = (pr * dr + pim * di) * w
        a.im[i] = (pim * dr - pr * di) * w


@cython.infer_types(True)
cdef inline void k_matrix_amplitude_1(complex_vector *a, const complex_vector *d,
                                      const complex_vector *p1, const complex_vector *n1) noexcept nogil:
    """a = n P / D for one channel; D from k_matrix_denominator_1."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        dr = d.re[i]
        di = d.im[i]
        pr = p1.re[i]
        pim = p1.im[i]
        w = 1 / (dr * dr + di * di)
        xr = (pr * dr + pim * di) * w
        xi = (pim * dr - pr * di) * w
        a.re[i] = n1.re[i] * xr - n1.im[i] * xi
        a.im[i] = n1.re[i] * xi + n1.im[i] * xr


cdef inline void k_matrix_amplitude_s_wave_2(complex_vector *a1, complex_vector *a2,
                                             const complex_matrix_2x2 *d, const complex_vector *p1,
                                             const complex_vector *p2) noexcept nogil:
    """(a1, a2) = D^-1 P for two channels (S wave), by LU decomposition with partial pivoting."""
    _hep_la_solve(a1, a2, d, p1, p2)


@cython.infer_types(True)
cdef inline void k_matrix_amplitude_2(complex_vector *a1, complex_vector *a2,
                                      const complex_matrix_2x2 *d, const complex_vector *p1,
                                      const complex_vector *p2, const complex_vector *n1,
                                      const complex_vector *n2) noexcept nogil:
    """(a1, a2) = n D^-1 P for two channels (LU with partial pivoting); D from k_matrix_denominator_2."""
    cdef int i
    _hep_la_solve(a1, a2, d, p1, p2)
    for i in range(VECTOR_LENGTH):
        x1r = a1.re[i]
        x1i = a1.im[i]
        x2r = a2.re[i]
        x2i = a2.im[i]
        a1.re[i] = n1.re[i] * x1r - n1.im[i] * x1i
        a1.im[i] = n1.re[i] * x1i + n1.im[i] * x1r
        a2.re[i] = n2.re[i] * x2r - n2.im[i] * x2i
        a2.im[i] = n2.re[i] * x2i + n2.im[i] * x2r
