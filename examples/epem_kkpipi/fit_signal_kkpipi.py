r"""Simultaneous signal fit of e+e- -> K+ K- pi+ pi- and KS KS pi+ pi- over the chosen process-energy points (paper section 8.5).

Every chosen point (``--process``, ``--energy``; default all ten) is one
declaration of :class:`SimultaneousFitPoint` (the counterpart of the paper's
``simultaneous_fit_point`` list): its data ``data_<point>.root``, its
normalization MC (the reconstructed events of ``mc_<point>.root`` weighted
with the data/MC efficiency ratio, branch ``weight``), its signal density
(``signal_density.pyx``, the model of its energy with the constants of its
process), its background density (the point's polynomial, fixed at the
result of ``fit_background_kkpipi.py``, ``parameters_background_<point>.dat``) and
its background-fraction parameter ``BKG_FRACTION_<point>``.  The fit is
built by one loop over the declarations.

Parameters: production amplitudes ``K1_<m>_E<E>_<L>_RE/IM`` per energy
point (shared by the two processes at that energy), decay amplitudes
``K1_<m>_<KSTPI|RHOK>_<L>_RE/IM`` shared by every point; ``K1_1270_E<E>_S``
and ``K1_<m>_KSTPI_S`` are fixed at 1 (normalization and phase).  The
likelihood is

.. math::

    \mathcal{F} = -2 \sum_{points\ j} \sum_{i \in data_j}
      \ln\Big[(1 - f_j) \frac{S_j(\Phi_i)}{I_{S,j}} + f_j \frac{B_j(\Phi_i)}{I_{B,j}}\Big],
    \qquad I_{S,j} = \frac{1}{N_j}\sum_{k \in MC_j} R_k S_j(\Phi_k),

with the analytic gradient of every :math:`S_j` with respect to its
amplitudes.  Sequence: fix all, release the free amplitudes and the
background fractions, MIGRAD, HESSE; random starts (``--seed``, printed
when not given).  Writes to ``--directory``: ``parameters_signal_result.dat``,
``results_signal.txt``, ``signal_result.root``, ``signal_density.root``
(density values of every point), ``fit_fractions.txt`` (fit fractions of
the K1 -> K* pi and K1 -> rho K channels per point with their errors) and,
for the points at 2000 MeV (``--plot-energy``), the projections onto
M(K1 pi2), M(pi1 pi2), M(K1 pi1 pi2) ``signal_projections_<point>.png``
with their chi2 in ``signal_projections.txt``.
Run ``python fit_signal_kkpipi.py --help``.
"""

import dataclasses
import os
import time

import numpy as np

import background  # noqa: E402
import common_kkpipi as common  # noqa: E402
import fit_background_kkpipi as fit_background  # noqa: E402
import config  # noqa: E402
import model_kkpipi as model  # noqa: E402
from vecampfit import command_line  # noqa: E402
from vecampfit.fitter import Fitter, Likelihood, Stage, read_parameter_file, results  # noqa: E402
from vecampfit.fitter.parameters import FitParameter, ParameterTable  # noqa: E402
from vecampfit.fractions import fractions  # noqa: E402
from vecampfit.root_io import read_events  # noqa: E402

#: Initial step, half-width of the random start interval of the amplitudes.
AMPLITUDE_STEP = 0.05
AMPLITUDE_RANDOM_CHANGE = 0.2


def background_fraction_name(point):
    """Name of the background-fraction parameter of a point, ``BKG_FRACTION_<point>``."""
    return f"BKG_FRACTION_{point.name}"


