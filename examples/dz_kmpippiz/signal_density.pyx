# D0 -> K- pi+ pi0 signal density (CLEO model, paper section 3) as a user
# writes it against vecampfit's .pxd files: block routines over L events,
# compiled once per vector length by vecampfit.model_compiler.compile_model,
# both precisions through fused types.
#
# Event buffer (one block): N_EVENT_FIELDS real vectors of L lanes, in the
# order of model.EVENT_FIELDS: invariant masses m_<pair>, resonance breakup
# momenta q_<pair>, and D -> pair + C breakup momenta p_<pair> for the pairs
# K-pi+, K-pi0, pi+pi0.  The paper's SIGNAL_EVENT_BUFFER.
#
# Parameter buffer: what depends on the parameters only, filled once per
# likelihood call by fill_parameter_buffer: per resonance the coupling
# a e^(i phi) and its derivatives, m0, Gamma0, r, 1/q0, 1/F_R(q0), 1/F_D(p0)
# and their derivatives, and the constant of the spin-1 angular factor.
from cython cimport floating
from libc.math cimport M_PI, cos, sin, sqrt

from vecampfit.block cimport VECTOR_LENGTH, complex_vector, complex_vector_float32, complex_vector_float64
from vecampfit.fitter.density cimport (density_callable, density_gradient_callable,
                                       fill_parameter_buffer_callable)
from vecampfit.high_energy_physics cimport (
    blatt_weisskopf_gradient, blatt_weisskopf_inverse_gradient_q2_scalar,
    blatt_weisskopf_inverse_gradient_scalar, blatt_weisskopf_ratio,
    breit_wigner_q_f_nophsp, breit_wigner_q_f_nophsp_gradient,
)

import numpy as np

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

# Masses (GeV): D0, K-, pi+, pi0; set by set_masses.  Index by particle.
cdef enum:
    P_D = 0
    P_KM = 1
    P_PIP = 2
    P_PIZ = 3
cdef double MASS[4]
# (A, B, C) particles per channel.
cdef int CH_A[3]
cdef int CH_B[3]
cdef int CH_C[3]
CH_A[:] = [P_KM, P_KM, P_PIP]
CH_B[:] = [P_PIP, P_PIZ, P_PIZ]
CH_C[:] = [P_PIZ, P_PIP, P_KM]


def set_masses(double md, double mkm, double mpip, double mpiz):
    """Set the D0 and final-state masses (GeV) used by the parameter buffer."""
    MASS[:] = [md, mkm, mpip, mpiz]


def vector_length():
    return VECTOR_LENGTH


def layout():
    """Sizes and parameter count of this model's buffers."""
    return {"event_fields": N_EVENT_FIELDS, "parameters": N_PARAMETERS,
            "parameter_buffer": PARAMETER_BUFFER_SIZE}


cdef inline double _breakup(double m, double ma, double mb, double *dq_dm) noexcept nogil:
    """Breakup momentum of m -> a b and its derivative with respect to m."""
    cdef double q2 = (m * m - (ma + mb) ** 2) * (m * m - (ma - mb) ** 2) / (4 * m * m)
    cdef double q = sqrt(q2)
    # d(q^2)/dm = (m^2 - ma^2 - mb^2)/m - 2 q^2/m
    dq_dm[0] = ((m * m - ma * ma - mb * mb) / m - 2 * q2 / m) / (2 * q)
    return q


cdef void fill_parameter_buffer(floating *pb, const floating *par) noexcept nogil:
    """Fill the parameter buffer from the parameters (computed in double precision)."""
    cdef int k, ch, j, base
    cdef double a, phi, m0, r, rd = par[PAR_D_R], md = MASS[P_D]
    cdef double q0, dq0, p0sq, dp0sq, inv, d_dq, d_dr, ma, mb, mc
    cdef double deg = M_PI / 180
    for k in range(N_RESONANCES):
        ch = RES_CHANNEL[k]
        j = RES_SPIN[k]
        base = k * PB_STRIDE
        ma, mb, mc = MASS[CH_A[ch]], MASS[CH_B[ch]], MASS[CH_C[ch]]
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
        q0 = _breakup(m0, ma, mb, &dq0)
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


