# A toy density for the fitter's tests, written as a user writes a model:
# a Gaussian in one variable x (event field "x"), S(x) = exp(-(x - mu)^2 / (2 sigma^2)),
# parameters p[0] = mu, p[1] = sigma; the parameter buffer holds 1/(2 sigma^2),
# 1/sigma^2 and 1/sigma^3.  A second density is linear, B(x) = 1 + c x (c = p[0]).

from cython cimport floating
from vecampfit.block cimport VECTOR_LENGTH
from vecampfit.fitter.density cimport (density_callable, density_gradient_callable,
                                       fill_parameter_buffer_callable)
# The library's exp vectorizes (libm's does not).
from vecampfit.mathematical_functions cimport exp_scalar


cdef void fill_gauss(floating *pb, const floating *p) noexcept nogil:
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


def callables(precision):
    """Low-level callables of this model for one precision."""
    if precision == "float64":
        return dict(density=density_callable(gauss[double]),
                    gradient=density_gradient_callable(gauss_gradient[double]),
                    fill=fill_parameter_buffer_callable(fill_gauss[double]),
                    linear=density_callable(linear[double]))
    elif precision == "float32":
        return dict(density=density_callable(gauss[float]),
                    gradient=density_gradient_callable(gauss_gradient[float]),
                    fill=fill_parameter_buffer_callable(fill_gauss[float]),
                    linear=density_callable(linear[float]))
    raise ValueError(precision)


VECTOR_LENGTH_OF_MODULE = VECTOR_LENGTH
