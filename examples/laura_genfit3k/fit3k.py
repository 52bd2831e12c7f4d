"""Fit B+ -> K+ K+ K- pseudoexperiments with Laura++'s GenFit3K model and fit sequence.

Data: pseudoexperiments written by generate3k.py (``--directory``, files
``toy3k_N.root``), or Laura++'s own (``--laura``: the file in the example's
data folder, or ``--laura-file``; tree ``toys``, experiment selected by
``iExpt``).  Normalization: Laura++'s Gauss-Legendre grid over the Dalitz
plot (no MC).  Sequence (Laura++'s two-stage fit): the f'2(1525) and
non-resonant coefficients with masses and widths fixed, MIGRAD; then also the
phi(1020) and f'2(1525) masses and widths, MIGRAD; HESSE.  Starting point:
the generated values, or with ``--random-start`` coefficients uniform in
[-10, 10].

Prints one line per fit (values, solution found, fit fractions from the
isobar layer with errors from the error matrix) and a summary (solution
fractions, pulls against the generated values, times; ``scan3k.py`` groups
the minima of random-start fits into distinct solutions);
writes ``fit3k_results.txt`` and ``fit3k_results.root`` (tree ``fits``) into
``--output`` (default: ``--directory``).
"""

import os
import time

import numpy as np

import genfit3k  # noqa: E402


class Setup:
    """What every fit shares: masses, grid (filled once), normalization constants,
    compiled density.

    Parameters
    ----------
    args : argparse.Namespace
        Options of :func:`make_parser` (masses, grid, vector length, precision,
        model cache).
    """

    def __init__(self, args, verbose=True):
        t0 = time.perf_counter()
        self.masses = genfit3k.check_common_options(args)
        self.grid_options = genfit3k.grid_options(args)
        self.records, self.weights, self.grid_info = genfit3k.normalization_grid(
            self.masses, options=self.grid_options)
        self.normalization = genfit3k.normalization_constants(self.masses, self.records,
                                                              self.weights)
        self.grid_fields = genfit3k.event_buffer_fields(self.records["m13Sq"],
                                                        self.records["m23Sq"], self.masses)
        self.grid_time = time.perf_counter() - t0
        t0 = time.perf_counter()
        self.module = genfit3k.compile_density([args.vector_length],
                                               build_dir=args.model_cache)[args.vector_length]
        self.compile_time = time.perf_counter() - t0
        # Laura++'s coefficients: the compiled density in float64 on the grid.
        self.integrals = genfit3k.GridIntegrals(
            genfit3k.signal_density(self.module, "float64", self.masses, self.normalization),
            self.grid_fields, self.weights)
        # Fit fractions and their errors: the model declared with vecampfit.isobar
        # (isobar_model3k.py), its compiled component amplitudes on the grid.
        self.isobar = genfit3k.compile_isobar_model([args.vector_length],
                                                    build_dir=args.model_cache)
        # Its event-buffer fields of the grid, filled once for every fit.
        self.isobar_fields = self.isobar.fill_event_buffer(
            {"m13Sq": self.records["m13Sq"], "m23Sq": self.records["m23Sq"]},
            {f"N_{c}": v for c, v in self.normalization.items()})
        self.args = args
        if verbose:
            i = self.grid_info
            print(f"grid: {i['rectangle_nodes']} nodes in rectangles, {i['inside']} in the Dalitz "
                  f"plot, {i['points']} used ({'folded' if self.grid_options.fold else 'whole'}); "
                  f"built in {self.grid_time:.1f} s")

    def with_vector_length(self, vector_length, module=None):
        """A copy that shares the grid and fits with another vector length
        (compiled here unless ``module`` is given)."""
        import copy
        other = copy.copy(self)
        other.args = copy.copy(self.args)
        other.args.vector_length = vector_length
        if module is None:
            module = genfit3k.compile_density([vector_length],
                                              build_dir=self.args.model_cache)[vector_length]
        other.module = module
        return other

    def fitter(self, m13sq, m23sq, *, random_start=False, seed=None, gradient=True,
               strategy=1, verbose=False):
        """A :class:`vecampfit.fitter.Fitter` with grid and data loaded."""
        from vecampfit.fitter import Fitter, Likelihood
        a = self.args
        likelihood = Likelihood(genfit3k.parameter_table(random_start), precision=a.precision,
                                vector_length=a.vector_length, threads=a.threads)
        point = likelihood.add_point(genfit3k.signal_density(self.module, a.precision, self.masses,
                                                         self.normalization, gradient=gradient),
                                 normalization="grid")
        point.add_normalization_events(self.grid_fields, self.weights)
        point.add_data({"m13Sq": m13sq, "m23Sq": m23sq})
        return Fitter(likelihood, seed=seed, randomize=random_start, use_gradient=gradient,
                      strategy=strategy, verbose=verbose)

    def fit_fractions(self, values, covariance=None):
        """Fit fractions on the grid from the isobar layer
        (:func:`vecampfit.isobar.fit_fractions`), errors propagated from
        ``covariance`` (over :data:`genfit3k.PARAMETER_NAMES`).

        Returns
        -------
        vecampfit.isobar.FitFractions
        """
        return genfit3k.isobar_fit_fractions(self.isobar, self.isobar_fields, self.weights,
                                             values, self.normalization, covariance)

    def results(self, fitter, fractions=True):
        """Values, errors, covariance, fit fractions (with errors; skipped with
        ``fractions`` False), Laura++'s coefficients, solution."""
        from vecampfit.fitter import results
        m = fitter.minuit
        x, e = results.values(m), results.errors(m)
        cov = results.covariance_matrix(m)
        out = {"values": x, "errors": e, "covariance": cov, "fval": m.fval, "valid": m.valid,
               "edm": m.fmin.edm if m.fmin is not None else float("nan"),
               "calls": fitter.likelihood.n_calls, "wall_time": fitter.wall_time,
               "cpu_time": fitter.cpu_time, "solution": genfit3k.solution(x)}
        if fractions:
            ff = self.fit_fractions(x, cov)
            out["fit_fractions"] = dict(ff.fractions, sum=ff.total)
            out["fit_fraction_errors"] = dict(zip(ff.components, np.diag(ff.errors)))
            out["laura_coefficients"] = self.integrals.laura_coefficients(x)
        return out


