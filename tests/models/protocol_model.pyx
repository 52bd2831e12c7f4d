# Models for the tests of the model protocol (vecampfit.fitter.density).
#
# "scaled": S(x) = SCALE exp(-(x - mu)^2 / 2) with the constant SCALE
# (default 1) carried into the parameter buffer by the filler, parameter mu.
# The other models write more than they declare, each in one buffer:
# "long_fill" one element beyond its parameter buffer, "long_gradient" one
# gradient row beyond its parameters, "long_values" one value beyond its block.
# "scaled" also offers its gradient sum (density_gradient_sum); "long_sum"
# adds one row beyond its parameters there, "sum_without_factor" ignores the
# factors, and "sum_other_value" writes another value than its density.

from cython cimport floating
from vecampfit.block cimport VECTOR_LENGTH
from vecampfit.fitter.density cimport (
    density_function_float32, density_function_float64, density_gradient_function_float32,
    density_gradient_function_float64, density_gradient_sum_function_float32,
    density_gradient_sum_function_float64, fill_parameter_buffer_function_float32,
    fill_parameter_buffer_function_float64, gradient_sum_functions, model_description,
)
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


cdef void scaled_gradient_sum(floating *out, double *sums, const double *factor,
                              const void *event_block, const floating *p,
                              const void *parameter_buffer) noexcept nogil:
    cdef floating g[VECTOR_LENGTH]
    cdef int i
    scaled_gradient(out, g, event_block, p, parameter_buffer)
    for i in range(VECTOR_LENGTH):
        sums[i] += factor[i] * g[i]


cdef void long_sum(floating *out, double *sums, const double *factor, const void *event_block,
                   const floating *p, const void *parameter_buffer) noexcept nogil:
    cdef int i
    scaled_gradient_sum(out, sums, factor, event_block, p, parameter_buffer)
    for i in range(VECTOR_LENGTH):
        sums[VECTOR_LENGTH + i] += 1


cdef void sum_without_factor(floating *out, double *sums, const double *factor,
                             const void *event_block, const floating *p,
                             const void *parameter_buffer) noexcept nogil:
    cdef floating g[VECTOR_LENGTH]
    cdef int i
    scaled_gradient(out, g, event_block, p, parameter_buffer)
    for i in range(VECTOR_LENGTH):
        sums[i] += g[i]


cdef void sum_other_value(floating *out, double *sums, const double *factor,
                          const void *event_block, const floating *p,
                          const void *parameter_buffer) noexcept nogil:
    cdef int i
    scaled_gradient_sum(out, sums, factor, event_block, p, parameter_buffer)
    for i in range(VECTOR_LENGTH):
        out[i] = 2 * out[i]


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


cdef object scaled_description(str overrun):
    """The description of "scaled" (overrun None), or of the model whose
    function of the kind overrun ("fill", "gradient" or "values") is replaced
    by the one that writes one element beyond its buffer."""
    cdef density_function_float64 values64 = scaled[double]
    cdef density_function_float32 values32 = scaled[float]
    cdef density_gradient_function_float64 gradient64 = scaled_gradient[double]
    cdef density_gradient_function_float32 gradient32 = scaled_gradient[float]
    cdef fill_parameter_buffer_function_float64 fill64 = fill[double]
    cdef fill_parameter_buffer_function_float32 fill32 = fill[float]
    cdef density_gradient_sum_function_float64 sum64 = scaled_gradient_sum[double]
    cdef density_gradient_sum_function_float32 sum32 = scaled_gradient_sum[float]
    if overrun == "fill":
        fill64, fill32 = fill_long[double], fill_long[float]
    elif overrun == "gradient":
        gradient64, gradient32 = long_gradient[double], long_gradient[float]
    elif overrun == "values":
        values64, values32 = long_values[double], long_values[float]
    elif overrun == "sum":
        sum64, sum32 = long_sum[double], long_sum[float]
    elif overrun == "sum_without_factor":
        sum64, sum32 = sum_without_factor[double], sum_without_factor[float]
    elif overrun == "sum_other_value":
        sum64, sum32 = sum_other_value[double], sum_other_value[float]
    desc = model_description(("mu",), ("x",), {"SCALE": 1.0}, N_PARAMETERS, N_EVENT_FIELDS,
                             PARAMETER_BUFFER_SIZE, N_CONSTANTS, values64, values32, gradient64,
                             gradient32, fill64, fill32)
    desc["gradient_sums"] = gradient_sum_functions(sum64, sum32)
    return desc


def vecampfit_model():
    """The models of this module."""
    models = {"scaled": scaled_description(None)}
    for overrun in ("fill", "gradient", "values", "sum"):
        models[f"long_{overrun}"] = scaled_description(overrun)
    for wrong in ("sum_without_factor", "sum_other_value"):
        models[wrong] = scaled_description(wrong)
    return models


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
