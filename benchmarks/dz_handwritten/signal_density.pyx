# D0 -> K- pi+ pi0 signal density (CLEO model, paper section 3) hand-written
# against vecampfit's .pxd files: the reference of the benchmarks that measure
# the gap between a generated density and hand-written C (bench_gap.py,
# bench_dz_density.py, bench_laddu.py); the example examples/dz_kmpippiz fits
# the same model declared with vecampfit.isobar.  Block routines over L events,
# compiled once per vector length by vecampfit.model_compiler.compile_model,
# both precisions through fused types.
#
# Event buffer (one block): N_EVENT_FIELDS real vectors of L lanes, in the
# order of EVENT_FIELDS: invariant masses m_<pair>, resonance breakup
# momenta q_<pair>, and D -> pair + C breakup momenta p_<pair> for the pairs
# K-pi+, K-pi0, pi+pi0.  The paper's SIGNAL_EVENT_BUFFER.
#
# Parameter buffer: what depends on the parameters only, filled once per
# likelihood call by fill_parameter_buffer: per resonance the coupling
# a e^(i phi) and its derivatives, m0, Gamma0, r, 1/q0, 1/F_R(q0), 1/F_D(p0)
# and their derivatives, and the constant of the spin-1 angular factor.
#
# Constants: the D0 and final-state masses (GeV), passed to the filler by
# the fitter (defaults: PDG 2024); the event buffer is computed from them too
# (handwritten.fill_event_buffer; tests/dz_reference.py is the numpy twin).
from cython cimport floating
from libc.math cimport M_PI, cos, sin

from vecampfit.block cimport VECTOR_LENGTH
from vecampfit.fitter.density cimport (component_description, model_description,
                                       single_component_functions)

from vecampfit import particle_data
from vecampfit.high_energy_physics cimport (
    blatt_weisskopf_gradient_scalar, blatt_weisskopf_inverse_gradient_q2_scalar,
    blatt_weisskopf_inverse_gradient_scalar, blatt_weisskopf_scalar,
    breit_wigner_q_f_nophsp_gradient_scalar, breit_wigner_q_f_nophsp_scalar,
)
from vecampfit.kinematics cimport decay_momentum_gradient_scalar

# What the fitter reads from this module (tests/dz_reference.py holds the same names).
RESONANCE_PREFIXES = ("RHOP1", "KSTM1", "KSTZ1", "KST0M", "KST0Z", "RHOP2", "KSTM2")
PARAMETERS = (("D_R",) + tuple(f"{r}_{x}" for r in RESONANCE_PREFIXES for x in "MGRAP")
              + ("NR_A", "NR_P"))
EVENT_FIELDS = ("m_km_pip", "m_km_piz", "m_pip_piz", "q_km_pip", "q_km_piz", "q_pip_piz",
                "p_km_pip", "p_km_piz", "p_pip_piz")
CONSTANTS = {f"M_{key}": particle_data.mass(name, 2024)
             for key, name in (("D", "D0"), ("KM", "K-"), ("PIP", "pi+"), ("PIZ", "pi0"))}

# Channels (pairs) and event-buffer fields.
cdef enum:
    CH_KM_PIP = 0
    CH_KM_PIZ = 1
    CH_PIP_PIZ = 2
    EV_M = 0        # + channel: invariant mass of the pair
    EV_Q = 3        # + channel: breakup momentum of the pair's resonance
    EV_P = 6        # + channel: breakup momentum of D -> pair + spectator
    N_EVENT_FIELDS = 9

# Parameters (model.parameter_names()).
cdef enum:
    PAR_D_R = 0
    PAR_FIRST_RESONANCE = 1     # + 5 k: M, G, R, A, P of resonance k
    N_RESONANCES = 7
    PAR_NR_A = 36
    PAR_NR_P = 37
    N_PARAMETERS = 38

