"""Fit the P- and D-wave couplings of D0 -> rho0 anti-K*0 pseudo-data.

Reads ``data.root`` and the normalization sample ``mc.root`` from
``--directory`` (written by generate.py) and fits the real and imaginary
parts of the P- and D-wave couplings (the S wave's is fixed to 1) by MIGRAD
with the analytic gradient of the compiled model, then HESSE.  Prints the
parameters (with the pulls from ``truth.json`` when it is there) and the fit
fractions of the three waves with their errors
(:func:`vecampfit.amplitudes.fit_fractions`: from the error matrix and from
the finite normalization sample).

Writes ``fit_result.json`` (values, errors, error matrix of the free
parameters, fit fractions), ``parameters_result.dat`` and ``results.txt``.
"""

import os
import time

import numpy as np

import common
from vecampfit import command_line
from vecampfit.amplitudes import fit_fractions
from vecampfit.fitter import Fitter, Likelihood

FREE = common.parameters("P") + common.parameters("D")


def starting_values(start, truth, rng, random_change):
    """Starting values of every parameter.

    The S wave is 1.  The P and D waves start at the generation's values
    (``start="truth"``, from truth.json), at the model's default couplings
    (``"default"``), or at the default couplings moved at random by up to
    ``random_change`` in their real and imaginary parts (``"random"``).
    """
    values = {"S_RE": 1.0, "S_IM": 0.0}
    default = {}
    for wave in ("P", "D"):
        c = common.COUPLINGS[wave]
        default.update(zip(common.parameters(wave), (c.real, c.imag)))
    if start == "truth":
        if truth is None:
            raise ValueError("--start truth needs truth.json from generate.py")
        values.update({n: truth[n] for n in FREE})
    elif start == "random":
        values.update({n: v + random_change * rng.uniform(-1, 1) for n, v in default.items()})
    else:
        values.update(default)
    return values


def build(args, cascade, compiled, values):
    """The likelihood with its data and normalization events."""
    likelihood = Likelihood(compiled.parameter_table(values), precision=args.precision,
                            vector_length=args.vector_length, threads=args.threads,
                            on_invalid="large")
    density, _ = compiled.density_at(values, args.precision, args.vector_length)
    point = likelihood.add_point(density)
    mapper = common.record_mapper(cascade)
    point.load_normalization_file(os.path.join(args.directory, common.MC_FILE), common.TREE,
                                  list(common.BRANCHES), map_records=mapper)
    point.load_data_file(os.path.join(args.directory, common.DATA_FILE), common.TREE,
                         list(common.BRANCHES), map_records=mapper)
    return likelihood


def parse(argv=None):
    p = common.add_common_options(common.parser(__doc__.split("\n\n")[0]))
    p.add_argument("--start", choices=("default", "truth", "random"), default="random",
                   help="starting values of the P and D waves: the model's default couplings, "
                        "the generation's, or the default ones moved at random")
    p.add_argument("--random-change", type=float, default=0.3,
                   help="with --start random: real and imaginary parts move by up to this much")
    p.add_argument("--seed", type=int, default=None,
                   help="seed of the random start (default: from the system, printed)")
    p.add_argument("--precision", choices=("float64", "float32"), default="float64")
    p.add_argument("--fraction-events", type=int, default=50000,
                   help="normalization events used for the fit fractions")
    p.add_argument("--no-fractions", action="store_true", help="skip the fit fractions")
    p.add_argument("--quiet", action="store_true", help="no line per MIGRAD and HESSE")
    return p.parse_args(argv)


def main(argv=None):
    args = parse(argv)
    d = args.directory
    t0 = time.perf_counter()
    truth_path = os.path.join(d, common.TRUTH_FILE)
    truth = common.read_json(truth_path)["values"] if os.path.exists(truth_path) else None
    seed = command_line.seed_or_random(args.seed)
    rng = np.random.default_rng(seed)
    if args.start == "random":
        print(f"random start, seed {seed}")
    values = starting_values(args.start, truth, rng, args.random_change)
    cascade = common.cascade()
    model = cascade.amplitude_model()
    compiled = common.compile_model(model, args.vector_length, args.model_cache)
    likelihood = build(args, cascade, compiled, values)
    print(f"set-up (model, compilation, events) {time.perf_counter() - t0:.1f} s; "
          f"free parameters {FREE}")
    fitter = Fitter(likelihood, seed=seed, randomize=False, verbose=not args.quiet)
    fitter.migrad()
    fitter.hesse()
    m = fitter.minuit
    result = command_line.fit_summary(fitter, values, FREE)
    print(f"F = {m.fval:.3f}, valid minimum: {m.valid}, EDM {m.fmin.edm:.2e}; "
          f"fit {fitter.wall_time:.2f} s wall, {fitter.cpu_time:.2f} s CPU")
    print(command_line.values_table(FREE, result["values"], result["errors"], truth))
    result.update(seed=seed, start=args.start)
    fitter.write_results(parameters=os.path.join(d, "parameters_result.dat"),
                         text=os.path.join(d, "results.txt"))
    if not args.no_fractions:
        t1 = time.perf_counter()
        mc = common.read_sample(os.path.join(d, common.MC_FILE), cascade)
        n = min(args.fraction_events, len(mc[common.BRANCHES[0]]))
        mc = {k: v[:n] for k, v in mc.items()}
        groups = common.wave_groups(model)
        ff = fit_fractions(model, mc, groups, params=result["values"],
                           covariance=np.array(result["covariance"]), covariance_names=FREE)
        ft = fit_fractions(model, mc, groups, params=truth) if truth else None
        text, numbers = command_line.fractions_report(ff, ft, interference=True)
        result.update(numbers)
        text = (f"Fit fractions of the waves over {n} normalization events "
                "(fit error from the error matrix, norm error from the finite "
                "sample)\n" + text)
        print(text)
        print(f"fit fractions took {time.perf_counter() - t1:.1f} s")
        with open(os.path.join(d, "results.txt"), "a") as f:
            f.write("\n" + text + "\n")
    common.write_json(os.path.join(d, common.RESULT_FILE), result)
    return result


if __name__ == "__main__":
    main()
