"""Fit B+ -> K+ K+ K- pseudoexperiments with Laura++'s GenFit3K model and fit sequence.

Data: ``toy3k_N.root`` of generate3k.py in ``--directory``, or Laura++'s
(``--laura``).  Normalization on Laura++'s grid; Laura++'s sequence (the
f'2(1525) and non-resonant coefficients, then also the masses and widths;
HESSE) from the generated values or, with ``--random-start``, coefficients
uniform in [-10, 10].  Prints a line per fit and a summary (solutions,
pulls, times); writes ``fit3k_results.txt`` and ``fit3k_results.root``
(tree ``fits``) into ``--output`` (default: ``--directory``).
"""

import itertools
import os

import numpy as np

import genfit3k
from vecampfit import command_line, studies

FREE = genfit3k.MASSES_AND_WIDTHS + genfit3k.COEFFICIENTS


def row(k, r):
    """The numbers of one fit: experiment, F, status, values, errors, fit fractions."""
    return dict(experiment=k, fval=r["fval"], valid=int(r["valid"]), calls=r["calls"],
                solution=1 if r["solution"] == "main" else 2, wall_time=r["wall_time"],
                **r["values"], **{f"{n}_error": e for n, e in r["errors"].items()},
                **{f"FF_{c}": r["fit_fractions"][c] for c in genfit3k.COMPONENTS},
                **{f"FF_{c}_error": r["fit_fraction_errors"][c] for c in genfit3k.COMPONENTS})


def pulls(results):
    """:func:`vecampfit.studies.pull_summary` of the valid main-solution fits
    against the generated values (parameter -> mean, width, their errors)."""
    table = studies.StudyTable([dict(experiment=j, status="ok", v=[r["values"][n] for n in FREE],
                                     e=[r["errors"][n] for n in FREE])
                                for j, r in enumerate(results)
                                if r["valid"] and r["solution"] == "main"])
    return studies.pull_summary(table, [genfit3k.GENERATED[n] for n in FREE], "v", "e", FREE) \
        if len(table) > 1 else {}


def summary(results):
    """Text: solutions, pulls, times."""
    n_main, wall = sum(r["solution"] == "main" for r in results), [r["wall_time"] for r in results]
    return "\n".join([f"{len(results)} fits: {n_main} main solution, {len(results) - n_main} "
                      f"second solution; {sum(not r['valid'] for r in results)} invalid"] + [
        f"pull {k:6s}: mean {p['mean']:+.3f} +- {p['mean_error']:.3f}, width {p['width']:.3f} "
        f"+- {p['width_error']:.3f} ({p['n']} fits)" for k, p in pulls(results).items()] + [
        f"time per fit: {np.mean(wall):.2f} s wall (total {sum(wall):.1f} s), "
        f"{np.mean([r['calls'] for r in results]):.0f} likelihood calls"])


def make_parser():
    p = genfit3k.program_parser(__doc__.split("\n\n")[0])
    command_line.add_start_options(p, fixed_seed=False)
    p.add_argument("--directory", default=".", help="folder of toy3k_N.root (generate3k.py)")
    p.add_argument("--laura", action="store_true", help="fit Laura++'s pseudoexperiments")
    p.add_argument("--experiments", default="all", help="N, N-M, a list, or 'all'")
    p.add_argument("--random-start", action="store_true", help="coefficients from [-10, 10]")
    p.add_argument("--output", default=None, help="folder of the result files")
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
        experiments = command_line.parse_ranges(args.experiments, "--experiments") if \
            args.experiments != "all" else sorted(genfit3k.read_laura_results()) if args.laura \
            else list(itertools.takewhile(lambda k: os.path.exists(genfit3k.experiment_file(
                args.directory, k)), itertools.count()))
        if not experiments:
            raise FileNotFoundError(f"no toy3k_0.root in {args.directory!r} (run generate3k.py)")
        samples = {k: genfit3k.read_events(args.laura_file, k) if args.laura else
                   genfit3k.read_events(genfit3k.experiment_file(args.directory, k))
                   for k in experiments}
    except (ValueError, FileNotFoundError, KeyError) as exc:
        p.error(str(exc))
    if args.seed is None and args.random_start:
        args.seed = int.from_bytes(os.urandom(4), "little")
        print(f"Random seed: {args.seed}")
    results = []
    for k in experiments:
        r = setup.fit(*samples[k], random_start=args.random_start, seed=(args.seed or 0) + k,
                      gradient=not args.no_gradient)
        results.append({key: v for key, v in r.items() if key != "fitter"})
        if not args.quiet:
            print(f"expt {k}: " + ", ".join(f"{n} {v:.6g}" for n, v in row(k, r).items()
                                            if not n.endswith("_error")), flush=True)
    print(summary(results))
    rows = [row(k, r) for k, r in zip(experiments, results)]
    from vecampfit.fitter.results import atomic_write_text
    from vecampfit.root_io import write_tree
    atomic_write_text(os.path.join(out, "fit3k_results.txt"), "# " + " ".join(rows[0]) + "\n" +
                      "".join(" ".join(f"{v:.10g}" for v in x.values()) + "\n" for x in rows) +
                      "# solution: 1 main, 2 second\n# " + summary(results).replace("\n", "\n# ")
                      + "\n")
    write_tree(os.path.join(out, "fit3k_results.root"),
               {h: np.array([x[h] for x in rows]) for h in rows[0]}, "fits")
    return results


if __name__ == "__main__":
    main()
