"""Fit Laura++'s own GenFit3K pseudoexperiments and compare with Laura++'s fits of them.

Fits each of Laura++'s pseudoexperiments (``--laura-file``) with Laura++'s
sequence started at the generated values and prints per experiment the
difference (ours - Laura++'s, ``--laura-results``) of the phi(1020) and
f'2(1525) masses and widths and the three fit fractions in units of our
statistical errors (Laura++'s file has none of these), and of the
coefficients in Laura++'s normalization (every component of unit integral
at the fitted masses and widths) in units of Laura++'s errors.  Writes
``laura_crosscheck.txt`` into ``--output``.
"""

import os

import numpy as np

import genfit3k
from vecampfit import command_line

#: Quantities compared in units of our errors: masses, widths, fit fractions.
QUANTITIES = genfit3k.MASSES_AND_WIDTHS + ("FF_PHI", "FF_F2", "FF_NR")
#: Coefficients in Laura++'s normalization, compared in units of Laura++'s errors.
COEFFICIENTS = genfit3k.COEFFICIENTS


def compare(result, laura_row):
    """Quantity -> (ours, Laura++'s, (ours - Laura++'s) / error) of one experiment."""
    out = {}
    for q in QUANTITIES:
        kind, name = ("fit_fraction", q[3:]) if q.startswith("FF_") else ("", q)
        value = result["fit_fractions" if kind else "values"][name]
        error = result["fit_fraction_errors" if kind else "errors"][name]
        if not error > 0:
            raise ValueError(f"{q}: error {error!r} is not positive (HESSE failed?)")
        ref = laura_row[genfit3k.LAURA_COLUMNS[q]]
        out[q] = (value, ref, (value - ref) / error)
    for q in COEFFICIENTS:
        c = result["laura_coefficients"][q[:-3]]
        value = c.real if q.endswith("_RE") else c.imag
        column = genfit3k.LAURA_COLUMNS[q]
        ref = laura_row[column]
        out[q] = (value, ref, (value - ref) / laura_row[column + "_Error"])
    return out


def run(setup, laura_file, laura_results, experiments=None, verbose=True):
    """Fit Laura++'s experiments and compare: per experiment a dict with
    ``experiment``, ``result`` (:meth:`genfit3k.Setup.fit`), ``laura`` (its
    row) and ``differences`` (:func:`compare`)."""
    rows = genfit3k.read_laura_results(laura_results)
    out = []
    for k in sorted(rows) if experiments is None else experiments:
        if k not in rows:
            raise ValueError(f"{laura_results}: no Laura++ result of experiment {k} "
                             f"(have {sorted(rows)})")
        if rows[k]["fitStatus"] != 3:
            raise ValueError(f"{laura_results}: Laura++'s fit of experiment {k} has status "
                             f"{rows[k]['fitStatus']:g}, not 3 (converged, full error matrix)")
        result = setup.fit(*genfit3k.read_events(laura_file, k))
        del result["fitter"]
        if not result["valid"]:
            raise RuntimeError(f"our fit of Laura++'s experiment {k} did not converge")
        d = compare(result, rows[k])
        out.append({"experiment": k, "result": result, "laura": rows[k], "differences": d})
        if verbose:
            print(format_experiment(k, d, result), flush=True)
    return out


def format_experiment(k, d, result):
    return "\n".join([f"expt {k}: {result['calls']} calls, {result['wall_time']:.2f} s"] + [
        f"  {q:6s} ours {v:.6g}  Laura++ {ref:.6g}  diff {diff:+.3f} sigma"
        for q, (v, ref, diff) in d.items()])


def largest(comparisons, quantities=QUANTITIES):
    """(|difference| in sigma, experiment, quantity) of the largest difference."""
    return max((abs(c["differences"][q][2]), c["experiment"], q)
               for c in comparisons for q in quantities)


def summary(comparisons):
    lines = ["largest |ours - Laura++'s| over the experiments (masses, widths, fit fractions in "
             "units of our errors; coefficients in Laura++'s normalization in units of its "
             "errors):"]
    for q in QUANTITIES + COEFFICIENTS:
        diffs = np.array([c["differences"][q][2] for c in comparisons])
        j = int(np.argmax(np.abs(diffs)))
        lines.append(f"  {q:6s} {abs(diffs[j]):.4f} sigma (experiment "
                     f"{comparisons[j]['experiment']}), mean {diffs.mean():+.4f}")
    for what, qs in (("masses, widths and fit fractions", QUANTITIES),
                     ("the coefficients (Laura++'s errors)", COEFFICIENTS)):
        size, k, q = largest(comparisons, qs)
        lines.append(f"largest difference of {what}: {size:.4f} sigma ({q}, experiment {k})")
    return "\n".join(lines)


def main(argv=None):
    p = genfit3k.program_parser(__doc__.split("\n\n")[0],
                                "Laura++'s fit results (one line per experiment)")
    p.add_argument("--experiments", default="all", help="N, N-M, a list, or 'all'")
    p.add_argument("--output", default=".", help="folder of laura_crosscheck.txt")
    args = p.parse_args(argv)
    try:
        experiments = None if args.experiments == "all" else \
            command_line.parse_ranges(args.experiments, "--experiments")
        comparisons = run(genfit3k.Setup(args), args.laura_file, args.laura_results,
                          experiments)
    except (ValueError, FileNotFoundError, KeyError) as exc:
        p.error(str(exc))
    text = summary(comparisons)
    print(text)
    from vecampfit.fitter.results import atomic_write_text
    atomic_write_text(os.path.join(args.output, "laura_crosscheck.txt"), "\n".join(
        format_experiment(c["experiment"], c["differences"], c["result"])
        for c in comparisons) + "\n" + text + "\n")
    return comparisons


if __name__ == "__main__":
    main()
