"""Fit the couplings and the polarization of Lambda_c+ -> p K- pi+ pseudo-data.

Reads ``data.root`` and the normalization sample ``mc.root`` from
``--directory`` (written by generate.py), fits the parameters chosen with
``--free`` (default: every chain coupling but the first chain's, which
fixes the overall magnitude and phase, and the polarization ``Px``, ``Py``,
``Pz``; the others stay at the model file's values, or the generation's
with ``--start truth``) by MIGRAD with the analytic gradient of the
compiled polarized model, then HESSE, and prints the parameters (with the
pulls from ``truth.json`` when it is there) and the fit fractions of the
resonances with their errors (:func:`vecampfit.amplitudes.fit_fractions`:
from the error matrix and from the finite normalization sample).

Writes ``fit_result.json`` (values, errors, error matrix of the free
parameters, fit fractions), ``parameters_result.dat`` and ``results.txt``.
"""

import fnmatch
import os
import time

import numpy as np

import common
from vecampfit import command_line
from vecampfit.amplitudes import fit_fractions
from vecampfit.fitter import Fitter, Likelihood, ParameterTable


def free_parameters(model, patterns=None):
    """The parameters to fit: names or shell patterns (``L1520_*``), or the default
    (every coupling the model leaves free, and the polarization)."""
    names = model.parameter_names()
    if not patterns:
        return [n for n in names if not model.parameters[n].fixed]
    out = []
    for pattern in patterns:
        for part in pattern.replace(",", " ").split():
            hits = fnmatch.filter(names, part)
            if not hits:
                raise ValueError(f"--free {part!r} matches no parameter of the model "
                                 f"(for example {names[:4]} ... {names[-3:]})")
            out += [h for h in hits if h not in out]
    return [n for n in names if n in out]


def starting_values(model, free, start, truth, rng, random_change):
    """Starting values.

    The parameters not fitted take the generation's values when ``truth``
    (from truth.json) is given, else the model file's (polarization 0).  The
    free ones start at the file's values (``start="file"``), the
    generation's (``"truth"``), or the file's moved at random (``"random"``:
    a coupling :math:`c` by up to ``random_change`` times :math:`\\max(|c|, 1)`,
    the polarization components uniform in (-0.5, 0.5)).
    """
    file_values = model.values()
    values = dict(file_values)
    if truth is not None:
        values.update(truth)
    for n in free:
        if start == "truth":
            if truth is None:
                raise ValueError("--start truth needs truth.json from generate.py")
        elif start == "random":
            if n in common.POLARIZATION:
                values[n] = rng.uniform(-0.5, 0.5)
            else:
                c = file_values[n]
                values[n] = c + random_change * max(abs(c), 1.0) * rng.uniform(-1, 1)
        else:
            values[n] = file_values[n]
    return values


def build(args, dist, model, free, values):
    """The likelihood with its data and normalization events."""
    compiled = common.compile_model(model, args.vector_length, args.model_cache, free)
    # the density's parameters; those not fitted have step 0 (fixed)
    table = ParameterTable([p for p in model.parameter_table(values, free)
                            if p.name in compiled.parameters], source="Lambda_c model")
    likelihood = Likelihood(table, precision=args.precision, vector_length=args.vector_length,
                            threads=args.threads, on_invalid="large")
    density, _ = compiled.density_at(values, args.precision, args.vector_length)
    point = likelihood.add_point(density)
    mapper = common.record_mapper(dist)
    point.load_normalization_file(os.path.join(args.directory, common.MC_FILE), common.TREE,
                                  list(common.BRANCHES), map_records=mapper)
    point.load_data_file(os.path.join(args.directory, common.DATA_FILE), common.TREE,
                         list(common.BRANCHES), map_records=mapper)
    return likelihood


def parse(argv=None):
    p = common.add_common_options(common.parser(__doc__.split("\n\n")[0]))
    p.add_argument("--free", nargs="*", default=None, metavar="NAME",
                   help="parameters to fit: names or shell patterns such as 'L1520_*' "
                        "(default: the couplings of all chains but the first, Px, Py, Pz)")
    p.add_argument("--start", choices=("file", "truth", "random"), default="random",
                   help="starting values of the free parameters: the model file's (P = 0), "
                        "the generation's, or the file's moved at random")
    p.add_argument("--random-change", type=float, default=0.3,
                   help="with --start random: couplings move by up to this times max(|c|, 1), "
                        "Px, Py, Pz start in (-0.5, 0.5)")
    p.add_argument("--seed", type=int, default=None,
                   help="seed of the random start (default: from the system, printed)")
    p.add_argument("--precision", choices=("float64", "float32"), default="float64")
    p.add_argument("--fraction-events", type=int, default=100000,
                   help="normalization events used for the fit fractions")
    p.add_argument("--no-fractions", action="store_true", help="skip the fit fractions")
    p.add_argument("--quiet", action="store_true", help="no line per MIGRAD and HESSE")
    return p.parse_args(argv)


def main(argv=None):
    args = parse(argv)
    d = args.directory
    t0 = time.perf_counter()
    dist, model = common.load(args.model)
    free = free_parameters(model, args.free)
    truth_path = os.path.join(d, common.TRUTH_FILE)
    truth = common.read_json(truth_path)["values"] if os.path.exists(truth_path) else None
    seed = command_line.seed_or_random(args.seed)
    rng = np.random.default_rng(seed)
    if args.start == "random":
        print(f"random start, seed {seed}")
    values = starting_values(model, free, args.start, truth, rng, args.random_change)
    likelihood = build(args, dist, model, free, values)
    print(f"set-up (model, compilation, events) {time.perf_counter() - t0:.1f} s; "
          f"{len(free)} free parameters")
    fitter = Fitter(likelihood, seed=seed, randomize=False, verbose=not args.quiet)
    fitter.migrad()
    fitter.hesse()
    m = fitter.minuit
    result = command_line.fit_summary(fitter, values, free)
    print(f"F = {m.fval:.3f}, valid minimum: {m.valid}, EDM {m.fmin.edm:.2e}; "
          f"fit {fitter.wall_time:.1f} s wall, {fitter.cpu_time:.1f} s CPU")
    print(command_line.values_table(free, result["values"], result["errors"], truth,
                                    widths=(16, 11, 9)))
    result.update(seed=seed, start=args.start)
    fitter.write_results(parameters=os.path.join(d, "parameters_result.dat"),
                         text=os.path.join(d, "results.txt"))
    if not args.no_fractions:
        t1 = time.perf_counter()
        mc = common.read_sample(os.path.join(d, common.MC_FILE), dist)
        n = min(args.fraction_events, len(mc["sigma1"]))
        mc = {k: v[:n] for k, v in mc.items()}
        groups = common.groups(dist, model)
        ff = fit_fractions(model, mc, groups, params=result["values"],
                           covariance=np.array(result["covariance"]), covariance_names=free)
        ft = fit_fractions(model, mc, groups, params=truth) if truth is not None else None
        text, numbers = command_line.fractions_report(ff, ft)
        result.update(numbers)
        text = (f"Fit fractions of the resonances over {n} normalization "
                "events (fit error from the error matrix, norm error from the "
                "finite sample)\n" + text)
        print(text)
        print(f"fit fractions took {time.perf_counter() - t1:.1f} s")
        with open(os.path.join(d, "results.txt"), "a") as f:
            f.write("\n" + text + "\n")
    common.write_json(os.path.join(d, common.RESULT_FILE), result)
    return result


if __name__ == "__main__":
    main()
