# A user's density for vecampfit, in its own folder: a resonance peak in the
# invariant mass m of a pair,
#
#     S(m) = |B(m)|^2,   B(m) = 1 / (m0^2 - m^2 - i m0 Gamma0),
#
# the constant-width Breit-Wigner amplitude of vecampfit.high_energy_physics.
# Compiled once per vector length by vecampfit.model_compiler.compile_model;
# `floating` gives both precisions in one compilation.
from cython cimport floating

from vecampfit.block cimport VECTOR_LENGTH, complex_vector_float32, complex_vector_float64
from vecampfit.fitter.density cimport model_description
from vecampfit.high_energy_physics cimport breit_wigner_constant_width_m0

# What the fitter reads from this module: parameter names (those of the
# parameter file; m0 and Gamma0 in GeV), event fields (m in GeV), constants.
PARAMETERS = ("M", "G")
EVENT_FIELDS = ("m",)
CONSTANTS = {}

cdef enum:
    PAR_M = 0
    PAR_G = 1
    N_PARAMETERS = 2
    N_EVENT_FIELDS = 1
    N_CONSTANTS = 0
    PB_M2 = 0          # m0^2
    PB_M0G2 = 1        # (m0 Gamma0)^2
    PB_DD_DM = 2       # d(m0 Gamma0)^2 / dm0 = 2 m0 Gamma0^2
    PB_DD_DG = 3       # d(m0 Gamma0)^2 / dGamma0 = 2 m0^2 Gamma0
    PARAMETER_BUFFER_SIZE = 4


cdef void fill_parameter_buffer(floating *pb, const floating *p,
                                const double *constants) noexcept nogil:
    """What depends on the parameters only, once per likelihood call."""
    pb[PB_M2] = p[PAR_M] * p[PAR_M]
    pb[PB_M0G2] = p[PAR_M] * p[PAR_M] * p[PAR_G] * p[PAR_G]
    pb[PB_DD_DM] = 2 * p[PAR_M] * p[PAR_G] * p[PAR_G]
    pb[PB_DD_DG] = 2 * p[PAR_M] * p[PAR_M] * p[PAR_G]


cdef void density(floating *out, const void *event_block, const floating *p,
                  const void *parameter_buffer) noexcept nogil:
    """S = |B|^2 for the L events of one block, with the library's block routine."""
    cdef const floating *m = <const floating *> event_block
    cdef complex_vector_float32 b32
    cdef complex_vector_float64 b64
    cdef int i
    if floating is float:
        breit_wigner_constant_width_m0(&b32, m, p[PAR_M], p[PAR_G])
        for i in range(VECTOR_LENGTH):
            out[i] = b32.re[i] * b32.re[i] + b32.im[i] * b32.im[i]
    else:
        breit_wigner_constant_width_m0(&b64, m, p[PAR_M], p[PAR_G])
        for i in range(VECTOR_LENGTH):
            out[i] = b64.re[i] * b64.re[i] + b64.im[i] * b64.im[i]


cdef void density_gradient(floating *out, floating *gradient, const void *event_block,
                           const floating *p, const void *parameter_buffer) noexcept nogil:
    """S and dS/dp, gradient laid out [N_PARAMETERS][L].

    S = 1/D with D = (m0^2 - m^2)^2 + (m0 Gamma0)^2, so dS/dp = -S^2 dD/dp:
    dD/dm0 = 4 m0 (m0^2 - m^2) + 2 m0 Gamma0^2, dD/dGamma0 = 2 m0^2 Gamma0.
    """
    cdef const floating *m = <const floating *> event_block
    cdef const floating *pb = <const floating *> parameter_buffer
    cdef floating a, s
    cdef int i
    for i in range(VECTOR_LENGTH):
        a = pb[PB_M2] - m[i] * m[i]
        s = 1 / (a * a + pb[PB_M0G2])
        out[i] = s
        gradient[PAR_M * VECTOR_LENGTH + i] = -s * s * (4 * p[PAR_M] * a + pb[PB_DD_DM])
        gradient[PAR_G * VECTOR_LENGTH + i] = -s * s * pb[PB_DD_DG]


def vecampfit_model():
    """The model's description for vecampfit.fitter.Density.from_model."""
    return model_description(PARAMETERS, EVENT_FIELDS, CONSTANTS,
                             N_PARAMETERS, N_EVENT_FIELDS, PARAMETER_BUFFER_SIZE, N_CONSTANTS,
                             density[double], density[float],
                             density_gradient[double], density_gradient[float],
                             fill_parameter_buffer[double], fill_parameter_buffer[float])
