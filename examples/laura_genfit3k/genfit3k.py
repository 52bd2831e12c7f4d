"""Shared parts of the B+ -> K+ K+ K- example after Laura++'s GenFit3K (paper section 9.2):
Laura++'s normalization grid, the fit (:class:`Setup`) and Laura++'s files.
The model is isobar_model3k.py; conventions: docs/laura_genfit3k.rst.
"""

import os
import time

import numpy as np

import isobar_model3k
from vecampfit import command_line, numeric_integration
from vecampfit.fitter import Fitter, Likelihood, Stage, results as fit_results
from vecampfit.isobar import fit_fractions, unit_normalization

#: Laura++'s files copied into the example.
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
LAURA_TOYS = os.path.join(DATA, "toys_expt_0-9.root")
LAURA_RESULTS = os.path.join(DATA, "laura_fit_results_expt_0-9.txt")
TREE = "toys"
#: Components in the order of Laura++'s model (its A0, A1, A2).
COMPONENTS = ("PHI", "F2", "NR")
COMPONENT_NAMES = {"PHI": "phi(1020)", "F2": "f'2(1525)", "NR": "non-resonant"}
#: Parameters of the two fit stages (Laura++'s two-stage fit).
COEFFICIENTS = ("F2_RE", "F2_IM", "NR_RE", "NR_IM")
MASSES_AND_WIDTHS = ("PHI_M", "PHI_G", "F2_M", "F2_G")
#: Generated values (Laura++'s GenFit3K): the model's starting values.
GENERATED = isobar_model3k.build().values()
#: Laura++'s result columns of our parameters and fit fractions.
LAURA_COLUMNS = {"PHI_M": "phi_1020_MASS", "PHI_G": "phi_1020_WIDTH",
                 "F2_M": "f'_2_1525_MASS", "F2_G": "f'_2_1525_WIDTH",
                 "FF_PHI": "A0Sq_FitFrac", "FF_F2": "A1Sq_FitFrac", "FF_NR": "A2Sq_FitFrac",
                 "F2_RE": "A1_X", "F2_IM": "A1_Y", "NR_RE": "A2_X", "NR_IM": "A2_Y"}


def normalization_grid(coarse=0.005, fine=0.01, fold=True):
    """Laura++'s Gauss-Legendre grid over the Dalitz plot in (m13, m23), GeV.

    Each axis: a band m0 +- 5 Gamma around the phi(1020) (from threshold if
    it starts within 50 coarse spacings of it; node spacing ``fine`` Gamma)
    and the rest (spacing ``coarse``, GeV), one Gauss-Legendre rule per
    interval; the product of the axes cut to the Dalitz plot
    (:func:`vecampfit.numeric_integration.dalitz_grid`), with ``fold`` folded
    onto m13 <= m23.  Returns the points (``m13Sq``, ``m23Sq``, GeV^2), the
    weights w (GeV^4: sum w S = integral of S dm13^2 dm23^2) and
    ``rectangle_nodes`` (as Laura++ counts them), ``inside``, ``points``, ``segments``.
    """
    if not (coarse > 0 and fine > 0):
        raise ValueError(f"grid options must be positive: coarse {coarse}, fine {fine}")
    mb, mk, m0, g0 = isobar_model3k.M_B, isobar_model3k.M_K, GENERATED["PHI_M"], GENERATED["PHI_G"]
    lo, hi, r_min, r_max = 2 * mk, mb - mk, m0 - 5 * g0, m0 + 5 * g0
    segs = [(lo, r_max, fine * g0)] if r_min < lo + 50 * coarse else \
        [(lo, r_min, coarse), (r_min, r_max, fine * g0)]
    segs.append((r_max, hi, coarse))
    axis = [numeric_integration.Interval(a, b, points=max(1, int((b - a) / s))) for a, b, s in segs]
    grid = numeric_integration.dalitz_grid(mb, mk, mk, mk, [(a, b) for a in axis for b in axis],
                                           fold=fold)
    w, nodes = grid.weights, [iv.points for iv in axis]
    info = {"rectangle_nodes": sum(nodes) ** 2, "points": len(w), "segments": [
        s + (n,) for s, n in zip(segs, nodes)], "inside": 2 * len(w) - int(
            np.count_nonzero(grid.m_ab == grid.m_bc)) if fold else len(w)}
    return {"m13Sq": grid.m_ab_squared, "m23Sq": grid.m_bc_squared}, w, info


def program_parser(description):
    """Options of the programs: model options, grid, Laura++'s files."""
    p = command_line.add_model_options(command_line.parser(description))
    p.add_argument("--grid-coarse", type=float, default=0.005, metavar="GEV",
                   help="grid node spacing outside the phi(1020) band (GeV)")
    p.add_argument("--grid-fine", type=float, default=0.01, metavar="FRACTION",
                   help="grid node spacing in the phi(1020) band, in units of its width")
    p.add_argument("--laura-file", default=LAURA_TOYS,
                   help="Laura++'s pseudoexperiments (tree toys, branches iExpt, m13Sq, m23Sq)")
    p.add_argument("--laura-results", default=LAURA_RESULTS, help="Laura++'s fit results")
    return p


def solution(values):
    """``"main"`` if the f'2(1525) coupling relative to the phi(1020)'s points
    like the generated i (positive imaginary part), else ``"second"``."""
    c = complex(values["F2_RE"], values["F2_IM"]) / complex(values["PHI_RE"], values["PHI_IM"])
    return "main" if c.imag > 0 else "second"