# Parameter buffer.
cdef enum:
    PB_C_RE = 0
    PB_C_IM = 1
    PB_DC_DA_RE = 2
    PB_DC_DA_IM = 3
    PB_DC_DP_RE = 4
    PB_DC_DP_IM = 5
    PB_M0 = 6
    PB_G0 = 7
    PB_R = 8
    PB_INV_Q0 = 9
    PB_DINV_Q0_DM0 = 10
    PB_INV_F0 = 11
    PB_DINV_F0_DM0 = 12
    PB_DINV_F0_DR = 13
    PB_INV_FD0 = 14
    PB_DINV_FD0_DM0 = 15
    PB_DINV_FD0_DRD = 16
    PB_ANG_C = 17
    PB_DANG_C_DM0 = 18
    PB_STRIDE = 20
    PB_NR = 140             # N_RESONANCES * PB_STRIDE: coupling block of the non-resonant term
    PB_D_R = 146
    PARAMETER_BUFFER_SIZE = 147

# Resonance table, in the order of model.RESONANCES: channel, spin, whether
# F_D(p0) is omitted.
cdef int RES_CHANNEL[7]
cdef int RES_SPIN[7]
cdef bint RES_OMIT_FD0[7]
RES_CHANNEL[:] = [CH_PIP_PIZ, CH_KM_PIZ, CH_KM_PIP, CH_KM_PIZ, CH_KM_PIP, CH_PIP_PIZ, CH_KM_PIZ]
RES_SPIN[:] = [1, 1, 1, 0, 0, 1, 1]
RES_OMIT_FD0[:] = [False, False, False, False, False, True, False]

# Constants: masses (GeV) of the D0, K-, pi+, pi0.  Index by particle.
cdef enum:
    P_D = 0
    P_KM = 1
    P_PIP = 2
    P_PIZ = 3
    N_CONSTANTS = 4
# (A, B, C) particles per channel.
cdef int CH_A[3]
cdef int CH_B[3]
cdef int CH_C[3]
CH_A[:] = [P_KM, P_KM, P_PIP]
CH_B[:] = [P_PIP, P_PIZ, P_PIZ]
CH_C[:] = [P_PIZ, P_PIP, P_KM]


cdef void fill_parameter_buffer(floating *pb, const floating *par,
                                const double *mass) noexcept nogil:
    """Fill the parameter buffer from the parameters and the masses (the
    constants, indexed by P_D ... P_PIZ), computed in double precision."""
    cdef int k, ch, j, base
    cdef double a, phi, m0, r, rd = par[PAR_D_R], md = mass[P_D]
    cdef double q0, dq0, p0sq, dp0sq, inv, d_dq, d_dr, ma, mb, mc
    cdef double deg = M_PI / 180
    for k in range(N_RESONANCES):
        ch = RES_CHANNEL[k]
        j = RES_SPIN[k]
        base = k * PB_STRIDE
        ma, mb, mc = mass[CH_A[ch]], mass[CH_B[ch]], mass[CH_C[ch]]
        m0 = par[PAR_FIRST_RESONANCE + 5 * k]
        r = par[PAR_FIRST_RESONANCE + 5 * k + 2]
        a = par[PAR_FIRST_RESONANCE + 5 * k + 3]
        phi = par[PAR_FIRST_RESONANCE + 5 * k + 4] * deg
        pb[base + PB_DC_DA_RE] = cos(phi)
        pb[base + PB_DC_DA_IM] = sin(phi)
        pb[base + PB_C_RE] = a * cos(phi)
        pb[base + PB_C_IM] = a * sin(phi)
        pb[base + PB_DC_DP_RE] = -a * sin(phi) * deg
        pb[base + PB_DC_DP_IM] = a * cos(phi) * deg
        pb[base + PB_M0] = m0
        pb[base + PB_G0] = par[PAR_FIRST_RESONANCE + 5 * k + 1]
        pb[base + PB_R] = r
        decay_momentum_gradient_scalar(m0, ma, mb, &q0, &dq0)
        pb[base + PB_INV_Q0] = 1 / q0
        pb[base + PB_DINV_Q0_DM0] = -dq0 / (q0 * q0)
        blatt_weisskopf_inverse_gradient_scalar(q0, r, j, &inv, &d_dq, &d_dr)
        pb[base + PB_INV_F0] = inv
        pb[base + PB_DINV_F0_DM0] = d_dq * dq0
        pb[base + PB_DINV_F0_DR] = d_dr
        if RES_OMIT_FD0[k]:
            pb[base + PB_INV_FD0] = 1
            pb[base + PB_DINV_FD0_DM0] = 0
            pb[base + PB_DINV_FD0_DRD] = 0
        else:
            # From p0^2(m0) (negative if the D is below threshold, where 1/F_D
            # continues analytically): d(p0^2)/dm0 = m0 (m0^2 - md^2 - mc^2) / md^2.
            p0sq = (md * md - (m0 + mc) ** 2) * (md * md - (m0 - mc) ** 2) / (4 * md * md)
            dp0sq = m0 * (m0 * m0 - md * md - mc * mc) / (md * md)
            blatt_weisskopf_inverse_gradient_q2_scalar(p0sq, rd, j, &inv, &d_dq, &d_dr)
            pb[base + PB_INV_FD0] = inv
            pb[base + PB_DINV_FD0_DM0] = d_dq * dp0sq
            pb[base + PB_DINV_FD0_DRD] = d_dr
        pb[base + PB_ANG_C] = (md * md - mc * mc) * (mb * mb - ma * ma) / (m0 * m0)
        pb[base + PB_DANG_C_DM0] = -2 * (md * md - mc * mc) * (mb * mb - ma * ma) / (m0 * m0 * m0)
        pb[base + 19] = 0
    a = par[PAR_NR_A]
    phi = par[PAR_NR_P] * deg
    pb[PB_NR + PB_C_RE] = a * cos(phi)
    pb[PB_NR + PB_C_IM] = a * sin(phi)
    pb[PB_NR + PB_DC_DA_RE] = cos(phi)
    pb[PB_NR + PB_DC_DA_IM] = sin(phi)
    pb[PB_NR + PB_DC_DP_RE] = -a * sin(phi) * deg
    pb[PB_NR + PB_DC_DP_IM] = a * cos(phi) * deg
    pb[PB_D_R] = rd


