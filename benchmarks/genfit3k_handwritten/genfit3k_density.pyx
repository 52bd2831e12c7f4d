# B+ -> K+ K+ K- signal density of Laura++'s GenFit3K (paper section 9.2),
# written as a user writes a model against vecampfit's .pxd files and
# compiled once per vector length by vecampfit.model_compiler.compile_model;
# float32 and float64 through fused types.
#
# Amplitude (docs/laura_genfit3k.rst documents the conventions):
#     A = n_NR c_NR + sum_R n_R c_R [X_R(13) + X_R(23)],
#     X_R(pair) = B_R(m) (p* q)^L F_L^cov P_L^Laura(cos theta) F_B(p* (F_L^cov)^(1/L)),
# B_R the Breit-Wigner amplitude without phase-space factor
# (high_energy_physics.breit_wigner_q_f_nophsp) with fixed radius r_R,
#     B_R = [F_R(q)/F_R(q0)] / (m0^2 - s - i m0 Gamma(m)),
#     m0 Gamma(m) = Gamma0 m0^2 (q/q0)^(2L+1) F_R(q)^2/F_R(q0)^2 / m.
# Everything but m0 and Gamma0 is fixed, so each pair term separates into
# parts that depend on the event only and parts that depend on the
# parameters only:
#     X_R = (1/F_R(q0)) W / (m0^2 - s - i C G),
#     W = (p* q)^L F_L^cov P_L^Laura F_B F_R(q),   G = q^(2L+1) F_R(q)^2 / m   (event buffer),
#     C = Gamma0 m0^2 / (q0^(2L+1) F_R(q0)^2),     1/F_R(q0)                   (parameter buffer).
# Per event and resonance pair this leaves one division and no square root.
#
# Event buffer (one block): N_EVENT_FIELDS real vectors of L lanes in the
# order of genfit3k_handwritten.EVENT_FIELDS: for the pair (K+_1 K-), then (K+_2 K-),
# s = m^2, then G and W of phi(1020), then G and W of f'2(1525).
#
# Parameters (genfit3k_handwritten.PARAMETER_NAMES): PHI_M, PHI_G, F2_M, F2_G, PHI_RE,
# PHI_IM, F2_RE, F2_IM, NR_RE, NR_IM (GeV; coefficients c = RE + i IM).
#
# Parameter buffer, per resonance: m0^2, C, n c / F_R(q0), n / F_R(q0), and
# the complex constants of the gradient (see fill_parameter_buffer); then
# n_NR c_NR and n_NR.
#
# Constants (passed to the filler): the kaon mass (GeV), the resonances'
# Blatt-Weisskopf radius (GeV^-1) and the per-component normalization
# factors n of phi(1020), f'2(1525) and the non-resonant term
# (vecampfit.isobar.unit_normalization).  Defaults: Laura++'s kaon mass, radius
# 4, n = 1.
from cython cimport floating

from vecampfit.block cimport VECTOR_LENGTH
from vecampfit.fitter.density cimport component_description, model_description
from vecampfit.high_energy_physics cimport blatt_weisskopf_inverse_gradient_scalar
from vecampfit.kinematics cimport decay_momentum_gradient_scalar

# What the fitter reads from this module (genfit3k_handwritten.py holds the same names).
PARAMETERS = ("PHI_M", "PHI_G", "F2_M", "F2_G", "PHI_RE", "PHI_IM", "F2_RE", "F2_IM", "NR_RE",
              "NR_IM")
EVENT_FIELDS = tuple(f"{kind}_{pair}" for pair in ("13", "23")
                     for kind in ("s", "g_phi", "w_phi", "g_f2", "w_f2"))
CONSTANTS = {"M_K": 0.493677, "RESONANCE_RADIUS": 4.0, "N_PHI": 1.0, "N_F2": 1.0, "N_NR": 1.0}

# Event-buffer fields: pair offset + field.
cdef enum:
    EV_PAIR_STRIDE = 5
    EV_S = 0
    EV_G_PHI = 1
    EV_W_PHI = 2
    EV_G_F2 = 3
    EV_W_F2 = 4
    N_EVENT_FIELDS = 10

