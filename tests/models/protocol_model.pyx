# Models for the tests of the model protocol (vecampfit.fitter.density).
#
# "scaled": S(x) = SCALE exp(-(x - mu)^2 / 2) with the constant SCALE
# (default 1) carried into the parameter buffer by the filler, parameter mu.
# The other models write more than they declare, each in one buffer:
# "long_fill" one element beyond its parameter buffer, "long_gradient" one
# gradient row beyond its parameters, "long_values" one value beyond its block.

from cython cimport floating
from vecampfit.block cimport VECTOR_LENGTH
from vecampfit.fitter.density cimport model_description
from vecampfit.mathematical_functions cimport exp_scalar

cdef enum:
    N_EVENT_FIELDS = 1
    N_PARAMETERS = 1
    PARAMETER_BUFFER_SIZE = 2
    N_CONSTANTS = 1


cdef void fill(floating *pb, const floating *p, const double *constants) noexcept nogil:
    pb[0] = <floating> constants[0]
    pb[1] = p[0]


cdef void fill_long(floating *pb, const floating *p, const double *constants) noexcept nogil:
    pb[0] = <floating> constants[0]
    pb[1] = p[0]
    pb[2] = 0


cdef void scaled(floating *out, const void *event_block, const floating *p,
                 const void *parameter_buffer) noexcept nogil:
    cdef const floating *x = <const floating *> event_block
    cdef const floating *pb = <const floating *> parameter_buffer
    cdef floating d
    cdef int i
    for i in range(VECTOR_LENGTH):
        d = x[i] - pb[1]
        out[i] = pb[0] * exp_scalar(-d * d / 2)


cdef void scaled_gradient(floating *out, floating *gradient, const void *event_block,
                          const floating *p, const void *parameter_buffer) noexcept nogil:
    cdef const floating *x = <const floating *> event_block
    cdef const floating *pb = <const floating *> parameter_buffer
    cdef floating d, s
    cdef int i
    for i in range(VECTOR_LENGTH):
        d = x[i] - pb[1]
        s = pb[0] * exp_scalar(-d * d / 2)
        out[i] = s
        gradient[i] = s * d


cdef void long_gradient(floating *out, floating *gradient, const void *event_block,
                        const floating *p, const void *parameter_buffer) noexcept nogil:
    cdef int i
    scaled_gradient(out, gradient, event_block, p, parameter_buffer)
    for i in range(VECTOR_LENGTH):
        gradient[VECTOR_LENGTH + i] = 0


cdef void long_values(floating *out, const void *event_block, const floating *p,
                      const void *parameter_buffer) noexcept nogil:
    scaled(out, event_block, p, parameter_buffer)
    out[VECTOR_LENGTH] = 0


def vecampfit_model():
    """The models of this module."""
    c = {"SCALE": 1.0}
    return {
        "scaled": model_description(
            ("mu",), ("x",), c, N_PARAMETERS, N_EVENT_FIELDS, PARAMETER_BUFFER_SIZE,
            N_CONSTANTS, scaled[double], scaled[float], scaled_gradient[double],
            scaled_gradient[float], fill[double], fill[float]),
        "long_fill": model_description(
            ("mu",), ("x",), c, N_PARAMETERS, N_EVENT_FIELDS, PARAMETER_BUFFER_SIZE,
            N_CONSTANTS, scaled[double], scaled[float], scaled_gradient[double],
            scaled_gradient[float], fill_long[double], fill_long[float]),
        "long_gradient": model_description(
            ("mu",), ("x",), c, N_PARAMETERS, N_EVENT_FIELDS, PARAMETER_BUFFER_SIZE,
            N_CONSTANTS, scaled[double], scaled[float], long_gradient[double],
            long_gradient[float], fill[double], fill[float]),
        "long_values": model_description(
            ("mu",), ("x",), c, N_PARAMETERS, N_EVENT_FIELDS, PARAMETER_BUFFER_SIZE,
            N_CONSTANTS, long_values[double], long_values[float], scaled_gradient[double],
            scaled_gradient[float], fill[double], fill[float]),
    }


def mismatched_description(what):
    """A description whose Python names disagree with the C counts."""
    names = {"parameters": ("mu", "sigma"), "fields": ("x",), "constants": {"SCALE": 1.0}}
    if what == "fields":
        names = {"parameters": ("mu",), "fields": ("x", "y"), "constants": {"SCALE": 1.0}}
    elif what == "constants":
        names = {"parameters": ("mu",), "fields": ("x",), "constants": {}}
    return model_description(names["parameters"], names["fields"], names["constants"],
                             N_PARAMETERS, N_EVENT_FIELDS, PARAMETER_BUFFER_SIZE, N_CONSTANTS,
                             scaled[double], scaled[float], NULL, NULL, fill[double],
                             fill[float])
