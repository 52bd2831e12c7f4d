# A complete model in the fitter's protocol: an exponential decay-time
# density with a resolution-free lifetime and a constant time origin,
#
#     S(t) = exp(-(t - T0) / tau)   for t >= T0,   0 below,
#
# parameter TAU (the lifetime, ps), event field t (ps), constant T0 (ps).
from cython cimport floating

from vecampfit.block cimport VECTOR_LENGTH
from vecampfit.fitter.density cimport model_description
from vecampfit.mathematical_functions cimport exp_scalar

PARAMETERS = ("TAU",)
EVENT_FIELDS = ("t",)
CONSTANTS = {"T0": 0.0}

cdef enum:
    N_PARAMETERS = 1
    N_EVENT_FIELDS = 1
    N_CONSTANTS = 1
    PARAMETER_BUFFER_SIZE = 3      # 1/tau, 1/tau^2, T0


cdef void fill(floating *pb, const floating *p, const double *constants) noexcept nogil:
    pb[0] = 1 / p[0]
    pb[1] = 1 / (p[0] * p[0])
    pb[2] = <floating> constants[0]


cdef void density(floating *out, const void *events, const floating *p,
                  const void *parameter_buffer) noexcept nogil:
    cdef const floating *t = <const floating *> events
    cdef const floating *pb = <const floating *> parameter_buffer
    cdef int i
    for i in range(VECTOR_LENGTH):
        out[i] = exp_scalar(-(t[i] - pb[2]) * pb[0]) * (t[i] >= pb[2])


cdef void density_gradient(floating *out, floating *gradient, const void *events,
                           const floating *p, const void *parameter_buffer) noexcept nogil:
    # dS/dtau = S (t - T0) / tau^2
    cdef const floating *t = <const floating *> events
    cdef const floating *pb = <const floating *> parameter_buffer
    cdef int i
    for i in range(VECTOR_LENGTH):
        out[i] = exp_scalar(-(t[i] - pb[2]) * pb[0]) * (t[i] >= pb[2])
        gradient[i] = out[i] * (t[i] - pb[2]) * pb[1]


def vecampfit_model():
    return model_description(PARAMETERS, EVENT_FIELDS, CONSTANTS,
                             N_PARAMETERS, N_EVENT_FIELDS, PARAMETER_BUFFER_SIZE, N_CONSTANTS,
                             density[double], density[float],
                             density_gradient[double], density_gradient[float],
                             fill[double], fill[float])
