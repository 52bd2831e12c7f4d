# Kernels behind vecampfit.high_energy_physics: the block routines of
# high_energy_physics.pxd applied over whole arrays, in blocks of
# VECTOR_LENGTH with a padded tail block (padding lanes are discarded).

from cython cimport floating

from vecampfit.block cimport (
    VECTOR_LENGTH, complex_vector, complex_vector_float32, complex_vector_float64,
)
from vecampfit.high_energy_physics cimport (
    blatt_weisskopf, blatt_weisskopf_squared, blatt_weisskopf_ratio,
    blatt_weisskopf_ratio_squared, blatt_weisskopf_gradient, covariant_factor_j,
    legendre, legendre_laura, covariant_angular_distribution,
    breit_wigner_constant_width_m, breit_wigner_constant_width_m0, breit_wigner_general,
    breit_wigner_q_f, breit_wigner_q_f_nophsp, breit_wigner_m2,
    breit_wigner_q_f_gradient, breit_wigner_q_f_nophsp_gradient,
    blatt_weisskopf_inverse_gradient_scalar, blatt_weisskopf_inverse_gradient_q2_scalar,
)


cdef inline void _load(floating *dst, const floating[::1] src, Py_ssize_t start,
                       Py_ssize_t n, floating pad) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(VECTOR_LENGTH):
        dst[i] = src[start + i] if i < n else pad


def blatt_weisskopf_kernel(const floating[::1] q, floating r, floating inverse_f0, int l, int kind,
                           floating[::1] out, floating[::1] d_dr):
    """kind 0: F, 1: F^2, 2: F/F0, 3: F^2/F0^2, 4: F and dF/dr."""
    cdef Py_ssize_t nb, n = q.shape[0], b, i, m
    cdef floating qb[VECTOR_LENGTH]
    cdef floating ob[VECTOR_LENGTH]
    cdef floating db[VECTOR_LENGTH]
    with nogil:
        for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
            b = nb * VECTOR_LENGTH
            m = min(<Py_ssize_t>VECTOR_LENGTH, n - b)
            _load(qb, q, b, m, 1)
            if kind == 0:
                blatt_weisskopf(ob, qb, r, l)
            elif kind == 1:
                blatt_weisskopf_squared(ob, qb, r, l)
            elif kind == 2:
                blatt_weisskopf_ratio(ob, qb, r, inverse_f0, l)
            elif kind == 3:
                blatt_weisskopf_ratio_squared(ob, qb, r, inverse_f0, l)
            else:
                blatt_weisskopf_gradient(ob, db, qb, r, l)
            for i in range(m):
                out[b + i] = ob[i]
                if kind == 4:
                    d_dr[b + i] = db[i]


def blatt_weisskopf_inverse_gradient_kernel(double q, double r, int l):
    cdef double inv, dq, dr
    blatt_weisskopf_inverse_gradient_scalar(q, r, l, &inv, &dq, &dr)
    return inv, dq, dr


def blatt_weisskopf_inverse_gradient_q2_kernel(double q2, double r, int l):
    cdef double inv, dq2, dr
    blatt_weisskopf_inverse_gradient_q2_scalar(q2, r, l, &inv, &dq2, &dr)
    return inv, dq2, dr


def legendre_kernel(const floating[::1] x, int l, int kind, floating[::1] out):
    """kind 0: P_l, 1: Laura++'s normalization, 2: covariant factor F_l^(cov) of f = x."""
    cdef Py_ssize_t nb, n = x.shape[0], b, i, m
    cdef floating xb[VECTOR_LENGTH]
    cdef floating ob[VECTOR_LENGTH]
    with nogil:
        for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
            b = nb * VECTOR_LENGTH
            m = min(<Py_ssize_t>VECTOR_LENGTH, n - b)
            _load(xb, x, b, m, 0)
            if kind == 0:
                legendre(ob, xb, l)
            elif kind == 1:
                legendre_laura(ob, xb, l)
            else:
                covariant_factor_j(ob, xb, l)
            for i in range(m):
                out[b + i] = ob[i]