# Parameters.
cdef enum:
    PAR_PHI_M = 0
    PAR_PHI_G = 1
    PAR_F2_M = 2
    PAR_F2_G = 3
    PAR_PHI_RE = 4
    PAR_PHI_IM = 5
    PAR_F2_RE = 6
    PAR_F2_IM = 7
    PAR_NR_RE = 8
    PAR_NR_IM = 9
    N_PARAMETERS = 10

# Parameter buffer: resonance block (phi at 0, f'2 at PB_STRIDE), then the
# non-resonant block.
cdef enum:
    PB_M0SQ = 0         # m0^2
    PB_C = 1            # Gamma0 m0^2 / (q0^(2L+1) F_R(q0)^2)
    PB_CP_RE = 2        # c' = n c / F_R(q0)
    PB_CP_IM = 3
    PB_NF = 4           # n / F_R(q0): dc'/d(RE c)
    PB_ALPHA_RE = 5     # n c d(1/F_R(q0))/dm0
    PB_ALPHA_IM = 6
    PB_BETA_RE = 7      # -2 m0 c'
    PB_BETA_IM = 8
    PB_GAMMA_RE = 9     # i c' dC/dm0
    PB_GAMMA_IM = 10
    PB_DELTA_RE = 11    # i c' dC/dGamma0
    PB_DELTA_IM = 12
    PB_STRIDE = 16
    PB_NR_RE = 32       # n_NR c_NR
    PB_NR_IM = 33
    PB_NR_N = 34        # n_NR
    PARAMETER_BUFFER_SIZE = 35

# Constants, in the order of CONSTANTS.
cdef enum:
    C_M_K = 0
    C_RADIUS = 1
    C_N_PHI = 2
    C_N_F2 = 3
    C_N_NR = 4
    N_CONSTANTS = 5

# Resonance spins.
cdef int SPIN[2]
SPIN[:] = [1, 2]


cdef inline double _ipow(double x, int n) noexcept nogil:
    cdef double r = 1
    cdef int k
    for k in range(n):
        r *= x
    return r


cdef void _fill_resonance(floating *b, double m0, double gamma0, double cre, double cim,
                          double n, int spin, double mk, double r) noexcept nogil:
    """One resonance block of the parameter buffer (computed in double precision)
    for the kaon mass mk and the radius r."""
    # Breakup momentum of m0 -> K+ K- and its derivative.
    cdef double q0, dq0
    decay_momentum_gradient_scalar(m0, mk, mk, &q0, &dq0)
    cdef double invf0, dinvf0_dq, dinvf0_dr
    blatt_weisskopf_inverse_gradient_scalar(q0, r, spin, &invf0, &dinvf0_dq, &dinvf0_dr)
    cdef double dinvf0 = dinvf0_dq * dq0
    cdef double qpow = _ipow(q0, 2 * spin + 1)
    # C = Gamma0 m0^2 invF0^2 / q0^(2L+1); dC/dGamma0 = C / Gamma0.
    cdef double c_g = m0 * m0 * invf0 * invf0 / qpow
    cdef double c_m = gamma0 * (2 * m0 * invf0 * invf0 / qpow
                                + 2 * m0 * m0 * invf0 * dinvf0 / qpow
                                - (2 * spin + 1) * m0 * m0 * invf0 * invf0 * dq0 / (qpow * q0))
    cdef double cpr = n * cre * invf0, cpi = n * cim * invf0
    b[PB_M0SQ] = m0 * m0
    b[PB_C] = gamma0 * c_g
    b[PB_CP_RE] = cpr
    b[PB_CP_IM] = cpi
    b[PB_NF] = n * invf0
    b[PB_ALPHA_RE] = n * cre * dinvf0
    b[PB_ALPHA_IM] = n * cim * dinvf0
    b[PB_BETA_RE] = -2 * m0 * cpr
    b[PB_BETA_IM] = -2 * m0 * cpi
    # i c' x = (-c'_im x) + i (c'_re x)
    b[PB_GAMMA_RE] = -cpi * c_m
    b[PB_GAMMA_IM] = cpr * c_m
    b[PB_DELTA_RE] = -cpi * c_g
    b[PB_DELTA_IM] = cpr * c_g
    cdef int k
    for k in range(PB_DELTA_IM + 1, PB_STRIDE):
        b[k] = 0


