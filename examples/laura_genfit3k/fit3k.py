"""Fit B+ -> K+ K+ K- pseudoexperiments with Laura++'s GenFit3K model and fit sequence.

Data: pseudoexperiments written by generate3k.py (``--directory``, files
``toy3k_N.root``), or Laura++'s own (``--laura``: ``--laura-file``, the
experiment selected by ``iExpt``).  Normalization: Laura++'s Gauss-Legendre
grid over the Dalitz plot.  Sequence (Laura++'s): the f'2(1525) and
non-resonant coefficients with masses and widths fixed, MIGRAD; then also
the masses and widths, MIGRAD; HESSE.  Start: the generated values, or with
``--random-start`` coefficients uniform in [-10, 10].  Prints one line per
fit (values, solution, fit fractions) and a summary (solutions, pulls,
times); writes ``fit3k_results.txt`` and ``fit3k_results.root`` (tree
``fits``) into ``--output`` (default: ``--directory``).
"""

import os

import numpy as np

import genfit3k
from vecampfit import command_line

FREE = genfit3k.MASSES_AND_WIDTHS + genfit3k.COEFFICIENTS


def fit_one(setup, m13sq, m23sq, **options):
    """:meth:`genfit3k.Setup.fit` (kept as the programs' and benchmarks' entry)."""
    return setup.fit(m13sq, m23sq, **options)


def available_experiments(args):
    """Experiments present in the chosen input."""
    if args.laura:
        from vecampfit.root_io import read_events
        return sorted(set(read_events(args.laura_file, genfit3k.TREE, ["iExpt"])[0]["iExpt"]
                          .tolist()))
    out = []
    while os.path.exists(genfit3k.experiment_file(args.directory, len(out))):
        out.append(len(out))
    if not out:
        raise FileNotFoundError(f"no pseudoexperiment files "
                                f"{genfit3k.experiment_file(args.directory, 0)!r}, ... (run "
                                f"generate3k.py, or use --laura)")
    return out


def format_line(k, r):
    v, e, ff = r["values"], r["errors"], r["fit_fractions"]
    return ", ".join([f"expt {k:3d}", f"F = {r['fval']:.3f}", "valid" if r["valid"] else
                      "INVALID", f"{r['solution']:6s}"] +
                     [f"{n} {v[n]:.5g}+-{e[n]:.2g}" for n in FREE] +
                     ["FF " + " ".join(f"{c} {ff[c]:.4f}" for c in genfit3k.COMPONENTS),
                      f"{r['calls']} calls, {r['wall_time']:.2f} s"])


def pulls(results, names=FREE):
    """Pulls (value - generated)/error of the valid fits of the main solution."""
    ok = [r for r in results if r["solution"] == "main" and r["valid"]]
    return {n: np.array([(r["values"][n] - genfit3k.GENERATED[n]) / r["errors"][n] for r in ok])
            for n in names}


def summary(results):
    """Text: solution fractions, pull means and widths, times."""
    n = len(results)
    n_main = sum(r["solution"] == "main" for r in results)
    lines = [f"{n} fits: {n_main} main solution ({n_main / n:.0%}), {n - n_main} second "
             f"solution ({(n - n_main) / n:.0%}); {sum(not r['valid'] for r in results)} invalid"]
    for name, v in pulls(results).items():
        if len(v) > 1:
            lines.append(f"pull {name:6s}: mean {v.mean():+.3f} +- "
                         f"{v.std(ddof=1) / np.sqrt(len(v)):.3f}, width {v.std(ddof=1):.3f} "
                         f"({len(v)} fits)")
    wall = np.array([r["wall_time"] for r in results])
    lines.append(f"time per fit: {wall.mean():.2f} s wall (total {wall.sum():.1f} s), "
                 f"{np.mean([r['calls'] for r in results]):.0f} likelihood calls per fit")
    return "\n".join(lines)


