"""Tutorial: an unbinned maximum-likelihood fit of a resonance peak on a flat
background, with a density written in Cython (peak_density.pyx) and the same
density written in numpy.

Steps (each a function below, read them in order):

1. ``generate``: data (peak plus a fraction of flat background) and
   normalization MC (uniform) in the invariant mass ``m``, written as ROOT
   files with tree ``tree`` and branch ``m``.
2. ``signal_density``: the density for the fitter, compiled from
   peak_density.pyx for one vector length (Cython, with its gradient), or
   its numpy form.
3. ``build_fitter``: parameters from parameters.dat, one fit point with the
   signal, a flat background with the fraction ``BACKGROUND_FRACTION``, the
   MC for the normalization and the data, all read from the ROOT files.
4. ``main``: MIGRAD, HESSE, MINOS for the mass, and the result files.

Run ``python examples/tutorial/fit_peak.py --help`` for the options.
"""

import argparse
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

from vecampfit import root_io  # noqa: E402
from vecampfit.fitter import Density, Fitter, Likelihood, read_parameter_file  # noqa: E402
from vecampfit.model_compiler import compile_model  # noqa: E402

#: Range of m (GeV) and the generated values.
M_RANGE = (0.3, 1.3)
TRUTH = {"M": 0.775, "G": 0.149, "BACKGROUND_FRACTION": 0.3}


def peak(m, m0, gamma0):
    """S(m) = 1 / ((m0^2 - m^2)^2 + m0^2 Gamma0^2): the numpy form of peak_density.pyx."""
    return 1 / ((m0 * m0 - m * m) ** 2 + (m0 * gamma0) ** 2)


def generate(directory, n_data, n_mc, seed):
    """Write data.root (peak + flat background) and mc.root (uniform in m)."""
    rng = np.random.default_rng(seed)
    lo, hi = M_RANGE
    n_bkg = rng.binomial(n_data, TRUTH["BACKGROUND_FRACTION"])
    signal = np.empty(0)
    maximum = peak(TRUTH["M"], TRUTH["M"], TRUTH["G"])   # S is largest at m = m0
    while signal.size < n_data - n_bkg:                  # accept-reject
        m = rng.uniform(lo, hi, n_data)
        keep = rng.uniform(0, maximum, n_data) < peak(m, TRUTH["M"], TRUTH["G"])
        signal = np.concatenate([signal, m[keep]])
    data = rng.permutation(np.concatenate([signal[:n_data - n_bkg], rng.uniform(lo, hi, n_bkg)]))
    root_io.write_tree(os.path.join(directory, "data.root"), {"m": data})
    root_io.write_tree(os.path.join(directory, "mc.root"), {"m": rng.uniform(lo, hi, n_mc)})


def signal_density(vector_length, precision, numpy_form=False, build_dir=None):
    """The signal density for the fitter.

    The Cython form is compiled (once, then cached) for this vector length
    with vecampfit's include paths and flags; the module tells the fitter
    its parameter names, event fields and buffer sizes.  The numpy form is
    any function of the event fields and its own parameters (M, G).
    """
    if numpy_form:
        return Density(lambda events, p: peak(events["m"], p[0], p[1]), parameters=["M", "G"],
                       event_fields=["m"], name="peak (numpy)")
    module = compile_model(os.path.join(HERE, "peak_density.pyx"), [vector_length],
                           build_dir=build_dir)[vector_length]
    return Density.from_model(module, precision, name="peak")


def flat_background():
    """A flat background in the numpy form (a background needs no gradient:
    its parameters are fixed during the signal fit)."""
    return Density(lambda events, p: np.ones_like(events["m"]), parameters=[],
                   event_fields=["m"], name="flat background")


def build_fitter(args):
    """The likelihood (parameters, densities, events) and the fitter on it."""
    likelihood = Likelihood(read_parameter_file(os.path.join(HERE, "parameters.dat")),
                            precision=args.precision, vector_length=args.vector_length,
                            threads=args.threads)
    point = likelihood.add_point(signal_density(args.vector_length, args.precision, args.numpy,
                                                args.model_cache))
    point.add_background(flat_background(), "BACKGROUND_FRACTION")
    point.load_normalization_file(os.path.join(args.directory, "mc.root"), "tree", ["m"])
    point.load_data_file(os.path.join(args.directory, "data.root"), "tree", ["m"])
    return Fitter(likelihood, seed=args.seed)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--directory", default="tutorial_output",
                    help="folder for all files (default: tutorial_output)")
    ap.add_argument("--events", type=int, default=10000, help="data events (default: 10000)")
    ap.add_argument("--mc-events", type=int, default=200000,
                    help="normalization MC events (default: 200000)")
    ap.add_argument("--vector-length", type=int, default=8, help="vector length L (default: 8)")
    ap.add_argument("--precision", choices=("float64", "float32"), default="float64",
                    help="precision of the densities (default: float64)")
    ap.add_argument("--threads", type=int, default=None, help="OpenMP threads (default: all CPUs)")
    ap.add_argument("--numpy", action="store_true", help="use the numpy form of the density")
    ap.add_argument("--seed", type=int, default=1,
                    help="seed of the generation and of the initial values (default: 1)")
    ap.add_argument("--model-cache", default=None,
                    help="folder for compiled models (default: vecampfit's cache)")
    args = ap.parse_args(argv)
    os.makedirs(args.directory, exist_ok=True)
    generate(args.directory, args.events, args.mc_events, args.seed)
    fitter = build_fitter(args)
    fitter.migrad()
    fitter.hesse()
    fitter.minos("M")
    out = args.directory
    fitter.write_results(parameters=os.path.join(out, "parameters_result.dat"),
                         text=os.path.join(out, "results.txt"),
                         root=os.path.join(out, "result.root"),
                         density=os.path.join(out, "density.root"))
    print(open(os.path.join(out, "results.txt")).read())
    m = fitter.minuit
    print(f"M = {m.values['M']:.5f} {m.merrors['M'].lower:+.5f} {m.merrors['M'].upper:+.5f} GeV "
          f"(generated {TRUTH['M']})")
    return fitter


if __name__ == "__main__":
    sys.exit(0 if main().minuit.valid else 1)
