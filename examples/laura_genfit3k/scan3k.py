"""Random-start scan of Laura++'s GenFit3K pseudoexperiments: the distinct solutions.

Fits each of Laura++'s pseudoexperiments (``--laura-file``, experiments
``--experiments``) ``--starts`` times with Laura++'s two-stage sequence
from random starting coefficients (uniform in [-10, 10], as Laura++'s
random starts), brings every minimum to a canonical form (couplings
relative to the phi(1020) as magnitude >= 0 and phase in [-180, 180)
degrees, with the masses and widths) and groups the minima of each
experiment into distinct solutions (:func:`vecampfit.studies.group_solutions`:
F within ``--f-tolerance`` and every canonical coordinate within
``--max-distance`` errors).  Per solution: F, its difference to the best,
how many starts reached it, and the fit fractions with errors (isobar
layer, errors from the solution's HESSE matrix).  The summary compares
with Laura++: its fits of the same experiments from the generated values
(fit fractions) and its random-start fits (second solution worse by
460-560 in -ln L = F/2, 4 of 10 fits).

The fits run through :func:`vecampfit.studies.run_study`: every fit is
appended to ``scan3k_fits.jsonl`` in ``--output`` as it ends, and an
interrupted scan resumes there.  Writes ``scan3k_results.txt`` (the report)
and ``scan3k_solutions.json`` into ``--output``.
"""

import json
import os

import numpy as np

import fit3k  # noqa: E402
import genfit3k  # noqa: E402
from vecampfit import couplings  # noqa: E402

#: Laura++'s random-start fits of these pseudoexperiments (data/README.md):
#: the second solution is worse by this range of -ln L ...
LAURA_SECOND_SOLUTION_DELTA_NLL = (460.0, 560.0)
#: ... and was reached by this many of this many random-start fits.
LAURA_SECOND_SOLUTION_COUNT = (4, 10)

#: Coordinates of the canonical form: masses and widths, then magnitude and
#: phase (degrees) of every coupling relative to the reference's.
REFERENCE = "PHI"
CANONICAL_NAMES = genfit3k.MASSES_AND_WIDTHS + tuple(
    f"{c}_{part}" for c in genfit3k.COMPONENTS if c != REFERENCE for part in ("MAG", "PHASE"))
PHASES = np.array([n.endswith("_PHASE") for n in CANONICAL_NAMES])


def canonical_point(values):
    """The canonical form of a minimum.

    The likelihood depends on the couplings only through |A|^2, so a common
    phase of all couplings does not change it: the couplings are taken
    relative to the phi(1020)'s (fixed to 1 in the fit, so that this only
    matters if it is freed) and written as magnitude >= 0 and phase in
    [-180, 180) degrees (:func:`vecampfit.couplings.canonical_couplings`).
    The model's other symmetry, the exchange of the two K+, is built into
    the amplitude (both pair terms), so it maps a parameter point onto
    itself and needs no step here.

    Parameters
    ----------
    values : array_like
        Parameters in the order of :data:`genfit3k.PARAMETER_NAMES`.

    Returns
    -------
    numpy.ndarray
        The coordinates :data:`CANONICAL_NAMES`.

    Raises
    ------
    ValueError
        If the parameters are not 10 finite numbers or the reference
        coupling is zero.
    """
    x = np.asarray(values, dtype=np.float64)
    if x.shape != (len(genfit3k.PARAMETER_NAMES),) or not np.all(np.isfinite(x)):
        raise ValueError(f"expected {len(genfit3k.PARAMETER_NAMES)} finite parameters "
                         f"({', '.join(genfit3k.PARAMETER_NAMES)}), got {values!r}")
    p = dict(zip(genfit3k.PARAMETER_NAMES, x))
    out = [p[n] for n in genfit3k.MASSES_AND_WIDTHS]
    polar = couplings.canonical_couplings({c: genfit3k.coefficient(x, c) for c in genfit3k.COMPONENTS},
                                          reference=REFERENCE)
    for c in genfit3k.COMPONENTS:
        if c != REFERENCE:
            out += list(polar[c])
    return np.array(out)