class Setup:
    """What the fits share: the grid and its event fields, the constants
    n (:func:`vecampfit.isobar.unit_normalization` at the generated values), the
    model of isobar_model3k.py compiled for ``--vector-length``; ``args`` the
    options of :func:`program_parser`."""

    def __init__(self, args, verbose=True):
        t0 = time.perf_counter()
        command_line.check_model_options(args)
        self.args, self.model = args, isobar_model3k.build()
        self.records, self.weights, self.grid_info = normalization_grid(args.grid_coarse,
                                                                        args.grid_fine)
        self.constants = unit_normalization(self.model, self.records, self.weights)
        self.compiled = self.model.compile([args.vector_length], build_dir=args.model_cache)
        self.names = self.compiled.parameters
        self.grid_fields = self.compiled.fill_event_buffer(self.records, self.constants)
        if verbose:
            print("grid: {rectangle_nodes} nodes in rectangles, {inside} in the Dalitz plot, "
                  "{points} used; ".format(**self.grid_info) +
                  f"set up in {time.perf_counter() - t0:.1f} s")

    def fitter(self, m13sq, m23sq, *, random_start=False, seed=None, gradient=True,
               strategy=1, verbose=False):
        """A :class:`vecampfit.fitter.Fitter` with grid and data (``random_start``:
        coefficients uniform in [-10, 10])."""
        a = self.args
        table = self.model.parameter_table({n: 0.0 for n in COEFFICIENTS} if random_start
                                           else None)
        likelihood = Likelihood(table, precision=a.precision, vector_length=a.vector_length,
                                threads=a.threads)
        point = likelihood.add_point(self.compiled.density(
            a.precision, a.vector_length, constants=self.constants, gradient=gradient),
            normalization="grid")
        point.add_normalization_events(self.grid_fields, self.weights)
        point.add_data({"m13Sq": m13sq, "m23Sq": m23sq})
        return Fitter(likelihood, seed=seed, randomize=random_start, use_gradient=gradient,
                      strategy=strategy, verbose=verbose)

    def fit_fractions(self, values, covariance=None):
        """:class:`vecampfit.isobar.FitFractions` on the grid (order of :attr:`names`)."""
        return fit_fractions(self.compiled, self.grid_fields, self.weights, params=dict(
            zip(self.names, values)), covariance=covariance, constants=self.constants)

    def fit(self, m13sq, m23sq, *, fractions=True, ncall=100000, **options):
        """Laura++'s two-stage fit (coefficients with masses and widths fixed,
        then all; HESSE) of one sample (``options``: :meth:`fitter`'s): a dict
        of ``values``, ``errors`` (name -> number), ``covariance`` (order of
        :attr:`names`), ``fval``, ``valid``, ``calls``, ``wall_time``, ``cpu_time``,
        ``solution``, ``seed``, ``initial``, ``fitter``; with ``fractions``
        ``fit_fractions`` (and ``sum``) and ``fit_fraction_errors``."""
        fitter = self.fitter(m13sq, m23sq, **options)
        fitter.run(Stage(fix_all=True, release=COEFFICIENTS, ncall=ncall),
                   Stage(release=MASSES_AND_WIDTHS, ncall=ncall, hesse=True))
        m = fitter.minuit
        values = dict(zip(self.names, fit_results.values(m)))
        out = {"values": values, "errors": dict(zip(self.names, fit_results.errors(m))),
               "covariance": fit_results.covariance_matrix(m), "fval": m.fval,
               "valid": m.valid, "calls": fitter.likelihood.n_calls, "seed": fitter.seed,
               "wall_time": fitter.wall_time, "cpu_time": fitter.cpu_time, "fitter": fitter,
               "solution": solution(values), "initial": np.asarray(fitter.initial_values)}
        if fractions:
            ff = self.fit_fractions(fit_results.values(m), out["covariance"])
            out["fit_fractions"] = dict(ff.fractions, sum=ff.total)
            out["fit_fraction_errors"] = dict(zip(ff.components, np.diag(ff.errors)))
        return out


def experiment_file(directory, experiment):
    """Path of pseudoexperiment ``experiment`` written by generate3k.py."""
    return os.path.join(directory, f"toy3k_{experiment}.root")


def read_events(path, experiment=None):
    """(m13^2, m23^2) from a ROOT file (tree ``toys``), with ``experiment``
    the events whose ``iExpt`` is that number (Laura++'s files)."""
    from vecampfit.root_io import read_events as read
    r, _ = read(path, TREE, ["m13Sq", "m23Sq"] + ["iExpt"] * (experiment is not None),
                select=None if experiment is None else lambda r: r["iExpt"] == experiment)
    if not len(r["m13Sq"]):
        raise ValueError(f"{path}: no events (of experiment {experiment})")
    return np.asarray(r["m13Sq"], dtype=np.float64), np.asarray(r["m23Sq"], dtype=np.float64)


def read_laura_results(path=LAURA_RESULTS):
    """Laura++'s fit results (column names on a line ``# name ...``, a line of
    numbers per fit): experiment (``iExpt``) -> row (column -> number)."""
    if not os.path.isfile(path):
        raise FileNotFoundError(f"Laura++ results file {path!r} does not exist")
    columns, rows = None, []
    with open(path) as f:
        for line in f:
            tokens = line.split()
            if tokens and tokens[0] == "#":
                columns = columns or tokens[1:]
            elif tokens:
                if columns is None or len(tokens) != len(columns):
                    raise ValueError(f"{path}: malformed line {line!r} (not Laura++'s results)")
                rows.append(dict(zip(columns, map(float, tokens))))
    return {int(r["iExpt"]): r for r in rows}
