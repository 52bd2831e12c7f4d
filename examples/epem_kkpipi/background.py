r"""Background parameterization of the e+e- -> K K-bar pi pi example (paper section 8.4).

:math:`B(\Phi) = P_2(v)`, the seven-dimensional second-order polynomial in the
normalized variables :math:`v` (``common.normalized_phi`` of the
reconstructed momenta), monomial basis, 36 coefficients ``BKG_e1_..._e7``
in the order of ``vecampfit-polynomial-parameters 2 7 --prefix BKG``; the
constant term is fixed at 1 (the normalization).  Fitted with Monte Carlo
normalization: the reconstructed events of ``mc_<point>.root`` with their
weights R (the background sample went through the data efficiency).  The
simulation's background is ``common.BACKGROUND_TRUTH`` at the generator
level, so the fit recovers those coefficients up to the (small) effect of
the resolution.
"""

import numpy as np

import common_kkpipi as common
import model_kkpipi as model
from vecampfit.fitter.parameters import FitParameter, ParameterTable
from vecampfit.polynomial_parameters import exponents

EXPONENTS = exponents(2, 7)
PARAMETERS = tuple(common.background_parameter_name(e) for e in EXPONENTS)
EVENT_FIELDS = tuple(f"v{d}" for d in range(7))
CONSTANT = PARAMETERS[0]


def event_fields(records, point):
    """The normalized Phi of the reconstructed momenta (v0 ... v6)."""
    v = common.normalized_phi(model.phase_space_variables(common.momenta_of(records)), point)
    return {f"v{d}": v[d] for d in range(7)}


def polynomial(fields, params, gradient=False):
    """P_2(v) (and dP/dc, shape (36, n)) in numpy."""
    v = np.stack([fields[f] for f in EVENT_FIELDS])
    basis = np.stack([np.prod([v[d] ** k for d, k in enumerate(e) if k], axis=0)
                      if sum(e) else np.ones(v.shape[1]) for e in EXPONENTS])
    values = np.asarray(params, dtype=np.float64) @ basis
    return (values, basis) if gradient else values


def initial_parameters():
    """Constant term 1 (fixed), the others 0 with step 0.01."""
    return ParameterTable([FitParameter(n, 1.0 if n == CONSTANT else 0.0, 0.0 if n == CONSTANT else 0.01)
                           for n in PARAMETERS], source="background polynomial")


def truth():
    """The generation coefficients as a parameter vector."""
    values = dict.fromkeys(PARAMETERS, 0.0)
    for e, c in common.BACKGROUND_TRUTH.items():
        values[common.background_parameter_name(e)] = c
    return np.array([values[n] for n in PARAMETERS])


def compile_density(vector_lengths, build_dir=None, verbose=False):
    """Compile ``background_density.pyx`` with the polynomial tool's code
    (``common.compile_polynomial_density``; ``{L: module}``)."""
    return common.compile_polynomial_density("background_density.pyx", vector_lengths,
                                             build_dir, verbose)


def density(point, modules=None, precision="float64", vector_length=None):
    """The background density of a point for the fitter: compiled with
    ``modules``, else the numpy form (both with the gradient)."""
    from vecampfit.fitter import Density
    fill = lambda rec, *const: event_fields(rec, point)  # noqa: E731
    if modules is None:
        return Density(lambda f, p: polynomial(f, p),
                       lambda f, p: polynomial(f, p, True),
                       parameters=PARAMETERS, event_fields=EVENT_FIELDS, fill_event_buffer=fill,
                       name=f"background {point.name} (numpy)")
    return Density.from_model(modules, precision, vector_length=vector_length,
                              fill_event_buffer=fill, name=f"background {point.name}")
