# e+e- -> K K-bar pi pi signal density (paper section 8.1) on vecampfit's block
# routines, in the fitter's model protocol (vecampfit/fitter/density.pxd);
# compiled once per vector length by vecampfit.model_compiler.compile_model,
# both precisions through fused types.  model_kkpipi.py is the numpy reference and
# documents the formalism; this file computes the same thing:
#
#   S = sum_{lg = +-1} |A1_lg - A2_lg|^2,
#   Ac_lg = sum_K1 B_K1(m3) sum_lam e^{i lg phi_top} d^1_{lg lam}(theta_top) Hp_lam
#           sum_p c_p e^{i lam phi_p1} sum_mu d^1_{lam mu}(theta_p1) Hd_mu
#                     e^{i mu phi_p2} d^1_{mu 0}(theta_p2) B_p(m_p)
#
# for the two chains c (chain 2: the charge-conjugate labelling), the paths
# p = a (K*[K1 pi2] pi1), b (K*[K1 pi1] pi2), c (rho[pi1 pi2] K1).
#
# Event block: model.EVENT_FIELDS, 35 real vectors per chain: cos and sin of
# the half helicity angles and cos and sin of the azimuths (no trigonometric
# function in the density), the K pi pi mass, the two-body masses and their
# breakup momenta.
#
# Parameters: the complex partial-wave amplitudes of one energy point, real
# and imaginary parts: production K1(1270) S, D, K1(1400) S, D, then per K1
# the decays K* pi S, D, rho K S, D (model.parameter_names).  The module
# exports one model per energy point (the parameter names carry the energy);
# the C functions are the same.
#
# density_gradient: S and dS/dp for the 24 parameters (below).
#
# Parameter buffer: helicity amplitudes from Jacob-Wick eq. (B5) for
# J = 1 -> 1 + 0 (S wave: 1/sqrt(3) for every helicity; D wave: -sqrt(2/3) for
# helicity 0, sqrt(1/6) for +-1), K1 masses and widths, the two-body
# Breit-Wigner constants (1/q0, 1/F(q0)) and the isospin factors.
from cython cimport floating
from libc.math cimport sqrt

from vecampfit.block cimport (VECTOR_LENGTH, complex_vector_float32,
                              complex_vector_float64)
from vecampfit.fitter.density cimport model_description
from vecampfit.high_energy_physics cimport (blatt_weisskopf_inverse_gradient_scalar,
                                            breit_wigner_constant_width_m, breit_wigner_q_f)
from vecampfit.kinematics cimport decay_momentum_scalar
from vecampfit.quantum_mechanics cimport d_function

ENERGIES_MEV = (1800, 1850, 1900, 1950, 2000)
K1_NAMES = ("K1_1270", "K1_1400")


def parameter_names(energy_mev):
    """The parameter names of the model of one energy point (model.parameter_names)."""
    e = int(energy_mev)
    waves = [f"{k}_E{e}_{l}" for k in K1_NAMES for l in ("S", "D")]
    waves += [f"{k}_{r}_{l}" for k in K1_NAMES for r in ("KSTPI", "RHOK") for l in ("S", "D")]
    return tuple(n for w in waves for n in (w + "_RE", w + "_IM"))


PARAMETERS = parameter_names(2000)
CHAIN_FIELDS = (("top_ch", "top_sh", "top_cp", "top_sp", "m3")
                + tuple(f"{p}{n}_{x}" for p in "abc" for n in (1, 2) for x in ("ch", "sh", "cp", "sp"))
                + tuple(f"{p}_{x}" for p in "abc" for x in ("m", "q")))
EVENT_FIELDS = tuple(f"c{c}_{f}" for c in (1, 2) for f in CHAIN_FIELDS)
# Defaults: K+ K- pi+ pi- (PDG 2024 masses and widths, GeV; radius GeV^-1;
# isospin factors of model.isospin_coefficients).
CONSTANTS = {
    "M_K": 0.493677, "M_PI": 0.13957039,
    "K1_1270_M": 1.253, "K1_1270_G": 0.090, "K1_1400_M": 1.403, "K1_1400_G": 0.174,
    "KST_M": 0.89555, "KST_G": 0.0473, "RHO_M": 0.77526, "RHO_G": 0.1474, "RADIUS": 1.5,
    "C_A": -2.0 / 3.0, "C_B": 0.0, "C_C": -sqrt(1.0 / 6.0),
}