cdef inline floating _angular(const floating *ev, const floating *b, int j, int ch, int i) noexcept nogil:
    """Spin-1 factor M_AC^2 - M_BC^2 + (M_D^2 - M_C^2)(M_B^2 - M_A^2)/m0^2 (1 for spin 0)."""
    cdef floating mac, mbc
    if j == 0:
        return 1
    # (M_AC, M_BC) per channel: pi+pi0 -> (K-pi+, K-pi0); K-pi+ -> (K-pi0, pi+pi0);
    # K-pi0 -> (K-pi+, pi+pi0).
    if ch == CH_PIP_PIZ:
        mac = ev[(EV_M + CH_KM_PIP) * VECTOR_LENGTH + i]
        mbc = ev[(EV_M + CH_KM_PIZ) * VECTOR_LENGTH + i]
    elif ch == CH_KM_PIP:
        mac = ev[(EV_M + CH_KM_PIZ) * VECTOR_LENGTH + i]
        mbc = ev[(EV_M + CH_PIP_PIZ) * VECTOR_LENGTH + i]
    else:
        mac = ev[(EV_M + CH_KM_PIP) * VECTOR_LENGTH + i]
        mbc = ev[(EV_M + CH_PIP_PIZ) * VECTOR_LENGTH + i]
    return mac * mac - mbc * mbc + b[PB_ANG_C]


cdef inline void _add_resonance(complex_vector *amp, complex_vector *bw, floating *fd,
                                const floating *ev, const floating *pb, int k, int ch,
                                int j) noexcept nogil:
    """amp += c_k [F_D(p)/F_D(p0)] B(m) A_J for resonance k (constant k, ch, j after inlining)."""
    cdef const floating *b = pb + k * PB_STRIDE
    cdef floating w, xr, xi
    cdef int i
    breit_wigner_q_f_nophsp(bw, ev + (EV_M + ch) * VECTOR_LENGTH, ev + (EV_Q + ch) * VECTOR_LENGTH,
                            b[PB_M0], b[PB_G0], b[PB_INV_Q0], b[PB_R], b[PB_INV_F0], j)
    blatt_weisskopf_ratio(fd, ev + (EV_P + ch) * VECTOR_LENGTH, pb[PB_D_R], b[PB_INV_FD0], j)
    for i in range(VECTOR_LENGTH):
        w = fd[i] * _angular(ev, b, j, ch, i)
        xr = bw.re[i] * w
        xi = bw.im[i] * w
        amp.re[i] = amp.re[i] + b[PB_C_RE] * xr - b[PB_C_IM] * xi
        amp.im[i] = amp.im[i] + b[PB_C_RE] * xi + b[PB_C_IM] * xr


cdef inline void _density(floating *out, const floating *ev, const floating *pb,
                          complex_vector *amp, complex_vector *bw) noexcept nogil:
    cdef floating fd[VECTOR_LENGTH]
    cdef int i
    for i in range(VECTOR_LENGTH):
        amp.re[i] = pb[PB_NR + PB_C_RE]
        amp.im[i] = pb[PB_NR + PB_C_IM]
    _add_resonance(amp, bw, fd, ev, pb, 0, CH_PIP_PIZ, 1)
    _add_resonance(amp, bw, fd, ev, pb, 1, CH_KM_PIZ, 1)
    _add_resonance(amp, bw, fd, ev, pb, 2, CH_KM_PIP, 1)
    _add_resonance(amp, bw, fd, ev, pb, 3, CH_KM_PIZ, 0)
    _add_resonance(amp, bw, fd, ev, pb, 4, CH_KM_PIP, 0)
    _add_resonance(amp, bw, fd, ev, pb, 5, CH_PIP_PIZ, 1)
    _add_resonance(amp, bw, fd, ev, pb, 6, CH_KM_PIZ, 1)
    for i in range(VECTOR_LENGTH):
        out[i] = amp.re[i] * amp.re[i] + amp.im[i] * amp.im[i]


