"""Shared parts of the B+ -> K+ K+ K- example after Laura++'s GenFit3K (paper section 9.2).

The model is declared in isobar_model3k.py (conventions: docs/laura_genfit3k.rst).
Here: masses, Laura++'s normalization grid, the fit set-up (:class:`Setup`:
compiled model, unit normalization, fitter, Laura++'s two-stage sequence, fit
fractions, Laura++'s coefficients) and Laura++'s files, used by the programs
generate3k.py, fit3k.py, plot3k.py, laura_crosscheck.py and scan3k.py.
"""

import os
import time

import numpy as np

import isobar_model3k
from vecampfit import command_line, numeric_integration, particle_data
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


def masses(kind="laura"):
    """The model's mass constants ``M_B``, ``M_KP``, ``M_KM`` (GeV): ``"laura"``
    (Laura++'s) or ``"pdg<edition>"`` (:mod:`vecampfit.particle_data`)."""
    if kind == "laura":
        mb, mk = isobar_model3k.M_B, isobar_model3k.M_K
    elif isinstance(kind, str) and kind.startswith("pdg") and kind[3:].isdigit():
        mb, mk = (particle_data.mass(p, int(kind[3:])) for p in ("B+", "K+"))
    else:
        raise ValueError(f"masses must be 'laura' or 'pdg<edition>' (e.g. 'pdg2024'), got {kind!r}")
    return {"M_B": mb, "M_KP": mk, "M_KM": mk}


def normalization_grid(m, coarse=0.005, fine=0.01, band=5.0, order=0, fold=True,
                       threshold_bins=50):
    """Laura++'s Gauss-Legendre grid over the Dalitz plot in (m13, m23), GeV.

    Each axis is split into a band m0 +- ``band`` Gamma around the phi(1020)
    (from threshold if it starts within ``threshold_bins`` coarse spacings;
    node spacing ``fine`` Gamma) and the rest (spacing ``coarse``, GeV);
    one Gauss-Legendre rule per interval (``order`` 0, as Laura++) or
    composite ``order``-point rules.  The grid is the product of the axes
    cut to the Dalitz plot (:func:`vecampfit.numeric_integration.dalitz_grid`),
    with ``fold`` folded onto m13 <= m23 (the density is symmetric).

    Returns
    -------
    records : dict
        ``m13Sq``, ``m23Sq`` of the points (GeV^2).
    weights : numpy.ndarray
        Weights (GeV^4): sum of w S approximates the integral of S dm13^2 dm23^2.
    info : dict
        ``rectangle_nodes`` (as Laura++ counts them), ``inside``, ``points``, ``segments``.
    """
    if not (coarse > 0 and fine > 0 and band > 0 and order >= 0):
        raise ValueError(f"grid options must be positive: coarse {coarse}, fine {fine}, "
                         f"band {band}, order {order}")
    mb, mk = m["M_B"], m["M_KP"]
    lo, hi = 2 * mk, mb - mk
    m0, g0 = GENERATED["PHI_M"], GENERATED["PHI_G"]
    r_min, r_max = m0 - band * g0, min(m0 + band * g0, hi)
    segs = [(lo, r_max, fine * g0)] if r_min < lo + threshold_bins * coarse else \
        [(lo, r_min, coarse), (r_min, r_max, fine * g0)]
    segs += [(r_max, hi, coarse)] if r_max < hi else []
    axis = [numeric_integration.Interval(a, b, spacing=s, order=order) if order else
            numeric_integration.Interval(a, b, points=max(1, int((b - a) / s)))
            for a, b, s in segs]
    nodes = [np.prod(iv.subintervals()) for iv in axis]
    grid = numeric_integration.dalitz_grid(mb, mk, mk, mk, [(a, b) for a in axis for b in axis],
                                           fold=fold)
    w = grid.weights
    info = {"rectangle_nodes": int(sum(nodes)) ** 2, "points": len(w),
            "inside": 2 * len(w) - int(np.count_nonzero(grid.m_ab == grid.m_bc)) if fold
            else len(w), "segments": [s + (n,) for s, n in zip(segs, nodes)]}
    return {"m13Sq": grid.m_ab_squared, "m23Sq": grid.m_bc_squared}, w, info