cdef enum:
    N_PARAMETERS = 24
    N_CHAIN_FIELDS = 35
    N_EVENT_FIELDS = 70
    N_CONSTANTS = 14
    # event fields within a chain
    EV_TOP = 0          # ch, sh, cp, sp
    EV_M3 = 4
    EV_NODE = 5         # + 8 path + 4 node (0: K1 decay, 1: two-body decay): ch, sh, cp, sp
    EV_MQ = 29          # + 2 path: m, q
    # parameter buffer: per K1 (stride PB_K1)
    PB_HP = 0           # production H_lam, lam = -1, 0, 1: re[3], im[3]
    PB_HK = 6           # K* pi decay H_mu: re[3], im[3]
    PB_HR = 12          # rho K decay H_mu: re[3], im[3]
    PB_M0 = 18
    PB_G0 = 19
    PB_K1 = 20
    PB_TWO = 40         # + 5 r (r = 0: K*, 1: rho): m0, Gamma0, 1/q0, radius, 1/F(q0)
    PB_C = 50           # isospin factors c_a, c_b, c_c
    PARAMETER_BUFFER_SIZE = 53
    # constants
    C_M_K = 0
    C_M_PI = 1
    C_K1 = 2            # + 2 k: mass, width
    C_KST = 6
    C_RHO = 8
    C_RADIUS = 10
    C_COEF = 11


cdef inline void _helicity(floating *re, floating *im, double s_re, double s_im, double d_re,
                           double d_im) noexcept nogil:
    """H_lam, lam = -1, 0, 1, of J = 1 -> 1 + 0 from the S and D waves (Jacob-Wick B5)."""
    cdef double cs = 1 / sqrt(3.0), c0 = -sqrt(2.0 / 3.0), c1 = sqrt(1.0 / 6.0)
    re[0] = cs * s_re + c1 * d_re
    im[0] = cs * s_im + c1 * d_im
    re[1] = cs * s_re + c0 * d_re
    im[1] = cs * s_im + c0 * d_im
    re[2] = re[0]
    im[2] = im[0]


cdef void fill_parameter_buffer(floating *pb, const floating *p,
                                const double *constants) noexcept nogil:
    """The parameter buffer from the parameters and the model constants (double precision)."""
    cdef int k, r, base
    cdef double m0, ma, mb, q0, inv, d1, d2, radius = constants[C_RADIUS]
    for k in range(2):
        base = k * PB_K1
        _helicity(pb + base + PB_HP, pb + base + PB_HP + 3, p[4 * k], p[4 * k + 1],
                  p[4 * k + 2], p[4 * k + 3])
        _helicity(pb + base + PB_HK, pb + base + PB_HK + 3, p[8 + 8 * k], p[9 + 8 * k],
                  p[10 + 8 * k], p[11 + 8 * k])
        _helicity(pb + base + PB_HR, pb + base + PB_HR + 3, p[12 + 8 * k], p[13 + 8 * k],
                  p[14 + 8 * k], p[15 + 8 * k])
        pb[base + PB_M0] = constants[C_K1 + 2 * k]
        pb[base + PB_G0] = constants[C_K1 + 2 * k + 1]
    for r in range(2):
        m0 = constants[C_KST + 2 * r]
        ma = constants[C_M_K] if r == 0 else constants[C_M_PI]
        mb = constants[C_M_PI]
        q0 = decay_momentum_scalar(m0, ma, mb)
        blatt_weisskopf_inverse_gradient_scalar(q0, radius, 1, &inv, &d1, &d2)
        pb[PB_TWO + 5 * r] = m0
        pb[PB_TWO + 5 * r + 1] = constants[C_KST + 2 * r + 1]
        pb[PB_TWO + 5 * r + 2] = 1 / q0
        pb[PB_TWO + 5 * r + 3] = radius
        pb[PB_TWO + 5 * r + 4] = inv
    for r in range(3):
        pb[PB_C + r] = constants[C_COEF + r]


cdef inline void _bw3(floating *re, floating *im, const floating *m, floating m0,
                      floating g0) noexcept nogil:
    """1 / (m0^2 - m^2 - i m Gamma0) (high_energy_physics.breit_wigner_constant_width_m)."""
    cdef complex_vector_float64 o64
    cdef complex_vector_float32 o32
    cdef int i
    if floating is double:
        breit_wigner_constant_width_m(&o64, m, m0, g0)
        for i in range(VECTOR_LENGTH):
            re[i] = o64.re[i]
            im[i] = o64.im[i]
    else:
        breit_wigner_constant_width_m(&o32, m, m0, g0)
        for i in range(VECTOR_LENGTH):
            re[i] = o32.re[i]
            im[i] = o32.im[i]