cdef void signal_density(floating *out, const void *event_block, const floating *params,
                         const void *parameter_buffer) noexcept nogil:
    """S = |A|^2 for the L events of one block (the fitter's density contract)."""
    cdef complex_vector_float32 a32, b32
    cdef complex_vector_float64 a64, b64
    if floating is float:
        _density(out, <const floating *>event_block, <const floating *>parameter_buffer, &a32, &b32)
    else:
        _density(out, <const floating *>event_block, <const floating *>parameter_buffer, &a64, &b64)


# ----------------------------------------------------------------------------
# Density with the gradient with respect to every parameter
# ----------------------------------------------------------------------------

cdef inline void _add_resonance_gradient(
        complex_vector *amp, complex_vector *x, complex_vector *dx, complex_vector *bw,
        floating *fdp, floating *dfdp, const floating *ev, const floating *pb, int k, int ch,
        int j) noexcept nogil:
    """amp += c_k X_k; x[k] = X_k; dx[4k..4k+3] = dX_k/d(m0, Gamma0, r, r_D)."""
    cdef const floating *b = pb + k * PB_STRIDE
    cdef complex_vector *dm0 = &dx[4 * k]
    cdef complex_vector *dg0 = &dx[4 * k + 1]
    cdef complex_vector *dr = &dx[4 * k + 2]
    cdef complex_vector *drd = &dx[4 * k + 3]
    cdef floating ang, dang, fd, dfd_dm0, dfd_drd, w, br, bi
    cdef int i
    breit_wigner_q_f_nophsp_gradient(
        bw, dm0, dg0, dr, ev + (EV_M + ch) * VECTOR_LENGTH, ev + (EV_Q + ch) * VECTOR_LENGTH,
        b[PB_M0], b[PB_G0], b[PB_INV_Q0], b[PB_DINV_Q0_DM0], b[PB_R], b[PB_INV_F0],
        b[PB_DINV_F0_DM0], b[PB_DINV_F0_DR], j)
    blatt_weisskopf_gradient(fdp, dfdp, ev + (EV_P + ch) * VECTOR_LENGTH, pb[PB_D_R], j)
    for i in range(VECTOR_LENGTH):
        ang = _angular(ev, b, j, ch, i)
        dang = b[PB_DANG_C_DM0] if j == 1 else 0
        fd = fdp[i] * b[PB_INV_FD0]
        dfd_dm0 = fdp[i] * b[PB_DINV_FD0_DM0]
        dfd_drd = dfdp[i] * b[PB_INV_FD0] + fdp[i] * b[PB_DINV_FD0_DRD]
        w = fd * ang
        br = bw.re[i]
        bi = bw.im[i]
        x[k].re[i] = br * w
        x[k].im[i] = bi * w
        dm0.re[i] = dm0.re[i] * w + br * (dfd_dm0 * ang + fd * dang)
        dm0.im[i] = dm0.im[i] * w + bi * (dfd_dm0 * ang + fd * dang)
        dg0.re[i] = dg0.re[i] * w
        dg0.im[i] = dg0.im[i] * w
        dr.re[i] = dr.re[i] * w
        dr.im[i] = dr.im[i] * w
        drd.re[i] = br * dfd_drd * ang
        drd.im[i] = bi * dfd_drd * ang
        amp.re[i] = amp.re[i] + b[PB_C_RE] * x[k].re[i] - b[PB_C_IM] * x[k].im[i]
        amp.im[i] = amp.im[i] + b[PB_C_RE] * x[k].im[i] + b[PB_C_IM] * x[k].re[i]


cdef inline floating _re_conj_times(const complex_vector *a, int i, floating zr, floating zi) noexcept nogil:
    """2 Re(conj(A_i) z)."""
    return 2 * (a.re[i] * zr + a.im[i] * zi)