@dataclasses.dataclass(frozen=True)
class SimultaneousFitPoint:
    """Declaration of one point of the simultaneous fit.

    Attributes
    ----------
    point : config.Point
        Process and energy (constants and model of the signal density).
    data_file : str
        Pseudo-data (reconstructed events, tree ``tree``).
    mc_file : str
        Normalization MC: its reconstructed events with their weights R.
    background_parameter_file : str
        Parameter file of the point's background fit (the fixed polynomial).
    background_fraction : str
        Name of the point's background-fraction parameter.
    """

    point: config.Point
    data_file: str
    mc_file: str
    background_parameter_file: str
    background_fraction: str

    @property
    def name(self):
        """The point's name, ``<process>_<E>_mev``."""
        return self.point.name

    def signal_density(self, signal, precision="float64", vector_length=None):
        """The signal density of the point (``common.signal_density``: the
        declared model, the hand-written one, or the numpy form)."""
        return common.signal_density(signal, self.point, precision, vector_length)

    def background_density(self, modules, precision="float64", vector_length=None):
        """The background polynomial of the point (compiled, or numpy when
        ``modules`` is None)."""
        return background.density(self.point, modules, precision, vector_length)

    def background_parameters(self):
        """The fixed background coefficients (ParameterTable of the background fit)."""
        if not os.path.exists(self.background_parameter_file):
            raise FileNotFoundError(
                f"{self.name}: no background parameters {self.background_parameter_file!r}; "
                f"run fit_background_kkpipi.py for this point first")
        return read_parameter_file(self.background_parameter_file)

    def missing_files(self):
        """The point's input files that do not exist (list of str)."""
        return [f for f in (self.data_file, self.mc_file, self.background_parameter_file)
                if not os.path.exists(f)]

    def data(self):
        """Data records of the point."""
        records, _ = read_events(self.data_file)
        return records

    def normalization(self, max_events=None):
        """Reconstructed MC records and their weights R.

        Parameters
        ----------
        max_events : int, optional
            Use only the first ``max_events`` generated events.
        """
        records, _ = read_events(self.mc_file)
        if max_events is not None:
            records = {k: v[:max_events] for k, v in records.items()}
        ok = np.asarray(records["reconstructed"], bool)
        records = {k: v[ok] for k, v in records.items()}
        return records, np.asarray(records["weight"], dtype=np.float64)


def simultaneous_fit_points(points, directory):
    """One :class:`SimultaneousFitPoint` per :class:`config.Point`, files in ``directory``."""
    return [SimultaneousFitPoint(
        point=p, data_file=os.path.join(directory, p.file("data")),
        mc_file=os.path.join(directory, p.file("mc")),
        background_parameter_file=os.path.join(directory, f"parameters_background_{p.name}.dat"),
        background_fraction=background_fraction_name(p)) for p in points]


def energies_of(declarations):
    """The energies of the declared points, sorted, each once."""
    return sorted({d.point.energy_mev for d in declarations})


def amplitude_names(declarations):
    """Real amplitude parameters of the fit: the production amplitudes of
    each energy, then the decay amplitudes."""
    names = []
    for e in energies_of(declarations):
        for w in model.production_wave_names(e):
            names += [f"{w}_RE", f"{w}_IM"]
    for w in model.decay_wave_names():
        names += [f"{w}_RE", f"{w}_IM"]
    return names


def fixed_amplitude_names(declarations):
    """Amplitudes fixed by convention (normalization and global phase)."""
    out = []
    for e in energies_of(declarations):
        out += [n for n in model.fixed_parameter_names(e) if n not in out]
    return out


def initial_parameters(declarations, values=None, random_change=AMPLITUDE_RANDOM_CHANGE):
    """The parameter table of the fit.

    Parameters
    ----------
    declarations : list of SimultaneousFitPoint
    values : dict, optional
        Initial values by name (default: the generation values of
        :func:`model.default_parameters` and the points' background fractions).
    random_change : float
        Half-width R of the random start interval (I - R, I + R) of the free
        amplitudes.

    Returns
    -------
    ParameterTable
        Amplitudes (fixed ones with step 0), then the background fractions
        (bounded to [0, 1], not randomized).
    """
    start = {}
    for e in energies_of(declarations):
        start.update(model.default_parameters(e))
    for d in declarations:
        start[d.background_fraction] = d.point.background_fraction
    if values:
        start.update(values)
    fixed = set(fixed_amplitude_names(declarations))
    params = []
    for n in amplitude_names(declarations):
        if n in fixed:
            params.append(FitParameter(n, start[n], 0.0))
        else:
            params.append(FitParameter(n, start[n], AMPLITUDE_STEP, random_change=random_change))
    for d in declarations:
        params.append(FitParameter(d.background_fraction, start[d.background_fraction], 0.01,
                                0.0, 1.0))
    return ParameterTable(params, source="e+e- -> K K-bar pi pi simultaneous fit")


