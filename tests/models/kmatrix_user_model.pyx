# A user's model outside the package built from vecampfit.high_energy_physics
# K-matrix and Flatte block routines, both precisions:
#   a two-channel (pi pi, K K) amplitude A_1 = n_1 [I - i K rho n^2]^-1 P |_1 with
#   two poles, constant background b in K and a in P, and a Flatte amplitude.
from cython cimport floating

cimport vecampfit.high_energy_physics as hep
cimport vecampfit.kinematics as kin
from vecampfit.block cimport VECTOR_LENGTH, complex_vector, complex_vector_float32, complex_vector_float64
from vecampfit.linear_algebra cimport complex_matrix_2x2, complex_matrix_2x2_float32, complex_matrix_2x2_float64

import numpy as np

include "blocks.pxi"


cdef void k_matrix_block(complex_vector *v, complex_matrix_2x2 *d, const floating *s, const floating *pars,
                         bint s_wave, int l, double m11, double m12, double m21, double m22) noexcept nogil:
    # pars: b11, b12, b22, Re a1, Im a1, Re a2, Im a2, then per pole (2 poles):
    #       m_R, g1, g2, Re A_R, Im A_R; then q0_1, q0_2, r, 1/F(q0_1), 1/F(q0_2)
    # v: rho1, rho2, n1, n2, p1, p2, a1, a2 (output a1, a2)
    cdef floating k11[VECTOR_LENGTH]
    cdef floating k12[VECTOR_LENGTH]
    cdef floating k22[VECTOR_LENGTH]
    cdef floating q2[VECTOR_LENGTH]
    cdef int i, r
    for i in range(VECTOR_LENGTH):
        k11[i] = pars[0]
        k12[i] = pars[1]
        k22[i] = pars[2]
        v[4].re[i] = pars[3]
        v[4].im[i] = pars[4]
        v[5].re[i] = pars[5]
        v[5].im[i] = pars[6]
    for r in range(2):
        hep.k_matrix_add_pole_2(k11, k12, k22, s, pars[7 + 5 * r], pars[8 + 5 * r], pars[9 + 5 * r])
        hep.p_vector_add_pole_2(&v[4], &v[5], s, pars[7 + 5 * r], pars[10 + 5 * r], pars[11 + 5 * r],
                                pars[8 + 5 * r], pars[9 + 5 * r])
    kin.phase_space_2body_real_s(&v[0], s, <floating>m11, <floating>m12)
    kin.phase_space_2body_real_s(&v[1], s, <floating>m21, <floating>m22)
    if s_wave:
        hep.k_matrix_denominator_s_wave_2(d, k11, k12, k22, &v[0], &v[1])
        hep.k_matrix_amplitude_s_wave_2(&v[6], &v[7], d, &v[4], &v[5])
    else:
        kin.decay_momentum_squared_s(q2, s, <floating>(m11 * m11), <floating>(m12 * m12))
        hep.k_matrix_n_factor(&v[2], q2, 1 / pars[17], pars[19], pars[20], l)
        kin.decay_momentum_squared_s(q2, s, <floating>(m21 * m21), <floating>(m22 * m22))
        hep.k_matrix_n_factor(&v[3], q2, 1 / pars[18], pars[19], pars[21], l)
        hep.k_matrix_denominator_2(d, k11, k12, k22, &v[0], &v[1], &v[2], &v[3])
        hep.k_matrix_amplitude_2(&v[6], &v[7], d, &v[4], &v[5], &v[2], &v[3])


cdef void run(complex_vector *v, complex_matrix_2x2 *d, const floating[::1] s, const floating[::1] pars,
              bint s_wave, int l, double m11, double m12, double m21, double m22,
              double[:, ::1] out) noexcept nogil:
    cdef Py_ssize_t n = s.shape[0], nb, b, i
    cdef floating sb[VECTOR_LENGTH]
    for nb in range(n_blocks(n)):
        b = nb * VECTOR_LENGTH
        load_block(sb, s, b, s[0])
        k_matrix_block(v, d, sb, &pars[0], s_wave, l, m11, m12, m21, m22)
        for i in range(VECTOR_LENGTH):
            if b + i < n:
                out[0, b + i] = v[6].re[i]
                out[1, b + i] = v[6].im[i]
                out[2, b + i] = v[7].re[i]
                out[3, b + i] = v[7].im[i]


def k_matrix_amplitude(floating[::1] s, floating[::1] pars, bint s_wave, int l, double m11, double m12,
                       double m21, double m22):
    """(A_1, A_2) over all events, complex128."""
    out = np.empty((4, s.shape[0]))
    cdef double[:, ::1] o = out
    cdef complex_vector_float32 v32[8]
    cdef complex_vector_float64 v64[8]
    cdef complex_matrix_2x2_float32 d32
    cdef complex_matrix_2x2_float64 d64
    with nogil:
        if floating is float:
            run(&v32[0], &d32, s, pars, s_wave, l, m11, m12, m21, m22, o)
        else:
            run(&v64[0], &d64, s, pars, s_wave, l, m11, m12, m21, m22, o)
    return out[0] + 1j * out[1], out[2] + 1j * out[3]


cdef void run_flatte(complex_vector *o, const floating[::1] m, floating m0, floating g1, floating g2,
                     floating m11, floating m12, floating m21, floating m22,
                     double[:, ::1] out) noexcept nogil:
    cdef Py_ssize_t n = m.shape[0], nb, b, i
    cdef floating mb[VECTOR_LENGTH]
    for nb in range(n_blocks(n)):
        b = nb * VECTOR_LENGTH
        load_block(mb, m, b, m0)
        hep.flatte_masses(o, mb, m0, g1, g2, m11, m12, m21, m22)
        for i in range(VECTOR_LENGTH):
            if b + i < n:
                out[0, b + i] = o.re[i]
                out[1, b + i] = o.im[i]


def flatte(floating[::1] m, floating m0, floating g1, floating g2, floating m11, floating m12,
           floating m21, floating m22):
    out = np.empty((2, m.shape[0]))
    cdef double[:, ::1] o = out
    cdef complex_vector_float32 o32
    cdef complex_vector_float64 o64
    with nogil:
        if floating is float:
            run_flatte(&o32, m, m0, g1, g2, m11, m12, m21, m22, o)
        else:
            run_flatte(&o64, m, m0, g1, g2, m11, m12, m21, m22, o)
    return out[0] + 1j * out[1]
