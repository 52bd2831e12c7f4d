"""Signal fit of the D0 -> K- pi+ pi0 example (the paper's fitting sequence).

Reads from ``--directory``: the data (``data_signal.root``, or
``data_signal_N.root`` with ``--pseudoexperiment N``), the normalization MC
(``mc_signal.root``, or ``mc_signal_weighted.root`` with ``--weighted-mc``;
none with ``--grid-integration``) and the background parameters
(``parameters_background_result.dat`` if present, else the example's
parameters_background.dat).  The signal density is the one vecampfit.isobar
generates from isobar_model.py.  Sequence: fix all parameters, release the
magnitudes except the reference rho(770)+, MIGRAD; release the phases
(except the reference) and the background fraction, MIGRAD; with
``--release-masses`` / ``--release-widths`` also the masses / widths, MIGRAD;
couplings brought to the canonical form (magnitude >= 0, phase in
[-180, 180) degrees) after the first MIGRAD and after the last; HESSE.
With ``--cartesian`` the couplings are real and imaginary parts, released
together with the background fraction in one MIGRAD.
Fit fractions over the normalization sample (vecampfit.isobar.fit_fractions),
errors propagated from HESSE's error matrix (and, with MC normalization,
the error from the finite MC sample).  Writes
``parameters_signal_result.dat``, ``results.txt`` (with the fit fractions),
``signal_result.root`` and ``signal_density.root`` (suffix ``_N`` for
pseudoexperiments).
"""

import os

import numpy as np

import common
from vecampfit import couplings
from vecampfit.fitter import (Fitter, FitParameter, Likelihood, ParameterTable, Stage,
                              read_parameter_file)
from vecampfit.fitter.results import covariance_matrix
from vecampfit.isobar import fit_fractions
from vecampfit.root_io import read_events

REFERENCE = "RHOP1"
COUPLING_PARTS = ("A", "P", "RE", "IM")
#: Normalization MC file and weight branch, without and with --weighted-mc.
MC_FILES = (("mc_signal.root", None), ("mc_signal_weighted.root", "weight"))


def parameter_table(args):
    """The fit's parameters: parameters_signal.dat (couplings in real and
    imaginary parts with ``--cartesian``, random starts within the random
    change of the magnitude), without the background fraction with
    ``--no-background``."""
    polar = read_parameter_file(os.path.join(common.HERE, "parameters_signal.dat"))
    out = list(polar)
    if args.cartesian:
        out = []
        for p in common.signal_model(cartesian=True).parameter_table():
            key, _, part = p.name.rpartition("_")
            a = polar[f"{key}_A"] if part in ("RE", "IM") else None
            out.append(FitParameter(p.name, p.value, a.step, 0.0, 0.0, a.random_change) if a
                       else polar[p.name])
        out.append(polar[common.BACKGROUND_FRACTION])
    return ParameterTable([p for p in out if not (args.no_background
                                                  and p.name == common.BACKGROUND_FRACTION)],
                          source=polar.source)


def build(args, signal=None):
    """The fitter with data loaded; ``signal``: another density of the model's
    parameters in place of the generated one (the benchmarks')."""
    d = args.directory
    # With masses released, MIGRAD may try a mass at which the D is below
    # threshold for a resonance whose F_D(p0) the model keeps, where 1/F_D(p0)
    # has no value (NaN): the likelihood then returns a large value and MIGRAD
    # steps back, instead of the fit stopping with an error.
    likelihood = Likelihood(parameter_table(args), precision=args.precision,
                            vector_length=args.vector_length, threads=args.threads,
                            on_invalid="large")
    if signal is None:
        compiled = common.signal_model(args.cartesian).compile([args.vector_length],
                                                               build_dir=args.model_cache)
        signal = compiled.density(args.precision, args.vector_length)
    point = likelihood.add_point(signal, normalization="grid" if args.grid_integration else "mc")
    if not args.no_background:
        bfile = os.path.join(d, "parameters_background_result.dat")
        if not os.path.exists(bfile):
            bfile = os.path.join(common.HERE, "parameters_background.dat")
        point.add_background(common.background_density(args.vector_length, args.precision,
                                                       args.model_cache),
                             common.BACKGROUND_FRACTION, read_parameter_file(bfile))
    if args.grid_integration:
        point.add_normalization_events(*common.dalitz_grid(args.grid_integration))
    else:
        name, weight = MC_FILES[args.weighted_mc]
        point.load_normalization_file(os.path.join(d, name), common.TREE, list(common.BRANCHES),
                                      weight_branch=weight)
    point.load_data_file(os.path.join(d, common.data_file_name(args.pseudoexperiment)),
                         common.TREE, list(common.BRANCHES))
    return Fitter(likelihood, seed=args.seed, randomize=not args.fixed_seed,
                  use_gradient=False if args.no_gradient else None, verbose=not args.quiet)


def names(kind, cartesian=False):
    """Parameter names of one kind (A, P, RE, IM, M, G) in the model's order,
    without the reference's coupling."""
    return [n for n in common.signal_model(cartesian).parameter_names()
            if n.rpartition("_")[2] == kind
            and not (n.startswith(REFERENCE + "_") and kind in COUPLING_PARTS)]


