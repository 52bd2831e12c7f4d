r"""Pseudoexperiments of the simultaneous signal fit: generate, fit, pulls.

Each experiment generates the chosen points (``--process``, ``--energy``;
default K+ K- pi+ pi- and KS KS pi+ pi- at 2000 MeV) with the model's
generation amplitudes through the simulated detector (generate_kkpipi.py, its own
random streams from the experiment's seed), takes the simulation's
background polynomial as the fixed background of each point, and runs the
simultaneous fit (fit_signal_kkpipi.py) from a random start.  Experiments run with
:func:`vecampfit.studies.run_study` (one seed per experiment, results
appended to ``--results`` so that an interrupted study resumes) and the
pulls :math:`(\hat p - p_0)/\sigma_{\hat p}` of every free parameter are
summarized by :func:`vecampfit.studies.pull_summary` into
``pulls_signal.txt``: mean with its error, width with its error.
Run ``python pull_study.py --help``.
"""

import dataclasses
import functools
import os
import shutil
import tempfile
import time

import numpy as np

import background  # noqa: E402
import common_kkpipi as common  # noqa: E402
import config  # noqa: E402
import fit_signal_kkpipi as fit_signal  # noqa: E402
import generate_kkpipi as generate  # noqa: E402
import model_kkpipi as model  # noqa: E402
from vecampfit import command_line  # noqa: E402
from vecampfit.fitter import results  # noqa: E402
from vecampfit.fitter.parameters import write_parameter_file  # noqa: E402
from vecampfit.studies import StudyTable, pull_summary, run_study  # noqa: E402

DEFAULT_POINTS = ("kpkmpippim_2000_mev", "kskspippim_2000_mev")


def truth_values(declarations, names):
    """Generation values of the fit parameters ``names`` (array)."""
    values = {}
    for d in declarations:
        values.update(model.default_parameters(d.point.energy_mev))
        values[d.background_fraction] = d.point.background_fraction
    return np.array([values[n] for n in names])


def experiment(index, seed, *, point_names, data_events, mc_events, vector_length=8,
               model_cache=None, keep=None):
    """One pseudoexperiment (the function :func:`vecampfit.studies.run_study` runs).

    Parameters
    ----------
    index : int
        Experiment number.
    seed : int
        Seed of the generation and of the random start.
    point_names : sequence of str
        Points (``config.POINTS`` keys).
    data_events, mc_events : int
        Pseudo-data and generator-level MC events per point.
    vector_length : int
    model_cache : str, optional
    keep : str, optional
        Folder in which to keep the generated files (default: a temporary
        folder, removed after the fit).

    Returns
    -------
    dict
        ``names``, ``values``, ``errors`` and ``truth`` of the free
        parameters, ``pulls``, ``fval``, ``valid``, ``calls``, ``fit_time``.
    """
    points = [dataclasses.replace(config.POINTS[n], data_events=data_events,
                                  mc_events=mc_events, background_events=0)
              for n in point_names]
    directory = tempfile.mkdtemp(prefix=f"epem_pseudo_{index}_") if keep is None else keep
    try:
        for p in points:
            generate.generate_point(p, directory, seed)
            write_parameter_file(os.path.join(directory, f"parameters_background_{p.name}.dat"),
                                 background.initial_parameters(), background.truth())
        declarations = fit_signal.simultaneous_fit_points(points, directory)
        signal = common.compile_signal_models(points, [vector_length], build_dir=model_cache)
        bkg = background.compile_density([vector_length], build_dir=model_cache)
        fitter = fit_signal.build(declarations, signal, bkg, vector_length=vector_length,
                                  seed=seed % 2 ** 32, verbose=False)
        fit_signal.run_sequence(fitter, declarations)
    finally:
        if keep is None:
            shutil.rmtree(directory, ignore_errors=True)
    names = fit_signal.free_parameter_names(fitter, declarations)
    idx = [fitter.likelihood.parameter_index(n) for n in names]
    values, errors = results.values(fitter.minuit)[idx], results.errors(fitter.minuit)[idx]
    truth = truth_values(declarations, names)
    return {"names": names, "values": values, "errors": errors, "truth": truth,
            "pulls": (values - truth) / errors, "fval": float(fitter.minuit.fval),
            "valid": bool(fitter.minuit.valid), "calls": int(fitter.likelihood.n_calls),
            "fit_time": float(fitter.wall_time)}