cdef inline void _angular_fields(const floating *ev, int ch, const floating **mac,
                                 const floating **mbc) noexcept nogil:
    """The pair masses (M_AC, M_BC) of the spin-1 factor of channel ch:
    pi+pi0 -> (K-pi+, K-pi0); K-pi+ -> (K-pi0, pi+pi0); K-pi0 -> (K-pi+, pi+pi0).
    ch is a constant after inlining: the branches fold away and the lane loop has none."""
    if ch == CH_PIP_PIZ:
        mac[0] = ev + (EV_M + CH_KM_PIP) * VECTOR_LENGTH
        mbc[0] = ev + (EV_M + CH_KM_PIZ) * VECTOR_LENGTH
    elif ch == CH_KM_PIP:
        mac[0] = ev + (EV_M + CH_KM_PIZ) * VECTOR_LENGTH
        mbc[0] = ev + (EV_M + CH_PIP_PIZ) * VECTOR_LENGTH
    else:
        mac[0] = ev + (EV_M + CH_KM_PIP) * VECTOR_LENGTH
        mbc[0] = ev + (EV_M + CH_PIP_PIZ) * VECTOR_LENGTH


cdef inline floating _angular(const floating *mac, const floating *mbc, const floating *b,
                              floating spin1, int i) noexcept nogil:
    """Spin-1 factor M_AC^2 - M_BC^2 + (M_D^2 - M_C^2)(M_B^2 - M_A^2)/m0^2, or 1 for
    spin 0 (spin1 = 1 or 0; a product instead of a branch)."""
    return spin1 * (mac[i] * mac[i] - mbc[i] * mbc[i] + b[PB_ANG_C]) + (1 - spin1)


# The density and its gradient are written as one loop over the lanes of a
# block, with every resonance of one event computed inside it through the
# one-event forms of the block routines (the *_scalar routines of
# vecampfit.high_energy_physics): the terms of one event stay in registers,
# and the compiler vectorizes the whole loop over the L lanes.

cdef inline void _resonance(floating *re, floating *im, const floating *ev, const floating *pb,
                            int i, int k, int ch, int j) noexcept nogil:
    """X_k = [F_D(p)/F_D(p0)] B(m) A_J of resonance k at lane i, without its
    coupling (constant k, ch, j after inlining)."""
    cdef const floating *b = pb + k * PB_STRIDE
    cdef floating spin1 = 1 if j == 1 else 0
    cdef const floating *mac
    cdef const floating *mbc
    cdef floating w
    _angular_fields(ev, ch, &mac, &mbc)
    breit_wigner_q_f_nophsp_scalar(
        ev[(EV_M + ch) * VECTOR_LENGTH + i], ev[(EV_Q + ch) * VECTOR_LENGTH + i], b[PB_M0],
        b[PB_G0], b[PB_INV_Q0], b[PB_R], b[PB_INV_F0], j, re, im)
    w = (blatt_weisskopf_scalar(ev[(EV_P + ch) * VECTOR_LENGTH + i], pb[PB_D_R], j)
         * b[PB_INV_FD0] * _angular(mac, mbc, b, spin1, i))
    re[0] = re[0] * w
    im[0] = im[0] * w


