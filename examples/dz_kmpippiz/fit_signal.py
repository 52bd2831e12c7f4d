"""Signal fit of the D0 -> K- pi+ pi0 example (the paper's fitting sequence).

Reads from ``--directory``: the data (``data_signal.root``, or
``data_signal_N.root`` with ``--pseudoexperiment N``), the normalization MC
(``mc_signal.root``, or ``mc_signal_weighted.root`` with ``--weighted-mc``;
none with ``--grid-integration``) and the background parameters
(``parameters_background_result.dat`` if present, else the example's
parameters_background.dat).  Sequence: fix all parameters, release the
magnitudes except the reference rho(770)+, MIGRAD; release the phases
(except the reference) and the background fraction, MIGRAD; with
``--release-masses`` / ``--release-widths`` also the masses / widths, MIGRAD;
couplings brought to the canonical form (magnitude >= 0, phase in
[-180, 180) degrees) after the first MIGRAD and after the last; HESSE.
With ``--cartesian`` the couplings are real and imaginary parts (the
generated density of isobar_model.py), released together with the
background fraction in one MIGRAD.
Fit fractions over the normalization sample from the model declared with
vecampfit.isobar (isobar_model.py), errors propagated from HESSE's error
matrix (and, with MC normalization, the error from the finite MC sample).
Writes ``parameters_signal_result.dat``, ``results.txt`` (with the fit
fractions), ``signal_result.root`` and ``signal_density.root`` (suffix
``_N`` for pseudoexperiments).
"""

import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

import common  # noqa: E402
import model  # noqa: E402
from vecampfit import couplings  # noqa: E402
from vecampfit.fitter import (Fitter, FitParameter, Likelihood, ParameterTable,  # noqa: E402
                              Stage, read_parameter_file)
from vecampfit.fitter.results import covariance_matrix  # noqa: E402

REFERENCE = "RHOP1"


def build(args):
    """The fitter with data loaded (also used by the benchmarks)."""
    d = args.directory
    parameters = read_parameter_file(os.path.join(HERE, "parameters_signal.dat"))
    if getattr(args, "cartesian", False):
        parameters = cartesian_parameters(parameters)
    if args.no_background:
        # Without background the fraction is a parameter of nothing.
        parameters = ParameterTable([p for p in parameters
                                     if p.name != common.BACKGROUND_FRACTION],
                                    source=parameters.source)
    # With masses released, MIGRAD may try a mass at which the D is below
    # threshold for a resonance whose F_D(p0) the model keeps, where 1/F_D(p0)
    # has no value (NaN): the likelihood then returns a large value and MIGRAD
    # steps back, instead of the fit stopping with an error.
    likelihood = Likelihood(parameters, precision=args.precision,
                            vector_length=args.vector_length, threads=args.threads,
                            on_invalid="large")
    models = common.compile_models([args.vector_length], args.model_cache)
    if args.numpy:
        signal = common.signal_density_numpy()
    elif getattr(args, "isobar", False) or getattr(args, "cartesian", False):
        model_ = isobar_model(getattr(args, "cartesian", False))
        generated = model_.compile([args.vector_length], build_dir=args.model_cache)
        signal = generated.density(args.precision, args.vector_length)
    else:
        signal = common.signal_density(models, args.vector_length, args.precision)
    normalization = "grid" if args.grid_integration else "mc"
    point = likelihood.add_point(signal, normalization=normalization)
    if not args.no_background:
        bfile = os.path.join(d, "parameters_background_result.dat")
        if not os.path.exists(bfile):
            bfile = os.path.join(HERE, "parameters_background.dat")
        point.add_background(common.background_density(models, args.vector_length,
                                                       args.precision),
                             common.BACKGROUND_FRACTION, read_parameter_file(bfile))
    if args.grid_integration:
        records, weights = common.dalitz_grid(args.grid_integration)
        point.add_normalization_events(records, weights)
    elif args.weighted_mc:
        point.load_normalization_file(os.path.join(d, "mc_signal_weighted.root"), common.TREE,
                                      list(common.BRANCHES), weight_branch="weight")
    else:
        point.load_normalization_file(os.path.join(d, "mc_signal.root"), common.TREE,
                                      list(common.BRANCHES))
    point.load_data_file(os.path.join(d, common.data_file_name(args.pseudoexperiment)),
                         common.TREE, list(common.BRANCHES))
    return Fitter(likelihood, seed=args.seed, randomize=not args.fixed_seed,
                  use_gradient=False if (args.no_gradient or args.numpy) else None,
                  verbose=not getattr(args, "quiet", False))


COUPLING_PARTS = ("A", "P", "RE", "IM")


def names(kind):
    """Parameter names of one kind (A, P, RE, IM, M, G) over the resonances
    and the non-resonant term, without the reference's coupling."""
    out = [f"{r[0]}_{kind}" for r in model.RESONANCES
           if not (r[0] == REFERENCE and kind in COUPLING_PARTS)]
    if kind in COUPLING_PARTS:
        out.append(f"NR_{kind}")
    return out


