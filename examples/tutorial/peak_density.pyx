# A user's density for vecampfit, in its own folder: a resonance peak in the
# invariant mass m of a pair,
#
#     S(m) = |B(m)|^2,   B(m) = 1 / (m0^2 - m^2 - i m0 Gamma0),
#
# the constant-width Breit-Wigner amplitude of vecampfit.high_energy_physics.
# Parameters (in the order of parameters.dat): p[0] = M (m0, GeV),
# p[1] = G (Gamma0, GeV); the background fraction that follows is the
# fitter's business.  Event buffer: one field, "m" (GeV).
#
# Compiled once per vector length by vecampfit.model_compiler.compile_model;
# `floating` gives both precisions in one compilation.
from cython cimport floating

from vecampfit.block cimport VECTOR_LENGTH, complex_vector_float32, complex_vector_float64
from vecampfit.fitter.density cimport (density_callable, density_gradient_callable,
                                       fill_parameter_buffer_callable)
from vecampfit.high_energy_physics cimport breit_wigner_constant_width_m0

# Parameter and parameter-buffer indices.
cdef enum:
    PAR_M = 0
    PAR_G = 1
    N_PARAMETERS = 2
    PB_M2 = 0          # m0^2
    PB_M0G2 = 1        # (m0 Gamma0)^2
    PB_DD_DM = 2       # d(m0 Gamma0)^2 / dm0 = 2 m0 Gamma0^2
    PB_DD_DG = 3       # d(m0 Gamma0)^2 / dGamma0 = 2 m0^2 Gamma0
    PARAMETER_BUFFER_SIZE = 4


cdef void fill_parameter_buffer(floating *pb, const floating *p) noexcept nogil:
    """What depends on the parameters only, once per likelihood call."""
    pb[PB_M2] = p[PAR_M] * p[PAR_M]
    pb[PB_M0G2] = p[PAR_M] * p[PAR_M] * p[PAR_G] * p[PAR_G]
    pb[PB_DD_DM] = 2 * p[PAR_M] * p[PAR_G] * p[PAR_G]
    pb[PB_DD_DG] = 2 * p[PAR_M] * p[PAR_M] * p[PAR_G]


cdef inline void _density(floating *out, const floating *m, const floating *p) noexcept nogil:
    # The library's block routine through a complex vector of this precision.
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


cdef void density(floating *out, const void *event_block, const floating *p,
                  const void *parameter_buffer) noexcept nogil:
    """S = |B|^2 for the L events of one block."""
    _density(out, <const floating *> event_block, p)


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


def callables(precision="float64"):
    """Low-level callables for vecampfit.fitter.Density, for one precision."""
    if precision == "float64":
        return dict(density=density_callable(density[double]),
                    gradient=density_gradient_callable(density_gradient[double]),
                    fill_parameter_buffer=fill_parameter_buffer_callable(fill_parameter_buffer[double]))
    if precision == "float32":
        return dict(density=density_callable(density[float]),
                    gradient=density_gradient_callable(density_gradient[float]),
                    fill_parameter_buffer=fill_parameter_buffer_callable(fill_parameter_buffer[float]))
    raise ValueError(f"precision must be 'float64' or 'float32', got {precision!r}")


def layout():
    """Sizes of this model's buffers."""
    return {"parameters": N_PARAMETERS, "parameter_buffer": PARAMETER_BUFFER_SIZE}
