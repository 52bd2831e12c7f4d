r"""Shared parts of the D0 -> rho0 anti-K*0 programs: the model, event variables, files.

The model is a vector-vector decay declared with :mod:`vecampfit.cascades`:

.. math::

    D^0 \to \rho^0 \bar K^{*0}, \quad \rho^0 \to \pi^+ \pi^-, \quad
    \bar K^{*0} \to K^- \pi^+

in the helicity formalism, the :math:`D^0` vertex in the S, P and D waves
(LS couplings :math:`(L, S) = (0, 0), (1, 1), (2, 2)`, complex couplings
``S``, ``P``, ``D``, parameters ``<wave>_RE``, ``<wave>_IM``), the
:math:`\rho^0` and :math:`\bar K^{*0}` as relativistic P-wave Breit-Wigner
amplitudes with Blatt-Weisskopf factors.  The two :math:`\pi^+` are
identical: the amplitude is summed over their exchange.  The S-wave
coupling is fixed to 1 (it sets the overall magnitude and phase); the P and
D waves are measured relative to it.

Event files are ROOT trees ``tree`` with the four-momenta of the four
final-state particles in the :math:`D^0` rest frame, branches
``pip_momentum[4]`` (the :math:`\pi^+` declared in the :math:`\rho^0`),
``pim_momentum[4]``, ``k_momentum[4]`` and ``pik_momentum[4]`` (the
:math:`\pi^+` declared in the :math:`\bar K^{*0}`), as (px, py, pz, E) in
GeV (float64).  The density reads the helicity angles and squared masses
of both assignments of the :math:`\pi^+`
(:meth:`vecampfit.cascades.CascadeModel.event_records`).
"""

import numpy as np

from vecampfit import command_line

from vecampfit.cascades import LS, CascadeModel, Isobar, Particle, lineshapes

M_D0, M_PI, M_K = 1.86484, 0.13957039, 0.493677
#: Mass and width (GeV) of the rho0 and of the anti-K*0.
RHO, KST = (0.77526, 0.1491), (0.89555, 0.0473)
#: Blatt-Weisskopf radius (GeV^-1) of the rho0 and anti-K*0 decays.
RADIUS = 1.5
#: The final-state particles (names in the model) and their branches.
PARTICLES = ("pip", "pim", "km", "pik")
BRANCHES = ("pip_momentum", "pim_momentum", "k_momentum", "pik_momentum")
MASSES = (M_PI, M_PI, M_K, M_PI)
WAVES = ("S", "P", "D")
#: The default couplings of the waves (the S wave is the reference).
COUPLINGS = {"S": 1.0 + 0.0j, "P": 0.6 + 0.8j, "D": -0.3 + 0.45j}
TREE = "tree"
DATA_FILE, MC_FILE, TRUTH_FILE = "data.root", "mc.root", "truth.json"
RESULT_FILE = "fit_result.json"


def cascade(couplings=None):
    """The cascade of the model.

    Parameters
    ----------
    couplings : dict, optional
        Wave (``"S"``, ``"P"``, ``"D"``) -> complex coupling, the starting
        values (default :data:`COUPLINGS`); the S wave is fixed.

    Returns
    -------
    vecampfit.cascades.CascadeModel
    """
    values = dict(COUPLINGS)
    values.update(couplings or {})
    unknown = set(values) - set(WAVES)
    if unknown:
        raise ValueError(f"no wave(s) {sorted(unknown)} in the model (waves {WAVES})")
    final = [Particle(n, 0, -1, m) for n, m in zip(PARTICLES, MASSES)]
    rho = Isobar("rho0", 1, -1, lineshapes.breit_wigner(*RHO, 1, RADIUS))
    kst = Isobar("K*0bar", 1, -1, lineshapes.breit_wigner(*KST, 1, RADIUS))
    c = CascadeModel("d0_rho_kstar", Particle("D0", 0, -1, M_D0), final,
                     identical=[("pip", "pik")])
    c.add_chain((("pip", "pim"), ("km", "pik")), [rho, kst],
                [LS({(0, 0): "S", (1, 1): "P", (2, 2): "D"}, parity_conserving=False),
                 LS({(1, 0): 1.0}), LS({(1, 0): 1.0})])
    for wave in WAVES:
        c.set_coupling(wave, values[wave], fixed=wave == "S")
    return c


def parameters(wave):
    """The two real parameters of a wave's coupling."""
    return [f"{wave}_RE", f"{wave}_IM"]


def wave_groups(model):
    """Wave -> the model's components whose coupling is that wave's (for the fit fractions)."""
    out = {w: [c.name for c in model.components if c.name.split("|")[1] == w] for w in WAVES}
    empty = [w for w, names in out.items() if not names]
    if empty:
        raise ValueError(f"model {model.name!r} has no components of the wave(s) {empty}")
    return out


def event_records(c, momenta):
    """The model's event variables from four-momenta (dict branch -> (n, 4) arrays, GeV)."""
    missing = [b for b in BRANCHES if b not in momenta]
    if missing:
        raise KeyError(f"event records need the branches {missing} (have {sorted(momenta)})")
    return c.event_records([np.asarray(momenta[b], dtype=np.float64) for b in BRANCHES])


def record_mapper(c):
    """``map_records`` for the fitter's file loading: four-momenta -> event variables."""
    return lambda arrays: event_records(c, arrays)


def read_sample(path, c):
    """Four-momenta and event variables of an event file (dict of arrays)."""
    from vecampfit.root_io import read_events
    records, _ = read_events(path, TREE, list(BRANCHES))
    return {**records, **event_records(c, records)}


def write_sample(path, momenta):
    """Write the four-momenta (dict branch -> (n, 4) array) as tree :data:`TREE`."""
    from vecampfit.root_io import write_tree
    write_tree(path, {b: np.asarray(momenta[b], dtype=np.float64) for b in BRANCHES}, TREE)


def read_json(path):
    """A JSON file of an earlier step (:func:`vecampfit.command_line.read_json`)."""
    return command_line.read_json(path, missing="run generate.py (and fit.py) with the same "
                                  "--directory first")


#: Write a JSON file atomically (:func:`vecampfit.command_line.write_json`).
write_json = command_line.write_json


def compile_model(model, vector_length, build_dir=None):
    """The compiled model: its parameters are the P- and D-wave couplings, the S
    wave's are constants of the density."""
    return model.compile((vector_length,), build_dir=build_dir)


def parser(description):
    """The programs' argument parser (:func:`vecampfit.command_line.parser`)."""
    return command_line.parser(description)


def add_common_options(p):
    """Options every program takes (with :func:`vecampfit.command_line.add_model_options`:
    ``--vector-length``, ``--threads``, ``--model-cache``)."""
    p.add_argument("--directory", default="d0_rho_kstar_output",
                   help="folder of the input and output files")
    return command_line.add_model_options(p, precision=False)