cdef inline void _density_gradient(floating *out, floating *grad, const floating *ev,
                                   const floating *pb, complex_vector *amp, complex_vector *x,
                                   complex_vector *dx, complex_vector *bw) noexcept nogil:
    cdef floating fdp[VECTOR_LENGTH]
    cdef floating dfdp[VECTOR_LENGTH]
    cdef const floating *b
    cdef floating cr, ci, zr, zi, drd_sum
    cdef int i, k, p, d
    for i in range(VECTOR_LENGTH):
        amp.re[i] = pb[PB_NR + PB_C_RE]
        amp.im[i] = pb[PB_NR + PB_C_IM]
    _add_resonance_gradient(amp, x, dx, bw, fdp, dfdp, ev, pb, 0, CH_PIP_PIZ, 1)
    _add_resonance_gradient(amp, x, dx, bw, fdp, dfdp, ev, pb, 1, CH_KM_PIZ, 1)
    _add_resonance_gradient(amp, x, dx, bw, fdp, dfdp, ev, pb, 2, CH_KM_PIP, 1)
    _add_resonance_gradient(amp, x, dx, bw, fdp, dfdp, ev, pb, 3, CH_KM_PIZ, 0)
    _add_resonance_gradient(amp, x, dx, bw, fdp, dfdp, ev, pb, 4, CH_KM_PIP, 0)
    _add_resonance_gradient(amp, x, dx, bw, fdp, dfdp, ev, pb, 5, CH_PIP_PIZ, 1)
    _add_resonance_gradient(amp, x, dx, bw, fdp, dfdp, ev, pb, 6, CH_KM_PIZ, 1)
    for i in range(VECTOR_LENGTH):
        out[i] = amp.re[i] * amp.re[i] + amp.im[i] * amp.im[i]
        grad[PAR_D_R * VECTOR_LENGTH + i] = 0
    for k in range(N_RESONANCES):
        b = pb + k * PB_STRIDE
        p = PAR_FIRST_RESONANCE + 5 * k
        cr = b[PB_C_RE]
        ci = b[PB_C_IM]
        for i in range(VECTOR_LENGTH):
            # Masses, widths, radii: dS = 2 Re(conj(A) c dX).
            for d in range(3):
                zr = cr * dx[4 * k + d].re[i] - ci * dx[4 * k + d].im[i]
                zi = cr * dx[4 * k + d].im[i] + ci * dx[4 * k + d].re[i]
                grad[(p + d) * VECTOR_LENGTH + i] = _re_conj_times(amp, i, zr, zi)
            zr = cr * dx[4 * k + 3].re[i] - ci * dx[4 * k + 3].im[i]
            zi = cr * dx[4 * k + 3].im[i] + ci * dx[4 * k + 3].re[i]
            grad[PAR_D_R * VECTOR_LENGTH + i] += _re_conj_times(amp, i, zr, zi)
            # Magnitude and phase: dS = 2 Re(conj(A) (dc) X).
            zr = b[PB_DC_DA_RE] * x[k].re[i] - b[PB_DC_DA_IM] * x[k].im[i]
            zi = b[PB_DC_DA_RE] * x[k].im[i] + b[PB_DC_DA_IM] * x[k].re[i]
            grad[(p + 3) * VECTOR_LENGTH + i] = _re_conj_times(amp, i, zr, zi)
            zr = b[PB_DC_DP_RE] * x[k].re[i] - b[PB_DC_DP_IM] * x[k].im[i]
            zi = b[PB_DC_DP_RE] * x[k].im[i] + b[PB_DC_DP_IM] * x[k].re[i]
            grad[(p + 4) * VECTOR_LENGTH + i] = _re_conj_times(amp, i, zr, zi)
    for i in range(VECTOR_LENGTH):
        grad[PAR_NR_A * VECTOR_LENGTH + i] = _re_conj_times(amp, i, pb[PB_NR + PB_DC_DA_RE],
                                                            pb[PB_NR + PB_DC_DA_IM])
        grad[PAR_NR_P * VECTOR_LENGTH + i] = _re_conj_times(amp, i, pb[PB_NR + PB_DC_DP_RE],
                                                            pb[PB_NR + PB_DC_DP_IM])