def canonical_errors(values, covariance):
    """Errors of the canonical coordinates, propagated linearly from the
    parameters' covariance matrix (central differences of :func:`canonical_point`).

    Parameters
    ----------
    values : array_like
        Parameters (:data:`genfit3k.PARAMETER_NAMES`).
    covariance : array_like
        (10, 10) covariance matrix, zero for fixed parameters.

    Returns
    -------
    numpy.ndarray
        One error per coordinate of :data:`CANONICAL_NAMES`.
    """
    x = np.asarray(values, dtype=np.float64)
    cov = np.asarray(covariance, dtype=np.float64)
    if cov.shape != (len(x), len(x)):
        raise ValueError(f"covariance: expected shape ({len(x)}, {len(x)}), got {cov.shape}")
    jac = np.zeros((len(CANONICAL_NAMES), len(x)))
    for k in range(len(x)):
        if not np.any(cov[k]):
            continue
        h = 1e-6 * max(abs(x[k]), 1e-3)
        xp, xm = x.copy(), x.copy()
        xp[k] += h
        xm[k] -= h
        d = canonical_point(xp) - canonical_point(xm)
        d[PHASES] = couplings.wrap_phase(d[PHASES])
        jac[:, k] = d / (2 * h)
    return np.sqrt(np.maximum(np.einsum("ik,kl,il->i", jac, cov, jac), 0))


def solution_distance(errors, max_distance=1.0):
    """``distance(a, b)`` for :func:`vecampfit.studies.group_solutions`: the
    largest difference of two canonical points over ``errors``, phases
    wrapped, divided by ``max_distance`` (so that points closer than
    ``max_distance`` errors in every coordinate are one solution)."""
    errors = np.asarray(errors, dtype=np.float64)
    if errors.shape != (len(CANONICAL_NAMES),) or not np.all(errors > 0):
        raise ValueError(f"errors of the canonical coordinates must be {len(CANONICAL_NAMES)} "
                         f"positive numbers, got {errors!r} (HESSE failed at the best minimum?)")
    if not max_distance > 0:
        raise ValueError(f"max_distance must be positive, got {max_distance!r}")

    def distance(a, b):
        d = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
        d[PHASES] = couplings.wrap_phase(d[PHASES])
        return float(np.max(np.abs(d) / errors)) / max_distance
    return distance


def group(fits, *, f_tolerance=0.1, max_distance=1.0):
    """Group the valid minima of one experiment into distinct solutions.

    Parameters
    ----------
    fits : list of dict
        Fits of one experiment: ``fval``, ``valid``, ``values``,
        ``covariance`` (and ``start``).
    f_tolerance : float
        Largest difference of F within one solution.
    max_distance : float
        Largest difference of a canonical coordinate within one solution,
        in units of its error at the best minimum.

    Returns
    -------
    list of dict
        Best first, as :func:`vecampfit.studies.group_solutions` (``fval``,
        ``delta``, ``count``, ``members`` as indices into ``fits``,
        ``point`` the canonical point), plus ``frequency`` (count over the
        valid fits), ``canonical_errors`` and ``solution`` (``"main"`` or
        ``"second"``, :func:`genfit3k.solution`).

    Raises
    ------
    ValueError
        If no fit is valid.
    """
    from vecampfit.studies import group_solutions
    valid = [k for k, f in enumerate(fits) if f["valid"]]
    if not valid:
        raise ValueError("no valid fit to group (every MIGRAD or HESSE failed)")
    fvals = np.array([fits[k]["fval"] for k in valid])
    points = np.array([canonical_point(fits[k]["values"]) for k in valid])
    best = fits[valid[int(np.argmin(fvals))]]
    errors = canonical_errors(best["values"], best["covariance"])
    solutions = group_solutions(fvals, points, f_tolerance=f_tolerance,
                                distance=solution_distance(errors, max_distance))
    for s in solutions:
        s["members"] = [valid[i] for i in s["members"]]
        rep = fits[s["members"][0]]
        s["frequency"] = s["count"] / len(valid)
        s["canonical_errors"] = canonical_errors(rep["values"], rep["covariance"])
        s["solution"] = genfit3k.solution(rep["values"])
    return solutions


def random_start_fit(setup, m13sq, m23sq, seed):
    """One fit from random starting coefficients (seed ``seed``); what the scan keeps."""
    r = fit3k.fit_one(setup, m13sq, m23sq, random_start=True, seed=seed, fractions=False)
    start = r["fitter"].initial_values
    del r["fitter"]
    return {"fval": float(r["fval"]), "valid": bool(r["valid"]),
            "values": np.asarray(r["values"], dtype=np.float64),
            "errors": np.asarray(r["errors"], dtype=np.float64),
            "covariance": np.asarray(r["covariance"], dtype=np.float64),
            "initial": np.asarray(start, dtype=np.float64), "calls": int(r["calls"])}