cdef inline void _add_resonance(floating *are, floating *aim, const floating *ev,
                                const floating *pb, int i, int k, int ch, int j) noexcept nogil:
    """A += c_k X_k of resonance k at lane i."""
    cdef const floating *b = pb + k * PB_STRIDE
    cdef floating re, im
    _resonance(&re, &im, ev, pb, i, k, ch, j)
    are[0] = are[0] + b[PB_C_RE] * re - b[PB_C_IM] * im
    aim[0] = aim[0] + b[PB_C_RE] * im + b[PB_C_IM] * re


cdef void signal_density(floating *out, const void *event_block, const floating *params,
                         const void *parameter_buffer) noexcept nogil:
    """S = |A|^2 for the L events of one block (the fitter's density contract)."""
    cdef const floating *ev = <const floating *>event_block
    cdef const floating *pb = <const floating *>parameter_buffer
    cdef floating are, aim
    cdef int i
    for i in range(VECTOR_LENGTH):
        are = pb[PB_NR + PB_C_RE]
        aim = pb[PB_NR + PB_C_IM]
        _add_resonance(&are, &aim, ev, pb, i, 0, CH_PIP_PIZ, 1)
        _add_resonance(&are, &aim, ev, pb, i, 1, CH_KM_PIZ, 1)
        _add_resonance(&are, &aim, ev, pb, i, 2, CH_KM_PIP, 1)
        _add_resonance(&are, &aim, ev, pb, i, 3, CH_KM_PIZ, 0)
        _add_resonance(&are, &aim, ev, pb, i, 4, CH_KM_PIP, 0)
        _add_resonance(&are, &aim, ev, pb, i, 5, CH_PIP_PIZ, 1)
        _add_resonance(&are, &aim, ev, pb, i, 6, CH_KM_PIZ, 1)
        out[i] = are * are + aim * aim


# One component alone (X_k at lane i in out[i] + i out[L + i]), for fits that
# recompute only the resonance whose mass, width or radius moved.

cdef inline void _component_alone(floating *out, const void *event_block,
                                  const void *parameter_buffer, int k, int ch,
                                  int j) noexcept nogil:
    cdef const floating *ev = <const floating *>event_block
    cdef const floating *pb = <const floating *>parameter_buffer
    cdef floating re, im
    cdef int i
    # Formed in locals (which cannot overlap the buffers) and stored once,
    # so that the compiler vectorizes the loop over the lanes.
    for i in range(VECTOR_LENGTH):
        _resonance(&re, &im, ev, pb, i, k, ch, j)
        out[i] = re
        out[VECTOR_LENGTH + i] = im


cdef void component_0(floating *out, const void *e, const floating *p, const void *b) noexcept nogil:
    _component_alone(out, e, b, 0, CH_PIP_PIZ, 1)
cdef void component_1(floating *out, const void *e, const floating *p, const void *b) noexcept nogil:
    _component_alone(out, e, b, 1, CH_KM_PIZ, 1)
cdef void component_2(floating *out, const void *e, const floating *p, const void *b) noexcept nogil:
    _component_alone(out, e, b, 2, CH_KM_PIP, 1)
cdef void component_3(floating *out, const void *e, const floating *p, const void *b) noexcept nogil:
    _component_alone(out, e, b, 3, CH_KM_PIZ, 0)
cdef void component_4(floating *out, const void *e, const floating *p, const void *b) noexcept nogil:
    _component_alone(out, e, b, 4, CH_KM_PIP, 0)
cdef void component_5(floating *out, const void *e, const floating *p, const void *b) noexcept nogil:
    _component_alone(out, e, b, 5, CH_PIP_PIZ, 1)
cdef void component_6(floating *out, const void *e, const floating *p, const void *b) noexcept nogil:
    _component_alone(out, e, b, 6, CH_KM_PIZ, 1)