cdef void fill_parameter_buffer(floating *pb, const floating *par,
                                const double *constants) noexcept nogil:
    """Fill the parameter buffer from the parameters and the constants."""
    cdef double mk = constants[C_M_K], r = constants[C_RADIUS]
    _fill_resonance(pb, par[PAR_PHI_M], par[PAR_PHI_G], par[PAR_PHI_RE], par[PAR_PHI_IM],
                    constants[C_N_PHI], SPIN[0], mk, r)
    _fill_resonance(pb + PB_STRIDE, par[PAR_F2_M], par[PAR_F2_G], par[PAR_F2_RE],
                    par[PAR_F2_IM], constants[C_N_F2], SPIN[1], mk, r)
    pb[PB_NR_RE] = constants[C_N_NR] * par[PAR_NR_RE]
    pb[PB_NR_IM] = constants[C_N_NR] * par[PAR_NR_IM]
    pb[PB_NR_N] = constants[C_N_NR]
    for k in range(PB_NR_N + 1, PARAMETER_BUFFER_SIZE):
        pb[k] = 0


cdef inline void _pair_term(floating m0sq, floating c, floating s, floating g, floating w,
                            floating *yr, floating *yi) noexcept nogil:
    """y += W / (m0^2 - s - i C G)  (= W (a + i b) / (a^2 + b^2))."""
    cdef floating a = m0sq - s
    cdef floating b = c * g
    cdef floating t = w / (a * a + b * b)
    yr[0] += a * t
    yi[0] += b * t


cdef inline void _resonance_sum(const floating *ev, const floating *pb, int i, int g_field,
                                int w_field, floating *yr, floating *yi) noexcept nogil:
    """Y = X(13) + X(23) without 1/F_R(q0) for lane i (fields fixed after inlining)."""
    cdef floating m0sq = pb[PB_M0SQ], c = pb[PB_C]
    yr[0] = 0
    yi[0] = 0
    _pair_term(m0sq, c, ev[EV_S * VECTOR_LENGTH + i], ev[g_field * VECTOR_LENGTH + i],
               ev[w_field * VECTOR_LENGTH + i], yr, yi)
    _pair_term(m0sq, c, ev[(EV_PAIR_STRIDE + EV_S) * VECTOR_LENGTH + i],
               ev[(EV_PAIR_STRIDE + g_field) * VECTOR_LENGTH + i],
               ev[(EV_PAIR_STRIDE + w_field) * VECTOR_LENGTH + i], yr, yi)


cdef void signal_density(floating *out, const void *event_block, const floating *params,
                         const void *parameter_buffer) noexcept nogil:
    """S = |A|^2 for the L events of one block (the fitter's density contract)."""
    cdef const floating *ev = <const floating *>event_block
    cdef const floating *pb = <const floating *>parameter_buffer
    cdef const floating *p1 = pb
    cdef const floating *p2 = pb + PB_STRIDE
    cdef floating ar, ai, yr, yi
    cdef int i
    for i in range(VECTOR_LENGTH):
        ar = pb[PB_NR_RE]
        ai = pb[PB_NR_IM]
        _resonance_sum(ev, p1, i, EV_G_PHI, EV_W_PHI, &yr, &yi)
        ar = ar + p1[PB_CP_RE] * yr - p1[PB_CP_IM] * yi
        ai = ai + p1[PB_CP_RE] * yi + p1[PB_CP_IM] * yr
        _resonance_sum(ev, p2, i, EV_G_F2, EV_W_F2, &yr, &yi)
        ar = ar + p2[PB_CP_RE] * yr - p2[PB_CP_IM] * yi
        ai = ai + p2[PB_CP_RE] * yi + p2[PB_CP_IM] * yr
        out[i] = ar * ar + ai * ai


