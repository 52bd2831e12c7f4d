# A user's resonance term in the style of the D0 -> K- pi+ pi0 example, built
# from vecampfit's block routines outside the package:
#   A = c [F_D(p)/F_D(p0)] B_nophsp(m_ab) (p q cos theta)
from cython cimport floating

from vecampfit.block cimport VECTOR_LENGTH, complex_vector, complex_vector_float32, complex_vector_float64
from vecampfit.high_energy_physics cimport blatt_weisskopf_ratio, breit_wigner_q_f_nophsp

import numpy as np

include "blocks.pxi"


cdef void rho_block(complex_vector *out, const floating *m, const floating *q, const floating *p,
                    const floating *cos_t, floating m0, floating g0, floating inv_q0, floating r,
                    floating inv_f0, floating rd, floating inv_fd0, floating c_re,
                    floating c_im) noexcept nogil:
    cdef floating fd[VECTOR_LENGTH]
    cdef floating w, re, im
    cdef int i
    blatt_weisskopf_ratio(fd, p, rd, inv_fd0, 1)
    breit_wigner_q_f_nophsp(out, m, q, m0, g0, inv_q0, r, inv_f0, 1)
    for i in range(VECTOR_LENGTH):
        w = fd[i] * p[i] * q[i] * cos_t[i]
        re = (c_re * out.re[i] - c_im * out.im[i]) * w
        im = (c_re * out.im[i] + c_im * out.re[i]) * w
        out.re[i] = re
        out.im[i] = im


cdef void run(complex_vector *o, floating[::1] m, floating[::1] q, floating[::1] p,
              floating[::1] cos_t, floating m0, floating g0, floating inv_q0, floating r,
              floating inv_f0, floating rd, floating inv_fd0, floating c_re, floating c_im,
              double[::1] out_re, double[::1] out_im) noexcept nogil:
    cdef Py_ssize_t n = m.shape[0], nb, b, i
    cdef floating mb[VECTOR_LENGTH]
    cdef floating qb[VECTOR_LENGTH]
    cdef floating pb[VECTOR_LENGTH]
    cdef floating cb[VECTOR_LENGTH]
    for nb in range(n_blocks(n)):
        b = nb * VECTOR_LENGTH
        # Padding lanes get harmless values and are not stored.
        load_block(mb, m, b, m0)
        load_block(qb, q, b, 1)
        load_block(pb, p, b, 1)
        load_block(cb, cos_t, b, 0)
        rho_block(o, mb, qb, pb, cb, m0, g0, inv_q0, r, inv_f0, rd, inv_fd0, c_re, c_im)
        for i in range(VECTOR_LENGTH):
            if b + i < n:
                out_re[b + i] = o.re[i]
                out_im[b + i] = o.im[i]


def rho_term(floating[::1] m, floating[::1] q, floating[::1] p, floating[::1] cos_t,
             floating m0, floating g0, floating inv_q0, floating r, floating inv_f0, floating rd,
             floating inv_fd0, floating c_re, floating c_im):
    out_re = np.empty(m.shape[0])
    out_im = np.empty(m.shape[0])
    cdef double[::1] ore = out_re, oim = out_im
    cdef complex_vector_float32 o32
    cdef complex_vector_float64 o64
    if floating is float:
        run(&o32, m, q, p, cos_t, m0, g0, inv_q0, r, inv_f0, rd, inv_fd0, c_re, c_im, ore, oim)
    else:
        run(&o64, m, q, p, cos_t, m0, g0, inv_q0, r, inv_f0, rd, inv_fd0, c_re, c_im, ore, oim)
    return out_re + 1j * out_im
