# Background density of the e+e- -> K K-bar pi pi example (paper section 8.4):
# the seven-dimensional second-order polynomial B(Phi) = P_2(v), v the
# normalized Phi (common.normalized_phi), monomial basis, emitted by
#   vecampfit-polynomial-parameters 2 7 --subroutine background_polynomial.pxd
#       --name background_polynomial --prefix BKG
#   vecampfit-polynomial-parameters 2 7 --gradient background_polynomial_gradient.pxd
#       --name background_polynomial --prefix BKG
# and used as generated (background.compile_density writes them into the
# model cache when it compiles this file: common.polynomial_code).  Model
# protocol; no parameter buffer, no constants.
from cython cimport floating

from vecampfit.block cimport VECTOR_LENGTH
from vecampfit.fitter.density cimport model_description
from vecampfit.polynomial_parameters import exponents

from background_polynomial cimport background_polynomial
from background_polynomial_gradient cimport background_polynomial_gradient


PARAMETERS = tuple("BKG_" + "_".join(str(k) for k in e) for e in exponents(2, 7))
EVENT_FIELDS = tuple(f"v{d}" for d in range(7))
CONSTANTS = {}

cdef enum:
    N_PARAMETERS = 36
    N_EVENT_FIELDS = 7
    PARAMETER_BUFFER_SIZE = 0
    N_CONSTANTS = 0


cdef void density(floating *out, const void *event_block, const floating *p,
                  const void *parameter_buffer) noexcept nogil:
    background_polynomial(out, <const floating *>event_block, p)


cdef void density_gradient(floating *out, floating *gradient, const void *event_block,
                           const floating *p, const void *parameter_buffer) noexcept nogil:
    background_polynomial_gradient(out, gradient, <const floating *>event_block, p)


def vecampfit_model():
    return model_description(PARAMETERS, EVENT_FIELDS, CONSTANTS, N_PARAMETERS, N_EVENT_FIELDS,
                             PARAMETER_BUFFER_SIZE, N_CONSTANTS, density[double], density[float],
                             density_gradient[double], density_gradient[float], NULL, NULL)