def summary(table):
    """:func:`vecampfit.studies.pull_summary` of the valid experiments of a study
    table, by parameter name; also the pooled pulls of every parameter."""
    rows = [r for r in table.rows if r["status"] == "ok" and r["valid"]]
    if not rows:
        raise ValueError("no valid experiment in the study")
    names = rows[0]["names"]
    valid = StudyTable(rows)
    out = pull_summary(valid, rows[0]["truth"], names=names)
    pooled = np.concatenate([np.asarray(r["pulls"]) for r in rows])
    return out, pooled, len(rows)


def summary_text(out, pooled, n_valid, n_total):
    """The pull summary as text."""
    lines = [f"{n_valid} valid experiments of {n_total}",
             f"all parameters: mean {np.mean(pooled):.3f}, width {np.std(pooled, ddof=1):.3f} "
             f"({pooled.size} pulls)",
             "parameter mean mean_error width width_error within_3_sigma width_in_0.8_1.2"]
    for name, s in out.items():
        ok_mean = abs(s["mean"]) < 3 * s["mean_error"]
        ok_width = 0.8 <= s["width"] <= 1.2
        lines.append(f"{name} {s['mean']:.3f} {s['mean_error']:.3f} {s['width']:.3f} "
                     f"{s['width_error']:.3f} {ok_mean} {ok_width}")
    return "\n".join(lines) + "\n"


def main(argv=None):
    p = common.parser(__doc__.split("\n\n")[0])
    p.add_argument("--experiments", type=int, default=20, help="number of pseudoexperiments")
    p.add_argument("--seed", type=int, default=1, help="seed of the study")
    p.add_argument("--data-events", type=int, default=2000, help="pseudo-data events per point")
    # About 24 times the data after the detector: the pulls' widths then do not
    # show the normalization MC's statistics (with 60000, six times the data,
    # they were 1.13 on average).
    p.add_argument("--mc-events", type=int, default=240000,
                   help="generator-level MC events per point")
    p.add_argument("--workers", type=int, default=1,
                   help="processes running experiments (one thread each)")
    command_line.add_model_options(p, threads=False, precision=False)
    args = p.parse_args(argv)
    if args.process or args.energy:
        try:
            names = [q.name for q in config.select(args.process, args.energy)]
        except ValueError as exc:
            p.error(str(exc))
    else:
        names = list(DEFAULT_POINTS)
    os.makedirs(args.directory, exist_ok=True)
    # compile once before the experiments (they then take the models from the cache)
    common.compile_signal_models([config.POINTS[n] for n in names], [args.vector_length],
                                 build_dir=args.model_cache)
    background.compile_density([args.vector_length], build_dir=args.model_cache)
    run = functools.partial(experiment, point_names=names, data_events=args.data_events,
                            mc_events=args.mc_events, vector_length=args.vector_length,
                            model_cache=args.model_cache)
    executor = None
    if args.workers > 1:
        from vecampfit.studies import process_executor
        executor = process_executor(args.workers, 1)
    t0 = time.perf_counter()
    try:
        table = run_study(run, args.experiments, seed=args.seed, executor=executor,
                          results=os.path.join(args.directory, "pulls_signal.jsonl"))
    finally:
        if executor is not None:
            executor.shutdown()
    out, pooled, n_valid = summary(table)
    text = summary_text(out, pooled, n_valid, len(table))
    with open(os.path.join(args.directory, "pulls_signal.txt"), "w") as f:
        f.write(f"points: {', '.join(names)}; {args.data_events} data and {args.mc_events} MC "
                f"events per point; study seed {args.seed}\n" + text)
    print(text)
    print(f"study took {time.perf_counter() - t0:.0f} s")
    return table, out


if __name__ == "__main__":
    main()