def build(declarations, signal_modules, background_modules, *, parameters=None,
          vector_length=8, precision="float64", threads=None, seed=None, randomize=True,
          use_gradient=True, mc_events=None, unused_parameters="error", verbose=True):
    """The simultaneous fit: one fit point per declaration, events loaded.

    Parameters
    ----------
    declarations : list of SimultaneousFitPoint
    signal_modules : dict or None
        The compiled signal models (``common.compile_signal_models``, the
        declared model; or ``common.compile_signal_density``, the
        hand-written one); None: the numpy form (float64, L = 1, no
        analytic gradient).
    background_modules : dict or None
        The compiled background densities ``{L: module}``; None with a
        numpy signal.
    parameters : ParameterTable, optional
        Default :func:`initial_parameters`.
    vector_length, precision, threads, seed, randomize, use_gradient, unused_parameters, verbose
        As for :class:`vecampfit.fitter.Fitter`.
    mc_events : int, optional
        Use only the first ``mc_events`` generated MC events of each point.

    Returns
    -------
    vecampfit.fitter.Fitter
        Its fit point ``k`` is ``declarations[k]``.
    """
    if not declarations:
        raise ValueError("the simultaneous fit needs at least one point")
    if parameters is None:
        parameters = initial_parameters(declarations)
    if signal_modules is None or background_modules is None:
        if signal_modules is not None or background_modules is not None:
            raise ValueError("give compiled modules for both densities or for neither")
        vector_length, precision, use_gradient = 1, "float64", False
    likelihood = Likelihood(parameters, precision=precision, vector_length=vector_length,
                            threads=threads, on_invalid="large",
                            unused_parameters=unused_parameters)
    for d in declarations:
        fp = likelihood.add_point(d.signal_density(signal_modules, precision, vector_length),
                              normalization="mc")
        fp.add_background(d.background_density(background_modules, precision, vector_length),
                          d.background_fraction, d.background_parameters())
        records, weights = d.normalization(mc_events)
        fp.add_normalization_events(records, weights)
        fp.add_data(d.data())
    return Fitter(likelihood, seed=seed, randomize=randomize, use_gradient=use_gradient,
                  verbose=verbose)


def free_parameter_names(fitter, declarations):
    """Amplitudes that are not fixed by convention, and the background fractions."""
    fixed = set(fixed_amplitude_names(declarations))
    return [n for n in fitter.likelihood.parameters.names if n not in fixed]


def run_sequence(fitter, declarations, ncall=100000):
    """The paper's sequence: fix all, release, MIGRAD, HESSE."""
    fitter.run(Stage(fix_all=True, release=free_parameter_names(fitter, declarations),
                     ncall=ncall, hesse=True))
    return fitter


# ---------------------------------------------------------------------------
# Fit fractions
# ---------------------------------------------------------------------------

#: Fit-fraction components: name and the complex waves set to zero (patterns
#: with ``{E}`` for the energy).  S restricted to a decay channel is S with
#: the other channel's decay waves set to zero (the amplitude is linear in
#: them); restricted to one K1, with the other K1's production waves zero.
FRACTION_COMPONENTS = (
    ("K1 -> K* pi", ("K1_1270_RHOK_S", "K1_1270_RHOK_D", "K1_1400_RHOK_S", "K1_1400_RHOK_D")),
    ("K1 -> rho K", ("K1_1270_KSTPI_S", "K1_1270_KSTPI_D", "K1_1400_KSTPI_S",
                     "K1_1400_KSTPI_D")),
    ("K1(1270) -> K* pi", ("K1_1400_E{E}_S", "K1_1400_E{E}_D", "K1_1270_RHOK_S",
                           "K1_1270_RHOK_D")),
    ("K1(1270) -> rho K", ("K1_1400_E{E}_S", "K1_1400_E{E}_D", "K1_1270_KSTPI_S",
                           "K1_1270_KSTPI_D")),
    ("K1(1400) -> K* pi", ("K1_1270_E{E}_S", "K1_1270_E{E}_D", "K1_1400_RHOK_S",
                           "K1_1400_RHOK_D")),
    ("K1(1400) -> rho K", ("K1_1270_E{E}_S", "K1_1270_E{E}_D", "K1_1400_KSTPI_S",
                           "K1_1400_KSTPI_D")),
)


def fraction_events(declaration, density, n_events=50000):
    """The first ``n_events`` generator-level MC events of a point (uniform in
    phase space, reconstructed or not) in the signal density's event buffer:
    the events over which the fit fractions are integrated."""
    records, _ = read_events(declaration.mc_file)
    generated = {common.BRANCH[k]: records[common.GEN_BRANCH[k]][:n_events]
                 for k in common.PARTICLES}
    return density.event_buffer(generated, records=True)


