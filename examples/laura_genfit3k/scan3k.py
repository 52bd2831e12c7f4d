"""Random-start scan of Laura++'s GenFit3K pseudoexperiments: the distinct solutions.

Fits each experiment ``--starts`` times from random coefficients (uniform in
[-10, 10]), writes the minima in a canonical form (masses, widths, couplings
relative to the phi(1020)'s as magnitude and phase) and groups them into
solutions (F within ``--f-tolerance``, every coordinate within
``--max-distance`` errors); compares with Laura++ (its fit fractions; its
second solution, worse by 460-560 in -ln L = F/2 in 4 of 10 random starts).
The fits go to ``scan3k_fits.jsonl`` in ``--output`` as they end (a scan
resumes there), the report to ``scan3k_results.txt``.
"""

import os

import numpy as np

import genfit3k
from vecampfit import command_line, couplings, studies

#: Laura++'s random-start fits (data/README.md): the second solution is worse
#: by this range of -ln L and was reached by this many of this many fits.
LAURA_SECOND_SOLUTION_DELTA_NLL, LAURA_SECOND_SOLUTION_COUNT = (460.0, 560.0), (4, 10)
CANONICAL_NAMES = genfit3k.MASSES_AND_WIDTHS + ("F2_MAG", "F2_PHASE", "NR_MAG", "NR_PHASE")
PHASES = np.array([n.endswith("_PHASE") for n in CANONICAL_NAMES])


def canonical_point(values):
    """The coordinates :data:`CANONICAL_NAMES` of a minimum (name -> value):
    a common phase of the couplings (to which |A|^2 is blind) drops out."""
    polar = couplings.canonical_couplings(
        {c: complex(values[f"{c}_RE"], values[f"{c}_IM"]) for c in genfit3k.COMPONENTS},
        reference="PHI")
    return np.array([values[n] for n in genfit3k.MASSES_AND_WIDTHS] +
                    [x for c in ("F2", "NR") for x in polar[c]])