cdef void signal_components(floating *out, const void *event_block, const floating *params,
                            const void *parameter_buffer) noexcept nogil:
    """The component amplitudes without couplings, X_R = (n/F_R(q0)) [X(13) +
    X(23)] of phi(1020) and f'2(1525) and X_NR = n_NR: out[2 k L + i] real
    part, out[(2 k + 1) L + i] imaginary part."""
    cdef const floating *ev = <const floating *>event_block
    cdef const floating *pb = <const floating *>parameter_buffer
    cdef const floating *p1 = pb
    cdef const floating *p2 = pb + PB_STRIDE
    cdef floating yr, yi
    cdef int i, L = VECTOR_LENGTH
    for i in range(VECTOR_LENGTH):
        _resonance_sum(ev, p1, i, EV_G_PHI, EV_W_PHI, &yr, &yi)
        out[i] = p1[PB_NF] * yr
        out[L + i] = p1[PB_NF] * yi
        _resonance_sum(ev, p2, i, EV_G_F2, EV_W_F2, &yr, &yi)
        out[2 * L + i] = p2[PB_NF] * yr
        out[3 * L + i] = p2[PB_NF] * yi
        out[4 * L + i] = pb[PB_NR_N]
        out[5 * L + i] = 0


# ----------------------------------------------------------------------------
# Density with the gradient with respect to every parameter
# ----------------------------------------------------------------------------
#
# With Z = 1/(a - i b), a = m0^2 - s, b = C G, per pair: X = W Z and
#     dX/dm0 = -W Z^2 (2 m0 - i C' G),   dX/dGamma0 = i (dC/dGamma0) G W Z^2,
# so with Y = sum_pairs W Z, T = sum_pairs W Z^2, U = sum_pairs G W Z^2:
#     dA/dm0 = alpha Y + beta T + gamma U,   dA/dGamma0 = delta U,
#     dA/d(RE c) = n/F_R(q0) Y,   dA/d(IM c) = i n/F_R(q0) Y,
# and dS/dp = 2 Re(conj(A) dA/dp).

cdef inline void _pair_term_gradient(floating m0sq, floating c, floating s, floating g,
                                     floating w, floating *y, floating *t,
                                     floating *u) noexcept nogil:
    """Add W Z, W Z^2 and G W Z^2 (complex, [re, im]) for one pair."""
    cdef floating a = m0sq - s
    cdef floating b = c * g
    cdef floating inv = 1 / (a * a + b * b)
    cdef floating zr = a * inv
    cdef floating zi = b * inv
    cdef floating wzr = w * zr
    cdef floating wzi = w * zi
    # W Z^2 = (W Z) Z
    cdef floating tr = wzr * zr - wzi * zi
    cdef floating ti = wzr * zi + wzi * zr
    y[0] += wzr
    y[1] += wzi
    t[0] += tr
    t[1] += ti
    u[0] += g * tr
    u[1] += g * ti


cdef inline void _resonance_terms(const floating *ev, const floating *b, int i, int g_field,
                                  int w_field, floating *y, floating *t, floating *u) noexcept nogil:
    """Y, T and U (complex, [re, im]) of one resonance for lane i."""
    cdef floating m0sq = b[PB_M0SQ], c = b[PB_C]
    y[0] = 0
    y[1] = 0
    t[0] = 0
    t[1] = 0
    u[0] = 0
    u[1] = 0
    _pair_term_gradient(m0sq, c, ev[EV_S * VECTOR_LENGTH + i], ev[g_field * VECTOR_LENGTH + i],
                        ev[w_field * VECTOR_LENGTH + i], y, t, u)
    _pair_term_gradient(m0sq, c, ev[(EV_PAIR_STRIDE + EV_S) * VECTOR_LENGTH + i],
                        ev[(EV_PAIR_STRIDE + g_field) * VECTOR_LENGTH + i],
                        ev[(EV_PAIR_STRIDE + w_field) * VECTOR_LENGTH + i], y, t, u)


