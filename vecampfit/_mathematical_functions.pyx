# Kernels behind vecampfit.mathematical_functions: the block routines of
# mathematical_functions.pxd applied over whole arrays, in blocks of
# VECTOR_LENGTH with a padded tail block (padding lanes are discarded).

from cython cimport floating

from vecampfit.block cimport VECTOR_LENGTH
from vecampfit.mathematical_functions cimport (
    exp, log, floor, power, logistic, kallen_lambda, gaussian, gaussian_unnormalized,
    asymmetric_gaussian, asymmetric_gaussian_unnormalized, asymmetric_gaussian_exponential_tail,
    asymmetric_gaussian_power_law_tail, asymmetric_gaussian_exponential_power_law_tail,
    asymmetric_gaussian_power_law_exponential_tail, asymmetric_gaussian_tail_integral,
    chebyshev_basis, chebyshev_series, exp_scalar, log_scalar, floor_scalar, power_scalar,
    logistic_scalar, kallen_lambda_scalar,
)


cdef inline void _load(floating *dst, const floating[::1] src, Py_ssize_t start,
                       Py_ssize_t n, floating pad) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(VECTOR_LENGTH):
        dst[i] = src[start + i] if i < n else pad


def unary_kernel(const floating[::1] x, int kind, floating[::1] out):
    """kind 0: exp, 1: log, 2: floor, 3: logistic."""
    cdef Py_ssize_t nb, n = x.shape[0], b, i, m
    cdef floating xb[VECTOR_LENGTH]
    cdef floating ob[VECTOR_LENGTH]
    with nogil:
        for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
            b = nb * VECTOR_LENGTH
            m = min(<Py_ssize_t>VECTOR_LENGTH, n - b)
            _load(xb, x, b, m, 1)
            if kind == 0:
                exp(ob, xb)
            elif kind == 1:
                log(ob, xb)
            elif kind == 2:
                floor(ob, xb)
            else:
                logistic(ob, xb)
            for i in range(m):
                out[b + i] = ob[i]


def power_kernel(const floating[::1] x, const floating[::1] y, floating[::1] out):
    cdef Py_ssize_t nb, n = x.shape[0], b, i, m
    cdef floating xb[VECTOR_LENGTH]
    cdef floating yb[VECTOR_LENGTH]
    cdef floating ob[VECTOR_LENGTH]
    with nogil:
        for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
            b = nb * VECTOR_LENGTH
            m = min(<Py_ssize_t>VECTOR_LENGTH, n - b)
            _load(xb, x, b, m, 1)
            _load(yb, y, b, m, 1)
            power(ob, xb, yb)
            for i in range(m):
                out[b + i] = ob[i]


def kallen_lambda_kernel(const floating[::1] x, const floating[::1] y, const floating[::1] z,
                         floating[::1] out):
    cdef Py_ssize_t nb, n = x.shape[0], b, i, m
    cdef floating xb[VECTOR_LENGTH]
    cdef floating yb[VECTOR_LENGTH]
    cdef floating zb[VECTOR_LENGTH]
    cdef floating ob[VECTOR_LENGTH]
    with nogil:
        for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
            b = nb * VECTOR_LENGTH
            m = min(<Py_ssize_t>VECTOR_LENGTH, n - b)
            _load(xb, x, b, m, 0)
            _load(yb, y, b, m, 0)
            _load(zb, z, b, m, 0)
            kallen_lambda(ob, xb, yb, zb)
            for i in range(m):
                out[b + i] = ob[i]


def gaussian_kernel(const floating[::1] x, int kind, const floating[::1] p, floating[::1] out):
    """p = (mean, sigma_left, sigma_right, alpha_left, alpha_right, beta_left,
    beta_right, n_left, n_right); kind 0: gaussian (sigma_left), 1: gaussian
    unnormalized, 2: asymmetric, 3: asymmetric unnormalized, 4: exponential
    tails, 5: power-law tails, 6: exponential and power-law tails, 7: power-law
    and exponential tails."""
    cdef Py_ssize_t nb, n = x.shape[0], b, i, m
    cdef floating xb[VECTOR_LENGTH]
    cdef floating ob[VECTOR_LENGTH]
    with nogil:
        for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
            b = nb * VECTOR_LENGTH
            m = min(<Py_ssize_t>VECTOR_LENGTH, n - b)
            _load(xb, x, b, m, p[0])
            if kind == 0:
                gaussian(ob, xb, p[0], p[1])
            elif kind == 1:
                gaussian_unnormalized(ob, xb, p[0], p[1])
            elif kind == 2:
                asymmetric_gaussian(ob, xb, p[0], p[1], p[2])
            elif kind == 3:
                asymmetric_gaussian_unnormalized(ob, xb, p[0], p[1], p[2])
            elif kind == 4:
                asymmetric_gaussian_exponential_tail(ob, xb, p[0], p[1], p[2], p[3], p[4])
            elif kind == 5:
                asymmetric_gaussian_power_law_tail(ob, xb, p[0], p[1], p[2], p[3], p[4], p[7], p[8])
            elif kind == 6:
                asymmetric_gaussian_exponential_power_law_tail(ob, xb, p[0], p[1], p[2], p[3], p[4],
                                                               p[5], p[6], p[7], p[8])
            else:
                asymmetric_gaussian_power_law_exponential_tail(ob, xb, p[0], p[1], p[2], p[3], p[4],
                                                               p[5], p[6], p[7], p[8])
            for i in range(m):
                out[b + i] = ob[i]


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
            _load(xb, x, b, m, 0)
            chebyshev_basis(buf, xb, degree)
            for k in range(degree + 1):
                for i in range(m):
                    out[k, b + i] = buf[k * VECTOR_LENGTH + i]


def chebyshev_series_kernel(const floating[::1] x, const floating[::1] c, floating[::1] out):
    cdef Py_ssize_t nb, n = x.shape[0], b, i, m
    cdef int degree = c.shape[0] - 1
    cdef floating xb[VECTOR_LENGTH]
    cdef floating ob[VECTOR_LENGTH]
    with nogil:
        for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
            b = nb * VECTOR_LENGTH
            m = min(<Py_ssize_t>VECTOR_LENGTH, n - b)
            _load(xb, x, b, m, 0)
            chebyshev_series(ob, xb, &c[0], degree)
            for i in range(m):
                out[b + i] = ob[i]


# Scalar versions, one per precision (the Python layer picks by type).

def scalar64(int kind, double x, double y=0, double z=0):
    """kind 0: exp, 1: log, 2: floor, 3: logistic, 4: power, 5: Kallen lambda."""
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


def scalar32(int kind, float x, float y=0, float z=0):
    """As scalar64 in float32 (the result is returned as a Python float)."""
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
