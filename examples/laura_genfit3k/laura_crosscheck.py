"""Fit Laura++'s own GenFit3K pseudoexperiments and compare with Laura++'s fits of them.

Fits Laura++'s pseudoexperiments (``--laura-file``) from the generated
values and prints the differences to Laura++'s fits (``--laura-results``):
masses, widths and fit fractions in units of our errors (Laura++'s file has
none), the coefficients in Laura++'s normalization in units of its errors.
Writes ``laura_crosscheck.txt`` into ``--output``.
"""

import os

import numpy as np

import genfit3k
from vecampfit import command_line

#: Compared in units of our errors; the coefficients (Laura++'s normalization) in its errors.
QUANTITIES, COEFFICIENTS = genfit3k.MASSES_AND_WIDTHS + ("FF_PHI", "FF_F2", "FF_NR"), \
    genfit3k.COEFFICIENTS


def laura_coefficients(values, fractions):
    """The coefficients in Laura++'s normalization (every component of unit
    integral at the current masses and widths, the phi(1020) the reference):
    A_R = c_R n_R sqrt(I_R) / (c_phi n_phi sqrt(I_phi)), whose magnitude is
    sqrt(FF_R / FF_phi) and whose phase is that of c_R / c_phi."""
    c = {k: complex(values[f"{k}_RE"], values[f"{k}_IM"]) for k in genfit3k.COMPONENTS}
    return {k: c[k] / abs(c[k]) / (c["PHI"] / abs(c["PHI"]))
            * np.sqrt(fractions[k] / fractions["PHI"]) for k in genfit3k.COMPONENTS}


def compare(result, laura_row):
    """Quantity -> (ours, Laura++'s, (ours - Laura++'s) / error) of one experiment."""
    ff, v, e = result["fit_fractions"], result["values"], result["errors"]
    ours = {**{n: (v[n], e[n]) for n in genfit3k.MASSES_AND_WIDTHS},
            **{f"FF_{c}": (ff[c], result["fit_fraction_errors"][c]) for c in genfit3k.COMPONENTS}}
    for q, c in laura_coefficients(v, ff).items():
        ours |= {f"{q}_RE": (c.real, None), f"{q}_IM": (c.imag, None)}
    out = {}
    for q in QUANTITIES + COEFFICIENTS:
        (value, error), ref = ours[q], laura_row[genfit3k.LAURA_COLUMNS[q]]
        error = error or laura_row[genfit3k.LAURA_COLUMNS[q] + "_Error"]
        if not error > 0:
            raise ValueError(f"{q}: error {error!r} is not positive (HESSE failed?)")
        out[q] = (value, ref, (value - ref) / error)
    return out


def run(setup, laura_file, laura_results, experiments=None, verbose=True):
    """Fit Laura++'s experiments (of its fits of status 3: converged, full error
    matrix) and compare: per experiment ``experiment``, ``result``
    (:meth:`genfit3k.Setup.fit`), ``laura`` (its row), ``differences`` (:func:`compare`)."""
    rows, out = genfit3k.read_laura_results(laura_results), []
    for k in sorted(rows) if experiments is None else experiments:
        if rows.get(k, {}).get("fitStatus") != 3:
            raise ValueError(f"{laura_results}: no Laura++ fit of experiment {k} of status 3")
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
             "our errors; coefficients in Laura++'s normalization in its errors):"] + [
        "  {2:6s} {0:.4f} sigma (experiment {1}), ".format(*largest(comparisons, [q])) +
        f"mean {np.mean([c['differences'][q][2] for c in comparisons]):+.4f}"
        for q in QUANTITIES + COEFFICIENTS]
    for what, qs in (("masses, widths and fit fractions", QUANTITIES),
                     ("the coefficients (Laura++'s errors)", COEFFICIENTS)):
        size, k, q = largest(comparisons, qs)
        lines.append(f"largest difference of {what}: {size:.4f} sigma ({q}, experiment {k})")
    return "\n".join(lines)


def main(argv=None):
    p = genfit3k.program_parser(__doc__.split("\n\n")[0])
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
    with open(os.path.join(args.output, "laura_crosscheck.txt"), "w") as f:
        f.write("".join(format_experiment(c["experiment"], c["differences"], c["result"]) + "\n"
                        for c in comparisons) + text + "\n")
    return comparisons


if __name__ == "__main__":
    main()
