"""Fit Laura++'s own GenFit3K pseudoexperiments and compare with Laura++'s fits of them.

Reads Laura++'s pseudoexperiments (``--laura-file``, default the file in the
example's data folder: tree ``toys``, experiment selected by ``iExpt``) and
Laura++'s fit results (``--laura-results``), fits each experiment with
Laura++'s sequence started at the generated values, and prints per
experiment and quantity the difference (ours - Laura++'s) in units of our
statistical error: the phi(1020) and f'2(1525) masses and widths and the
three fit fractions.  Laura++'s results file has no errors of these; the
errors are ours (HESSE; fit-fraction errors propagated from the error
matrix).  The coefficients are compared too, converted into Laura++'s
normalization (every component normalized to unit integral at the fitted
masses and widths), in units of Laura++'s errors; they depend on the
integration of each component, which differs slightly between the two
programs (see ``genfit3k.GridIntegrals.laura_coefficients``).  Writes
``laura_crosscheck.txt`` into ``--output``.
"""

import os

import numpy as np

import fit3k  # noqa: E402
import genfit3k  # noqa: E402

#: Quantities compared in units of our errors: masses, widths, fit fractions.
QUANTITIES = ("PHI_M", "PHI_G", "F2_M", "F2_G", "FF_PHI", "FF_F2", "FF_NR")
#: Coefficients in Laura++'s normalization, compared in units of Laura++'s errors.
COEFFICIENT_COLUMNS = {"F2_RE": ("F2", "real", "A1_X"), "F2_IM": ("F2", "imag", "A1_Y"),
                       "NR_RE": ("NR", "real", "A2_X"), "NR_IM": ("NR", "imag", "A2_Y")}


def ours(result):
    """Value and error of every compared quantity from :meth:`fit3k.Setup.results`."""
    v = dict(zip(genfit3k.PARAMETER_NAMES, result["values"]))
    e = dict(zip(genfit3k.PARAMETER_NAMES, result["errors"]))
    out = {n: (v[n], e[n]) for n in genfit3k.MASSES_AND_WIDTHS}
    for c in genfit3k.COMPONENTS:
        out[f"FF_{c}"] = (result["fit_fractions"][c], result["fit_fraction_errors"][c])
    for name, (c, part, _) in COEFFICIENT_COLUMNS.items():
        out["LAURA_" + name] = getattr(result["laura_coefficients"][c], part)
    return out


def compare(result, laura_row):
    """Differences of one experiment.

    Returns
    -------
    dict
        Quantity -> (ours, Laura++'s, (ours - Laura++'s) / error): the
        masses, widths and fit fractions over our errors, the coefficients
        (keys ``F2_RE``, ...) over Laura++'s.
    """
    o = ours(result)
    out = {}
    for q in QUANTITIES:
        value, error = o[q]
        if not error > 0:
            raise ValueError(f"{q}: error {error!r} is not positive (HESSE failed?)")
        ref = laura_row[genfit3k.LAURA_COLUMNS[q]]
        out[q] = (value, ref, (value - ref) / error)
    for name, (_, _, column) in COEFFICIENT_COLUMNS.items():
        ref, err = laura_row[column], laura_row[column + "_Error"]
        out[name] = (o["LAURA_" + name], ref, (o["LAURA_" + name] - ref) / err)
    return out


def run(setup, laura_file, laura_results, experiments=None, verbose=True):
    """Fit Laura++'s experiments and compare them with Laura++'s results.

    Returns
    -------
    list of dict
        Per experiment: ``experiment``, ``result`` (:meth:`fit3k.Setup.results`),
        ``laura`` (Laura++'s row), ``differences`` (:func:`compare`).
    """
    rows = {int(r["iExpt"]): r for r in genfit3k.read_laura_results(laura_results)}
    if experiments is None:
        experiments = sorted(rows)
    out = []
    for k in experiments:
        if k not in rows:
            raise ValueError(f"{laura_results}: no Laura++ result of experiment {k} "
                             f"(have {sorted(rows)})")
        if rows[k]["fitStatus"] != 3:
            raise ValueError(f"{laura_results}: Laura++'s fit of experiment {k} has status "
                             f"{rows[k]['fitStatus']:g}, not 3 (converged, full error matrix)")
        m13sq, m23sq = genfit3k.read_events(laura_file, k)
        result = fit3k.fit_one(setup, m13sq, m23sq)
        if not result["valid"]:
            raise RuntimeError(f"our fit of Laura++'s experiment {k} did not converge")
        d = compare(result, rows[k])
        out.append({"experiment": k, "result": result, "laura": rows[k], "differences": d})
        if verbose:
            print(format_experiment(k, d, result), flush=True)
    return out


def format_experiment(k, d, result):
    parts = [f"expt {k}: {result['calls']} calls, {result['wall_time']:.2f} s"]
    for q in QUANTITIES + tuple(COEFFICIENT_COLUMNS):
        value, ref, diff = d[q]
        parts.append(f"  {q:6s} ours {value:.6g}  Laura++ {ref:.6g}  diff {diff:+.3f} sigma")
    return "\n".join(parts)


def largest(comparisons, quantities=QUANTITIES):
    """(|difference| in sigma, experiment, quantity) of the largest difference."""
    return max((abs(c["differences"][q][2]), c["experiment"], q)
               for c in comparisons for q in quantities)


def summary(comparisons):
    lines = ["largest |ours - Laura++'s| over the experiments (masses, widths, fit fractions in "
             "units of our errors; coefficients in Laura++'s normalization in units of its "
             "errors):"]
    for q in QUANTITIES + tuple(COEFFICIENT_COLUMNS):
        diffs = np.array([c["differences"][q][2] for c in comparisons])
        j = int(np.argmax(np.abs(diffs)))
        lines.append(f"  {q:6s} {abs(diffs[j]):.4f} sigma (experiment "
                     f"{comparisons[j]['experiment']}), mean {diffs.mean():+.4f}")
    size, k, q = largest(comparisons)
    lines.append(f"largest difference of masses, widths and fit fractions: {size:.4f} sigma "
                 f"({q}, experiment {k})")
    size, k, q = largest(comparisons, tuple(COEFFICIENT_COLUMNS))
    lines.append(f"largest difference of the coefficients: {size:.4f} sigma of Laura++'s errors "
                 f"({q}, experiment {k})")
    return "\n".join(lines)


def main(argv=None):
    p = genfit3k.program_parser(__doc__.split("\n\n")[0],
                                "Laura++'s fit results (one line per experiment)")
    p.add_argument("--experiments", default="all", help="N, N-M, a list, or 'all'")
    p.add_argument("--output", default=".", help="folder of laura_crosscheck.txt")
    args = p.parse_args(argv)
    try:
        setup = fit3k.Setup(args)
        experiments = None if args.experiments == "all" else \
            fit3k.parse_experiments(args.experiments)
        comparisons = run(setup, args.laura_file, args.laura_results, experiments)
    except (ValueError, FileNotFoundError, KeyError) as exc:
        p.error(str(exc))
    text = summary(comparisons)
    print(text)
    from vecampfit.fitter.results import atomic_write_text
    body = "\n".join(format_experiment(c["experiment"], c["differences"], c["result"])
                     for c in comparisons)
    atomic_write_text(os.path.join(args.output, "laura_crosscheck.txt"), body + "\n" + text + "\n")
    return comparisons


if __name__ == "__main__":
    main()