cdef inline void _bw2(floating *re, floating *im, const floating *m, const floating *q,
                      const floating *b) noexcept nogil:
    """(q/q0) F(q)/F(q0) / (m0^2 - m^2 - i m0 Gamma(m)), L = 1
    (high_energy_physics.breit_wigner_q_f); b: m0, Gamma0, 1/q0, r, 1/F(q0)."""
    cdef complex_vector_float64 o64
    cdef complex_vector_float32 o32
    cdef int i
    if floating is double:
        breit_wigner_q_f(&o64, m, q, b[0], b[1], b[2], b[3], b[4], 1)
        for i in range(VECTOR_LENGTH):
            re[i] = o64.re[i]
            im[i] = o64.im[i]
    else:
        breit_wigner_q_f(&o32, m, q, b[0], b[1], b[2], b[3], b[4], 1)
        for i in range(VECTOR_LENGTH):
            re[i] = o32.re[i]
            im[i] = o32.im[i]


cdef inline void _top_d_functions(floating *dtop, const floating *ev) noexcept nogil:
    """d^1_{lg lam}(theta_top) for lg = -1, +1 and lam = -1, 0, 1, as
    dtop[(3 lg + lam) L + i] (indices 0, 1 and 0, 1, 2)."""
    cdef const floating *node = ev + EV_TOP * VECTOR_LENGTH
    cdef int lg, lam
    for lg in range(2):
        for lam in range(3):
            d_function(&dtop[(3 * lg + lam) * VECTOR_LENGTH], 2, 4 * lg - 2, 2 * lam - 2,
                       node, node + VECTOR_LENGTH)


cdef inline void _path(floating *d1, floating *tre, floating *tim, const floating *ev,
                       const floating *pb, int p) noexcept nogil:
    """The parts of path p that do not depend on the helicity amplitudes:
    d1[(3 lam + mu) L + i] = d^1_{lam mu}(theta_p1) and the two-body part
    t_mu = e^{i mu phi_p2} d^1_{mu 0}(theta_p2) B_p (tre, tim[mu L + i])."""
    cdef floating d2[3 * VECTOR_LENGTH]         # d^1_{mu 0}(theta_p2)
    cdef floating bre[VECTOR_LENGTH]
    cdef floating bim[VECTOR_LENGTH]
    cdef const floating *node = ev + (EV_NODE + 8 * p) * VECTOR_LENGTH
    cdef const floating *node2 = node + 4 * VECTOR_LENGTH
    cdef const floating *two = pb + PB_TWO + (0 if p < 2 else 5)
    cdef floating xr, xi, cp, sp
    cdef int i, lam, mu
    _bw2(bre, bim, ev + (EV_MQ + 2 * p) * VECTOR_LENGTH,
         ev + (EV_MQ + 2 * p + 1) * VECTOR_LENGTH, two)
    for mu in range(3):
        d_function(&d2[mu * VECTOR_LENGTH], 2, 2 * mu - 2, 0, node2, node2 + VECTOR_LENGTH)
        for lam in range(3):
            d_function(&d1[(3 * lam + mu) * VECTOR_LENGTH], 2, 2 * lam - 2, 2 * mu - 2,
                       node, node + VECTOR_LENGTH)
    for mu in range(3):
        for i in range(VECTOR_LENGTH):
            # e^{i mu phi} = cos(phi) + i mu sin(phi) for mu = +-1, 1 for mu = 0
            cp = 1 if mu == 1 else node2[2 * VECTOR_LENGTH + i]
            sp = (mu - 1) * node2[3 * VECTOR_LENGTH + i]
            xr = d2[mu * VECTOR_LENGTH + i] * bre[i]
            xi = d2[mu * VECTOR_LENGTH + i] * bim[i]
            tre[mu * VECTOR_LENGTH + i] = cp * xr - sp * xi
            tim[mu * VECTOR_LENGTH + i] = cp * xi + sp * xr