def run(setup, experiments, starts, seed, *, laura_file=genfit3k.LAURA_TOYS, results=None,
        progress=False):
    """Fit every experiment from ``starts`` random starts (studies.run_study, ``results``
    the file of fits): experiment -> fits, ``"failed"`` -> the fits that raised."""
    if starts < 1 or not experiments:
        raise ValueError(f"need experiments and starts, got {experiments}, {starts}")
    events = {}

    def one(index, fit_seed):
        k, start = experiments[index // starts], index % starts
        events[k] = events.get(k) or genfit3k.read_events(laura_file, k)
        r = setup.fit(*events[k], random_start=True, seed=fit_seed % 2 ** 32, fractions=False)
        return {key: r[key] for key in ("fval", "valid", "values", "errors", "covariance",
                                        "calls")} | {"expt": k, "start": start}

    out = {k: [] for k in experiments} | {"failed": []}
    for row in studies.run_study(one, len(experiments) * starts, seed=seed, results=results,
                                 progress=progress).rows:
        k, start = experiments[row["experiment"] // starts], row["experiment"] % starts
        if row["status"] != "ok":
            out["failed"].append({"expt": k, "start": start, "error": row["error"]})
        elif (row["expt"], row["start"]) != (k, start):
            raise ValueError(f"{results}: fit {row['experiment']} is experiment {row['expt']} "
                             f"start {row['start']}, this scan's is experiment {k} start {start} "
                             f"(another scan's file: choose another --output)")
        else:
            out[k].append(dict(row, covariance=np.asarray(row["covariance"])))
    return out


def solutions_of(setup, fits, **options):
    """The minima of one experiment as solutions (vecampfit.studies.group_fits of
    the canonical points) with ``solution`` (main, second), the fit fractions
    (errors from the best member's covariance matrix), values, errors, starts."""
    solutions = studies.group_fits(fits, canonical_point, setup.names, periodic=PHASES,
                                   **options)
    for s in solutions:
        rep = fits[s["members"][0]]
        ff = setup.fit_fractions([rep["values"][n] for n in setup.names], rep["covariance"])
        s.update(fit_fractions=ff.fractions, fit_fraction_sum=ff.total,
                 fit_fraction_errors=dict(zip(ff.components, np.diag(ff.errors))),
                 values=rep["values"], errors=rep["errors"], solution=genfit3k.solution(
                     rep["values"]), starts=[fits[i]["start"] for i in s["members"]])
    return solutions


def summarize(per_experiment, laura_rows=None):
    """Counts of ``fits``, ``valid``, per solution label (``counts``), ``distinct``
    solutions, ``second_delta`` (dF of the best second solutions); with
    ``laura_rows`` the best solution's ``fraction_differences`` to Laura++'s
    (our errors) and ``nll_offsets`` (F - 2 x Laura++'s -ln L)."""
    out = {"fits": 0, "valid": 0, "counts": {}, "second_delta": [], "distinct": {}}
    if laura_rows is not None:
        out.update(fraction_differences=[], nll_offsets=[])
    for k, e in per_experiment.items():
        out["fits"] += len(e["fits"])
        out["valid"] += sum(1 for f in e["fits"] if f["valid"])
        out["distinct"][k] = len(e["solutions"])
        for s in e["solutions"]:
            out["counts"][s["solution"]] = out["counts"].get(s["solution"], 0) + s["count"]
        second = [s["delta"] for s in e["solutions"] if s["solution"] == "second"]
        out["second_delta"] += [min(second)] if second else []
        if laura_rows is not None and k in laura_rows:
            best, row = e["solutions"][0], laura_rows[k]
            out["nll_offsets"].append(best["fval"] - 2 * row["NLL"])
            out["fraction_differences"] += [
                (best["fit_fractions"][c] - row[genfit3k.LAURA_COLUMNS[f"FF_{c}"]])
                / best["fit_fraction_errors"][c] for c in genfit3k.COMPONENTS]
    return out


def format_report(per_experiment, summary, starts):
    """The text report: one block per experiment, then the summary."""
    lines = []
    for k, e in per_experiment.items():
        n_valid = sum(1 for f in e["fits"] if f["valid"])
        lines.append(f"experiment {k}: {len(e['fits'])} random starts, {n_valid} valid, "
                     f"{len(e['solutions'])} distinct solutions")
        for j, s in enumerate(e["solutions"]):
            lines += [f"  solution {j + 1} ({s['solution']}): F = {s['fval']:.3f}, dF = "
                      f"{s['delta']:.3f} (d(-ln L) = {s['delta'] / 2:.3f}), reached by "
                      f"{s['count']} of {n_valid} ({100 * s['frequency']:.0f} %)",
                      "    " + ", ".join(map("{} {:.5g}".format, CANONICAL_NAMES, s["point"])),
                      "    fit fractions: " + " ".join(
                          f"{c} {100 * s['fit_fractions'][c]:.2f} +- "
                          f"{100 * s['fit_fraction_errors'][c]:.2f} %" for c in genfit3k.COMPONENTS)
                      + f" (sum {100 * s['fit_fraction_sum']:.2f} %)"]
    total = summary["valid"]
    lines += ["", f"{len(per_experiment)} experiments x {starts} random starts: "
              f"{summary['fits']} fits, {total} valid"]
    lines += [f"  {label} solution reached by {n} of {total} fits ({100 * n / total:.1f} %)"
              for label, n in sorted(summary["counts"].items())]
    lines.append(f"  experiments with at least two distinct solutions: "
                 f"{sum(n >= 2 for n in summary['distinct'].values())} of {len(per_experiment)}")
    d, (lo, hi) = np.array(summary["second_delta"]) / 2, LAURA_SECOND_SOLUTION_DELTA_NLL
    lines.append(f"  second solution (the best of each experiment): d(-ln L) = dF/2 = "
                 f"{d.min():.1f} .. {d.max():.1f}, median {np.median(d):.1f} (Laura++'s second "
                 f"solutions: {lo:.0f} .. {hi:.0f}; {np.sum((d >= lo) & (d <= hi))} of {d.size} "
                 f"experiments inside)" if d.size else "  no second solution found")
    lines.append("  Laura++'s random starts: second solution in {} of {} fits".format(
        *LAURA_SECOND_SOLUTION_COUNT))
    if summary.get("fraction_differences"):
        lines.append(f"  best solution's fit fractions against Laura++'s fits: largest "
                     f"|difference| {np.max(np.abs(summary['fraction_differences'])):.3f} of "
                     f"our errors")
    if len(summary.get("nll_offsets", [])) > 1:
        o = np.array(summary["nll_offsets"])
        lines.append(f"  F of the best solution - 2 x Laura++'s -ln L: {o.mean():.2f}, spread "
                     f"{np.ptp(o):.2f} over {o.size} experiments (F = -2 ln L + a constant)")
    return "\n".join(lines)


def main(argv=None):
    p = genfit3k.program_parser(__doc__.split("\n\n")[0])
    p.add_argument("--experiments", default="0-9", help="N, N-M or a list")
    p.add_argument("--starts", type=int, default=30, help="random starts per experiment")
    p.add_argument("--seed", type=int, default=1, help="seed of the scan")
    p.add_argument("--f-tolerance", type=float, default=0.1,
                   help="largest difference of F within one solution")
    p.add_argument("--max-distance", type=float, default=1.0,
                   help="largest difference of a canonical coordinate within one solution, in "
                        "units of its error at the best minimum")
    p.add_argument("--output", default=".", help="folder of the result files")
    p.add_argument("--quiet", action="store_true", help="no progress, only the report")
    args = p.parse_args(argv)
    try:
        if args.starts < 1 or not os.path.isdir(args.output):
            raise ValueError("--starts must be at least 1 and --output a folder")
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
        "\n  fit raised: experiment {expt} start {start}: {error}".format(**f)
        for f in fits["failed"])
    print(report)
    with open(os.path.join(args.output, "scan3k_results.txt"), "w") as f:
        f.write(report + "\n")
    return per, summary


if __name__ == "__main__":
    main()
