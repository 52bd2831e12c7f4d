# Resolution density of the e+e- -> K K-bar pi pi example (paper section 8.3)
# with its explicit gradient, in the fitter's model protocol; resolution.py is
# the numpy reference and documents the formulas:
#
#   R = prod_w exp(-x_w^2 / (2 sigma_w^2)) / (sqrt(2 pi) sigma_w),
#   sigma_w = c_w0 + sum_d c_wd v_d,
#
# twelve widths w (track x (Delta p/p, Delta cos(theta), Delta phi)), each a
# first-order polynomial of the seven normalized generator-level Phi.  A width
# that is not positive gives NaN (the fitter then reports the event or, with
# on_invalid="large", returns a large value).
#
# Event block: resolution.EVENT_FIELDS (x of the twelve widths, then v0 ... v6).
from cython cimport floating
from libc.math cimport NAN, M_PI, sqrt

from vecampfit.block cimport VECTOR_LENGTH
from vecampfit.fitter.density cimport model_description
from vecampfit.mathematical_functions cimport exp_scalar, log_scalar

TRACKS = ("K1", "K2", "pi1", "pi2")
WIDTHS = tuple(f"{t}_{k}" for t in TRACKS for k in ("DP", "DC", "DF"))
PARAMETERS = tuple(f"RES_{w}_{d}" for w in WIDTHS for d in range(8))
EVENT_FIELDS = tuple(f"x_{w}" for w in WIDTHS) + tuple(f"v{d}" for d in range(7))
CONSTANTS = {}

cdef enum:
    N_WIDTHS = 12
    N_PARAMETERS = 96
    N_EVENT_FIELDS = 19
    PARAMETER_BUFFER_SIZE = 0
    N_CONSTANTS = 0


cdef inline void _evaluate(floating *out, floating *grad, const floating *ev, const floating *p,
                           bint with_gradient) noexcept nogil:
    cdef const floating *v = ev + N_WIDTHS * VECTOR_LENGTH
    cdef floating sigma[N_WIDTHS * VECTOR_LENGTH]
    cdef floating logr[VECTOR_LENGTH]
    cdef floating bad[VECTOR_LENGTH]
    cdef floating s, x, r, t
    cdef floating log_sqrt_2pi = <floating>(0.5 * log_scalar(2 * M_PI))
    cdef int w, d, i
    for i in range(VECTOR_LENGTH):
        logr[i] = 0
        bad[i] = 0
    for w in range(N_WIDTHS):
        for i in range(VECTOR_LENGTH):
            s = p[8 * w]
            for d in range(7):
                s = s + p[8 * w + 1 + d] * v[d * VECTOR_LENGTH + i]
            sigma[w * VECTOR_LENGTH + i] = s
            bad[i] = bad[i] + (1 if s <= 0 else 0)
            s = s if s > 0 else 1
            x = ev[w * VECTOR_LENGTH + i] / s
            logr[i] = logr[i] - <floating>0.5 * x * x - log_scalar(s) - log_sqrt_2pi
    for i in range(VECTOR_LENGTH):
        r = exp_scalar(logr[i])
        out[i] = r if bad[i] == 0 else <floating>NAN
        if with_gradient:
            for w in range(N_WIDTHS):
                s = sigma[w * VECTOR_LENGTH + i]
                x = ev[w * VECTOR_LENGTH + i]
                t = r * (x * x / (s * s * s) - 1 / s)
                grad[(8 * w) * VECTOR_LENGTH + i] = t
                for d in range(7):
                    grad[(8 * w + 1 + d) * VECTOR_LENGTH + i] = t * v[d * VECTOR_LENGTH + i]


cdef void density(floating *out, const void *event_block, const floating *p,
                  const void *parameter_buffer) noexcept nogil:
    _evaluate(out, NULL, <const floating *>event_block, p, False)


cdef void density_gradient(floating *out, floating *gradient, const void *event_block,
                           const floating *p, const void *parameter_buffer) noexcept nogil:
    _evaluate(out, gradient, <const floating *>event_block, p, True)


def vecampfit_model():
    return model_description(PARAMETERS, EVENT_FIELDS, CONSTANTS, N_PARAMETERS, N_EVENT_FIELDS,
                             PARAMETER_BUFFER_SIZE, N_CONSTANTS, density[double], density[float],
                             density_gradient[double], density_gradient[float], NULL, NULL)