cdef void signal_density_gradient(floating *out, floating *gradient, const void *event_block,
                                  const floating *params, const void *parameter_buffer) noexcept nogil:
    """S and dS/dp for every parameter, gradient laid out [N_PARAMETERS][L]."""
    cdef complex_vector_float32 a32, b32
    cdef complex_vector_float32 x32[7]
    cdef complex_vector_float32 dx32[28]
    cdef complex_vector_float64 a64, b64
    cdef complex_vector_float64 x64[7]
    cdef complex_vector_float64 dx64[28]
    if floating is float:
        _density_gradient(out, gradient, <const floating *>event_block,
                          <const floating *>parameter_buffer, &a32, x32, dx32, &b32)
    else:
        _density_gradient(out, gradient, <const floating *>event_block,
                          <const floating *>parameter_buffer, &a64, x64, dx64, &b64)


# ----------------------------------------------------------------------------
# The functions for the fitter (vecampfit.fitter.Density)
# ----------------------------------------------------------------------------

def callables(precision="float64"):
    """Low-level callables of the density, its gradient and the parameter-buffer
    filler for one precision ("float64" or "float32"), for vecampfit.fitter.Density."""
    if precision == "float64":
        return dict(density=density_callable(signal_density[double]),
                    gradient=density_gradient_callable(signal_density_gradient[double]),
                    fill_parameter_buffer=fill_parameter_buffer_callable(fill_parameter_buffer[double]))
    if precision == "float32":
        return dict(density=density_callable(signal_density[float]),
                    gradient=density_gradient_callable(signal_density_gradient[float]),
                    fill_parameter_buffer=fill_parameter_buffer_callable(fill_parameter_buffer[float]))
    raise ValueError(f"precision must be 'float64' or 'float32', got {precision!r}")


# ----------------------------------------------------------------------------
# Python access (tests, plots): evaluate over blocks of an event buffer
# ----------------------------------------------------------------------------

def parameter_buffer(floating[::1] params):
    """The parameter buffer for a parameter vector (same precision)."""
    if params.shape[0] != N_PARAMETERS:
        raise ValueError(f"expected {N_PARAMETERS} parameters, got {params.shape[0]}")
    buf = np.zeros(PARAMETER_BUFFER_SIZE, dtype=np.float32 if floating is float else np.float64)
    cdef floating[::1] view = buf
    fill_parameter_buffer(&view[0], &params[0])
    return buf


def evaluate(floating[:, :, ::1] blocks, floating[::1] params, bint gradient=False):
    """Density (and gradient) over an event buffer of shape (n_blocks, N_EVENT_FIELDS, L).

    Returns values of shape (n_blocks * L,) and, with ``gradient``, the
    gradient of shape (N_PARAMETERS, n_blocks * L).
    """
    if blocks.shape[1] != N_EVENT_FIELDS or blocks.shape[2] != VECTOR_LENGTH:
        raise ValueError(f"event buffer must have shape (n_blocks, {N_EVENT_FIELDS}, {VECTOR_LENGTH})")
    dtype = np.float32 if floating is float else np.float64
    pb = parameter_buffer(params)
    cdef floating[::1] pbv = pb
    cdef Py_ssize_t nb = blocks.shape[0], b, i, p
    values = np.empty(nb * VECTOR_LENGTH, dtype)
    grad = np.empty((N_PARAMETERS, nb * VECTOR_LENGTH), dtype)
    cdef floating[::1] v = values
    cdef floating[:, ::1] g = grad
    cdef floating out[VECTOR_LENGTH]
    cdef floating gb[N_PARAMETERS * VECTOR_LENGTH]
    with nogil:
        for b in range(nb):
            if gradient:
                signal_density_gradient(out, gb, &blocks[b, 0, 0], &params[0], &pbv[0])
                for p in range(N_PARAMETERS):
                    for i in range(VECTOR_LENGTH):
                        g[p, b * VECTOR_LENGTH + i] = gb[p * VECTOR_LENGTH + i]
            else:
                signal_density(out, &blocks[b, 0, 0], &params[0], &pbv[0])
            for i in range(VECTOR_LENGTH):
                v[b * VECTOR_LENGTH + i] = out[i]
    return (values, grad) if gradient else values