cdef void component_nonresonant(floating *out, const void *e, const floating *p,
                                const void *b) noexcept nogil:
    cdef int i
    for i in range(VECTOR_LENGTH):
        out[i] = 1
        out[VECTOR_LENGTH + i] = 0


cdef void signal_components(floating *out, const void *event_block, const floating *params,
                            const void *parameter_buffer) noexcept nogil:
    """The component amplitudes X_k without couplings (the seven resonances in
    the order of RESONANCE_PREFIXES, then the non-resonant term, X = 1):
    out[2 k L + i] real part, out[(2 k + 1) L + i] imaginary part."""
    cdef const void *e = event_block
    cdef const void *b = parameter_buffer
    cdef int L = VECTOR_LENGTH
    component_0(out, e, params, b)
    component_1(out + 2 * L, e, params, b)
    component_2(out + 4 * L, e, params, b)
    component_3(out + 6 * L, e, params, b)
    component_4(out + 8 * L, e, params, b)
    component_5(out + 10 * L, e, params, b)
    component_6(out + 12 * L, e, params, b)
    component_nonresonant(out + 14 * L, e, params, b)


# ----------------------------------------------------------------------------
# Density with the gradient with respect to every parameter
# ----------------------------------------------------------------------------

# Per resonance k, X_k = [F_D(p)/F_D(p0)] B(m) A_J and its derivatives by the
# resonance's m0, Gamma0, r and by the D radius r_D: N_X real vectors.
cdef enum:
    X_RE = 0
    X_IM = 1
    X_DM0_RE = 2
    X_DM0_IM = 3
    X_DG0_RE = 4
    X_DG0_IM = 5
    X_DR_RE = 6
    X_DR_IM = 7
    X_DRD_RE = 8
    X_DRD_IM = 9
    N_X = 10

cdef inline void _add_resonance_gradient(
        floating *are, floating *aim, floating *x, const floating *ev, const floating *pb,
        int i, int k, int ch, int j) noexcept nogil:
    """A += c_k X_k at lane i, and X_k and dX_k/d(m0, Gamma0, r, r_D) into x (the
    N_X vectors X_RE ... X_DRD_IM of resonance k, lane i)."""
    cdef const floating *b = pb + k * PB_STRIDE
    cdef floating spin1 = 1 if j == 1 else 0
    cdef const floating *mac
    cdef const floating *mbc
    cdef floating br, bi, dm0r, dm0i, dgr, dgi, drr, dri, fdp, dfdp
    cdef floating ang, fd, dfd_dm0, dfd_drd, w, u, xr, xi
    _angular_fields(ev, ch, &mac, &mbc)
    breit_wigner_q_f_nophsp_gradient_scalar(
        ev[(EV_M + ch) * VECTOR_LENGTH + i], ev[(EV_Q + ch) * VECTOR_LENGTH + i], b[PB_M0],
        b[PB_G0], b[PB_INV_Q0], b[PB_DINV_Q0_DM0], b[PB_R], b[PB_INV_F0], b[PB_DINV_F0_DM0],
        b[PB_DINV_F0_DR], j, &br, &bi, &dm0r, &dm0i, &dgr, &dgi, &drr, &dri)
    blatt_weisskopf_gradient_scalar(ev[(EV_P + ch) * VECTOR_LENGTH + i], pb[PB_D_R], j,
                                    &fdp, &dfdp)
    ang = _angular(mac, mbc, b, spin1, i)
    fd = fdp * b[PB_INV_FD0]
    dfd_dm0 = fdp * b[PB_DINV_FD0_DM0]
    dfd_drd = dfdp * b[PB_INV_FD0] + fdp * b[PB_DINV_FD0_DRD]
    w = fd * ang
    # d(F_D A_J)/dm0: 1/F_D(p0) and the constant of A_J depend on m0.
    u = dfd_dm0 * ang + fd * spin1 * b[PB_DANG_C_DM0]
    xr = br * w
    xi = bi * w
    x[X_RE * VECTOR_LENGTH + i] = xr
    x[X_IM * VECTOR_LENGTH + i] = xi
    x[X_DM0_RE * VECTOR_LENGTH + i] = dm0r * w + br * u
    x[X_DM0_IM * VECTOR_LENGTH + i] = dm0i * w + bi * u
    x[X_DG0_RE * VECTOR_LENGTH + i] = dgr * w
    x[X_DG0_IM * VECTOR_LENGTH + i] = dgi * w
    x[X_DR_RE * VECTOR_LENGTH + i] = drr * w
    x[X_DR_IM * VECTOR_LENGTH + i] = dri * w
    x[X_DRD_RE * VECTOR_LENGTH + i] = br * dfd_drd * ang
    x[X_DRD_IM * VECTOR_LENGTH + i] = bi * dfd_drd * ang
    are[0] = are[0] + b[PB_C_RE] * xr - b[PB_C_IM] * xi
    aim[0] = aim[0] + b[PB_C_RE] * xi + b[PB_C_IM] * xr


