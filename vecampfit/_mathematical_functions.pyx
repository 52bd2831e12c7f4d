# Kernels behind vecampfit.mathematical_functions: the block routines of
# mathematical_functions.pxd over whole arrays, one <routine>_kernel each,
# generated during the build from tools/block_routines.py (see
# tools/generate_block_wrappers.py); below, the Chebyshev basis (an output of
# degree + 1 blocks), the tail integral and the scalar functions.

# The include also defines the padded loads and stores (_load_padded*,
# _store_lanes*) that the loops below share with the generated ones.
include "vecampfit/_mathematical_functions_blocks.pxi"

from cython cimport floating

from vecampfit.block cimport VECTOR_LENGTH
from vecampfit.mathematical_functions cimport (
    asymmetric_gaussian_tail_integral, chebyshev_basis, exp_scalar, log_scalar, floor_scalar,
    power_scalar, logistic_scalar, kallen_lambda_scalar,
)


def tail_integral(double sigma_left, double sigma_right, double alpha_left, double alpha_right,
                  double beta_left, double beta_right, double n_left, double n_right, int kind):
    """Integral of the unnormalized shape; kind as in mathematical_functions.pxd (0..4)."""
    return asymmetric_gaussian_tail_integral(sigma_left, sigma_right, alpha_left, alpha_right,
                                             beta_left, beta_right, n_left, n_right, kind)


def chebyshev_basis_kernel(const floating[::1] x, int degree, floating[::1] work,
                           floating[:, ::1] out):
    """out[k, j] = T_k(x[j]) for k = 0..degree; work holds (degree + 1) L values."""
    cdef Py_ssize_t nb, n = x.shape[0], b, i, m, k
    cdef floating xb[VECTOR_LENGTH]
    cdef floating *buf = &work[0]
    if work.shape[0] < (degree + 1) * VECTOR_LENGTH:
        raise ValueError("work array too short")
    with nogil:
        for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
            b = nb * VECTOR_LENGTH
            m = min(<Py_ssize_t>VECTOR_LENGTH, n - b)
            _load_padded(xb, x, b, m, 0)
            chebyshev_basis(buf, xb, degree)
            for k in range(degree + 1):
                for i in range(m):
                    out[k, b + i] = buf[k * VECTOR_LENGTH + i]


# Scalar versions, one per precision (the Python layer picks by type).

cdef floating _scalar(int kind, floating x, floating y, floating z) noexcept nogil:
    if kind == 0:
        return exp_scalar(x)
    elif kind == 1:
        return log_scalar(x)
    elif kind == 2:
        return floor_scalar(x)
    elif kind == 3:
        return logistic_scalar(x)
    elif kind == 4:
        return power_scalar(x, y)
    return kallen_lambda_scalar(x, y, z)


def scalar64(int kind, double x, double y=0, double z=0):
    """kind 0: exp, 1: log, 2: floor, 3: logistic, 4: power, 5: Kallen lambda."""
    return _scalar(kind, x, y, z)


def scalar32(int kind, float x, float y=0, float z=0):
    """As scalar64 in float32 (the result is returned as a Python float)."""
    return _scalar(kind, x, y, z)