def fit_fractions(density, energy_mev, fields, table_names, values, covariance):
    r"""Fit fractions of :data:`FRACTION_COMPONENTS` at one point, with errors
    (:func:`vecampfit.fractions.fractions`).

    .. math::

        F_c = \frac{\sum_k S(\Phi_k; P_c p)}{\sum_k S(\Phi_k; p)}

    over phase-space events :math:`\Phi_k`, with :math:`P_c` the diagonal
    projection that sets the waves of component c to zero (so
    :math:`\sum_k S(\Phi_k; P_c p)` is the integral of the component alone);
    :math:`\sigma^2_{F} = J C J^T` with the Jacobian J of the fractions (from
    the density's analytic gradient) and the covariance matrix C of the fit.

    Parameters
    ----------
    density : vecampfit.fitter.Density
        The point's signal density (with its gradient).
    energy_mev : int
        The point's energy (names of its production waves).
    fields : dict
        The events in the density's event buffer (:func:`fraction_events`).
    table_names : sequence of str
        Names of the fit parameters (rows of ``covariance``).
    values : array_like
        Fitted values of all fit parameters.
    covariance : array_like
        Covariance matrix of all fit parameters (zero rows for fixed ones).

    Returns
    -------
    dict
        ``{component: (fraction, error)}``, and ``"Jacobian"``:
        ``{component: array}`` over the fit parameters.
    """
    zero = {comp: [w.format(E=int(energy_mev)) + part for w in waves for part in ("_RE", "_IM")]
            for comp, waves in FRACTION_COMPONENTS}
    f = fractions(density, fields, table_names, values, zero, covariance=covariance)
    out = {comp: f[comp] for comp in zero}
    out["Jacobian"] = f.jacobian
    return out


def fractions_of_fit(fitter, declarations, n_events=50000):
    """:func:`fit_fractions` of every point at the fitted values (HESSE's covariance)."""
    m = fitter.minuit
    cov, x = results.covariance_matrix(m), results.values(m)
    out = {}
    for d, fp in zip(declarations, fitter.likelihood.points):
        out[d.name] = fit_fractions(fp.signal, d.point.energy_mev,
                                    fraction_events(d, fp.signal, n_events),
                                    fitter.likelihood.parameters.names, x, cov)
    return out


