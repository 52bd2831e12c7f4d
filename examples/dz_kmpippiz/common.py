"""Shared parts of the D0 -> K- pi+ pi0 programs: the model, the background, files, options.

Event files hold the paper's event class ``d0_kmpippi0_event``: tree
``tree`` with branches ``km_momentum[4]``, ``pip_momentum[4]``,
``pi0_momentum[4]`` ((px, py, pz, E) in GeV).  The signal is the isobar
model of isobar_model.py; the background a second-order Chebyshev
polynomial in m^2(K- pi+), m^2(K- pi0) (background_density.pyx).  Grid
points are records with ``m2_km_pip`` and ``m2_km_piz`` instead of momenta.
"""

import os

import isobar_model
from vecampfit import command_line, numeric_integration
from vecampfit.fitter import Density
from vecampfit.model_compiler import compile_model, default_cache_dir
from vecampfit.polynomial_parameters import generated_code

HERE = os.path.dirname(os.path.abspath(__file__))
BRANCHES = isobar_model.MOMENTA
TREE = "tree"
#: Background-fraction parameter of the signal fit.
BACKGROUND_FRACTION = "BACKGROUND_FRACTION"


def signal_model(cartesian=False, table=None):
    """The isobar model; its parameters with the values, steps and random
    changes of ``table`` (a ParameterTable such as parameters_signal.dat);
    with ``cartesian`` the couplings as real and imaginary parts
    (IsobarModel.cartesian: steps and random changes of the magnitudes)."""
    model = isobar_model.build()
    for p in model.parameters() if table is not None else ():
        p.value, p.step, p.random_change = (table[p.name].value, table[p.name].step,
                                            table[p.name].random_change)
    return model.cartesian() if cartesian else model


def dalitz_variables(records):
    """``m2_km_pip``, ``m2_km_piz`` (GeV^2) of event records (momenta or these two)."""
    model = isobar_model.build()
    s = model.kinematics(records).s
    return {name: s[pair] for name, pair in model.variables.items()}


#: The polynomial tool's code that background_density.pyx includes.
POLYNOMIAL_CODE = {"background_polynomial.pxi": "2 2 --subroutine --gradient --basis chebyshev "
                   "--ranges 0.39:2.99,0.39:2.99 --name background_polynomial"}


def background_density(vector_length, precision, model_cache=None, gradient=True):
    """The background polynomial (background_density.pyx, with the code of
    POLYNOMIAL_CODE written into the model cache) for the fitter."""
    folder = generated_code(POLYNOMIAL_CODE, os.path.join(
        model_cache or default_cache_dir(), "dz_kmpippiz_polynomial_code"))
    module = compile_model(os.path.join(HERE, "background_density.pyx"), [vector_length],
                           build_dir=model_cache, include_dirs=(folder,))[vector_length]
    return Density.from_model(module, precision, gradient=gradient, name="background",
                              fill_event_buffer=lambda records, _: dalitz_variables(records))


def background_polynomial(records, coefficients):
    """The background density at events (generation): background_density.pyx evaluated."""
    density = background_density(8, "float64", gradient=False)
    return density.evaluate(density.event_buffer(records, records=True), coefficients)


def dalitz_grid(points_per_dimension):
    """Gauss-Legendre grid over the Dalitz plot in (m^2(K- pi+), m^2(K- pi0)):
    :func:`vecampfit.numeric_integration.dalitz_grid_boundary` with N points
    per dimension.  Returns the records (``m2_km_pip``, ``m2_km_piz``) and
    weights w of the N^2 points, sum w S ~ integral of S dm^2 dm^2 (GeV^4)."""
    model = isobar_model.build()
    km, pip, piz = (model.daughter_mass(k) for k in range(3))
    # Particles a, b, c = pi+, K-, pi0: m_ab = m(K- pi+), m_bc = m(K- pi0).
    grid = numeric_integration.dalitz_grid_boundary(
        model.parent_mass, pip, km, piz, points_per_dimension, points_per_dimension,
        variables="mass_squared")
    return {"m2_km_pip": grid.m_ab_squared, "m2_km_piz": grid.m_bc_squared}, grid.weights


def data_file_name(pseudoexperiment):
    """``data_signal_N.root`` for pseudoexperiment N >= 0, else ``data_signal.root``."""
    return f"data_signal_{pseudoexperiment}.root" if pseudoexperiment >= 0 \
        else "data_signal.root"


def add_fit_options(parser):
    """Options shared by the fit programs (vecampfit.command_line)."""
    parser.add_argument("--directory", default=".", help="folder of input and output files "
                        "(default: current folder)")
    command_line.add_model_options(parser)
    return command_line.add_start_options(parser)


parser = command_line.parser