def canonical_couplings(fitter):
    """Bring the free couplings a e^(i phi) to magnitude a >= 0 and phase in
    [-180, 180) degrees (:func:`vecampfit.couplings.canonical_polar`).

    a e^(i phi), (-a) e^(i (phi + 180 deg)) and a e^(i (phi + 360 deg)) are
    the same coupling, so the likelihood has a mirror minimum for every
    magnitude, and phases drift past +-180 degrees; the fit sequence
    (magnitudes first, at the initial phases) can end in either.  A fixed
    phase is changed too (the coupling stays the same).  The function value
    does not change, so MIGRAD's minimum stays a minimum; HESSE after this
    gives the error matrix at the reported values.
    """
    m = fitter.minuit
    for a_name in names("A"):
        p_name = a_name[:-1] + "P"
        if m.fixed[a_name] or np.isfinite(m.limits[p_name]).any():
            continue
        a, phi = m.values[a_name], m.values[p_name]
        if np.isfinite(m.limits[a_name]).any():
            phi = couplings.wrap_phase(phi)    # a bounded magnitude keeps its sign
        else:
            a, phi = couplings.canonical_polar(a, phi)
        m.values[a_name], m.values[p_name] = float(a), float(phi)


def run_sequence(fitter, args):
    """The paper's command sequence (with ``--cartesian``: real and imaginary
    parts and the background fraction released at once)."""
    cartesian = getattr(args, "cartesian", False)
    background = [] if args.no_background else [common.BACKGROUND_FRACTION]
    if cartesian:
        fitter.run(Stage(fix_all=True, release=names("RE") + names("IM") + background,
                         ncall=100000))
    else:
        fitter.run(Stage(fix_all=True, release=names("A"), ncall=100000))
        canonical_couplings(fitter)
        fitter.run(Stage(release=names("P") + background, ncall=100000))
    shapes = (names("M") if args.release_masses else []) + \
        (names("G") if args.release_widths else [])
    if shapes:
        fitter.run(Stage(release=shapes, ncall=100000))
    if not cartesian:
        canonical_couplings(fitter)
    fitter.run(Stage(migrad=False, hesse=True))


def parse(argv=None):
    """The program's options (also used by run.py's random-start scan)."""
    p = common.add_fit_options(common.parser(__doc__.split("\n\n")[0]))
    p.add_argument("--pseudoexperiment", type=int, default=-1,
                   help="fit data_signal_N.root (default: data_signal.root)")
    p.add_argument("--grid-integration", type=int, default=0, metavar="N",
                   help="normalize on an N x N Gauss-Legendre grid that follows the "
                        "Dalitz-plot boundary instead of MC")
    p.add_argument("--weighted-mc", action="store_true",
                   help="normalize with mc_signal_weighted.root and its weights")
    p.add_argument("--numpy", action="store_true",
                   help="use the numpy form of the signal density (no analytic gradient)")
    p.add_argument("--no-background", action="store_true", help="fit without background")
    p.add_argument("--isobar", action="store_true",
                   help="fit with the density that vecampfit.isobar generates from "
                        "isobar_model.py (default: the hand-written signal_density.pyx)")
    p.add_argument("--cartesian", action="store_true",
                   help="couplings as real and imaginary parts <name>_RE, <name>_IM "
                        "(the generated density of isobar_model.py; implies --isobar)")
    p.add_argument("--release-masses", action="store_true", help="also fit resonance masses")
    p.add_argument("--release-widths", action="store_true", help="also fit resonance widths")
    p.add_argument("--no-density-file", action="store_true",
                   help="do not write signal_density.root")
    p.add_argument("--quiet", action="store_true", help="no line per MIGRAD and HESSE")
    args = p.parse_args(argv)
    if args.grid_integration < 0:
        p.error("--grid-integration needs a positive number of points")
    return args


def cartesian_parameters(polar):
    """The fit's table with the couplings in real and imaginary parts: the
    table of ``isobar_model(cartesian=True)``, random starts of <name>_RE and
    <name>_IM within the random change of <name>_A in ``polar`` (the
    parameters_signal.dat table), and the other parameters as in ``polar``."""
    out = []
    for p in isobar_model(cartesian=True).parameter_table():
        key, _, part = p.name.rpartition("_")
        if part in ("RE", "IM"):
            a = polar[f"{key}_A"]
            out.append(FitParameter(p.name, p.value, a.step, 0.0, 0.0, a.random_change))
        else:
            out.append(polar[p.name])
    out += [p for p in polar if p.name == common.BACKGROUND_FRACTION]
    return ParameterTable(out, source=f"{polar.source} (couplings in Cartesian form)")


def isobar_model(cartesian=False):
    """The model declared with vecampfit.isobar (isobar_model.py of this folder;
    couplings in real and imaginary parts with ``cartesian``)."""
    import isobar_model as module
    model = module.build()
    return model.cartesian() if cartesian else model


