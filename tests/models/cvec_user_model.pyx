# A user's model outside the package: a sum of Breit-Wigner-like terms
#   A = sum_k c_k / (m_k^2 - s - i m_k g_k),  S = |A|^2
# built with vecampfit.complex_vector block routines, both precisions.
from cython cimport floating

cimport vecampfit.complex_vector as cv
from vecampfit.block cimport VECTOR_LENGTH, complex_vector, complex_vector_float32, complex_vector_float64

import numpy as np

include "blocks.pxi"


cdef void amplitude_block(complex_vector *amp, complex_vector *den, floating *dens,
                          const floating *s, const floating *pars, int n_terms) noexcept nogil:
    # pars: (m, g, c_re, c_im) per term
    cdef int k, i
    cv.set_complex_constant(amp, <floating>0, <floating>0)
    for k in range(n_terms):
        # den = m^2 - s - i m g, then amp += c / den
        for i in range(VECTOR_LENGTH):
            cv.set_element(den, i, pars[4 * k] * pars[4 * k] - s[i], -pars[4 * k] * pars[4 * k + 1])
        cv.inverse(den, den)
        cv.multiply_add_complex_scalar(amp, den, pars[4 * k + 2], pars[4 * k + 3])
    cv.absolute_value_squared(dens, amp)


cdef void run(complex_vector *amp, complex_vector *den, const floating[::1] s, const floating[::1] pars,
              floating[::1] out_re, floating[::1] out_im, floating[::1] out_dens) noexcept nogil:
    cdef Py_ssize_t n = s.shape[0], nb, b, i
    cdef floating sb[VECTOR_LENGTH]
    cdef floating db[VECTOR_LENGTH]
    cdef floating re, im
    for nb in range(n_blocks(n)):
        b = nb * VECTOR_LENGTH
        load_block(sb, s, b, 0)
        amplitude_block(amp, den, db, sb, &pars[0], pars.shape[0] // 4)
        for i in range(VECTOR_LENGTH):
            if b + i < n:
                cv.get_element(amp, i, &re, &im)
                out_re[b + i] = re
                out_im[b + i] = im
        store_block(out_dens, db, b)


def amplitude(floating[::1] s, floating[::1] pars):
    dtype = np.float32 if floating is float else np.float64
    re = np.empty(s.shape[0], dtype)
    im = np.empty(s.shape[0], dtype)
    dens = np.empty(s.shape[0], dtype)
    cdef floating[::1] re_v = re, im_v = im, dens_v = dens
    cdef complex_vector_float32 a32, d32
    cdef complex_vector_float64 a64, d64
    if floating is float:
        run(&a32, &d32, s, pars, re_v, im_v, dens_v)
    else:
        run(&a64, &d64, s, pars, re_v, im_v, dens_v)
    return re + 1j * im, dens