def run(setup, experiments, starts, seed, *, laura_file=genfit3k.LAURA_TOYS, results=None,
        progress=False):
    """Fit every experiment from ``starts`` random starts.

    Parameters
    ----------
    setup : fit3k.Setup
    experiments : list of int
        Laura++'s experiment numbers.
    starts : int
        Random starts per experiment.
    seed : int
        Seed of the scan (:func:`vecampfit.studies.run_study` derives one
        per fit).
    laura_file : str
        Laura++'s pseudoexperiments.
    results : str, optional
        File of the fits (JSON lines) to append to and resume from.
    progress : bool
        A line per fit.

    Returns
    -------
    dict
        Experiment -> list of fits (dicts as :func:`random_start_fit`, plus
        ``start``); fits that raised are left out and counted in the
        key ``"failed"``.
    """
    from vecampfit.studies import run_study
    experiments = [int(k) for k in experiments]
    if starts < 1:
        raise ValueError(f"starts must be at least 1, got {starts}")
    if not experiments:
        raise ValueError("no experiment to scan")
    events = {}

    def one(index, fit_seed):
        k, start = experiments[index // starts], index % starts
        if k not in events:
            events[k] = genfit3k.read_events(laura_file, k)
        out = random_start_fit(setup, *events[k], fit_seed % 2 ** 32)
        out.update(expt=k, start=start)
        if progress:
            print(f"experiment {k} start {start}: F = {out['fval']:.3f}"
                  f"{'' if out['valid'] else ' (invalid)'}, {out['calls']} calls", flush=True)
        return out

    table = run_study(one, len(experiments) * starts, seed=seed, results=results,
                      progress=False)
    out = {k: [] for k in experiments}
    failed = []
    for row in table.rows:
        index = row["experiment"]
        k, start = experiments[index // starts], index % starts
        if row["status"] != "ok":
            failed.append({"expt": k, "start": start, "error": row["error"]})
            continue
        if row["expt"] != k or row["start"] != start:
            raise ValueError(f"{results}: fit {index} is experiment {row['expt']} start "
                             f"{row['start']}, this scan's is experiment {k} start {start} "
                             f"(another scan's file: choose another --output)")
        fit = {key: np.asarray(row[key], dtype=np.float64) if key in
               ("values", "errors", "covariance", "initial") else row[key]
               for key in ("fval", "valid", "values", "errors", "covariance", "initial",
                           "calls", "start")}
        out[k].append(fit)
    out["failed"] = failed
    return out


def solutions_of(setup, fits, *, f_tolerance=0.1, max_distance=1.0):
    """:func:`group` plus the fit fractions of every solution (at its best
    member, errors from its covariance matrix) from the isobar layer."""
    solutions = group(fits, f_tolerance=f_tolerance, max_distance=max_distance)
    for s in solutions:
        rep = fits[s["members"][0]]
        ff = setup.fit_fractions(rep["values"], rep["covariance"])
        s["fit_fractions"] = ff.fractions
        s["fit_fraction_errors"] = dict(zip(ff.components, np.diag(ff.errors)))
        s["fit_fraction_sum"] = ff.total
        s["values"] = rep["values"]
        s["errors"] = rep["errors"]
        s["starts"] = [fits[i]["start"] for i in s["members"]]
    return solutions


def summarize(per_experiment, laura_rows=None):
    """Figures over all experiments.

    Parameters
    ----------
    per_experiment : dict
        Experiment -> ``{"fits": [...], "solutions": [...]}``.
    laura_rows : dict, optional
        Experiment -> Laura++'s fit result (:func:`genfit3k.read_laura_results`).

    Returns
    -------
    dict
        ``fits`` and ``valid`` (counts), ``counts`` (label -> fits that
        reached a solution of that label), ``second_delta`` (per experiment
        with a second solution, the F difference of its best one),
        ``distinct`` (solutions per experiment), and with ``laura_rows``
        ``fraction_differences`` (the best solution's fit fractions minus
        Laura++'s, in units of ours) and ``nll_offsets`` (the best
        solution's F minus twice Laura++'s -ln L: one constant for samples
        of one size if F = -2 ln L + constant, so that a difference of F is
        twice one of Laura++'s -ln L).
    """
    counts, deltas, distinct, diffs, offsets = {}, [], {}, [], []
    n_fits = n_valid = 0
    for k, e in per_experiment.items():
        n_fits += len(e["fits"])
        n_valid += sum(1 for f in e["fits"] if f["valid"])
        distinct[k] = len(e["solutions"])
        for s in e["solutions"]:
            counts[s["solution"]] = counts.get(s["solution"], 0) + s["count"]
        second = [s["delta"] for s in e["solutions"] if s["solution"] == "second"]
        if second:
            deltas.append(min(second))
        if laura_rows is not None and k in laura_rows:
            best = e["solutions"][0]
            offsets.append(best["fval"] - 2 * laura_rows[k]["NLL"])
            for c in genfit3k.COMPONENTS:
                ref = laura_rows[k][genfit3k.LAURA_COLUMNS[f"FF_{c}"]]
                diffs.append((best["fit_fractions"][c] - ref) / best["fit_fraction_errors"][c])
    out = {"fits": n_fits, "valid": n_valid, "counts": counts, "second_delta": deltas,
           "distinct": distinct}
    if laura_rows is not None:
        out["fraction_differences"] = diffs
        out["nll_offsets"] = offsets
    return out


def format_report(per_experiment, summary, starts):
    """The text report (one block per experiment, then the summary)."""
    lines = []
    for k, e in per_experiment.items():
        n_valid = sum(1 for f in e["fits"] if f["valid"])
        lines.append(f"experiment {k}: {len(e['fits'])} random starts, {n_valid} valid, "
                     f"{len(e['solutions'])} distinct solutions")
        for j, s in enumerate(e["solutions"]):
            p = dict(zip(CANONICAL_NAMES, s["point"]))
            ff = " ".join(f"{c} {100 * s['fit_fractions'][c]:.2f} +- "
                          f"{100 * s['fit_fraction_errors'][c]:.2f} %" for c in genfit3k.COMPONENTS)
            lines.append(
                f"  solution {j + 1} ({s['solution']}): F = {s['fval']:.3f}, dF = {s['delta']:.3f} "
                f"(d(-ln L) = {s['delta'] / 2:.3f}), reached by {s['count']} of {n_valid} "
                f"({100 * s['frequency']:.0f} %)")
            lines.append("    " + ", ".join(
                f"{n} {p[n]:.5g}" for n in CANONICAL_NAMES))
            lines.append(f"    fit fractions: {ff} (sum {100 * s['fit_fraction_sum']:.2f} %)")
    lines.append("")
    total = summary["valid"]
    lines.append(f"{len(per_experiment)} experiments x {starts} random starts: {summary['fits']} "
                 f"fits, {total} valid")
    for label in ("main", "second"):
        n = summary["counts"].get(label, 0)
        lines.append(f"  {label} solution reached by {n} of {total} fits "
                     f"({100 * n / max(total, 1):.1f} %)")
    other = sum(n for label, n in summary["counts"].items() if label not in ("main", "second"))
    if other:
        lines.append(f"  other solutions: {other} fits")
    n2 = sum(1 for k, e in per_experiment.items() if len(e["solutions"]) >= 2)
    lines.append(f"  experiments with at least two distinct solutions: {n2} of "
                 f"{len(per_experiment)}")
    d = np.array(summary["second_delta"])
    if d.size:
        lo, hi = LAURA_SECOND_SOLUTION_DELTA_NLL
        inside = np.sum((d / 2 >= lo) & (d / 2 <= hi))
        lines.append(f"  second solution (the best of each experiment): dF = {d.min():.1f} .. "
                     f"{d.max():.1f}, median {np.median(d):.1f}; d(-ln L) = dF/2 = "
                     f"{d.min() / 2:.1f} .. {d.max() / 2:.1f}, median {np.median(d) / 2:.1f} "
                     f"(Laura++'s second solutions: {lo:.0f} .. {hi:.0f}; {inside} of {d.size} "
                     f"experiments inside)")
    else:
        lines.append("  no second solution found")
    a, b = LAURA_SECOND_SOLUTION_COUNT
    lines.append(f"  Laura++'s random starts: second solution in {a} of {b} fits "
                 f"({100 * a / b:.0f} %)")
    if summary.get("fraction_differences"):
        f = np.abs(summary["fraction_differences"])
        lines.append(f"  best solution's fit fractions against Laura++'s fits: largest "
                     f"|difference| {f.max():.3f} of our errors")
    if len(summary.get("nll_offsets", [])) > 1:
        o = np.array(summary["nll_offsets"])
        lines.append(f"  F of the best solution - 2 x Laura++'s -ln L: {o.mean():.2f}, spread "
                     f"{np.ptp(o):.2f} over {o.size} experiments (F = -2 ln L + a constant)")
    return "\n".join(lines)


def _jsonable(x):
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, np.generic):
        return x.item()
    return x


def write(output, per_experiment, summary, report, options):
    """Write ``scan3k_results.txt`` and ``scan3k_solutions.json`` into ``output``."""
    from vecampfit.fitter.results import atomic_write_text
    atomic_write_text(os.path.join(output, "scan3k_results.txt"), report + "\n")
    keep = ("solution", "fval", "delta", "count", "frequency", "starts", "point",
            "canonical_errors", "values", "errors", "fit_fractions", "fit_fraction_errors",
            "fit_fraction_sum")
    doc = {"options": options, "canonical_names": list(CANONICAL_NAMES),
           "parameter_names": list(genfit3k.PARAMETER_NAMES),
           "experiments": {k: {"fits": len(e["fits"]),
                               "valid": sum(1 for f in e["fits"] if f["valid"]),
                               "solutions": [{key: s[key] for key in keep}
                                             for s in e["solutions"]]}
                           for k, e in per_experiment.items()},
           "summary": summary}
    atomic_write_text(os.path.join(output, "scan3k_solutions.json"),
                      json.dumps(_jsonable(doc), indent=1) + "\n")


def make_parser():
    p = genfit3k.program_parser(__doc__.split("\n\n")[0],
                                "Laura++'s fit results (its fit fractions are compared)")
    p.add_argument("--experiments", default="0-9", help="N, N-M or a list")
    p.add_argument("--starts", type=int, default=30, help="random starts per experiment")
    p.add_argument("--seed", type=int, default=1, help="seed of the scan")
    p.add_argument("--f-tolerance", type=float, default=0.1,
                   help="largest difference of F within one solution")
    p.add_argument("--max-distance", type=float, default=1.0,
                   help="largest difference of a canonical coordinate within one solution, in "
                        "units of its error at the best minimum")
    p.add_argument("--output", default=".", help="folder of the result files")
    p.add_argument("--quiet", action="store_true", help="print only the report")
    return p


def main(argv=None):
    p = make_parser()
    args = p.parse_args(argv)
    if args.starts < 1:
        p.error(f"--starts must be at least 1, got {args.starts}")
    if not args.f_tolerance > 0 or not args.max_distance > 0:
        p.error("--f-tolerance and --max-distance must be positive")
    if not os.path.isdir(args.output):
        p.error(f"--output {args.output!r} is not a folder")
    try:
        experiments = fit3k.parse_experiments(args.experiments)
        laura_rows = {int(r["iExpt"]): r for r in genfit3k.read_laura_results(args.laura_results)}
        setup = fit3k.Setup(args, verbose=not args.quiet)
        fits = run(setup, experiments, args.starts, args.seed, laura_file=args.laura_file,
                   results=os.path.join(args.output, "scan3k_fits.jsonl"),
                   progress=not args.quiet)
        per_experiment = {}
        for k in experiments:
            per_experiment[k] = {"fits": fits[k], "solutions": solutions_of(
                setup, fits[k], f_tolerance=args.f_tolerance, max_distance=args.max_distance)}
    except (ValueError, FileNotFoundError, KeyError) as exc:
        p.error(str(exc))
    summary = summarize(per_experiment, laura_rows)
    summary["failed"] = fits["failed"]
    report = format_report(per_experiment, summary, args.starts)
    if fits["failed"]:
        report += f"\n  {len(fits['failed'])} fits raised: " + "; ".join(
            f"experiment {f['expt']} start {f['start']}: {f['error']}" for f in fits["failed"])
    print(report)
    write(args.output, per_experiment, summary, report,
          {k: getattr(args, k) for k in ("experiments", "starts", "seed", "f_tolerance",
                                         "max_distance", "laura_file")})
    return per_experiment, summary


if __name__ == "__main__":
    main()