def add_grid_options(parser):
    """Command-line options of :func:`normalization_grid`."""
    g = parser.add_argument_group("normalization grid (Laura++'s scheme)")
    g.add_argument("--grid-coarse", type=float, default=0.005, metavar="GEV",
                   help="node spacing outside the phi(1020) band (GeV)")
    g.add_argument("--grid-fine", type=float, default=0.01, metavar="FRACTION",
                   help="node spacing in the phi(1020) band, in units of its width")
    g.add_argument("--grid-band", type=float, default=5.0, metavar="WIDTHS",
                   help="half-width of the phi(1020) band in units of its width")
    g.add_argument("--grid-order", type=int, default=0, metavar="N",
                   help="nodes per composite Gauss-Legendre rule (0: one rule per interval)")
    g.add_argument("--no-fold", action="store_true", help="keep the whole grid")
    return parser


def grid_options(args):
    """Keyword arguments of :func:`normalization_grid` from parsed options."""
    return dict(coarse=args.grid_coarse, fine=args.grid_fine, band=args.grid_band,
                order=args.grid_order, fold=not args.no_fold)


def program_parser(description, laura_results_help=None):
    """Options of the programs: masses, model options, grid, Laura++'s files."""
    p = command_line.parser(description)
    p.add_argument("--masses", default="laura",
                   help="B+ and K masses: 'laura' (Laura++'s) or 'pdg<year>' (e.g. pdg2024)")
    command_line.add_model_options(p)
    add_grid_options(p)
    p.add_argument("--laura-file", default=LAURA_TOYS,
                   help="Laura++'s pseudoexperiments (tree toys, branches iExpt, m13Sq, m23Sq)")
    if laura_results_help:
        p.add_argument("--laura-results", default=LAURA_RESULTS, help=laura_results_help)
    return p


def laura_coefficients(values, fractions):
    """The coefficients in Laura++'s normalization (every component of unit
    integral at the current masses and widths, the phi(1020) the reference):
    A_R = c_R n_R sqrt(I_R) / (c_phi n_phi sqrt(I_phi)), whose magnitude is
    sqrt(FF_R / FF_phi) and whose phase is that of c_R / c_phi."""
    c = {k: complex(values[f"{k}_RE"], values[f"{k}_IM"]) for k in COMPONENTS}
    return {k: c[k] / abs(c[k]) / (c["PHI"] / abs(c["PHI"]))
            * np.sqrt(fractions[k] / fractions["PHI"]) for k in COMPONENTS}


def solution(values):
    """``"main"`` if the f'2(1525) coupling relative to the phi(1020)'s points
    like the generated i (positive imaginary part), else ``"second"``."""
    c = complex(values["F2_RE"], values["F2_IM"]) / complex(values["PHI_RE"], values["PHI_IM"])
    return "main" if c.imag > 0 else "second"


