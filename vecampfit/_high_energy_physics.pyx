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
