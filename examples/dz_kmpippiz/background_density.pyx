# D0 -> K- pi+ pi0 background density: a second-order Chebyshev polynomial in (m2_km_pip,
# m2_km_piz), the event buffer's two fields, with the coefficients P_0_0 ... P_0_2 of
# parameters_background.dat.  background_polynomial.pxi is written by the polynomial tool
# when the density is compiled (common.POLYNOMIAL_CODE, polynomial_parameters.generated_code).

from cython cimport floating
from vecampfit.block cimport VECTOR_LENGTH
from vecampfit.fitter.density cimport model_description

include "background_polynomial.pxi"

PARAMETERS = P_NAMES
EVENT_FIELDS = ("m2_km_pip", "m2_km_piz")


cdef void background_density(floating *out, const void *event_block, const floating *params,
                             const void *parameter_buffer) noexcept nogil:
    """B = P(m2_km_pip, m2_km_piz) for the L events of a block."""
    background_polynomial(out, <const floating *> event_block, params)


cdef void background_density_gradient(floating *out, floating *gradient, const void *event_block,
                                      const floating *params,
                                      const void *parameter_buffer) noexcept nogil:
    """B and dB/dc for the 6 coefficients, gradient laid out [6][L]."""
    background_polynomial_gradient(out, gradient, <const floating *> event_block, params)


def vecampfit_model():
    """Parameters, event fields and functions of this model (no parameter buffer)."""
    return model_description(PARAMETERS, EVENT_FIELDS, {}, P_N_TERMS, 2, 0, 0,
                             background_density[double], background_density[float],
                             background_density_gradient[double],
                             background_density_gradient[float], NULL, NULL)
