"""Shared parts of the D0 -> K- pi+ pi0 programs: masses, compiled densities,
event-buffer filling from the paper's event class, file names.

Event records are the paper's ``d0_kmpippi0_event``: branches ``km_momentum[4]``,
``pip_momentum[4]``, ``pi0_momentum[4]`` of tree ``tree`` with (px, py, pz, E)
in GeV.  Grid points are records with ``m2_km_pip`` and ``m2_km_piz`` instead.
"""

import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
import model  # noqa: E402
from vecampfit import (command_line, kinematics, numeric_integration,  # noqa: E402
                       particle_data, vector4)

#: Branches of the event class.
BRANCHES = ("km_momentum", "pip_momentum", "pi0_momentum")
TREE = "tree"
#: Background-fraction parameter of the signal fit.
BACKGROUND_FRACTION = "BACKGROUND_FRACTION"


def masses(edition=2024):
    """D0 and final-state masses (GeV) from vecampfit.particle_data."""
    return {"md": particle_data.mass("D0", edition), "km": particle_data.mass("K-", edition),
            "pip": particle_data.mass("pi+", edition), "piz": particle_data.mass("pi0", edition)}


MASSES = masses()


def dalitz_variables(records):
    """m^2(K- pi+), m^2(K- pi0) from event records (momenta or grid points)."""
    if "m2_km_pip" in records:
        return (np.asarray(records["m2_km_pip"], dtype=np.float64),
                np.asarray(records["m2_km_piz"], dtype=np.float64))
    for b in BRANCHES:
        if b not in records:
            raise KeyError(f"event records need branch {b!r} (have {sorted(records)})")
        if np.shape(records[b])[1:] != (4,):
            raise ValueError(f"branch {b!r} must hold four-momenta (n, 4), got shape "
                             f"{np.shape(records[b])}")
    km = np.asarray(records["km_momentum"], dtype=np.float64)
    return (vector4.invariant_mass_squared(km, np.asarray(records["pip_momentum"], np.float64)),
            vector4.invariant_mass_squared(km, np.asarray(records["pi0_momentum"], np.float64)))


def fill_signal_event_buffer(records, m=MASSES):
    """Signal event-buffer fields (model.EVENT_FIELDS) from event records.

    Squared masses from float32 momenta may stray by rounding just outside
    the kinematic region; breakup momenta are computed from the squared
    momenta clipped at 0 so that such events stay usable.
    """
    m2_km_pip, m2_km_piz = dalitz_variables(records)
    total = m["md"] ** 2 + m["km"] ** 2 + m["pip"] ** 2 + m["piz"] ** 2
    m2 = {"km_pip": m2_km_pip, "km_piz": m2_km_piz, "pip_piz": total - m2_km_pip - m2_km_piz}
    fields = {}
    for pair, (a, b, c) in model.CHANNELS.items():
        lo = (m[a] + m[b]) ** 2
        mm = np.sqrt(np.maximum(m2[pair], lo))
        fields[f"m_{pair}"] = mm
        fields[f"q_{pair}"] = np.sqrt(np.maximum(kinematics.decay_momentum_squared(mm, m[a], m[b]),
                                                 0))
        fields[f"p_{pair}"] = np.sqrt(np.maximum(kinematics.decay_momentum_squared(
            m["md"], np.minimum(mm, m["md"] - m[c]), m[c]), 0))
    return fields


def fill_background_event_buffer(records):
    """Background event-buffer fields: m2_km_pip, m2_km_piz."""
    m2_km_pip, m2_km_piz = dalitz_variables(records)
    return {"m2_km_pip": m2_km_pip, "m2_km_piz": m2_km_piz}


def compile_models(vector_lengths, build_dir=None, verbose=False):
    """Compile the signal and background densities for the given lengths.

    Returns
    -------
    dict
        ``{"signal": {L: module}, "background": {L: module}}``.
    """
    from vecampfit.model_compiler import compile_model
    out = {}
    for name in ("signal_density", "background_density"):
        out[name.split("_")[0]] = compile_model(os.path.join(HERE, name + ".pyx"),
                                                list(vector_lengths), build_dir=build_dir,
                                                verbose=verbose)
    return out


#: The signal model's constants (signal_density.pyx) from :data:`MASSES`.
SIGNAL_CONSTANTS = {"M_D": MASSES["md"], "M_KM": MASSES["km"], "M_PIP": MASSES["pip"],
                    "M_PIZ": MASSES["piz"]}


def _signal_fields_from_constants(records, constants):
    return fill_signal_event_buffer(records, {"md": constants["M_D"], "km": constants["M_KM"],
                                              "pip": constants["M_PIP"],
                                              "piz": constants["M_PIZ"]})


def signal_density(models, vector_length, precision, gradient=True):
    """The signal density for the fitter (block form), with the masses of
    :data:`MASSES` as its constants."""
    from vecampfit.fitter import Density
    return Density.from_model(models["signal"][vector_length], precision,
                              constants=SIGNAL_CONSTANTS, gradient=gradient,
                              fill_event_buffer=_signal_fields_from_constants, name="signal")


def signal_density_numpy():
    """The same signal density in the Python form (numpy, no gradient)."""
    from vecampfit.fitter import Density
    return Density(lambda events, params: model.signal_density(events, params, MASSES),
                   parameters=model.parameter_names(), event_fields=model.EVENT_FIELDS,
                   fill_event_buffer=fill_signal_event_buffer, name="signal (numpy)")


def background_density(models, vector_length, precision, gradient=True):
    """The background density for the fitter (block form)."""
    from vecampfit.fitter import Density
    return Density.from_model(models["background"][vector_length], precision, gradient=gradient,
                              fill_event_buffer=lambda records, constants:
                              fill_background_event_buffer(records), name="background")


def background_polynomial(m2_km_pip, m2_km_piz, coefficients):
    """The background density in numpy (generation and tests): Chebyshev
    polynomial of order 2, variables mapped from [0.39, 2.99] to [-1, 1]."""
    v0 = (2 * np.asarray(m2_km_pip) - 2.99 - 0.39) / (2.99 - 0.39)
    v1 = (2 * np.asarray(m2_km_piz) - 2.99 - 0.39) / (2.99 - 0.39)
    c = coefficients
    return (c[0] + c[1] * v0 + c[2] * v1 + c[3] * (2 * v0 * v0 - 1) + c[4] * v0 * v1
            + c[5] * (2 * v1 * v1 - 1))


def dalitz_grid(points_per_dimension, m=MASSES):
    """Gauss-Legendre grid over the Dalitz plot in (m^2(K- pi+), m^2(K- pi0)).

    ``vecampfit.numeric_integration.dalitz_grid_boundary``: an N-point rule
    in m^2(K- pi+) over its whole range (with the substitution that removes
    the square-root behaviour of the boundary at its ends) and, at each of
    its nodes, an N-point rule over the exact range of m^2(K- pi0).  Returns
    records (``m2_km_pip``, ``m2_km_piz``) of the N^2 points and their weights
    (the Jacobian is 1 in squared masses), so that sum w S ~ integral of S
    over the Dalitz plot (GeV^4).
    """
    # Particles a, b, c = pi+, K-, pi0: m_ab = m(K- pi+), m_bc = m(K- pi0).
    grid = numeric_integration.dalitz_grid_boundary(
        m["md"], m["pip"], m["km"], m["piz"], points_per_dimension, points_per_dimension,
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