cdef inline void _chain(floating *a_re, floating *a_im, const floating *ev,
                        const floating *pb) noexcept nogil:
    """Chain amplitude for lg = -1 (a_re[0:L], a_im[0:L]) and lg = +1 (a_re[L:2L], ...).

    ev points at the chain's 35 fields."""
    cdef floating dtop[6 * VECTOR_LENGTH]       # d^1_{lg lam}(theta_top), (lg, lam) row-major
    cdef floating d1[9 * VECTOR_LENGTH]         # d^1_{lam mu}(theta_p1)
    cdef floating tre[3 * VECTOR_LENGTH]        # two-body part per mu
    cdef floating tim[3 * VECTOR_LENGTH]
    # decay part per K1 and lam: D[k][lam] = sum_p c_p e^{i lam phi_p1} sum_mu ...
    cdef floating dre[6 * VECTOR_LENGTH]
    cdef floating dim[6 * VECTOR_LENGTH]
    cdef floating b3re[VECTOR_LENGTH]
    cdef floating b3im[VECTOR_LENGTH]
    cdef const floating *node
    cdef const floating *h
    cdef floating c, yr, yi, xr, xi, cp, sp, ur, ui, wr, wi, hr, hi
    cdef int i, p, lg, lam, mu, k
    _top_d_functions(dtop, ev)
    for i in range(6 * VECTOR_LENGTH):
        dre[i] = 0
        dim[i] = 0
    for p in range(3):
        c = pb[PB_C + p]
        if c == 0:
            continue
        node = ev + (EV_NODE + 8 * p) * VECTOR_LENGTH
        # d1 and t_mu = e^{i mu phi_p2} d^1_{mu 0}(theta_p2) B_p
        _path(d1, tre, tim, ev, pb, p)
        for k in range(2):
            h = pb + k * PB_K1 + (PB_HK if p < 2 else PB_HR)
            for lam in range(3):
                for i in range(VECTOR_LENGTH):
                    yr = 0
                    yi = 0
                    for mu in range(3):
                        hr = h[mu] * d1[(3 * lam + mu) * VECTOR_LENGTH + i]
                        hi = h[3 + mu] * d1[(3 * lam + mu) * VECTOR_LENGTH + i]
                        yr = yr + hr * tre[mu * VECTOR_LENGTH + i] - hi * tim[mu * VECTOR_LENGTH + i]
                        yi = yi + hr * tim[mu * VECTOR_LENGTH + i] + hi * tre[mu * VECTOR_LENGTH + i]
                    cp = 1 if lam == 1 else node[2 * VECTOR_LENGTH + i]
                    sp = (lam - 1) * node[3 * VECTOR_LENGTH + i]
                    dre[(3 * k + lam) * VECTOR_LENGTH + i] += c * (cp * yr - sp * yi)
                    dim[(3 * k + lam) * VECTOR_LENGTH + i] += c * (cp * yi + sp * yr)
    node = ev + EV_TOP * VECTOR_LENGTH
    for i in range(2 * VECTOR_LENGTH):
        a_re[i] = 0
        a_im[i] = 0
    for k in range(2):
        _bw3(b3re, b3im, ev + EV_M3 * VECTOR_LENGTH, pb[k * PB_K1 + PB_M0],
             pb[k * PB_K1 + PB_G0])
        h = pb + k * PB_K1 + PB_HP
        for lam in range(3):
            for i in range(VECTOR_LENGTH):
                # u = Hp_lam B_K1 D[k][lam]
                wr = h[lam] * b3re[i] - h[3 + lam] * b3im[i]
                wi = h[lam] * b3im[i] + h[3 + lam] * b3re[i]
                xr = dre[(3 * k + lam) * VECTOR_LENGTH + i]
                xi = dim[(3 * k + lam) * VECTOR_LENGTH + i]
                ur = wr * xr - wi * xi
                ui = wr * xi + wi * xr
                for lg in range(2):
                    cp = node[2 * VECTOR_LENGTH + i]
                    sp = (2 * lg - 1) * node[3 * VECTOR_LENGTH + i]
                    xr = dtop[(3 * lg + lam) * VECTOR_LENGTH + i]
                    a_re[lg * VECTOR_LENGTH + i] += xr * (cp * ur - sp * ui)
                    a_im[lg * VECTOR_LENGTH + i] += xr * (cp * ui + sp * ur)