def fractions_text(fractions):
    """The fit fractions as text, one line per point and component."""
    lines = ["point component fraction error"]
    for name, ff in fractions.items():
        for comp, _ in FRACTION_COMPONENTS:
            f, e = ff[comp]
            lines.append(f"{name} {comp.replace(' ', '')} {f:.5f} {e:.5f}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# Projections
# ---------------------------------------------------------------------------

def projections(fitter, declaration, index, *, mc_events=None, bins=25):
    r"""Projections of a fit point onto M(K1 pi2), M(pi1 pi2), M(K1 pi1 pi2).

    The fit is the fitted density evaluated on the point's normalization MC,
    :math:`w_k [(1 - f) S_k / I_S + f B_k / I_B]` histogrammed and scaled to
    the number of data events; the background is its
    :math:`w_k f B_k / I_B` part with the same scale.  The chi2 of a
    projection uses the data count plus the MC statistical variance of the
    prediction in each bin with a prediction above 5 events.

    Parameters
    ----------
    fitter : vecampfit.fitter.Fitter
        After the fit (its values are used).
    declaration : SimultaneousFitPoint
    index : int
        The declaration's fit point in ``fitter``.
    mc_events : int, optional
        As given to :func:`build`.
    bins : int

    Returns
    -------
    dict
        Per projection: ``edges``, ``data``, ``fit``, ``background``,
        ``chi2``, ``ndf``.
    """
    fp = fitter.likelihood.points[index]
    data = declaration.data()
    mc, _ = declaration.normalization(mc_events)
    w = np.asarray(fp.norm_events.weight_array(), dtype=np.float64)
    if len(w) != len(mc["weight"]):
        raise ValueError(f"{declaration.name}: the fit has {len(w)} normalization events, the "
                         f"MC file {len(mc['weight'])} (give the same mc_events)")
    cols = fitter.likelihood.density_columns(fp, results.values(fitter.minuit), "normalization")
    total = w * cols["total"]
    bkg = w * sum(v for k, v in cols.items() if k.startswith("background_"))
    scale = fp.data_events.n_events / total.sum()
    dm, mm = common.momenta_of(data), common.momenta_of(mc)
    out = {}
    for name, parts, _ in fit_background.PROJECTIONS:
        x, y = fit_background.mass(dm, parts), fit_background.mass(mm, parts)
        edges = np.linspace(min(x.min(), y.min()), max(x.max(), y.max()), bins + 1)
        h, _ = np.histogram(x, edges)
        f, _ = np.histogram(y, edges, weights=total * scale)
        f2, _ = np.histogram(y, edges, weights=(total * scale) ** 2)
        b, _ = np.histogram(y, edges, weights=bkg * scale)
        ok = f > 5
        chi2 = float(np.sum((h[ok] - f[ok]) ** 2 / (f[ok] + f2[ok])))
        out[name] = {"edges": edges, "data": h, "fit": f, "background": b, "chi2": chi2,
                     "ndf": int(ok.sum())}
    return out


def parse(argv=None):
    """The program's options."""
    p = common.parser(__doc__.split("\n\n")[0])
    command_line.add_model_options(p)
    command_line.add_start_options(p, fixed_seed=False, gradient=False)
    p.add_argument("--no-random-start", action="store_true",
                   help="start at the generation values")
    p.add_argument("--mc-events", type=int, default=None,
                   help="use only the first N generated MC events of each point")
    p.add_argument("--fraction-events", type=int, default=50000,
                   help="phase-space events for the fit fractions (0: none)")
    p.add_argument("--plot-energy", action="append", type=int, choices=model.ENERGIES_MEV,
                   help="plot the projections of the points at this energy (repeatable; "
                        "default: 2000)")
    p.add_argument("--no-plot", action="store_true", help="no projections")
    p.add_argument("--no-density-file", action="store_true",
                   help="do not write signal_density.root")
    p.add_argument("--numpy", action="store_true",
                   help="numpy densities (no analytic gradient; slow) instead of compiled ones")
    p.add_argument("--handwritten", action="store_true",
                   help="the hand-written signal density (signal_density.pyx) instead of the "
                        "declared model (declared_model.py)")
    p.add_argument("--quiet", action="store_true", help="no line per MIGRAD and HESSE")
    return p, p.parse_args(argv)


def main(argv=None):
    p, args = parse(argv)
    try:
        points = config.select(args.process, args.energy)
    except ValueError as exc:
        p.error(str(exc))
    declarations = simultaneous_fit_points(points, args.directory)
    missing = [f for d in declarations for f in d.missing_files()]
    if missing:
        p.error("missing input files (run generate_kkpipi.py and fit_background_kkpipi.py for "
                "these points "
                "first): " + ", ".join(missing))
    signal_modules = background_modules = None
    if not args.numpy:
        if args.handwritten:
            signal_modules = common.compile_signal_density([args.vector_length],
                                                           build_dir=args.model_cache)
        else:
            signal_modules = common.compile_signal_models(points, [args.vector_length],
                                                          build_dir=args.model_cache)
        background_modules = background.compile_density([args.vector_length],
                                                        build_dir=args.model_cache)
    t0 = time.perf_counter()
    fitter = build(declarations, signal_modules, background_modules,
                   vector_length=args.vector_length, precision=args.precision,
                   threads=args.threads, seed=args.seed, randomize=not args.no_random_start,
                   mc_events=args.mc_events, verbose=not args.quiet)
    if args.quiet:                       # the fitter prints it when verbose
        print(f"Random seed: {fitter.seed}")
    print(f"{len(declarations)} points: " + ", ".join(
        f"{d.name} ({fp.data_events.n_events} data, {fp.norm_events.n_events} MC)"
        for d, fp in zip(declarations, fitter.likelihood.points)))
    run_sequence(fitter, declarations)
    d = args.directory
    fitter.write_results(
        parameters=os.path.join(d, "parameters_signal_result.dat"),
        text=os.path.join(d, "results_signal.txt"),
        root=os.path.join(d, "signal_result.root"),
        density=None if args.no_density_file else os.path.join(d, "signal_density.root"),
        point=None)
    print(open(os.path.join(d, "results_signal.txt")).read())
    fractions = None
    if args.fraction_events > 0:
        fractions = fractions_of_fit(fitter, declarations, args.fraction_events)
        text = fractions_text(fractions)
        with open(os.path.join(d, "fit_fractions.txt"), "w") as f:
            f.write(text)
        print(text)
    if not args.no_plot:
        energies = args.plot_energy or [2000]
        lines = []
        for k, decl in enumerate(declarations):
            if decl.point.energy_mev not in energies:
                continue
            proj = projections(fitter, decl, k, mc_events=args.mc_events)
            fit_background.plot_projections(
                proj, os.path.join(d, f"signal_projections_{decl.name}.png"),
                decl.point.title("signal fit"), components=("background",))
            lines += common.chi2_lines(proj, decl.name)
        if lines:
            common.write_report(os.path.join(d, "signal_projections.txt"), lines)
            print("\n".join(lines))
    print(f"fit time: {fitter.wall_time:.1f} s wall, {fitter.cpu_time:.1f} s CPU, "
          f"{fitter.likelihood.n_calls} likelihood calls; total {time.perf_counter() - t0:.1f} s")
    return fitter, declarations, fractions


if __name__ == "__main__":
    main()