def fit_one(setup, m13sq, m23sq, *, random_start=False, seed=None, gradient=True, strategy=1,
            verbose=False, fractions=True):
    """Run Laura++'s fit sequence on one sample; returns :meth:`Setup.results` plus
    the fitter (``fractions`` False: without fit fractions and Laura++'s
    coefficients, for scans that compute them per solution)."""
    fitter = setup.fitter(m13sq, m23sq, random_start=random_start, seed=seed, gradient=gradient,
                          strategy=strategy, verbose=verbose)
    genfit3k.run_sequence(fitter)
    out = setup.results(fitter, fractions=fractions)
    out["fitter"] = fitter
    out["seed"] = fitter.seed
    return out


def parse_experiments(text):
    """'3' -> [3]; '0-9' -> [0..9]; '1,4,7' -> [1, 4, 7]."""
    out = []
    try:
        for part in text.split(","):
            if "-" in part:
                a, b = part.split("-")
                a, b = int(a), int(b)
                if b < a:
                    raise ValueError
                out.extend(range(a, b + 1))
            else:
                out.append(int(part))
    except ValueError:
        raise ValueError(f"--experiments: expected N, N-M or a comma-separated list, got "
                         f"{text!r}") from None
    if any(k < 0 for k in out):
        raise ValueError(f"--experiments: numbers must be non-negative, got {text!r}")
    return out


def available_experiments(args):
    """Experiments present in the chosen input."""
    if args.laura:
        from vecampfit.root_io import read_events
        records, _ = read_events(args.laura_file, genfit3k.TREE, ["iExpt"])
        return sorted(set(np.asarray(records["iExpt"]).tolist()))
    out = []
    k = 0
    while os.path.exists(genfit3k.experiment_file(args.directory, k)):
        out.append(k)
        k += 1
    if not out:
        raise FileNotFoundError(f"no pseudoexperiment files {genfit3k.experiment_file(args.directory, 0)!r}, ... "
                                f"(run generate3k.py, or use --laura)")
    return out


def load(args, experiment):
    if args.laura:
        return genfit3k.read_events(args.laura_file, experiment)
    path = genfit3k.experiment_file(args.directory, experiment)
    return genfit3k.read_events(path)


def format_line(k, r):
    v = dict(zip(genfit3k.PARAMETER_NAMES, r["values"]))
    e = dict(zip(genfit3k.PARAMETER_NAMES, r["errors"]))
    ff = r["fit_fractions"]
    parts = [f"expt {k:3d}", f"F = {r['fval']:.3f}", "valid" if r["valid"] else "INVALID",
             f"{r['solution']:6s}"]
    for name in genfit3k.MASSES_AND_WIDTHS + genfit3k.COEFFICIENTS:
        parts.append(f"{name} {v[name]:.5g}+-{e[name]:.2g}")
    parts.append("FF " + " ".join(f"{c} {ff[c]:.4f}" for c in genfit3k.COMPONENTS))
    parts.append(f"{r['calls']} calls, {r['wall_time']:.2f} s")
    return ", ".join(parts)


