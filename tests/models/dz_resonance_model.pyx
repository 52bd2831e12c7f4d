# A user's D0 -> K- pi+ pi0 resonance term built outside the package from the
# kinematics and high_energy_physics block routines, starting from the Dalitz
# variables only (the event buffer holds m2(K- pi+) and m2(K- pi0)):
#   K*(892)- -> K- pi0 (spin 1), (A, B, C) = (K-, pi0, pi+):
#   A = c [F_D(p)/F_D(p0)] B_nophsp(m) [M_AC^2 - M_BC^2 + (M_D^2 - M_C^2)(M_B^2 - M_A^2)/M_R^2]
# and the covariant angular factor (p* q)^1 F_1(f) P_1^Laura(cos theta) of the
# same resonance from covariant_factor and dalitz_cos_helicity_angle.
from cython cimport floating

from vecampfit.block cimport VECTOR_LENGTH, complex_vector, complex_vector_float32, complex_vector_float64
from vecampfit.kinematics cimport (
    decay_momentum, decay_momentum_s, covariant_factor, dalitz_cos_helicity_angle,
)
from vecampfit.high_energy_physics cimport (
    blatt_weisskopf_ratio, breit_wigner_q_f_nophsp, covariant_angular_distribution,
)
from libc.math cimport sqrt

import numpy as np

include "blocks.pxi"


cdef void kstar_block(complex_vector *out, floating *angular, const floating *m2_kpip,
                      const floating *m2_kpiz, const floating *par) noexcept nogil:
    # par: mD, mK, mpi, mpi0, m0, g0, r, rD, inv_q0, inv_f0, inv_fd0, c_re, c_im
    cdef floating md = par[0], mk = par[1], mpi = par[2], mpi0 = par[3]
    cdef floating m0 = par[4], g0 = par[5], r = par[6], rd = par[7]
    cdef floating inv_q0 = par[8], inv_f0 = par[9], inv_fd0 = par[10]
    cdef floating m[VECTOR_LENGTH]
    cdef floating q[VECTOR_LENGTH]
    cdef floating p[VECTOR_LENGTH]
    cdef floating mdv[VECTOR_LENGTH]
    cdef floating mcv[VECTOR_LENGTH]
    cdef floating fd[VECTOR_LENGTH]
    cdef floating f[VECTOR_LENGTH]
    cdef floating cos_t[VECTOR_LENGTH]
    cdef floating m2_pippiz[VECTOR_LENGTH]
    cdef floating w, re, im
    cdef int i
    for i in range(VECTOR_LENGTH):
        m[i] = sqrt(m2_kpiz[i])
        mdv[i] = md
        mcv[i] = mpi
        m2_pippiz[i] = md * md + mk * mk + mpi * mpi + mpi0 * mpi0 - m2_kpip[i] - m2_kpiz[i]
    decay_momentum_s(q, m2_kpiz, mk * mk, mpi0 * mpi0)
    decay_momentum(p, mdv, m, mcv)
    blatt_weisskopf_ratio(fd, p, rd, inv_fd0, 1)
    breit_wigner_q_f_nophsp(out, m, q, m0, g0, inv_q0, r, inv_f0, 1)
    for i in range(VECTOR_LENGTH):
        w = fd[i] * (m2_kpip[i] - m2_pippiz[i] + (md * md - mpi * mpi) * (mpi0 * mpi0 - mk * mk) / (m0 * m0))
        re = (par[11] * out.re[i] - par[12] * out.im[i]) * w
        im = (par[11] * out.im[i] + par[12] * out.re[i]) * w
        out.re[i] = re
        out.im[i] = im
    # Angular factor of the chain D -> R pi+, R -> K- pi0 (1 = K-, 2 = pi0, 3 = pi+).
    covariant_factor(f, m, md, mpi)
    dalitz_cos_helicity_angle(cos_t, m2_kpiz, m2_pippiz, md, mk, mpi0, mpi)
    covariant_angular_distribution(angular, p, q, f, cos_t, 1)


cdef void run(complex_vector *o, const floating[::1] x, const floating[::1] y, const floating[::1] par,
              floating[::1] out_re, floating[::1] out_im, floating[::1] out_ang) noexcept nogil:
    cdef Py_ssize_t n = x.shape[0], nb, b, i
    cdef floating xb[VECTOR_LENGTH]
    cdef floating yb[VECTOR_LENGTH]
    cdef floating ab[VECTOR_LENGTH]
    for nb in range(n_blocks(n)):
        b = nb * VECTOR_LENGTH
        # Padding lanes: the first event again (results discarded).
        load_block(xb, x, b, x[0])
        load_block(yb, y, b, y[0])
        kstar_block(o, ab, xb, yb, &par[0])
        for i in range(VECTOR_LENGTH):
            if b + i < n:
                out_re[b + i] = o.re[i]
                out_im[b + i] = o.im[i]
                out_ang[b + i] = ab[i]


def kstar_term(floating[::1] m2_kpip, floating[::1] m2_kpiz, floating[::1] par):
    dtype = np.float32 if floating is float else np.float64
    re = np.empty(m2_kpip.shape[0], dtype=dtype)
    im = np.empty(m2_kpip.shape[0], dtype=dtype)
    ang = np.empty(m2_kpip.shape[0], dtype=dtype)
    cdef floating[::1] rv = re, iv = im, av = ang
    cdef complex_vector_float32 o32
    cdef complex_vector_float64 o64
    if floating is float:
        run(&o32, m2_kpip, m2_kpiz, par, rv, iv, av)
    else:
        run(&o64, m2_kpip, m2_kpiz, par, rv, iv, av)
    return re + 1j * im, ang
