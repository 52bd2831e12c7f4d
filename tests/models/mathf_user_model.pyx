# A user's model outside the package that uses vecampfit.mathematical_functions
# and vecampfit.complex_vector block routines, both precisions:
#   A(x) = sum_k c_k G_k(x),  G_k = asymmetric Gaussian with exponential tails,
#   density(x) = |A(x)|^2 * logistic((x - x0) / w)
# plus whole-array drivers of the block exp, log, power and floor (used by the
# tests on natively tuned code and by benchmarks/bench_mathematical_functions.py)
# and of vecampfit.geometry's azimuthal angle difference.
from cython cimport floating

cimport vecampfit.complex_vector as cv
cimport vecampfit.geometry as geo
cimport vecampfit.mathematical_functions as mf
from vecampfit.block cimport VECTOR_LENGTH, complex_vector, complex_vector_float32, complex_vector_float64

import numpy as np

include "blocks.pxi"


cdef void density_block(complex_vector *amp, complex_vector *term, floating *out, const floating *x,
                        const floating *pars, int n_terms, floating x0, floating w) noexcept nogil:
    # pars per term: mean, sigma_left, sigma_right, alpha_left, alpha_right, c_re, c_im
    cdef floating g[VECTOR_LENGTH]
    cdef floating t[VECTOR_LENGTH]
    cdef int k, i
    cv.set_complex_constant(amp, <floating>0, <floating>0)
    for k in range(n_terms):
        mf.asymmetric_gaussian_exponential_tail(g, x, pars[7 * k], pars[7 * k + 1], pars[7 * k + 2],
                                                pars[7 * k + 3], pars[7 * k + 4])
        cv.set_real(term, g)
        cv.multiply_add_complex_scalar(amp, term, pars[7 * k + 5], pars[7 * k + 6])
    cv.absolute_value_squared(out, amp)
    for i in range(VECTOR_LENGTH):
        t[i] = (x[i] - x0) / w
    mf.logistic(t, t)
    for i in range(VECTOR_LENGTH):
        out[i] = out[i] * t[i]


cdef void run_density(complex_vector *amp, complex_vector *term, const floating[::1] x,
                      const floating[::1] pars, floating x0, floating w, floating[::1] out) noexcept nogil:
    cdef Py_ssize_t n = x.shape[0], nb, b
    cdef floating xb[VECTOR_LENGTH]
    cdef floating ob[VECTOR_LENGTH]
    for nb in range(n_blocks(n)):
        b = nb * VECTOR_LENGTH
        load_block(xb, x, b, 0)
        density_block(amp, term, ob, xb, &pars[0], pars.shape[0] // 7, x0, w)
        store_block(out, ob, b)


def density(floating[::1] x, floating[::1] pars, floating x0, floating w):
    out = np.empty(x.shape[0], np.float32 if floating is float else np.float64)
    cdef floating[::1] out_v = out
    cdef complex_vector_float32 a32, t32
    cdef complex_vector_float64 a64, t64
    with nogil:
        if floating is float:
            run_density(&a32, &t32, x, pars, x0, w, out_v)
        else:
            run_density(&a64, &t64, x, pars, x0, w, out_v)
    return out


def apply(const floating[::1] x, const floating[::1] y, floating[::1] out, int function, int repeats=1):
    """function 0: exp, 1: log, 2: power (x^y), 3: floor; len(x) a multiple of L."""
    cdef Py_ssize_t n = x.shape[0], nb, r
    if n % VECTOR_LENGTH or out.shape[0] != n or (function == 2 and y.shape[0] != n):
        raise ValueError("lengths must agree and be multiples of the vector length")
    with nogil:
        for r in range(repeats):
            for nb in range(n // VECTOR_LENGTH):
                if function == 0:
                    mf.exp(&out[nb * VECTOR_LENGTH], &x[nb * VECTOR_LENGTH])
                elif function == 1:
                    mf.log(&out[nb * VECTOR_LENGTH], &x[nb * VECTOR_LENGTH])
                elif function == 2:
                    mf.power(&out[nb * VECTOR_LENGTH], &x[nb * VECTOR_LENGTH], &y[nb * VECTOR_LENGTH])
                else:
                    mf.floor(&out[nb * VECTOR_LENGTH], &x[nb * VECTOR_LENGTH])


def angle_difference(const floating[::1] phi1, const floating[::1] phi2):
    """geo.azimuthal_angle_difference over whole arrays (any length)."""
    cdef Py_ssize_t n = phi1.shape[0], nb, b
    cdef floating ab[VECTOR_LENGTH]
    cdef floating bb[VECTOR_LENGTH]
    cdef floating ob[VECTOR_LENGTH]
    out = np.empty(n, np.float32 if floating is float else np.float64)
    cdef floating[::1] out_v = out
    if phi2.shape[0] != n:
        raise ValueError("phi1 and phi2 differ in length")
    with nogil:
        for nb in range(n_blocks(n)):
            b = nb * VECTOR_LENGTH
            load_block(ab, phi1, b, 0)
            load_block(bb, phi2, b, 0)
            geo.azimuthal_angle_difference(ob, ab, bb)
            store_block(out_v, ob, b)
    return out