cdef void density(floating *out, const void *event_block, const floating *p,
                  const void *parameter_buffer) noexcept nogil:
    """S = sum_lg |A1_lg - A2_lg|^2 for the L events of one block."""
    cdef const floating *ev = <const floating *>event_block
    cdef const floating *pb = <const floating *>parameter_buffer
    cdef floating a1re[2 * VECTOR_LENGTH]
    cdef floating a1im[2 * VECTOR_LENGTH]
    cdef floating a2re[2 * VECTOR_LENGTH]
    cdef floating a2im[2 * VECTOR_LENGTH]
    cdef floating xr, xi, s
    cdef int i, lg
    _chain(a1re, a1im, ev, pb)
    _chain(a2re, a2im, ev + N_CHAIN_FIELDS * VECTOR_LENGTH, pb)
    for i in range(VECTOR_LENGTH):
        s = 0
        for lg in range(2):
            xr = a1re[lg * VECTOR_LENGTH + i] - a2re[lg * VECTOR_LENGTH + i]
            xi = a1im[lg * VECTOR_LENGTH + i] - a2im[lg * VECTOR_LENGTH + i]
            s = s + xr * xr + xi * xi
        out[i] = s


# ----------------------------------------------------------------------------
# Density with the gradient with respect to the 24 partial-wave parameters
# ----------------------------------------------------------------------------
# A is linear in each production and each decay helicity amplitude.  With
#   Y[r][lam][mu] = sum_{p of type r} c_p e^{i lam phi_p1} d^1_{lam mu}(theta_p1) t_p[mu]
# (r = 0: K* pi paths a, b; r = 1: rho K path c; independent of the K1),
#   D[k][lam] = sum_r sum_mu Hd[k][r][mu] Y[r][lam][mu],
#   T[lg][k][lam] = e^{i lg phi_top} d^1_{lg lam}(theta_top) B_K1k,
# A_lg = sum_k sum_lam T Hp[k][lam] D[k][lam]; a wave w of an amplitude enters
# as H_lam = sum_w c_w(lam) w with c_S = 1/sqrt(3), c_D(0) = -sqrt(2/3),
# c_D(+-1) = sqrt(1/6) (B5), so dA/d(Re w) = sum T c_w(lam) (...) and
# dA/d(Im w) = i dA/d(Re w).

cdef inline double _wave(int wave, int lam) noexcept nogil:
    """c_w(lam) of the S (wave 0) or D (wave 1) wave, lam index 0, 1, 2 for -1, 0, 1."""
    if wave == 0:
        return 1 / sqrt(3.0)
    if lam == 1:
        return -sqrt(2.0 / 3.0)
    return sqrt(1.0 / 6.0)