cdef inline void _resonance_gradient(const floating *b, int i, const floating *y,
                                     const floating *t, const floating *u, floating ar,
                                     floating ai, floating *grad, int par_m,
                                     int par_re) noexcept nogil:
    """Gradient entries of one resonance for lane i (mass, width, RE and IM of c)."""
    cdef floating dr, di
    # dA/dm0 = alpha Y + beta T + gamma U
    dr = (b[PB_ALPHA_RE] * y[0] - b[PB_ALPHA_IM] * y[1] + b[PB_BETA_RE] * t[0]
          - b[PB_BETA_IM] * t[1] + b[PB_GAMMA_RE] * u[0] - b[PB_GAMMA_IM] * u[1])
    di = (b[PB_ALPHA_RE] * y[1] + b[PB_ALPHA_IM] * y[0] + b[PB_BETA_RE] * t[1]
          + b[PB_BETA_IM] * t[0] + b[PB_GAMMA_RE] * u[1] + b[PB_GAMMA_IM] * u[0])
    grad[par_m * VECTOR_LENGTH + i] = 2 * (ar * dr + ai * di)
    # dA/dGamma0 = delta U
    dr = b[PB_DELTA_RE] * u[0] - b[PB_DELTA_IM] * u[1]
    di = b[PB_DELTA_RE] * u[1] + b[PB_DELTA_IM] * u[0]
    grad[(par_m + 1) * VECTOR_LENGTH + i] = 2 * (ar * dr + ai * di)
    # dA/d(RE c) = nf Y; dA/d(IM c) = i nf Y
    grad[par_re * VECTOR_LENGTH + i] = 2 * b[PB_NF] * (ar * y[0] + ai * y[1])
    grad[(par_re + 1) * VECTOR_LENGTH + i] = 2 * b[PB_NF] * (ai * y[0] - ar * y[1])


cdef void signal_density_gradient(floating *out, floating *gradient, const void *event_block,
                                  const floating *params, const void *parameter_buffer) noexcept nogil:
    """S and dS/dp for every parameter, gradient laid out [N_PARAMETERS][L]."""
    cdef const floating *ev = <const floating *>event_block
    cdef const floating *pb = <const floating *>parameter_buffer
    cdef const floating *p1 = pb
    cdef const floating *p2 = pb + PB_STRIDE
    cdef floating y1[2]
    cdef floating t1[2]
    cdef floating u1[2]
    cdef floating y2[2]
    cdef floating t2[2]
    cdef floating u2[2]
    # The gradient is formed in a local array, which the compiler knows not to
    # overlap the parameter buffer (``gradient`` might: then no lane loop
    # vectorizes), and copied out at the end.
    cdef floating g[N_PARAMETERS * VECTOR_LENGTH]
    cdef floating ar, ai
    cdef int i
    for i in range(VECTOR_LENGTH):
        _resonance_terms(ev, p1, i, EV_G_PHI, EV_W_PHI, y1, t1, u1)
        _resonance_terms(ev, p2, i, EV_G_F2, EV_W_F2, y2, t2, u2)
        ar = (pb[PB_NR_RE] + p1[PB_CP_RE] * y1[0] - p1[PB_CP_IM] * y1[1]
              + p2[PB_CP_RE] * y2[0] - p2[PB_CP_IM] * y2[1])
        ai = (pb[PB_NR_IM] + p1[PB_CP_RE] * y1[1] + p1[PB_CP_IM] * y1[0]
              + p2[PB_CP_RE] * y2[1] + p2[PB_CP_IM] * y2[0])
        out[i] = ar * ar + ai * ai
        _resonance_gradient(p1, i, y1, t1, u1, ar, ai, g, PAR_PHI_M, PAR_PHI_RE)
        _resonance_gradient(p2, i, y2, t2, u2, ar, ai, g, PAR_F2_M, PAR_F2_RE)
        g[PAR_NR_RE * VECTOR_LENGTH + i] = 2 * pb[PB_NR_N] * ar
        g[PAR_NR_IM * VECTOR_LENGTH + i] = 2 * pb[PB_NR_N] * ai
    for i in range(N_PARAMETERS * VECTOR_LENGTH):
        gradient[i] = g[i]


# ----------------------------------------------------------------------------
# The model's description for the fitter (vecampfit.fitter.Density.from_model)
# ----------------------------------------------------------------------------

def vecampfit_model():
    """Parameters, event fields, constants, buffer sizes and functions of this
    model, and its components (phi(1020), f'2(1525), non-resonant; couplings
    RE + i IM) for cached fits."""
    desc = model_description(PARAMETERS, EVENT_FIELDS, CONSTANTS,
                             N_PARAMETERS, N_EVENT_FIELDS, PARAMETER_BUFFER_SIZE, N_CONSTANTS,
                             signal_density[double], signal_density[float],
                             signal_density_gradient[double], signal_density_gradient[float],
                             fill_parameter_buffer[double], fill_parameter_buffer[float])
    names = ("PHI", "F2", "NR")
    desc["components"] = component_description(
        names, [("cartesian", f"{c}_RE", f"{c}_IM") for c in names], 3,
        signal_components[double], signal_components[float])
    return desc
