"""Random-start scan of Laura++'s GenFit3K pseudoexperiments: the distinct solutions.

Fits each of Laura++'s pseudoexperiments (``--laura-file``, ``--experiments``)
``--starts`` times with Laura++'s two-stage sequence from random coefficients
(uniform in [-10, 10]), brings every minimum to a canonical form (couplings
relative to the phi(1020)'s as magnitude >= 0 and phase in [-180, 180)
degrees, vecampfit.couplings, with the masses and widths) and groups the
minima of each experiment into solutions (vecampfit.studies.group_solutions:
F within ``--f-tolerance`` and every canonical coordinate within
``--max-distance`` errors).  Per solution: F, its difference to the best,
how many starts reached it, the fit fractions with errors.  The summary
compares with Laura++'s fits (fit fractions) and its random-start fits
(second solution worse by 460-560 in -ln L = F/2, 4 of 10 fits).  Every fit
is appended to ``scan3k_fits.jsonl`` in ``--output`` as it ends
(vecampfit.studies.run_study; an interrupted scan resumes there); writes
``scan3k_results.txt`` and ``scan3k_solutions.json``.
"""

import json
import os

import numpy as np

import genfit3k
from vecampfit import command_line, couplings
from vecampfit.studies import group_solutions, run_study

#: Laura++'s random-start fits (data/README.md): the second solution is worse
#: by this range of -ln L and was reached by this many of this many fits.
LAURA_SECOND_SOLUTION_DELTA_NLL = (460.0, 560.0)
LAURA_SECOND_SOLUTION_COUNT = (4, 10)
#: Canonical coordinates: masses and widths, magnitude and phase (degrees) of
#: the couplings relative to the phi(1020)'s.
CANONICAL_NAMES = genfit3k.MASSES_AND_WIDTHS + ("F2_MAG", "F2_PHASE", "NR_MAG", "NR_PHASE")
PHASES = np.array([n.endswith("_PHASE") for n in CANONICAL_NAMES])


def canonical_point(values):
    """The canonical coordinates (:data:`CANONICAL_NAMES`) of a minimum
    (values: name -> number); a common phase of the couplings drops out."""
    polar = couplings.canonical_couplings(
        {c: complex(values[f"{c}_RE"], values[f"{c}_IM"]) for c in genfit3k.COMPONENTS},
        reference="PHI")
    return np.array([values[n] for n in genfit3k.MASSES_AND_WIDTHS] +
                    [x for c in ("F2", "NR") for x in polar[c]])


def canonical_errors(values, covariance, names):
    """Errors of the canonical coordinates, propagated linearly (central
    differences, phases wrapped) from the covariance matrix over ``names``."""
    cov = np.asarray(covariance, dtype=np.float64)
    jac = np.zeros((len(CANONICAL_NAMES), len(names)))
    for k, n in enumerate(names):
        if np.any(cov[k]):
            h = 1e-6 * max(abs(values[n]), 1e-3)
            d = canonical_point({**values, n: values[n] + h}) - \
                canonical_point({**values, n: values[n] - h})
            d[PHASES] = couplings.wrap_phase(d[PHASES])
            jac[:, k] = d / (2 * h)
    return np.sqrt(np.maximum(np.einsum("ik,kl,il->i", jac, cov, jac), 0))


def solution_distance(errors, max_distance=1.0):
    """``distance(a, b)`` for group_solutions: the largest difference of two
    canonical points in units of ``errors`` (phases wrapped) over ``max_distance``."""
    errors = np.asarray(errors, dtype=np.float64)
    if not np.all(errors > 0):
        raise ValueError(f"errors of the canonical coordinates must be positive numbers, got "
                         f"{errors!r} (HESSE failed at the best minimum?)")

    def distance(a, b):
        d = np.asarray(a, dtype=np.float64) - b
        d[PHASES] = couplings.wrap_phase(d[PHASES])
        return float(np.max(np.abs(d) / errors)) / max_distance
    return distance


def group(fits, names, *, f_tolerance=0.1, max_distance=1.0):
    """The valid minima of one experiment (dicts ``fval``, ``valid``,
    ``values``, ``covariance``) grouped into solutions, best first: the dicts
    of group_solutions (``members`` index ``fits``) plus ``frequency``,
    ``canonical_errors`` and ``solution`` (:func:`genfit3k.solution`)."""
    valid = [k for k, f in enumerate(fits) if f["valid"]]
    if not valid:
        raise ValueError("no valid fit to group (every MIGRAD or HESSE failed)")
    fvals = np.array([fits[k]["fval"] for k in valid])
    best = fits[valid[int(np.argmin(fvals))]]
    distance = solution_distance(canonical_errors(best["values"], best["covariance"], names),
                                 max_distance)
    solutions = group_solutions(fvals, [canonical_point(fits[k]["values"]) for k in valid],
                                f_tolerance=f_tolerance, distance=distance)
    for s in solutions:
        s["members"] = [valid[i] for i in s["members"]]
        rep = fits[s["members"][0]]
        s.update(frequency=s["count"] / len(valid), solution=genfit3k.solution(rep["values"]),
                 canonical_errors=canonical_errors(rep["values"], rep["covariance"], names))
    return solutions