cdef inline void _chain_gradient(floating *a_re, floating *a_im, floating *g_re, floating *g_im,
                                 const floating *ev, const floating *pb) noexcept nogil:
    """A_lg (a_re[lg L + i]) and dA_lg/dp_q (g_re[(lg N_PARAMETERS + q) L + i]) of one chain."""
    cdef floating dtop[6 * VECTOR_LENGTH]
    cdef floating d1[9 * VECTOR_LENGTH]
    cdef floating tre[3 * VECTOR_LENGTH]
    cdef floating tim[3 * VECTOR_LENGTH]
    cdef floating yre[18 * VECTOR_LENGTH]       # [r][lam][mu]
    cdef floating yim[18 * VECTOR_LENGTH]
    cdef floating b3re[VECTOR_LENGTH]
    cdef floating b3im[VECTOR_LENGTH]
    cdef floating ere[4]                        # sum_mu c_w(mu) Y[r][lam][mu], index 2 r + w
    cdef floating eim[4]
    cdef const floating *node
    cdef const floating *h
    cdef floating c, xr, xi, cp, sp, dr, di, tr, ti, hr, hi, qr, qi, cw, yr, yi
    cdef int i, p, r, lg, lam, mu, k, w, q, base
    _top_d_functions(dtop, ev)
    for i in range(18 * VECTOR_LENGTH):
        yre[i] = 0
        yim[i] = 0
    for p in range(3):
        c = pb[PB_C + p]
        if c == 0:
            continue
        r = 0 if p < 2 else 1
        node = ev + (EV_NODE + 8 * p) * VECTOR_LENGTH
        _path(d1, tre, tim, ev, pb, p)
        for lam in range(3):
            for mu in range(3):
                for i in range(VECTOR_LENGTH):
                    cp = 1 if lam == 1 else node[2 * VECTOR_LENGTH + i]
                    sp = (lam - 1) * node[3 * VECTOR_LENGTH + i]
                    xr = d1[(3 * lam + mu) * VECTOR_LENGTH + i] * tre[mu * VECTOR_LENGTH + i]
                    xi = d1[(3 * lam + mu) * VECTOR_LENGTH + i] * tim[mu * VECTOR_LENGTH + i]
                    yre[((3 * r + lam) * 3 + mu) * VECTOR_LENGTH + i] += c * (cp * xr - sp * xi)
                    yim[((3 * r + lam) * 3 + mu) * VECTOR_LENGTH + i] += c * (cp * xi + sp * xr)
    for i in range(2 * VECTOR_LENGTH):
        a_re[i] = 0
        a_im[i] = 0
    for i in range(2 * N_PARAMETERS * VECTOR_LENGTH):
        g_re[i] = 0
        g_im[i] = 0
    node = ev + EV_TOP * VECTOR_LENGTH
    for k in range(2):
        _bw3(b3re, b3im, ev + EV_M3 * VECTOR_LENGTH, pb[k * PB_K1 + PB_M0],
             pb[k * PB_K1 + PB_G0])
        for lam in range(3):
            for i in range(VECTOR_LENGTH):
                # D[k][lam] and the wave sums E
                dr = 0
                di = 0
                for r in range(2):
                    h = pb + k * PB_K1 + (PB_HK if r == 0 else PB_HR)
                    for w in range(2):
                        ere[2 * r + w] = 0
                        eim[2 * r + w] = 0
                    for mu in range(3):
                        yr = yre[((3 * r + lam) * 3 + mu) * VECTOR_LENGTH + i]
                        yi = yim[((3 * r + lam) * 3 + mu) * VECTOR_LENGTH + i]
                        dr = dr + h[mu] * yr - h[3 + mu] * yi
                        di = di + h[mu] * yi + h[3 + mu] * yr
                        for w in range(2):
                            cw = <floating>_wave(w, mu)
                            ere[2 * r + w] += cw * yr
                            eim[2 * r + w] += cw * yi
                h = pb + k * PB_K1 + PB_HP
                hr = h[lam]
                hi = h[3 + lam]
                for lg in range(2):
                    # T = e^{i lg phi} d^1_{lg lam} B_K1
                    cp = node[2 * VECTOR_LENGTH + i]
                    sp = (2 * lg - 1) * node[3 * VECTOR_LENGTH + i]
                    xr = dtop[(3 * lg + lam) * VECTOR_LENGTH + i]
                    tr = xr * (cp * b3re[i] - sp * b3im[i])
                    ti = xr * (cp * b3im[i] + sp * b3re[i])
                    # A += T Hp D
                    qr = hr * dr - hi * di
                    qi = hr * di + hi * dr
                    a_re[lg * VECTOR_LENGTH + i] += tr * qr - ti * qi
                    a_im[lg * VECTOR_LENGTH + i] += tr * qi + ti * qr
                    base = lg * N_PARAMETERS
                    # production waves of K1 k: parameters 4 k + 2 w (+1 imaginary)
                    for w in range(2):
                        cw = <floating>_wave(w, lam)
                        qr = cw * (tr * dr - ti * di)
                        qi = cw * (tr * di + ti * dr)
                        q = base + 4 * k + 2 * w
                        g_re[q * VECTOR_LENGTH + i] += qr
                        g_im[q * VECTOR_LENGTH + i] += qi
                        g_re[(q + 1) * VECTOR_LENGTH + i] -= qi
                        g_im[(q + 1) * VECTOR_LENGTH + i] += qr
                    # decay waves of K1 k: parameters 8 + 8 k + 4 r + 2 w (+1 imaginary)
                    xr = tr * hr - ti * hi
                    xi = tr * hi + ti * hr
                    for r in range(2):
                        for w in range(2):
                            qr = xr * ere[2 * r + w] - xi * eim[2 * r + w]
                            qi = xr * eim[2 * r + w] + xi * ere[2 * r + w]
                            q = base + 8 + 8 * k + 4 * r + 2 * w
                            g_re[q * VECTOR_LENGTH + i] += qr
                            g_im[q * VECTOR_LENGTH + i] += qi
                            g_re[(q + 1) * VECTOR_LENGTH + i] -= qi
                            g_im[(q + 1) * VECTOR_LENGTH + i] += qr