def normalization_sample(args):
    """The fit's normalization events and weights: the grid
    (``--grid-integration``), the weighted MC or the MC sample.

    Returns
    -------
    records : dict of numpy.ndarray
    weights : numpy.ndarray or None
        None for the unweighted MC (weight 1).
    """
    from vecampfit.root_io import read_events
    if args.grid_integration:
        return common.dalitz_grid(args.grid_integration)
    if args.weighted_mc:
        return read_events(os.path.join(args.directory, "mc_signal_weighted.root"), common.TREE,
                           list(common.BRANCHES), weight_branch="weight")
    return read_events(os.path.join(args.directory, "mc_signal.root"), common.TREE,
                       list(common.BRANCHES))


def fit_fractions(values, cov, sample, model=None):
    """Fit and interference fractions of the signal model at fitted values.

    Parameters
    ----------
    values : dict
        Parameter name -> value (at least the model's parameters; others,
        such as the background fraction, are ignored).
    cov : numpy.ndarray
        Error matrix over ``model.parameter_names()``
        (:func:`vecampfit.fitter.results.covariance_matrix`).
    sample : (dict, numpy.ndarray or None)
        Normalization events and weights (:func:`normalization_sample`).
    model : vecampfit.isobar.IsobarModel, optional
        Default :func:`isobar_model`.

    Returns
    -------
    vecampfit.isobar.FitFractions
        From :func:`vecampfit.isobar.fit_fractions` (evaluated in numpy),
        errors propagated from ``cov``.
    """
    from vecampfit.isobar import fit_fractions as layer_fit_fractions
    model = model or isobar_model()
    names = model.parameter_names()
    missing = [n for n in names if n not in values]
    if missing:
        raise ValueError(f"values lack the model parameters {missing}")
    records, weights = sample
    return layer_fit_fractions(model, records, weights, params={n: values[n] for n in names},
                               covariance=cov, covariance_names=names)


def fitter_fit_fractions(fitter, args, model=None, sample=None):
    """:func:`fit_fractions` at the fitter's values with its error matrix."""
    model = model or isobar_model()
    values = fitter.minuit.values.to_dict()
    return fit_fractions(values, covariance_matrix(fitter.minuit, model.parameter_names()),
                         sample if sample is not None else normalization_sample(args), model)


def scan(argv, starts, first_seed):
    """Random-start scan: the fit sequence from ``starts`` random starting
    points (seeds ``first_seed``, ``first_seed + 1``, ...), its minima grouped
    into solutions (vecampfit.studies.group_solutions) after the couplings
    are brought to the canonical form.

    Returns
    -------
    list of dict
        The solutions, best first (``fval``, ``delta``, ``count``, ``members``,
        ``point``), each with ``fit_fractions``
        (:class:`vecampfit.isobar.FitFractions` at its best member, errors
        from that fit's error matrix).
    """
    from vecampfit.studies import group_solutions
    if starts < 1:
        raise ValueError(f"starts must be at least 1, got {starts}")
    fvals, points, fits = [], [], []
    for k in range(starts):
        args = parse([*argv, "--seed", str(first_seed + k), "--quiet"])
        model = isobar_model(getattr(args, "cartesian", False))
        fitter = build(args)
        run_sequence(fitter, args)
        fvals.append(fitter.minuit.fval)
        points.append(np.array(fitter.minuit.values))
        fits.append((fitter.minuit.values.to_dict(),
                     covariance_matrix(fitter.minuit, model.parameter_names())))
    solutions = group_solutions(fvals, points, f_tolerance=0.5)
    sample = normalization_sample(args)
    for s in solutions:
        s["fit_fractions"] = fit_fractions(*fits[s["members"][0]], sample, model)
    return solutions


def main(argv=None):
    args = parse(argv)
    fitter = build(args)
    run_sequence(fitter, args)
    suffix = f"_{args.pseudoexperiment}" if args.pseudoexperiment >= 0 else ""
    d = args.directory
    fitter.write_results(
        parameters=os.path.join(d, f"parameters_signal_result{suffix}.dat"),
        text=os.path.join(d, f"results{suffix}.txt"),
        root=os.path.join(d, f"signal_result{suffix}.root"),
        density=None if args.no_density_file else os.path.join(d, f"signal_density{suffix}.root"))
    model = isobar_model(getattr(args, "cartesian", False))
    ff = fitter_fit_fractions(fitter, args, model)
    with open(os.path.join(d, f"results{suffix}.txt"), "a") as f:
        f.write("\nFit fractions (vecampfit.isobar; fit error from the error matrix, norm error "
                "from the finite normalization sample)\n"
                + ff.table({c.key: c.label for c in model.components},
                           normalization_errors=not args.grid_integration) + "\n")
    print(open(os.path.join(d, f"results{suffix}.txt")).read())
    print(f"fit time: {fitter.wall_time:.1f} s wall, {fitter.cpu_time:.1f} s CPU")
    return fitter


if __name__ == "__main__":
    main()