def run(setup, experiments, starts, seed, *, laura_file=genfit3k.LAURA_TOYS, results=None,
        progress=False):
    """Fit every experiment from ``starts`` random starts through run_study
    (``results``: the file of fits to append to and resume from).  Returns
    experiment -> list of fits (``fval``, ``valid``, ``values``, ``errors``,
    ``covariance``, ``calls``, ``start``), and ``"failed"`` -> fits that raised."""
    if starts < 1 or not experiments:
        raise ValueError(f"need at least one experiment and one start, got {experiments}, "
                         f"{starts}")
    events = {}

    def one(index, fit_seed):
        k, start = experiments[index // starts], index % starts
        if k not in events:
            events[k] = genfit3k.read_events(laura_file, k)
        r = setup.fit(*events[k], random_start=True, seed=fit_seed % 2 ** 32, fractions=False)
        if progress:
            print(f"experiment {k} start {start}: F = {r['fval']:.3f}"
                  f"{'' if r['valid'] else ' (invalid)'}, {r['calls']} calls", flush=True)
        return {key: r[key] for key in ("fval", "valid", "values", "errors", "covariance",
                                        "calls")} | {"expt": k, "start": start}

    table = run_study(one, len(experiments) * starts, seed=seed, results=results, progress=False)
    out = {k: [] for k in experiments}
    out["failed"] = []
    for row in table.rows:
        k, start = experiments[row["experiment"] // starts], row["experiment"] % starts
        if row["status"] != "ok":
            out["failed"].append({"expt": k, "start": start, "error": row["error"]})
        elif row["expt"] != k or row["start"] != start:
            raise ValueError(f"{results}: fit {row['experiment']} is experiment {row['expt']} "
                             f"start {row['start']}, this scan's is experiment {k} start {start} "
                             f"(another scan's file: choose another --output)")
        else:
            out[k].append(dict(row, covariance=np.asarray(row["covariance"])))
    return out


def solutions_of(setup, fits, **options):
    """:func:`group` plus each solution's fit fractions (at its best member,
    errors from its covariance matrix), values, errors and starts."""
    solutions = group(fits, setup.names, **options)
    for s in solutions:
        rep = fits[s["members"][0]]
        ff = setup.fit_fractions([rep["values"][n] for n in setup.names], rep["covariance"])
        s.update(fit_fractions=ff.fractions, fit_fraction_sum=ff.total,
                 fit_fraction_errors=dict(zip(ff.components, np.diag(ff.errors))),
                 values=rep["values"], errors=rep["errors"],
                 starts=[fits[i]["start"] for i in s["members"]])
    return solutions


def summarize(per_experiment, laura_rows=None):
    """Figures over the experiments (experiment -> ``fits``, ``solutions``):
    ``fits``, ``valid``, ``counts`` (solution label -> fits), ``second_delta``
    (per experiment, dF of its best second solution), ``distinct``; with
    ``laura_rows`` (:func:`genfit3k.read_laura_results`) the best solution's
    ``fraction_differences`` to Laura++'s in units of ours and ``nll_offsets``
    (F - 2 x Laura++'s -ln L: one constant if F = -2 ln L + constant)."""
    out = {"fits": 0, "valid": 0, "counts": {}, "second_delta": [], "distinct": {}}
    diffs, offsets = [], []
    for k, e in per_experiment.items():
        out["fits"] += len(e["fits"])
        out["valid"] += sum(1 for f in e["fits"] if f["valid"])
        out["distinct"][k] = len(e["solutions"])
        for s in e["solutions"]:
            out["counts"][s["solution"]] = out["counts"].get(s["solution"], 0) + s["count"]
        second = [s["delta"] for s in e["solutions"] if s["solution"] == "second"]
        out["second_delta"] += [min(second)] if second else []
        if laura_rows is not None and k in laura_rows:
            best = e["solutions"][0]
            offsets.append(best["fval"] - 2 * laura_rows[k]["NLL"])
            diffs += [(best["fit_fractions"][c] - laura_rows[k][genfit3k.LAURA_COLUMNS[f"FF_{c}"]])
                      / best["fit_fraction_errors"][c] for c in genfit3k.COMPONENTS]
    if laura_rows is not None:
        out.update(fraction_differences=diffs, nll_offsets=offsets)
    return out


def format_report(per_experiment, summary, starts):
    """The text report: one block per experiment, then the summary."""
    lines = []
    for k, e in per_experiment.items():
        n_valid = sum(1 for f in e["fits"] if f["valid"])
        lines.append(f"experiment {k}: {len(e['fits'])} random starts, {n_valid} valid, "
                     f"{len(e['solutions'])} distinct solutions")
        for j, s in enumerate(e["solutions"]):
            ff = " ".join(f"{c} {100 * s['fit_fractions'][c]:.2f} +- "
                          f"{100 * s['fit_fraction_errors'][c]:.2f} %" for c in genfit3k.COMPONENTS)
            lines += [f"  solution {j + 1} ({s['solution']}): F = {s['fval']:.3f}, dF = "
                      f"{s['delta']:.3f} (d(-ln L) = {s['delta'] / 2:.3f}), reached by "
                      f"{s['count']} of {n_valid} ({100 * s['frequency']:.0f} %)",
                      "    " + ", ".join(f"{n} {v:.5g}" for n, v in zip(CANONICAL_NAMES,
                                                                         s["point"])),
                      f"    fit fractions: {ff} (sum {100 * s['fit_fraction_sum']:.2f} %)"]
    total = summary["valid"]
    lines += ["", f"{len(per_experiment)} experiments x {starts} random starts: "
              f"{summary['fits']} fits, {total} valid"]
    for label, n in sorted(summary["counts"].items()):
        lines.append(f"  {label} solution reached by {n} of {total} fits "
                     f"({100 * n / max(total, 1):.1f} %)")
    lines.append(f"  experiments with at least two distinct solutions: "
                 f"{sum(n >= 2 for n in summary['distinct'].values())} of {len(per_experiment)}")
    d, (lo, hi) = np.array(summary["second_delta"]) / 2, LAURA_SECOND_SOLUTION_DELTA_NLL
    lines.append(f"  second solution (the best of each experiment): d(-ln L) = dF/2 = "
                 f"{d.min():.1f} .. {d.max():.1f}, median {np.median(d):.1f} (Laura++'s second "
                 f"solutions: {lo:.0f} .. {hi:.0f}; {np.sum((d >= lo) & (d <= hi))} of {d.size} "
                 f"experiments inside)" if d.size else "  no second solution found")
    a, b = LAURA_SECOND_SOLUTION_COUNT
    lines.append(f"  Laura++'s random starts: second solution in {a} of {b} fits "
                 f"({100 * a / b:.0f} %)")
    if summary.get("fraction_differences"):
        lines.append(f"  best solution's fit fractions against Laura++'s fits: largest "
                     f"|difference| {np.max(np.abs(summary['fraction_differences'])):.3f} of "
                     f"our errors")
    if len(summary.get("nll_offsets", [])) > 1:
        o = np.array(summary["nll_offsets"])
        lines.append(f"  F of the best solution - 2 x Laura++'s -ln L: {o.mean():.2f}, spread "
                     f"{np.ptp(o):.2f} over {o.size} experiments (F = -2 ln L + a constant)")
    return "\n".join(lines)


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
    try:
        if args.starts < 1 or not args.f_tolerance > 0 or not args.max_distance > 0 or \
                not os.path.isdir(args.output):
            raise ValueError("--starts must be at least 1, --f-tolerance and --max-distance "
                             "positive, --output a folder")
        experiments = command_line.parse_ranges(args.experiments, "--experiments")
        laura_rows = genfit3k.read_laura_results(args.laura_results)
        setup = genfit3k.Setup(args, verbose=not args.quiet)
        fits = run(setup, experiments, args.starts, args.seed, laura_file=args.laura_file,
                   results=os.path.join(args.output, "scan3k_fits.jsonl"),
                   progress=not args.quiet)
        per = {k: {"fits": fits[k], "solutions": solutions_of(
            setup, fits[k], f_tolerance=args.f_tolerance, max_distance=args.max_distance)}
            for k in experiments}
    except (ValueError, FileNotFoundError, KeyError) as exc:
        p.error(str(exc))
    summary = dict(summarize(per, laura_rows), failed=fits["failed"])
    report = format_report(per, summary, args.starts) + "".join(
        f"\n  fit raised: experiment {f['expt']} start {f['start']}: {f['error']}"
        for f in fits["failed"])
    print(report)
    from vecampfit.fitter.results import atomic_write_text
    atomic_write_text(os.path.join(args.output, "scan3k_results.txt"), report + "\n")
    keep = ("solution", "fval", "delta", "count", "frequency", "starts", "point",
            "canonical_errors", "values", "errors", "fit_fractions", "fit_fraction_errors")
    doc = {"options": {k: getattr(args, k) for k in ("experiments", "starts", "seed",
                                                     "f_tolerance", "max_distance")},
           "canonical_names": CANONICAL_NAMES, "summary": summary,
           "experiments": {k: {"fits": len(e["fits"]),
                               "solutions": [{key: s[key] for key in keep}
                                             for s in e["solutions"]]} for k, e in per.items()}}
    atomic_write_text(os.path.join(args.output, "scan3k_solutions.json"), json.dumps(
        doc, indent=1, default=lambda x: x.tolist() if hasattr(x, "tolist") else str(x)) + "\n")
    return per, summary


if __name__ == "__main__":
    main()
