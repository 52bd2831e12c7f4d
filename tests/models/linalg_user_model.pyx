# A user's model outside the package: a two-channel K-matrix-like amplitude
#   F = [I - i K rho]^-1 P,  K = [[k11, k12], [k12, k22]] / (m^2 - s),
#   rho = diag(rho1(s), rho2(s)),  P = (p1, p2) / (m^2 - s),
# built with vecampfit.linear_algebra block routines (LU, solve, determinant).
from cython cimport floating

cimport vecampfit.linear_algebra as la
from vecampfit.block cimport VECTOR_LENGTH, complex_vector, complex_vector_float32, complex_vector_float64
from vecampfit.linear_algebra cimport (complex_matrix_2x2, complex_lu_2x2, complex_matrix_2x2_float32,
                                       complex_matrix_2x2_float64, complex_lu_2x2_float32,
                                       complex_lu_2x2_float64)

import numpy as np

include "blocks.pxi"


cdef void block(complex_matrix_2x2 *m, complex_lu_2x2 *lu, complex_vector *p1, complex_vector *p2,
                complex_vector *f1, complex_vector *f2, complex_vector *det,
                const floating *s, const floating *rho1, const floating *rho2,
                const floating *pars) noexcept nogil:
    # pars: m^2, k11, k12, k22, p1, p2
    cdef int i
    cdef floating g
    for i in range(VECTOR_LENGTH):
        g = 1 / (pars[0] - s[i])
        # I - i K rho
        m.m11.re[i] = 1
        m.m11.im[i] = -pars[1] * g * rho1[i]
        m.m12.re[i] = 0
        m.m12.im[i] = -pars[2] * g * rho2[i]
        m.m21.re[i] = 0
        m.m21.im[i] = -pars[2] * g * rho1[i]
        m.m22.re[i] = 1
        m.m22.im[i] = -pars[3] * g * rho2[i]
        p1.re[i] = pars[4] * g
        p1.im[i] = 0
        p2.re[i] = pars[5] * g
        p2.im[i] = 0
    la.lu_decompose(lu, m)
    la.lu_solve(f1, f2, lu, p1, p2)
    la.lu_determinant(det, lu)


cdef void run(complex_matrix_2x2 *m, complex_lu_2x2 *lu, complex_vector *p1, complex_vector *p2,
              complex_vector *f1, complex_vector *f2, complex_vector *det,
              const floating[::1] s, const floating[::1] rho1, const floating[::1] rho2,
              const floating[::1] pars, floating[:, ::1] out) noexcept nogil:
    cdef Py_ssize_t n = s.shape[0], nb, b, i
    cdef floating sb[VECTOR_LENGTH]
    cdef floating r1[VECTOR_LENGTH]
    cdef floating r2[VECTOR_LENGTH]
    for nb in range(n_blocks(n)):
        b = nb * VECTOR_LENGTH
        load_block(sb, s, b, 0)
        load_block(r1, rho1, b, 0)
        load_block(r2, rho2, b, 0)
        block(m, lu, p1, p2, f1, f2, det, sb, r1, r2, &pars[0])
        for i in range(VECTOR_LENGTH):
            if b + i < n:
                out[b + i, 0] = f1.re[i]
                out[b + i, 1] = f1.im[i]
                out[b + i, 2] = f2.re[i]
                out[b + i, 3] = f2.im[i]
                out[b + i, 4] = det.re[i]
                out[b + i, 5] = det.im[i]


def amplitude(floating[::1] s, floating[::1] rho1, floating[::1] rho2, floating[::1] pars):
    """Return (F1, F2, det(I - i K rho)) as complex arrays."""
    dtype = np.float32 if floating is float else np.float64
    out = np.empty((s.shape[0], 6), dtype)
    cdef floating[:, ::1] out_v = out
    cdef complex_matrix_2x2_float32 m32
    cdef complex_matrix_2x2_float64 m64
    cdef complex_lu_2x2_float32 lu32
    cdef complex_lu_2x2_float64 lu64
    cdef complex_vector_float32 a32, b32, c32, d32, e32
    cdef complex_vector_float64 a64, b64, c64, d64, e64
    if floating is float:
        run(&m32, &lu32, &a32, &b32, &c32, &d32, &e32, s, rho1, rho2, pars, out_v)
    else:
        run(&m64, &lu64, &a64, &b64, &c64, &d64, &e64, s, rho1, rho2, pars, out_v)
    return out[:, 0] + 1j * out[:, 1], out[:, 2] + 1j * out[:, 3], out[:, 4] + 1j * out[:, 5]
