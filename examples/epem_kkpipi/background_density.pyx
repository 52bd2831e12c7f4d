# Background density of the e+e- -> K K-bar pi pi example (paper section 8.4):
# the seven-dimensional second-order polynomial B(Phi) = P_2(v), v the
# normalized Phi (common.normalized_phi), monomial basis, emitted by
#   vecampfit-polynomial-parameters 2 7 --subroutine background_polynomial.pxd
#       --name background_polynomial --prefix BKG
#   vecampfit-polynomial-parameters 2 7 --gradient background_polynomial_gradient.pxd
#       --name background_polynomial --prefix BKG
# and used as generated.  Model protocol; no parameter buffer, no constants.
from cython cimport floating

from vecampfit.block cimport VECTOR_LENGTH
from vecampfit.fitter.density cimport model_description

from background_polynomial cimport background_polynomial
from background_polynomial_gradient cimport background_polynomial_gradient


def _exponents():
    out = []
    for total in (0, 1, 2):
        def rec(prefix, left, dims):
            if dims == 1:
                out.append(tuple(prefix + [left]))
                return
            for k in range(left, -1, -1):
                rec(prefix + [k], left - k, dims - 1)
        rec([], total, 7)
    return out


PARAMETERS = tuple("BKG_" + "_".join(str(k) for k in e) for e in _exponents())
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
