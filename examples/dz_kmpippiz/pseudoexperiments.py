"""Pseudoexperiments of the D0 -> K- pi+ pi0 example: generate N data samples
at the CLEO values (parameters_signal_mc.dat), fit each with the example's
sequence from random starts, and summarize the pulls of the couplings and
the background fraction.

    python pseudoexperiments.py --directory toys --experiments 200 --events 20000

Experiment k fits ``data_signal_k.root`` from a random start whose seed
comes from the study's seed (vecampfit.studies.run_study), so that it can
be redone alone; results go to ``study_results.jsonl`` as they arrive (an
interrupted study resumes), the table to ``study.root``, the pull summary to
``pulls.txt``.  With ``--cartesian --grid-integration 400 --background-shape
generation`` the pulls of 200 experiments of 20,000 events have means within
2.7 standard errors and widths 0.96-1.09 (benchmarks/results/dz_pulls.md).
"""

import os
import shutil

import common
import fit_background
import fit_signal
import generate
from vecampfit import command_line, studies
from vecampfit.fitter import read_parameter_file, results


class Experiment:
    """One pseudoexperiment: the fit of sample k (picklable for process pools)."""

    def __init__(self, directory, fit_options):
        self.directory = directory
        self.fit_options = list(fit_options)

    def __call__(self, index, seed):
        args = fit_signal.parse(["--directory", self.directory, "--pseudoexperiment", str(index),
                                 "--seed", str(seed % 2 ** 32), "--quiet", *self.fit_options])
        fitter = fit_signal.build(args)
        fit_signal.run_sequence(fitter, args)
        return {"values": results.values(fitter.minuit), "errors": results.errors(fitter.minuit),
                "fval": fitter.minuit.fval, "valid": bool(fitter.minuit.valid),
                "calls": fitter.likelihood.n_calls,
                "fit_time": fitter.cpu_time}


def true_values(cartesian=False):
    """Parameter name -> generated value, in the order of the fit's table
    (parameters_signal_mc.dat; with ``cartesian`` the couplings as
    <name>_RE = A cos P, <name>_IM = A sin P)."""
    table = read_parameter_file(os.path.join(common.HERE, "parameters_signal_mc.dat"))
    return {**common.signal_model(cartesian, table).values(),
            common.BACKGROUND_FRACTION: table[common.BACKGROUND_FRACTION].value}


def main(argv=None):
    p = common.parser(__doc__.split("\n\n")[0])
    p.add_argument("--directory", default="dz_toys", help="folder of the samples and results")
    p.add_argument("--experiments", type=int, default=20, help="number of pseudoexperiments")
    p.add_argument("--events", type=int, default=20000, help="data events per experiment")
    p.add_argument("--mc-events", type=int, default=200000, help="normalization MC events")
    p.add_argument("--seed", type=int, default=1, help="seed of generation and random starts")
    p.add_argument("--workers", type=int, default=1,
                   help="processes (1: in this process); OpenMP threads are shared out")
    p.add_argument("--cartesian", action="store_true",
                   help="fit the couplings as real and imaginary parts (fit_signal.py "
                        "--cartesian); pulls of <name>_RE and <name>_IM")
    p.add_argument("--background-shape", choices=("fit", "generation"), default="fit",
                   help="background shape of the signal fits: one fit of the study's "
                        "background sample (default), or the shape the samples were "
                        "generated with (parameters_background.dat)")
    p.add_argument("--grid-integration", type=int, default=0, metavar="N",
                   help="normalize on an N x N grid (fit_signal.py --grid-integration) "
                        "instead of the shared MC sample")
    p.add_argument("--model-cache", default=None)
    args = p.parse_args(argv)
    d = args.directory
    os.makedirs(d, exist_ok=True)
    if not os.path.exists(os.path.join(d, common.data_file_name(args.experiments - 1))):
        generate.main(["--directory", d, "--events", str(args.events), "--mc-events",
                       str(args.mc_events), "--background-events", str(args.events),
                       "--pseudoexperiments", str(args.experiments), "--seed", str(args.seed)])
    options = ["--threads", "1"] + command_line.forward_options(args, [], optional=["model_cache"])
    bfile = os.path.join(d, "parameters_background_result.dat")
    if args.background_shape == "generation":
        shutil.copyfile(os.path.join(common.HERE, "parameters_background.dat"), bfile)
    elif not os.path.exists(bfile):
        fit_background.main(["--directory", d, "--fixed-seed", *options])
    fit_options = options + (["--cartesian"] if args.cartesian else []) + (
        command_line.forward_options(args, [], optional=["grid_integration"]))
    experiment = Experiment(d, fit_options)
    executor = studies.process_executor(args.workers, 1) if args.workers > 1 else None
    try:
        table = studies.run_study(experiment, args.experiments, seed=args.seed,
                                  executor=executor,
                                  results=os.path.join(d, "study_results.jsonl"))
    finally:
        if executor is not None:
            executor.shutdown()
    truth = true_values(args.cartesian)
    names = list(truth)
    ok = [r for r in table.ok if r["valid"]]
    # Phases compared modulo 360 degrees: shift the fitted value next to the truth.
    for r in ok:
        for k, name in enumerate(names):
            if name.endswith("_P"):
                r["values"][k] = truth[name] + (r["values"][k] - truth[name] + 180) % 360 - 180
    summary = studies.pull_summary(studies.StudyTable(ok), [truth[n] for n in names],
                                   names=names)
    lines = [f"{len(ok)} valid fits of {len(table)} experiments ({len(table.failed)} failed)",
             f"{'parameter':20s} {'pull mean':>16s} {'pull width':>16s}"]
    for name, s in summary.items():
        lines.append(f"{name:20s} {s['mean']:+8.3f} +- {s['mean_error']:.3f} "
                     f"{s['width']:8.3f} +- {s['width_error']:.3f}")
    text = "\n".join(lines) + "\n"
    print(text)
    with open(os.path.join(d, "pulls.txt"), "w") as f:
        f.write(text)
    table.write_root(os.path.join(d, "study.root"))
    return table, summary


if __name__ == "__main__":
    main()