def canonical_couplings(fitter):
    """Bring the free couplings a e^(i phi) to magnitude a >= 0 and phase in
    [-180, 180) degrees (:func:`vecampfit.couplings.canonical_polar`).

    a e^(i phi), (-a) e^(i (phi + 180 deg)) and a e^(i (phi + 360 deg)) are
    the same coupling, so the likelihood has a mirror minimum for every
    magnitude; the function value does not change, so MIGRAD's minimum
    stays a minimum, and HESSE after this gives the error matrix at the
    reported values.
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
    background = [] if args.no_background else [common.BACKGROUND_FRACTION]
    if args.cartesian:
        fitter.run(Stage(fix_all=True, release=names("RE", True) + names("IM", True)
                         + background, ncall=100000))
    else:
        fitter.run(Stage(fix_all=True, release=names("A"), ncall=100000))
        canonical_couplings(fitter)
        fitter.run(Stage(release=names("P") + background, ncall=100000))
    shapes = (names("M") if args.release_masses else []) + \
        (names("G") if args.release_widths else [])
    if shapes:
        fitter.run(Stage(release=shapes, ncall=100000))
    if not args.cartesian:
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
    p.add_argument("--no-background", action="store_true", help="fit without background")
    p.add_argument("--cartesian", action="store_true",
                   help="couplings as real and imaginary parts <name>_RE, <name>_IM")
    p.add_argument("--release-masses", action="store_true", help="also fit resonance masses")
    p.add_argument("--release-widths", action="store_true", help="also fit resonance widths")
    p.add_argument("--no-density-file", action="store_true",
                   help="do not write signal_density.root")
    p.add_argument("--quiet", action="store_true", help="no line per MIGRAD and HESSE")
    args = p.parse_args(argv)
    if args.grid_integration < 0:
        p.error("--grid-integration needs a positive number of points")
    return args


def normalization_sample(args):
    """The normalization events and weights (None: weight 1): the grid
    (``--grid-integration``), the weighted MC or the MC sample."""
    if args.grid_integration:
        return common.dalitz_grid(args.grid_integration)
    name, weight = MC_FILES[args.weighted_mc]
    return read_events(os.path.join(args.directory, name), common.TREE, list(common.BRANCHES),
                       weight_branch=weight)


def fitted_fractions(values, cov, sample, model):
    """:func:`vecampfit.isobar.fit_fractions` of ``model`` at ``values`` (a
    dict with at least the model's parameters) over ``sample`` (records,
    weights), errors from ``cov``, the error matrix over
    ``model.parameter_names()``."""
    names = model.parameter_names()
    missing = [n for n in names if n not in values]
    if missing:
        raise ValueError(f"values lack the model parameters {missing}")
    records, weights = sample
    return fit_fractions(model, records, weights, params={n: values[n] for n in names},
                         covariance=cov, covariance_names=names)


def fitter_fit_fractions(fitter, model, sample):
    """:func:`fitted_fractions` at the fitter's values with its error matrix."""
    return fitted_fractions(fitter.minuit.values.to_dict(),
                            covariance_matrix(fitter.minuit, model.parameter_names()), sample,
                            model)


def scan(argv, starts, first_seed):
    """Random-start scan: the fit sequence from ``starts`` random starting
    points (seeds ``first_seed``, ``first_seed + 1``, ...), its minima grouped
    into solutions (vecampfit.studies.group_solutions) after the couplings
    are brought to the canonical form.

    Returns
    -------
    list of dict
        The solutions, best first (``fval``, ``delta``, ``count``, ``members``,
        ``point``), each with ``fit_fractions`` at its best member.
    """
    from vecampfit.studies import group_solutions
    if starts < 1:
        raise ValueError(f"starts must be at least 1, got {starts}")
    fvals, points, fits = [], [], []
    for k in range(starts):
        args = parse([*argv, "--seed", str(first_seed + k), "--quiet"])
        model = common.signal_model(args.cartesian)
        fitter = build(args)
        run_sequence(fitter, args)
        fvals.append(fitter.minuit.fval)
        points.append(np.array(fitter.minuit.values))
        fits.append((fitter.minuit.values.to_dict(),
                     covariance_matrix(fitter.minuit, model.parameter_names())))
    solutions = group_solutions(fvals, points, f_tolerance=0.5)
    sample = normalization_sample(args)
    for s in solutions:
        s["fit_fractions"] = fitted_fractions(*fits[s["members"][0]], sample, model)
    return solutions


def main(argv=None):
    args = parse(argv)
    fitter = build(args)
    run_sequence(fitter, args)
    suffix = f"_{args.pseudoexperiment}" if args.pseudoexperiment >= 0 else ""
    d = args.directory
    text = os.path.join(d, f"results{suffix}.txt")
    fitter.write_results(
        parameters=os.path.join(d, f"parameters_signal_result{suffix}.dat"), text=text,
        root=os.path.join(d, f"signal_result{suffix}.root"),
        density=None if args.no_density_file else os.path.join(d, f"signal_density{suffix}.root"))
    model = common.signal_model(args.cartesian)
    ff = fitter_fit_fractions(fitter, model, normalization_sample(args))
    with open(text, "a") as f:
        f.write("\nFit fractions (vecampfit.isobar; fit error from the error matrix, norm error "
                "from the finite normalization sample)\n"
                + ff.table({c.key: c.label for c in model.components},
                           normalization_errors=not args.grid_integration) + "\n")
    print(open(text).read())
    print(f"fit time: {fitter.wall_time:.1f} s wall, {fitter.cpu_time:.1f} s CPU")
    return fitter


if __name__ == "__main__":
    main()