def write_results(path_text, path_root, experiments, results, names):
    """The table of fits as text and as a ROOT tree ``fits``."""
    from vecampfit.fitter.results import atomic_write_text
    from vecampfit.root_io import write_tree
    header = ["experiment", "fval", "valid", "solution", "calls", "wall_time"] + \
        [f"{n}{s}" for n in names for s in ("", "_error")] + \
        [f"FF_{c}{s}" for c in genfit3k.COMPONENTS for s in ("", "_error")] + \
        [f"LAURA_{c}_{p}" for c in ("F2", "NR") for p in ("RE", "IM")]
    rows = [[k, r["fval"], int(r["valid"]), 1 if r["solution"] == "main" else 2, r["calls"],
             r["wall_time"]] + [x for n in names for x in (r["values"][n], r["errors"][n])] +
            [x for c in genfit3k.COMPONENTS for x in (r["fit_fractions"][c],
                                                      r["fit_fraction_errors"][c])] +
            [x for c in ("F2", "NR") for x in (r["laura_coefficients"][c].real,
                                               r["laura_coefficients"][c].imag)]
            for k, r in zip(experiments, results)]
    atomic_write_text(path_text, "# " + " ".join(header) + "\n# solution: 1 main, 2 second\n" +
                      "".join(" ".join(f"{v:.10g}" for v in row) + "\n" for row in rows) +
                      "# " + summary(results).replace("\n", "\n# ") + "\n")
    data = np.array(rows, dtype=np.float64)
    branches = {h: data[:, j] for j, h in enumerate(header)}
    for h in ("experiment", "valid", "solution"):
        branches[h] = branches[h].astype(np.int32)
    write_tree(path_root, branches, "fits")


def make_parser():
    p = genfit3k.program_parser(__doc__.split("\n\n")[0])
    p.add_argument("--directory", default=".", help="folder of toy3k_N.root (generate3k.py)")
    p.add_argument("--laura", action="store_true",
                   help="fit Laura++'s pseudoexperiments (--laura-file)")
    p.add_argument("--experiments", default="all",
                   help="which pseudoexperiments: N, N-M, a list, or 'all'")
    p.add_argument("--random-start", action="store_true",
                   help="start the coefficients uniform in [-10, 10] (as the paper's study)")
    p.add_argument("--seed", type=int, default=None,
                   help="seed of the random starts (fit k uses seed + k; default: from the "
                        "system, printed)")
    p.add_argument("--no-gradient", action="store_true",
                   help="let Minuit differentiate numerically instead of the analytic gradient")
    p.add_argument("--strategy", type=int, choices=(0, 1, 2), default=1, help="Minuit strategy")
    p.add_argument("--output", default=None, help="folder of the result files (default: "
                   "--directory)")
    p.add_argument("--result-files", action="store_true",
                   help="also write vecampfit's result files of every fit "
                        "(parameters_result_N.dat, results_N.txt, result_N.root; N = laura_K "
                        "for Laura++'s experiment K)")
    p.add_argument("--quiet", action="store_true", help="print only the summary")
    return p


def main(argv=None):
    p = make_parser()
    args = p.parse_args(argv)
    out = args.output or args.directory
    try:
        if not os.path.isdir(out):
            raise FileNotFoundError(f"--output {out!r} is not a folder")
        setup = genfit3k.Setup(args, verbose=not args.quiet)
        experiments = available_experiments(args) if args.experiments == "all" else \
            command_line.parse_ranges(args.experiments, "--experiments")
        samples = {k: genfit3k.read_events(args.laura_file, k) if args.laura else
                   genfit3k.read_events(genfit3k.experiment_file(args.directory, k))
                   for k in experiments}
    except (ValueError, FileNotFoundError, KeyError) as exc:
        p.error(str(exc))
    if args.seed is None:
        args.seed = int.from_bytes(os.urandom(4), "little")
        if args.random_start:
            print(f"Random seed: {args.seed}")
    results = []
    for k in experiments:
        r = setup.fit(*samples[k], random_start=args.random_start, seed=args.seed + k,
                      gradient=not args.no_gradient, strategy=args.strategy)
        fitter = r.pop("fitter")
        if args.result_files:
            name = f"laura_{k}" if args.laura else str(k)
            fitter.write_results(parameters=os.path.join(out, f"parameters_result_{name}.dat"),
                                 text=os.path.join(out, f"results_{name}.txt"),
                                 root=os.path.join(out, f"result_{name}.root"))
        results.append(r)
        if not args.quiet:
            print(format_line(k, r), flush=True)
    print(summary(results))
    write_results(os.path.join(out, "fit3k_results.txt"), os.path.join(out, "fit3k_results.root"),
                  experiments, results, setup.names)
    return results


if __name__ == "__main__":
    main()