def covariant_angular_distribution_kernel(const floating[::1] p_star, const floating[::1] q,
                                          const floating[::1] f, const floating[::1] cos_theta,
                                          int l, floating[::1] out):
    cdef Py_ssize_t nb, n = q.shape[0], b, i, m
    cdef floating pb[VECTOR_LENGTH]
    cdef floating qb[VECTOR_LENGTH]
    cdef floating fb[VECTOR_LENGTH]
    cdef floating cb[VECTOR_LENGTH]
    cdef floating ob[VECTOR_LENGTH]
    with nogil:
        for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
            b = nb * VECTOR_LENGTH
            m = min(<Py_ssize_t>VECTOR_LENGTH, n - b)
            _load(pb, p_star, b, m, 0)
            _load(qb, q, b, m, 0)
            _load(fb, f, b, m, 1)
            _load(cb, cos_theta, b, m, 0)
            covariant_angular_distribution(ob, pb, qb, fb, cb, l)
            for i in range(m):
                out[b + i] = ob[i]


cdef inline void _store(const complex_vector *o, floating[::1] re, floating[::1] im,
                        Py_ssize_t start, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        re[start + i] = o.re[i]
        im[start + i] = o.im[i]


# Each _run_* helper applies one complex block routine over whole arrays; the
# complex-vector argument is only scratch space that selects the precision.

cdef void _run_constant_width(complex_vector *o, const floating[::1] m, floating m0,
                              floating gamma0, bint width_m0, floating[::1] out_re,
                              floating[::1] out_im) noexcept nogil:
    cdef Py_ssize_t nb, n = m.shape[0], b, k
    cdef floating mb[VECTOR_LENGTH]
    for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
        b = nb * VECTOR_LENGTH
        k = min(<Py_ssize_t>VECTOR_LENGTH, n - b)
        _load(mb, m, b, k, 1)
        if width_m0:
            breit_wigner_constant_width_m0(o, mb, m0, gamma0)
        else:
            breit_wigner_constant_width_m(o, mb, m0, gamma0)
        _store(o, out_re, out_im, b, k)


def breit_wigner_constant_width_kernel(const floating[::1] m, floating m0, floating gamma0,
                                       bint width_m0, floating[::1] out_re, floating[::1] out_im):
    cdef complex_vector_float32 o32
    cdef complex_vector_float64 o64
    with nogil:
        if floating is float:
            _run_constant_width(&o32, m, m0, gamma0, width_m0, out_re, out_im)
        else:
            _run_constant_width(&o64, m, m0, gamma0, width_m0, out_re, out_im)


cdef void _run_general(complex_vector *o, complex_vector *num, const floating[::1] s,
                       floating m0, const floating[::1] n_re, const floating[::1] n_im,
                       const floating[::1] width_term, floating[::1] out_re,
                       floating[::1] out_im) noexcept nogil:
    cdef Py_ssize_t nb, n = s.shape[0], b, i, k
    cdef floating sb[VECTOR_LENGTH]
    cdef floating gb[VECTOR_LENGTH]
    for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
        b = nb * VECTOR_LENGTH
        k = min(<Py_ssize_t>VECTOR_LENGTH, n - b)
        _load(sb, s, b, k, 0)
        _load(gb, width_term, b, k, 1)
        for i in range(VECTOR_LENGTH):
            num.re[i] = n_re[b + i] if i < k else 0
            num.im[i] = n_im[b + i] if i < k else 0
        breit_wigner_general(o, sb, m0, num, gb)
        _store(o, out_re, out_im, b, k)


def breit_wigner_general_kernel(const floating[::1] s, floating m0, const floating[::1] n_re,
                                const floating[::1] n_im, const floating[::1] width_term,
                                floating[::1] out_re, floating[::1] out_im):
    cdef complex_vector_float32 o32, n32
    cdef complex_vector_float64 o64, n64
    with nogil:
        if floating is float:
            _run_general(&o32, &n32, s, m0, n_re, n_im, width_term, out_re, out_im)
        else:
            _run_general(&o64, &n64, s, m0, n_re, n_im, width_term, out_re, out_im)


cdef void _run_q_f(complex_vector *o, const floating[::1] m, const floating[::1] q,
                   floating m0, floating gamma0, floating inverse_q0, floating r,
                   floating inverse_f0, int l, int kind, floating[::1] out_re,
                   floating[::1] out_im) noexcept nogil:
    cdef Py_ssize_t nb, n = m.shape[0], b, i, k
    cdef floating mb[VECTOR_LENGTH]
    cdef floating qb[VECTOR_LENGTH]
    cdef floating ob[VECTOR_LENGTH]
    for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
        b = nb * VECTOR_LENGTH
        k = min(<Py_ssize_t>VECTOR_LENGTH, n - b)
        _load(mb, m, b, k, m0)
        _load(qb, q, b, k, 1 / inverse_q0)
        if kind == 0:
            breit_wigner_q_f_nophsp(o, mb, qb, m0, gamma0, inverse_q0, r, inverse_f0, l)
            _store(o, out_re, out_im, b, k)
        elif kind == 1:
            breit_wigner_q_f(o, mb, qb, m0, gamma0, inverse_q0, r, inverse_f0, l)
            _store(o, out_re, out_im, b, k)
        else:
            breit_wigner_m2(ob, mb, qb, m0, gamma0, inverse_q0, r, inverse_f0, l)
            for i in range(k):
                out_re[b + i] = ob[i]


def breit_wigner_q_f_kernel(const floating[::1] m, const floating[::1] q, floating m0,
                            floating gamma0, floating inverse_q0, floating r, floating inverse_f0,
                            int l, int kind, floating[::1] out_re, floating[::1] out_im):
    """kind 0: breit_wigner_q_f_nophsp, 1: breit_wigner_q_f, 2: breit_wigner_m2 (out_re only)."""
    cdef complex_vector_float32 o32
    cdef complex_vector_float64 o64
    with nogil:
        if floating is float:
            _run_q_f(&o32, m, q, m0, gamma0, inverse_q0, r, inverse_f0, l, kind, out_re, out_im)
        else:
            _run_q_f(&o64, m, q, m0, gamma0, inverse_q0, r, inverse_f0, l, kind, out_re, out_im)


cdef void _run_q_f_gradient(complex_vector *v, complex_vector *a, complex_vector *g,
                            complex_vector *rr, const floating[::1] m, const floating[::1] q,
                            floating m0, floating gamma0, floating inverse_q0,
                            floating dinverse_q0_dm0, floating r, floating inverse_f0,
                            floating dinverse_f0_dm0, floating dinverse_f0_dr, int l,
                            bint phase_space, floating[:, ::1] out) noexcept nogil:
    cdef Py_ssize_t nb, n = m.shape[0], b, k
    cdef floating mb[VECTOR_LENGTH]
    cdef floating qb[VECTOR_LENGTH]
    for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
        b = nb * VECTOR_LENGTH
        k = min(<Py_ssize_t>VECTOR_LENGTH, n - b)
        _load(mb, m, b, k, m0)
        _load(qb, q, b, k, 1 / inverse_q0)
        if phase_space:
            breit_wigner_q_f_gradient(v, a, g, rr, mb, qb, m0, gamma0, inverse_q0,
                                      dinverse_q0_dm0, r, inverse_f0, dinverse_f0_dm0,
                                      dinverse_f0_dr, l)
        else:
            breit_wigner_q_f_nophsp_gradient(v, a, g, rr, mb, qb, m0, gamma0, inverse_q0,
                                             dinverse_q0_dm0, r, inverse_f0, dinverse_f0_dm0,
                                             dinverse_f0_dr, l)
        _store(v, out[0], out[1], b, k)
        _store(a, out[2], out[3], b, k)
        _store(g, out[4], out[5], b, k)
        _store(rr, out[6], out[7], b, k)


def breit_wigner_q_f_gradient_kernel(
        const floating[::1] m, const floating[::1] q, floating m0, floating gamma0,
        floating inverse_q0, floating dinverse_q0_dm0, floating r, floating inverse_f0,
        floating dinverse_f0_dm0, floating dinverse_f0_dr, int l, bint phase_space,
        floating[:, ::1] out):
    """out rows: value, d/dm0, d/dGamma0, d/dr, each as (re, im): shape (8, n)."""
    cdef complex_vector_float32 v32, a32, g32, r32
    cdef complex_vector_float64 v64, a64, g64, r64
    with nogil:
        if floating is float:
            _run_q_f_gradient(&v32, &a32, &g32, &r32, m, q, m0, gamma0, inverse_q0,
                              dinverse_q0_dm0, r, inverse_f0, dinverse_f0_dm0, dinverse_f0_dr,
                              l, phase_space, out)
        else:
            _run_q_f_gradient(&v64, &a64, &g64, &r64, m, q, m0, gamma0, inverse_q0,
                              dinverse_q0_dm0, r, inverse_f0, dinverse_f0_dm0, dinverse_f0_dr,
                              l, phase_space, out)


# ---------------------------------------------------------------------------
# Flatte distribution and K-matrix
# ---------------------------------------------------------------------------

from vecampfit.high_energy_physics cimport (
    flatte, flatte_masses, k_matrix_add_pole_1, k_matrix_add_pole_2, p_vector_add_pole_1,
    p_vector_add_pole_2, k_matrix_p_vector_add_pole_1, k_matrix_p_vector_add_pole_2,
    k_matrix_n_factor, k_matrix_denominator_1, k_matrix_denominator_s_wave_1,
    k_matrix_denominator_2, k_matrix_denominator_s_wave_2, k_matrix_amplitude_1,
    k_matrix_amplitude_s_wave_1, k_matrix_amplitude_2, k_matrix_amplitude_s_wave_2,
)
from vecampfit.linear_algebra cimport (
    complex_matrix_2x2, complex_matrix_2x2_float32, complex_matrix_2x2_float64,
)


cdef inline void _load_complex(complex_vector *dst, const floating[::1] re, const floating[::1] im,
                               Py_ssize_t start, Py_ssize_t n, floating pad_re) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(VECTOR_LENGTH):
        dst.re[i] = re[start + i] if i < n else pad_re
        dst.im[i] = im[start + i] if i < n else 0


cdef void _run_flatte(complex_vector *o, const floating[::1] m, const floating[::1] q1_squared,
                      const floating[::1] q2_squared, floating m0, floating g1, floating g2,
                      floating m11, floating m12, floating m21, floating m22, bint from_masses,
                      floating[::1] out_re, floating[::1] out_im) noexcept nogil:
    cdef Py_ssize_t nb, n = m.shape[0], b, k
    cdef floating mb[VECTOR_LENGTH]
    cdef floating q1b[VECTOR_LENGTH]
    cdef floating q2b[VECTOR_LENGTH]
    for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
        b = nb * VECTOR_LENGTH
        k = min(<Py_ssize_t>VECTOR_LENGTH, n - b)
        _load(mb, m, b, k, m0)
        if from_masses:
            flatte_masses(o, mb, m0, g1, g2, m11, m12, m21, m22)
        else:
            _load(q1b, q1_squared, b, k, 0)
            _load(q2b, q2_squared, b, k, 0)
            flatte(o, mb, q1b, q2b, m0, g1, g2)
        _store(o, out_re, out_im, b, k)


def flatte_kernel(const floating[::1] m, const floating[::1] q1_squared,
                  const floating[::1] q2_squared, floating m0, floating g1, floating g2,
                  floating m11, floating m12, floating m21, floating m22, bint from_masses,
                  floating[::1] out_re, floating[::1] out_im):
    """from_masses: flatte_masses (q1_squared, q2_squared unused); else flatte."""
    cdef complex_vector_float32 o32
    cdef complex_vector_float64 o64
    with nogil:
        if floating is float:
            _run_flatte(&o32, m, q1_squared, q2_squared, m0, g1, g2, m11, m12, m21, m22,
                        from_masses, out_re, out_im)
        else:
            _run_flatte(&o64, m, q1_squared, q2_squared, m0, g1, g2, m11, m12, m21, m22,
                        from_masses, out_re, out_im)


cdef void _run_pole(complex_vector *p1, complex_vector *p2, const floating[::1] s, floating m_pole,
                    floating g1, floating g2, floating a_re, floating a_im, int channels, int kind,
                    floating[:, ::1] k, floating[:, ::1] p) noexcept nogil:
    cdef Py_ssize_t nb, n = s.shape[0], b, m, i
    cdef floating sb[VECTOR_LENGTH]
    cdef floating k11[VECTOR_LENGTH]
    cdef floating k12[VECTOR_LENGTH]
    cdef floating k22[VECTOR_LENGTH]
    for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
        b = nb * VECTOR_LENGTH
        m = min(<Py_ssize_t>VECTOR_LENGTH, n - b)
        _load(sb, s, b, m, 0)
        _load(k11, k[0], b, m, 0)
        _load(k12, k[1], b, m, 0)
        _load(k22, k[2], b, m, 0)
        _load_complex(p1, p[0], p[1], b, m, 0)
        _load_complex(p2, p[2], p[3], b, m, 0)
        if channels == 1:
            if kind == 0:
                k_matrix_add_pole_1(k11, sb, m_pole, g1)
            elif kind == 1:
                p_vector_add_pole_1(p1, sb, m_pole, a_re, a_im, g1)
            else:
                k_matrix_p_vector_add_pole_1(k11, p1, sb, m_pole, a_re, a_im, g1)
        else:
            if kind == 0:
                k_matrix_add_pole_2(k11, k12, k22, sb, m_pole, g1, g2)
            elif kind == 1:
                p_vector_add_pole_2(p1, p2, sb, m_pole, a_re, a_im, g1, g2)
            else:
                k_matrix_p_vector_add_pole_2(k11, k12, k22, p1, p2, sb, m_pole, a_re, a_im, g1, g2)
        for i in range(m):
            k[0, b + i] = k11[i]
            k[1, b + i] = k12[i]
            k[2, b + i] = k22[i]
        _store(p1, p[0], p[1], b, m)
        _store(p2, p[2], p[3], b, m)


def k_matrix_pole_kernel(const floating[::1] s, floating m_pole, floating g1, floating g2,
                         floating a_re, floating a_im, int channels, int kind,
                         floating[:, ::1] k, floating[:, ::1] p):
    """Adds one pole in place.  k rows: k11, k12, k22; p rows: Re P1, Im P1, Re P2, Im P2.
    kind 0: K only, 1: P only, 2: both (the combined routine)."""
    cdef complex_vector_float32 a32, b32
    cdef complex_vector_float64 a64, b64
    with nogil:
        if floating is float:
            _run_pole(&a32, &b32, s, m_pole, g1, g2, a_re, a_im, channels, kind, k, p)
        else:
            _run_pole(&a64, &b64, s, m_pole, g1, g2, a_re, a_im, channels, kind, k, p)


cdef void _run_n_factor(complex_vector *o, const floating[::1] q_squared, floating inverse_q0,
                        floating r, floating inverse_f0, int l, floating[::1] out_re,
                        floating[::1] out_im) noexcept nogil:
    cdef Py_ssize_t nb, n = q_squared.shape[0], b, k
    cdef floating qb[VECTOR_LENGTH]
    for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
        b = nb * VECTOR_LENGTH
        k = min(<Py_ssize_t>VECTOR_LENGTH, n - b)
        _load(qb, q_squared, b, k, 0)
        k_matrix_n_factor(o, qb, inverse_q0, r, inverse_f0, l)
        _store(o, out_re, out_im, b, k)


def k_matrix_n_factor_kernel(const floating[::1] q_squared, floating inverse_q0, floating r,
                             floating inverse_f0, int l, floating[::1] out_re, floating[::1] out_im):
    cdef complex_vector_float32 o32
    cdef complex_vector_float64 o64
    with nogil:
        if floating is float:
            _run_n_factor(&o32, q_squared, inverse_q0, r, inverse_f0, l, out_re, out_im)
        else:
            _run_n_factor(&o64, q_squared, inverse_q0, r, inverse_f0, l, out_re, out_im)


cdef void _run_k_matrix(complex_vector *v, complex_matrix_2x2 *dm, int channels, bint s_wave,
                        const floating[:, ::1] k, const floating[:, ::1] rho,
                        const floating[:, ::1] nf, const floating[:, ::1] p,
                        floating[:, ::1] d_out, floating[:, ::1] a_out) noexcept nogil:
    # v[0..8]: rho1, rho2, n1, n2, p1, p2, a1, a2, D of one channel (scratch of the caller's precision)
    cdef Py_ssize_t nb, n = k.shape[1], b, m
    cdef floating k11[VECTOR_LENGTH]
    cdef floating k12[VECTOR_LENGTH]
    cdef floating k22[VECTOR_LENGTH]
    for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
        b = nb * VECTOR_LENGTH
        m = min(<Py_ssize_t>VECTOR_LENGTH, n - b)
        # Padding lanes: K = 0, rho = 0, n = 1, P = 0, so that D = I there.
        _load(k11, k[0], b, m, 0)
        _load(k12, k[1], b, m, 0)
        _load(k22, k[2], b, m, 0)
        _load_complex(&v[0], rho[0], rho[1], b, m, 0)
        _load_complex(&v[1], rho[2], rho[3], b, m, 0)
        _load_complex(&v[2], nf[0], nf[1], b, m, 1)
        _load_complex(&v[3], nf[2], nf[3], b, m, 1)
        _load_complex(&v[4], p[0], p[1], b, m, 0)
        _load_complex(&v[5], p[2], p[3], b, m, 0)
        if channels == 1:
            # the 1x1 "matrix" D is v[8]
            if s_wave:
                k_matrix_denominator_s_wave_1(&v[8], k11, &v[0])
                k_matrix_amplitude_s_wave_1(&v[6], &v[8], &v[4])
            else:
                k_matrix_denominator_1(&v[8], k11, &v[0], &v[2])
                k_matrix_amplitude_1(&v[6], &v[8], &v[4], &v[2])
            _store(&v[8], d_out[0], d_out[1], b, m)
        else:
            if s_wave:
                k_matrix_denominator_s_wave_2(dm, k11, k12, k22, &v[0], &v[1])
                k_matrix_amplitude_s_wave_2(&v[6], &v[7], dm, &v[4], &v[5])
            else:
                k_matrix_denominator_2(dm, k11, k12, k22, &v[0], &v[1], &v[2], &v[3])
                k_matrix_amplitude_2(&v[6], &v[7], dm, &v[4], &v[5], &v[2], &v[3])
            _store(&dm.m11, d_out[0], d_out[1], b, m)
            _store(&dm.m12, d_out[2], d_out[3], b, m)
            _store(&dm.m21, d_out[4], d_out[5], b, m)
            _store(&dm.m22, d_out[6], d_out[7], b, m)
            _store(&v[7], a_out[2], a_out[3], b, m)
        _store(&v[6], a_out[0], a_out[1], b, m)


def k_matrix_kernel(int channels, bint s_wave, const floating[:, ::1] k, const floating[:, ::1] rho,
                    const floating[:, ::1] nf, const floating[:, ::1] p, floating[:, ::1] d_out,
                    floating[:, ::1] a_out):
    """D = I - i K rho n^2 (or its S-wave form) and A = n D^-1 P.

    Rows: k (k11, k12, k22); rho, nf, p (Re 1, Im 1, Re 2, Im 2); d_out
    (Re/Im of D11, D12, D21, D22; only the first two for one channel); a_out
    (Re/Im of A1, A2).
    """
    cdef complex_vector_float32 v32[9]
    cdef complex_vector_float64 v64[9]
    cdef complex_matrix_2x2_float32 d32
    cdef complex_matrix_2x2_float64 d64
    with nogil:
        if floating is float:
            _run_k_matrix(&v32[0], &d32, channels, s_wave, k, rho, nf, p, d_out, a_out)
        else:
            _run_k_matrix(&v64[0], &d64, channels, s_wave, k, rho, nf, p, d_out, a_out)