def pulls(results, names=genfit3k.MASSES_AND_WIDTHS + genfit3k.COEFFICIENTS):
    """Pulls (value - generated)/error of the fits that found the main solution."""
    out = {n: [] for n in names}
    for r in results:
        if r["solution"] != "main" or not r["valid"]:
            continue
        for n in names:
            k = genfit3k.PARAMETER_NAMES.index(n)
            out[n].append((r["values"][k] - genfit3k.GENERATED[n]) / r["errors"][k])
    return {n: np.array(v) for n, v in out.items()}


def summary(results):
    """Text: solution fractions, pull means and widths, times."""
    n = len(results)
    lines = []
    sols = [r["solution"] for r in results]
    n_main = sols.count("main")
    lines.append(f"{n} fits: {n_main} main solution ({n_main / n:.0%}), {n - n_main} second "
                 f"solution ({(n - n_main) / n:.0%}); "
                 f"{sum(1 for r in results if not r['valid'])} invalid")
    p = pulls(results)
    for name, v in p.items():
        if len(v) > 1:
            lines.append(f"pull {name:6s}: mean {v.mean():+.3f} +- {v.std(ddof=1) / np.sqrt(len(v)):.3f}, "
                         f"width {v.std(ddof=1):.3f} ({len(v)} fits)")
    wall = np.array([r["wall_time"] for r in results])
    calls = np.array([r["calls"] for r in results])
    lines.append(f"time per fit: {wall.mean():.2f} s wall (total {wall.sum():.1f} s), "
                 f"{calls.mean():.0f} likelihood calls per fit")
    return "\n".join(lines)


def write_results(path_text, path_root, experiments, results):
    from vecampfit.fitter.results import atomic_write_text
    from vecampfit.root_io import write_tree
    names = genfit3k.PARAMETER_NAMES
    header = ["experiment", "fval", "valid", "solution", "calls", "wall_time"] + \
        [f"{n}{s}" for n in names for s in ("", "_error")] + \
        [f"FF_{c}{s}" for c in genfit3k.COMPONENTS for s in ("", "_error")] + \
        [f"LAURA_{c}_{p}" for c in ("F2", "NR") for p in ("RE", "IM")]
    rows = []
    for k, r in zip(experiments, results):
        row = [k, r["fval"], int(r["valid"]), 1 if r["solution"] == "main" else 2, r["calls"],
               r["wall_time"]]
        for i in range(len(names)):
            row += [r["values"][i], r["errors"][i]]
        for c in genfit3k.COMPONENTS:
            row += [r["fit_fractions"][c], r["fit_fraction_errors"][c]]
        for c in ("F2", "NR"):
            row += [r["laura_coefficients"][c].real, r["laura_coefficients"][c].imag]
        rows.append(row)
    text = "# " + " ".join(header) + "\n# solution: 1 main, 2 second\n" + "".join(
        " ".join(f"{v:.10g}" for v in row) + "\n" for row in rows)
    atomic_write_text(path_text, text + "# " + summary(results).replace("\n", "\n# ") + "\n")
    data = np.array(rows, dtype=np.float64)
    branches = {h: data[:, j] for j, h in enumerate(header)}
    branches["experiment"] = branches["experiment"].astype(np.int32)
    branches["valid"] = branches["valid"].astype(np.int32)
    branches["solution"] = branches["solution"].astype(np.int32)
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
    try:
        setup = Setup(args, verbose=not args.quiet)
        experiments = available_experiments(args) if args.experiments == "all" else \
            parse_experiments(args.experiments)
    except (ValueError, FileNotFoundError, KeyError) as exc:
        p.error(str(exc))
    if args.seed is None:
        args.seed = int.from_bytes(os.urandom(4), "little")
        if args.random_start:
            print(f"Random seed: {args.seed}")
    out = args.output or args.directory
    if not os.path.isdir(out):
        p.error(f"--output {out!r} is not a folder")
    results = []
    for k in experiments:
        try:
            m13sq, m23sq = load(args, k)
        except (ValueError, FileNotFoundError, KeyError) as exc:
            p.error(str(exc))
        r = fit_one(setup, m13sq, m23sq, random_start=args.random_start, seed=args.seed + k,
                    gradient=not args.no_gradient, strategy=args.strategy)
        if args.result_files:
            name = f"laura_{k}" if args.laura else str(k)
            r["fitter"].write_results(
                parameters=os.path.join(out, f"parameters_result_{name}.dat"),
                text=os.path.join(out, f"results_{name}.txt"),
                root=os.path.join(out, f"result_{name}.root"))
        del r["fitter"]     # its buffers (the grid) are not needed any more
        results.append(r)
        if not args.quiet:
            print(format_line(k, r), flush=True)
    text = summary(results)
    print(text)
    write_results(os.path.join(out, "fit3k_results.txt"), os.path.join(out, "fit3k_results.root"),
                  experiments, results)
    return results


if __name__ == "__main__":
    main()
