# Toy densities for the fitter's tests, written as a user writes a model.
#
# "gauss": a Gaussian in one variable x (event field "x"),
#     S(x) = exp(-(x - mu)^2 / (2 sigma^2)),
# parameters mu, sigma; the parameter buffer holds 1/(2 sigma^2), 1/sigma^2
# and 1/sigma^3.  "linear": B(x) = 1 + c x, parameter c.

from cython cimport floating
from vecampfit.block cimport VECTOR_LENGTH
from vecampfit.fitter.density cimport model_description
# The library's exp vectorizes (libm's does not).
from vecampfit.mathematical_functions cimport exp_scalar

cdef enum:
    GAUSS_N_PARAMETERS = 2
    GAUSS_PARAMETER_BUFFER_SIZE = 3
    LINEAR_N_PARAMETERS = 1
    N_EVENT_FIELDS = 1


cdef void fill_gauss(floating *pb, const floating *p, const double *constants) noexcept nogil:
    cdef floating s = p[1]
    pb[0] = 1 / (2 * s * s)
    pb[1] = 1 / (s * s)
    pb[2] = 1 / (s * s * s)


cdef void gauss(floating *out, const void *event_block, const floating *p,
                const void *parameter_buffer) noexcept nogil:
    cdef const floating *x = <const floating *> event_block
    cdef const floating *pb = <const floating *> parameter_buffer
    cdef floating d
    cdef int i
    for i in range(VECTOR_LENGTH):
        d = x[i] - p[0]
        out[i] = exp_scalar(-d * d * pb[0])


cdef void gauss_gradient(floating *out, floating *gradient, const void *event_block,
                         const floating *p, const void *parameter_buffer) noexcept nogil:
    cdef const floating *x = <const floating *> event_block
    cdef const floating *pb = <const floating *> parameter_buffer
    cdef floating d, s
    cdef int i
    for i in range(VECTOR_LENGTH):
        d = x[i] - p[0]
        s = exp_scalar(-d * d * pb[0])
        out[i] = s
        gradient[i] = s * d * pb[1]
        gradient[VECTOR_LENGTH + i] = s * d * d * pb[2]


cdef void linear(floating *out, const void *event_block, const floating *p,
                 const void *parameter_buffer) noexcept nogil:
    cdef const floating *x = <const floating *> event_block
    cdef int i
    for i in range(VECTOR_LENGTH):
        out[i] = 1 + p[0] * x[i]


cdef void linear_gradient(floating *out, floating *gradient, const void *event_block,
                          const floating *p, const void *parameter_buffer) noexcept nogil:
    cdef const floating *x = <const floating *> event_block
    cdef int i
    for i in range(VECTOR_LENGTH):
        out[i] = 1 + p[0] * x[i]
        gradient[i] = x[i]


def vecampfit_model():
    """The two models of this module."""
    return {
        "gauss": model_description(
            ("mu", "sigma"), ("x",), {}, GAUSS_N_PARAMETERS, N_EVENT_FIELDS,
            GAUSS_PARAMETER_BUFFER_SIZE, 0, gauss[double], gauss[float],
            gauss_gradient[double], gauss_gradient[float], fill_gauss[double], fill_gauss[float]),
        "linear": model_description(
            ("c",), ("x",), {}, LINEAR_N_PARAMETERS, N_EVENT_FIELDS, 0, 0,
            linear[double], linear[float], linear_gradient[double], linear_gradient[float],
            NULL, NULL),
    }


VECTOR_LENGTH_OF_MODULE = VECTOR_LENGTH