cdef inline floating _re_conj_times(floating ar, floating ai, floating zr, floating zi) noexcept nogil:
    """Re(conj(a) z) for a = ar + i ai."""
    return ar * zr + ai * zi


cdef inline floating _term(floating ar, floating ai, floating cr, floating ci,
                          const floating *x, int f, int i) noexcept nogil:
    """Re(conj(ar + i ai) (cr + i ci) (x_f + i x_(f+1))) at lane i: one term of
    dS = Re(conj(2 A) dA) with dA = c dX (f = X_DM0_RE, ...) or dA = dc X (f = X_RE)."""
    cdef floating xr = x[f * VECTOR_LENGTH + i]
    cdef floating xi = x[(f + 1) * VECTOR_LENGTH + i]
    return _re_conj_times(ar, ai, cr * xr - ci * xi, cr * xi + ci * xr)


cdef inline floating _resonance_gradient(floating *grad, floating ar, floating ai,
                                         const floating *x, const floating *pb, int i,
                                         int k) noexcept nogil:
    """dS/d(m0, Gamma0, r, a, phi) of resonance k at lane i into grad; returns its
    r_D term.  ar + i ai = 2 A; x as from _add_resonance_gradient."""
    cdef const floating *b = pb + k * PB_STRIDE
    cdef int p = PAR_FIRST_RESONANCE + 5 * k
    cdef floating cr = b[PB_C_RE], ci = b[PB_C_IM]
    grad[p * VECTOR_LENGTH + i] = _term(ar, ai, cr, ci, x, X_DM0_RE, i)
    grad[(p + 1) * VECTOR_LENGTH + i] = _term(ar, ai, cr, ci, x, X_DG0_RE, i)
    grad[(p + 2) * VECTOR_LENGTH + i] = _term(ar, ai, cr, ci, x, X_DR_RE, i)
    grad[(p + 3) * VECTOR_LENGTH + i] = _term(ar, ai, b[PB_DC_DA_RE], b[PB_DC_DA_IM], x, X_RE, i)
    grad[(p + 4) * VECTOR_LENGTH + i] = _term(ar, ai, b[PB_DC_DP_RE], b[PB_DC_DP_IM], x, X_RE, i)
    return _term(ar, ai, cr, ci, x, X_DRD_RE, i)


