"""A short demonstration of vecampfit.

1. Compiles the D0 -> K- pi+ pi0 signal density (CLEO model, a user's
   Cython model in examples/dz_kmpippiz/) for several vector lengths, as a
   user's own model is compiled, for this machine's CPU.
2. Checks it against the same model in plain numpy on points of the Dalitz
   plot, in float64 and float32.
3. Times it per event for each vector length and precision next to numpy.
4. Prints the Dalitz-plot density as a coarse text map.

Run from the repository root: ``python examples/demo.py`` (``--events N``
for the timing sample, ``--lengths 1,4,8,16``).
"""

import argparse
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "dz_kmpippiz"))

import model  # noqa: E402  (the example's numpy model)
from common import MASSES, SIGNAL_CONSTANTS  # noqa: E402  (PDG 2024 masses, GeV)

import vecampfit  # noqa: E402
from vecampfit import complex_vector as cv  # noqa: E402
from vecampfit import high_energy_physics as hep  # noqa: E402
from vecampfit.fitter import Density  # noqa: E402
from vecampfit.model_compiler import compile_model  # noqa: E402


def dalitz_sample(n, rng):
    """Points uniform in the Dalitz plot (m^2(K- pi+), m^2(K- pi0)), with their event fields."""
    md, mk, mpi, mpi0 = MASSES["md"], MASSES["km"], MASSES["pip"], MASSES["piz"]
    s1, s2 = [], []
    while sum(len(x) for x in s1) < n:
        a = rng.uniform((mk + mpi) ** 2, (md - mpi0) ** 2, 2 * n)
        b = rng.uniform((mk + mpi0) ** 2, (md - mpi) ** 2, 2 * n)
        with np.errstate(invalid="ignore"):
            fields = model.event_buffer_fields(a, b, MASSES)
        inside = np.all([np.isfinite(v) for v in fields.values()], axis=0)
        s1.append(a[inside])
        s2.append(b[inside])
    a, b = np.concatenate(s1)[:n], np.concatenate(s2)[:n]
    return a, b, model.event_buffer_fields(a, b, MASSES)


def best_time(fn, repeat=3):
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def text_map(a, b, values, width=48, height=20):
    """Average density in cells of the Dalitz plot, drawn with characters."""
    shades = " .:-=+*#%@"
    ia = ((a - a.min()) / (a.max() - a.min()) * (width - 1)).astype(int)
    ib = ((b - b.min()) / (b.max() - b.min()) * (height - 1)).astype(int)
    total = np.zeros((height, width))
    count = np.zeros((height, width))
    np.add.at(total, (ib, ia), values)
    np.add.at(count, (ib, ia), 1)
    mean = np.where(count > 0, total / np.maximum(count, 1), np.nan)
    # Logarithmic shading over three decades below the maximum; blank outside the plot.
    level = np.clip((np.log10(np.maximum(mean, 1e-300) / np.nanmax(mean)) + 3) / 3, 0, 1)
    lines = []
    for row_mean, row_level in zip(mean[::-1], level[::-1]):
        lines.append("|" + "".join(" " if np.isnan(v) else shades[1 + int(8 * x + 0.5)]
                                   for v, x in zip(row_mean, row_level)) + "|")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description="vecampfit demonstration")
    ap.add_argument("--events", type=int, default=100_000, help="events for the timing (default 100000)")
    ap.add_argument("--lengths", default="1,4,8,16", help="vector lengths to compile (default 1,4,8,16)")
    args = ap.parse_args()
    lengths = [int(x) for x in args.lengths.split(",")]
    rng = np.random.default_rng(2026)
    vecampfit.show_config()

    print("\nBuilding blocks: a rho(770)+ Breit-Wigner amplitude and its phase-space factor")
    m = np.linspace(0.5, 1.0, 6)
    q = np.sqrt((m**2 - (0.13957 + 0.13498) ** 2) * (m**2 - (0.13957 - 0.13498) ** 2)) / (2 * m)
    q0 = 0.3616
    bw = hep.breit_wigner_q_f_nophsp(m, q, q0, 0.770, 0.1507, 1.5, 1)
    for mi, b, b2 in zip(m, bw, cv.absolute_value_squared(bw)):
        print(f"  m = {mi:.3f} GeV: B = {b.real:+9.3f} {b.imag:+9.3f}i GeV^-2, |B|^2 = {b2:9.3f}")

    print(f"\nCompiling the D0 -> K- pi+ pi0 signal density for L = {lengths} (cached after the first run) ...")
    t = time.perf_counter()
    mods = compile_model(os.path.join(HERE, "dz_kmpippiz", "signal_density.pyx"), lengths)
    print(f"  done in {time.perf_counter() - t:.1f} s")
    params = np.array([model.default_parameters()[n] for n in model.parameter_names()])

    a, b, fields = dalitz_sample(2000, rng)
    reference = model.signal_density(fields, params, MASSES)
    print("\nCython density against the numpy model on 2000 Dalitz-plot points:")
    dens = {(length, precision): Density.from_model(mod, precision, constants=SIGNAL_CONSTANTS)
            for length, mod in mods.items() for precision in ("float64", "float32")}
    for length in mods:
        v64 = dens[length, "float64"].evaluate(fields, params)
        v32 = dens[length, "float32"].evaluate(fields, params)
        print(f"  L = {length:2d}: largest relative difference float64 {np.max(np.abs(v64 / reference - 1)):.1e}, "
              f"float32 {np.max(np.abs(v32 / reference - 1)):.1e}")

    n = args.events
    big_a, big_b, big = dalitz_sample(n, rng)
    t_numpy = best_time(lambda: model.signal_density(big, params, MASSES), 2) / n * 1e9
    print(f"\nTime per event ({n} events; numpy model: {t_numpy:.1f} ns):")
    print(f"  {'L':>3} {'float64 ns':>11} {'float32 ns':>11} {'numpy/float64':>14}")
    for length in mods:
        d64, d32 = dens[length, "float64"], dens[length, "float32"]
        blocks64, blocks32 = d64.event_buffer(big), d32.event_buffer(big)
        t64 = best_time(lambda: d64.evaluate(blocks64, params)) / n * 1e9
        t32 = best_time(lambda: d32.evaluate(blocks32, params)) / n * 1e9
        print(f"  {length:>3} {t64:11.1f} {t32:11.1f} {t_numpy / t64:14.1f}")

    print("\nSignal density over the Dalitz plot, logarithmic shading "
          "(x: m^2(K- pi+), y: m^2(K- pi0)):")
    values = dens[lengths[-1], "float64"].evaluate(big, params)
    print(text_map(big_a, big_b, values))


if __name__ == "__main__":
    main()
