"""Shared parts of the Lambda_c+ -> p K- pi+ programs: the model, event variables, files.

The model is LHCb's, read from the exchange-format file in ``model/``
(MIT license, ``model/LICENSE``) with :func:`vecampfit.model_format.read_model`:
26 decay chains (K*, Lambda* and Delta* resonances) with the Lambda_c
polarization vector :math:`\\vec P = (P_x, P_y, P_z)` as parameters ``Px``,
``Py``, ``Pz``.  The file's particles are 1 = p, 2 = pi+, 3 = K-, so that
:math:`\\sigma_1 = m^2(K^-\\pi^+)`, :math:`\\sigma_2 = m^2(p K^-)`,
:math:`\\sigma_3 = m^2(p \\pi^+)` (GeV^2).

Event files are ROOT trees ``tree`` with the four-momenta of the
daughters in the Lambda_c rest frame, branches ``p_momentum[4]``,
``k_momentum[4]``, ``pi_momentum[4]`` as (px, py, pz, E) in GeV (float64);
the polarization is along the axes of that frame.  The density reads the
Dalitz variables and the orientation of the decay plane
(:func:`event_variables`).
"""

import os

import numpy as np

from vecampfit import command_line

from vecampfit.amplitudes import resonance_groups
from vecampfit.dpd import kinematics
from vecampfit.model_format import read_model

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL_FILE = os.path.join(HERE, "model", "lc2ppik-lhcb-2683025.json")
TREE = "tree"
#: Branches of the daughters 1, 2, 3 of the model (p, pi+, K-).
BRANCHES = ("p_momentum", "pi_momentum", "k_momentum")
POLARIZATION = ("Px", "Py", "Pz")
DATA_FILE, MC_FILE, TRUTH_FILE = "data.root", "mc.root", "truth.json"
RESULT_FILE = "fit_result.json"
#: The invariant masses the plots show: label, Dalitz variable.
MASS_AXES = (("m(pK-)", "sigma2"), ("m(K-pi+)", "sigma1"), ("m(ppi+)", "sigma3"))


def load(path=None):
    """The distribution of the model file and its polarized amplitude model.

    Returns
    -------
    dist : vecampfit.model_format.Distribution
    model : vecampfit.amplitudes.AmplitudeModel
        With ``Px``, ``Py``, ``Pz`` (starting at 0) beside the file's parameters.
    """
    dist = read_model(path or MODEL_FILE).distributions["default_model"]
    return dist, dist.amplitude_model(polarized=True)


def groups(dist, model):
    """The model's chains grouped by resonance (``L1520``: both of its chains)."""
    return resonance_groups(model, dist)


def couplings(model):
    """Names of the chain couplings ``<chain>_re``, ``<chain>_im``, in model order."""
    out = []
    for c in model.components:
        out += [f"{c.name}_re", f"{c.name}_im"]
    return out


def event_variables(momenta, reference):
    """The density's event variables from four-momenta in the parent's rest frame.

    Parameters
    ----------
    momenta : dict
        :data:`BRANCHES` -> (n, 4) arrays (px, py, pz, E) in GeV.
    reference : int
        The chain the parent's helicity is aligned to (``dist.model.references[0]``).

    Returns
    -------
    dict
        ``sigma1``, ``sigma2``, ``sigma3`` (GeV^2), ``alpha``, ``gamma`` (rad) and
        ``cos_beta``: the Euler angles of the decay plane
        (:func:`vecampfit.dpd.kinematics.orientation`).
    """
    for b in BRANCHES:
        if b not in momenta:
            raise KeyError(f"event records need branch {b!r} (have {sorted(momenta)})")
    p = [np.asarray(momenta[b], dtype=np.float64) for b in BRANCHES]
    s = kinematics.sigmas_from_four_momenta(*p)
    alpha, cos_beta, gamma = kinematics.orientation(*p, reference=reference)
    return {"sigma1": s[0], "sigma2": s[1], "sigma3": s[2], "alpha": alpha,
            "cos_beta": cos_beta, "gamma": gamma}


def record_mapper(dist):
    """``map_records`` for the fitter's file loading: four-momenta -> event variables."""
    reference = dist.model.references[0]
    return lambda arrays: event_variables(arrays, reference)


def read_sample(path, dist):
    """Four-momenta and event variables of an event file (dict of arrays)."""
    from vecampfit.root_io import read_events
    records, _ = read_events(path, TREE, list(BRANCHES))
    return {**records, **event_variables(records, dist.model.references[0])}


def write_sample(path, momenta):
    """Write the four-momenta (dict of (n, 4) arrays) as tree :data:`TREE`."""
    from vecampfit.root_io import write_tree
    write_tree(path, {b: np.asarray(momenta[b], dtype=np.float64) for b in BRANCHES}, TREE)


#: JSON files between the steps (:mod:`vecampfit.command_line`).
read_json, write_json = command_line.read_json, command_line.write_json


def compile_model(model, vector_length, build_dir=None, free=()):
    """The compiled model (:meth:`vecampfit.amplitudes.AmplitudeModel.compile`).

    The density's parameters are the model's default free ones (every
    coupling but the first chain's, and the polarization) and those in
    ``free``; the others are compiled as constants.  Generation and fits of
    couplings and polarization share one compiled module.
    """
    for name in free:
        model.parameters[name].fixed = False
    return model.compile((vector_length,), build_dir=build_dir)


def parser(description):
    """The programs' argument parser (:func:`vecampfit.command_line.parser`)."""
    return command_line.parser(description)


def add_common_options(p):
    """Options every program takes (with :func:`vecampfit.command_line.add_model_options`:
    ``--vector-length``, ``--threads``, ``--model-cache``)."""
    p.add_argument("--directory", default="lc_output", help="folder of the input and output files")
    p.add_argument("--model", default=None,
                   help="model file in the exchange format (default: the LHCb model in model/)")
    return command_line.add_model_options(p, precision=False)