cdef void signal_density_gradient(floating *out, floating *grad, const void *event_block,
                                  const floating *params, const void *parameter_buffer) noexcept nogil:
    """S and dS/dp for every parameter, gradient laid out [N_PARAMETERS][L]."""
    cdef const floating *ev = <const floating *>event_block
    cdef const floating *pb = <const floating *>parameter_buffer
    # X_k and its derivatives, N_X real vectors per resonance.
    cdef floating x[N_RESONANCES * N_X * VECTOR_LENGTH]
    # 2 A (real and imaginary parts).
    cdef floating a2[2 * VECTOR_LENGTH]
    # The gradient is formed in a local array, which the compiler knows not to
    # overlap the parameter buffer (grad might), and copied out at the end.
    cdef floating g[N_PARAMETERS * VECTOR_LENGTH]
    cdef floating are, aim, ar, ai, drd
    cdef int i, n = N_X * VECTOR_LENGTH
    for i in range(VECTOR_LENGTH):
        are = pb[PB_NR + PB_C_RE]
        aim = pb[PB_NR + PB_C_IM]
        _add_resonance_gradient(&are, &aim, &x[0], ev, pb, i, 0, CH_PIP_PIZ, 1)
        _add_resonance_gradient(&are, &aim, &x[1 * n], ev, pb, i, 1, CH_KM_PIZ, 1)
        _add_resonance_gradient(&are, &aim, &x[2 * n], ev, pb, i, 2, CH_KM_PIP, 1)
        _add_resonance_gradient(&are, &aim, &x[3 * n], ev, pb, i, 3, CH_KM_PIZ, 0)
        _add_resonance_gradient(&are, &aim, &x[4 * n], ev, pb, i, 4, CH_KM_PIP, 0)
        _add_resonance_gradient(&are, &aim, &x[5 * n], ev, pb, i, 5, CH_PIP_PIZ, 1)
        _add_resonance_gradient(&are, &aim, &x[6 * n], ev, pb, i, 6, CH_KM_PIZ, 1)
        out[i] = are * are + aim * aim
        a2[i] = 2 * are
        a2[VECTOR_LENGTH + i] = 2 * aim
    for i in range(VECTOR_LENGTH):
        ar = a2[i]
        ai = a2[VECTOR_LENGTH + i]
        drd = _resonance_gradient(g, ar, ai, &x[0], pb, i, 0)
        drd = drd + _resonance_gradient(g, ar, ai, &x[1 * n], pb, i, 1)
        drd = drd + _resonance_gradient(g, ar, ai, &x[2 * n], pb, i, 2)
        drd = drd + _resonance_gradient(g, ar, ai, &x[3 * n], pb, i, 3)
        drd = drd + _resonance_gradient(g, ar, ai, &x[4 * n], pb, i, 4)
        drd = drd + _resonance_gradient(g, ar, ai, &x[5 * n], pb, i, 5)
        drd = drd + _resonance_gradient(g, ar, ai, &x[6 * n], pb, i, 6)
        g[PAR_D_R * VECTOR_LENGTH + i] = drd
        g[PAR_NR_A * VECTOR_LENGTH + i] = _re_conj_times(ar, ai, pb[PB_NR + PB_DC_DA_RE],
                                                         pb[PB_NR + PB_DC_DA_IM])
        g[PAR_NR_P * VECTOR_LENGTH + i] = _re_conj_times(ar, ai, pb[PB_NR + PB_DC_DP_RE],
                                                         pb[PB_NR + PB_DC_DP_IM])
    for i in range(N_PARAMETERS * VECTOR_LENGTH):
        grad[i] = g[i]


# ----------------------------------------------------------------------------
# The model's description for the fitter (vecampfit.fitter.Density.from_model)
# ----------------------------------------------------------------------------

def vecampfit_model():
    """Parameters, event fields, masses, buffer sizes and functions of this
    model, and its components (the resonances and the non-resonant term, each
    with its coupling a e^(i phi), phi in degrees) for cached fits."""
    desc = model_description(PARAMETERS, EVENT_FIELDS, CONSTANTS,
                             N_PARAMETERS, N_EVENT_FIELDS, PARAMETER_BUFFER_SIZE, N_CONSTANTS,
                             signal_density[double], signal_density[float],
                             signal_density_gradient[double], signal_density_gradient[float],
                             fill_parameter_buffer[double], fill_parameter_buffer[float])
    names = RESONANCE_PREFIXES + ("NR",)
    # X_k of a resonance depends on its mass, width and radius, and for spin 1
    # on the D radius (the Blatt-Weisskopf factors of spin 0 are 1, so their
    # radius is declared but moves nothing); the non-resonant term on nothing.
    depends = [(f"{r}_M", f"{r}_G", f"{r}_R") + (("D_R",) if not r.startswith("KST0") else ())
               for r in RESONANCE_PREFIXES] + [()]
    single = [single_component_functions(component_0[double], component_0[float]),
              single_component_functions(component_1[double], component_1[float]),
              single_component_functions(component_2[double], component_2[float]),
              single_component_functions(component_3[double], component_3[float]),
              single_component_functions(component_4[double], component_4[float]),
              single_component_functions(component_5[double], component_5[float]),
              single_component_functions(component_6[double], component_6[float]),
              single_component_functions(component_nonresonant[double],
                                         component_nonresonant[float])]
    desc["components"] = component_description(
        names, [("polar_degrees", f"{r}_A", f"{r}_P") for r in names], N_RESONANCES + 1,
        signal_components[double], signal_components[float], depends, single)
    return desc