class Setup:
    """What every fit shares: masses, the grid and its event fields, the
    constants n (:func:`vecampfit.isobar.unit_normalization` at the generated
    values) and the model of isobar_model3k.py compiled for ``--vector-length``.

    Parameters
    ----------
    args : argparse.Namespace
        Options of :func:`program_parser`.
    """

    def __init__(self, args, verbose=True):
        t0 = time.perf_counter()
        command_line.check_model_options(args)
        self.args, self.masses = args, masses(args.masses)
        self.grid_fold = not args.no_fold
        self.records, self.weights, self.grid_info = normalization_grid(self.masses,
                                                                        **grid_options(args))
        self.model = isobar_model3k.build()
        self.constants = dict(self.masses, **unit_normalization(
            self.model, self.records, self.weights, constants=self.masses))
        self.compiled = self.model.compile([args.vector_length], build_dir=args.model_cache)
        self.names = self.compiled.parameters
        self.grid_fields = self.compiled.fill_event_buffer(self.records, self.constants)
        if verbose:
            i = self.grid_info
            print(f"grid: {i['rectangle_nodes']} nodes in rectangles, {i['inside']} in the Dalitz "
                  f"plot, {i['points']} used; set up in {time.perf_counter() - t0:.1f} s")

    def with_vector_length(self, vector_length):
        """A copy that shares the grid and fits with another vector length."""
        import copy
        other = copy.copy(self)
        other.args = copy.copy(self.args)
        other.args.vector_length = vector_length
        other.compiled = self.model.compile([vector_length], build_dir=self.args.model_cache)
        return other

    def fitter(self, m13sq, m23sq, *, random_start=False, seed=None, gradient=True,
               strategy=1, verbose=False):
        """A :class:`vecampfit.fitter.Fitter` with grid and data loaded; with
        ``random_start`` the coefficients start uniform in [-10, 10]."""
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
        """:class:`vecampfit.isobar.FitFractions` on the grid; ``values`` and the
        covariance matrix in the order of :attr:`names`."""
        return fit_fractions(self.compiled, self.grid_fields, self.weights,
                             params=dict(zip(self.names, values)), covariance=covariance,
                             constants=self.constants)

    def fit(self, m13sq, m23sq, *, fractions=True, ncall=100000, **options):
        """Laura++'s two-stage fit (coefficients with masses and widths fixed,
        then all; HESSE) of one sample, ``options`` those of :meth:`fitter`.

        Returns
        -------
        dict
            ``values``, ``errors`` (name -> number), ``covariance`` (order of
            :attr:`names`), ``fval``, ``valid``, ``calls``, ``wall_time``,
            ``solution``, ``seed``, ``initial``; with ``fractions`` also
            ``fit_fractions`` (and ``sum``), ``fit_fraction_errors``,
            ``laura_coefficients``.
        """
        fitter = self.fitter(m13sq, m23sq, **options)
        fitter.run(Stage(fix_all=True, release=COEFFICIENTS, ncall=ncall),
                   Stage(release=MASSES_AND_WIDTHS, ncall=ncall, hesse=True))
        m = fitter.minuit
        values = dict(zip(self.names, fit_results.values(m)))
        out = {"values": values, "errors": dict(zip(self.names, fit_results.errors(m))),
               "covariance": fit_results.covariance_matrix(m), "fval": m.fval,
               "valid": m.valid, "calls": fitter.likelihood.n_calls, "seed": fitter.seed,
               "wall_time": fitter.wall_time, "solution": solution(values),
               "initial": np.asarray(fitter.initial_values), "fitter": fitter}
        if fractions:
            ff = self.fit_fractions(fit_results.values(m), out["covariance"])
            out["fit_fractions"] = dict(ff.fractions, sum=ff.total)
            out["fit_fraction_errors"] = dict(zip(ff.components, np.diag(ff.errors)))
            out["laura_coefficients"] = laura_coefficients(values, ff.fractions)
        return out


def experiment_file(directory, experiment):
    """Path of pseudoexperiment ``experiment`` written by generate3k.py."""
    return os.path.join(directory, f"toy3k_{experiment}.root")


def read_events(path, experiment=None):
    """(m13^2, m23^2) from a ROOT file (tree ``toys``), with ``experiment``
    the events whose ``iExpt`` is that number (Laura++'s files)."""
    from vecampfit.root_io import read_events as read
    records, _ = read(path, TREE, ["m13Sq", "m23Sq"] + (["iExpt"] if experiment is not None
                                                        else []))
    if experiment is not None:
        sel = np.asarray(records["iExpt"]) == experiment
        if not np.any(sel):
            raise ValueError(f"{path}: no events of experiment {experiment} (iExpt has "
                             f"{sorted(set(records['iExpt'].tolist()))})")
        records = {k: v[sel] for k, v in records.items()}
    return (np.asarray(records["m13Sq"], dtype=np.float64),
            np.asarray(records["m23Sq"], dtype=np.float64))


def read_table(path, first_column=None, what="table"):
    """Rows (dicts column -> number) of a text table whose column names stand
    on a line ``# name ...`` (the first whose first name is ``first_column``)."""
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{what} {path!r} does not exist")
    columns, rows = None, []
    with open(path) as f:
        for line in f:
            tokens = line.split()
            if tokens and tokens[0] == "#":
                if columns is None and len(tokens) > 1 and first_column in (None, tokens[1]):
                    columns = tokens[1:]
            elif tokens:
                if columns is None or len(tokens) != len(columns):
                    raise ValueError(f"{path}: malformed line {line!r} (not a {what})")
                rows.append(dict(zip(columns, map(float, tokens))))
    return rows


def read_laura_results(path=LAURA_RESULTS):
    """Laura++'s fit results: experiment (``iExpt``) -> row (column -> number)."""
    return {int(r["iExpt"]): r for r in read_table(path, what="Laura++ results file")}