cdef void density_gradient(floating *out, floating *gradient, const void *event_block,
                           const floating *p, const void *parameter_buffer) noexcept nogil:
    """S and dS/dp_q = sum_lg 2 Re(conj(A1 - A2) (dA1 - dA2)/dp_q), layout [N_PARAMETERS][L]."""
    cdef const floating *ev = <const floating *>event_block
    cdef const floating *pb = <const floating *>parameter_buffer
    cdef floating a1re[2 * VECTOR_LENGTH]
    cdef floating a1im[2 * VECTOR_LENGTH]
    cdef floating a2re[2 * VECTOR_LENGTH]
    cdef floating a2im[2 * VECTOR_LENGTH]
    cdef floating g1re[2 * N_PARAMETERS * VECTOR_LENGTH]
    cdef floating g1im[2 * N_PARAMETERS * VECTOR_LENGTH]
    cdef floating g2re[2 * N_PARAMETERS * VECTOR_LENGTH]
    cdef floating g2im[2 * N_PARAMETERS * VECTOR_LENGTH]
    cdef floating xr, xi, s, gq
    cdef int i, lg, q, j
    _chain_gradient(a1re, a1im, g1re, g1im, ev, pb)
    _chain_gradient(a2re, a2im, g2re, g2im, ev + N_CHAIN_FIELDS * VECTOR_LENGTH, pb)
    for i in range(VECTOR_LENGTH):
        s = 0
        for lg in range(2):
            xr = a1re[lg * VECTOR_LENGTH + i] - a2re[lg * VECTOR_LENGTH + i]
            xi = a1im[lg * VECTOR_LENGTH + i] - a2im[lg * VECTOR_LENGTH + i]
            s = s + xr * xr + xi * xi
        out[i] = s
    for q in range(N_PARAMETERS):
        for i in range(VECTOR_LENGTH):
            gq = 0
            for lg in range(2):
                xr = a1re[lg * VECTOR_LENGTH + i] - a2re[lg * VECTOR_LENGTH + i]
                xi = a1im[lg * VECTOR_LENGTH + i] - a2im[lg * VECTOR_LENGTH + i]
                j = (lg * N_PARAMETERS + q) * VECTOR_LENGTH + i
                gq = gq + 2 * (xr * (g1re[j] - g2re[j]) + xi * (g1im[j] - g2im[j]))
            gradient[q * VECTOR_LENGTH + i] = gq


def _description(energy_mev):
    return model_description(parameter_names(energy_mev), EVENT_FIELDS, CONSTANTS,
                             N_PARAMETERS, N_EVENT_FIELDS, PARAMETER_BUFFER_SIZE, N_CONSTANTS,
                             density[double], density[float],
                             density_gradient[double], density_gradient[float],
                             fill_parameter_buffer[double], fill_parameter_buffer[float])


def vecampfit_model():
    """One model per energy point, ``"E1800"`` ... ``"E2000"``: the same functions,
    the parameter names of the point (production waves carry the energy)."""
    return {f"E{e}": _description(e) for e in ENERGIES_MEV}


def chain_amplitudes(double[:, ::1] block, double[::1] params, double[::1] constants):
    """Chain amplitudes of one block (float64), for tests: ``block`` of shape
    (N_EVENT_FIELDS, L), the parameters and the constants in their orders.

    Returns
    -------
    tuple of numpy.ndarray
        Complex arrays (2, 2, L): [chain][photon helicity -1, +1][lane].
    """
    import numpy as np
    if block.shape[0] != N_EVENT_FIELDS or block.shape[1] != VECTOR_LENGTH:
        raise ValueError(f"block must have shape ({N_EVENT_FIELDS}, {VECTOR_LENGTH})")
    if params.shape[0] != N_PARAMETERS or constants.shape[0] != N_CONSTANTS:
        raise ValueError("wrong number of parameters or constants")
    cdef double pb[PARAMETER_BUFFER_SIZE]
    cdef double are[2 * VECTOR_LENGTH]
    cdef double aim[2 * VECTOR_LENGTH]
    out = np.zeros((2, 2, VECTOR_LENGTH), complex)
    fill_parameter_buffer(pb, &params[0], &constants[0])
    cdef int c, lg, i
    for c in range(2):
        _chain(are, aim, &block[0, 0] + c * N_CHAIN_FIELDS * VECTOR_LENGTH, pb)
        for lg in range(2):
            for i in range(VECTOR_LENGTH):
                out[c, lg, i] = complex(are[lg * VECTOR_LENGTH + i], aim[lg * VECTOR_LENGTH + i])
    return out
