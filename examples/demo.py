"""A short demonstration of vecampfit.

1. Compiles the D0 -> K- pi+ pi0 signal density (CLEO model, declared with
   vecampfit.isobar in examples/dz_kmpippiz/isobar_model.py) for several
   vector lengths, for this machine's CPU.
2. Checks it against the same model evaluated in numpy on points of the
   Dalitz plot, in float64 and float32.
3. Times it per event for each vector length and precision next to numpy.
4. Prints the Dalitz-plot density as a coarse text map.

Run from the repository root: ``python examples/demo.py`` (``--events N``
for the timing sample, ``--lengths 1,4,8,16``).
"""

import argparse
import time

import numpy as np

import vecampfit
from dz_kmpippiz import isobar_model  # the example's folder beside this program
from vecampfit import complex_vector as cv
from vecampfit import high_energy_physics as hep
from vecampfit import numeric_integration


def dalitz_sample(model, n, rng):
    """Points uniform in the Dalitz plot: records ``m2_km_pip``, ``m2_km_piz`` (GeV^2)."""
    md, (km, pip, piz) = model.parent_mass, (model.daughter_mass(k) for k in range(3))
    a, b = np.empty(0), np.empty(0)
    while len(a) < n:
        x = rng.uniform((km + pip) ** 2, (md - piz) ** 2, 2 * n)
        y = rng.uniform((km + piz) ** 2, (md - pip) ** 2, 2 * n)
        # m_ab = m(pi+ K-), m_bc = m(K- pi0): the range of m^2(K- pi0) at m^2(K- pi+).
        lower, upper = numeric_integration.dalitz_range(x, md, pip, km, piz)
        inside = (y > lower) & (y < upper)
        a, b = np.concatenate([a, x[inside]]), np.concatenate([b, y[inside]])
    return {"m2_km_pip": a[:n], "m2_km_piz": b[:n]}


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
    model = isobar_model.build()
    compiled = model.compile(lengths)
    print(f"  done in {time.perf_counter() - t:.1f} s")
    params = np.array([model.values()[n] for n in compiled.parameters])

    records = dalitz_sample(model, 2000, rng)
    reference = model.density(records)
    print("\nCython density against the numpy evaluation on 2000 Dalitz-plot points:")
    dens = {(length, precision): compiled.density(precision, length)
            for length in lengths for precision in ("float64", "float32")}
    for length in lengths:
        v64 = dens[length, "float64"].evaluate(dens[length, "float64"].event_buffer(
            records, records=True), params)
        v32 = dens[length, "float32"].evaluate(dens[length, "float32"].event_buffer(
            records, records=True), params)
        print(f"  L = {length:2d}: largest relative difference float64 {np.max(np.abs(v64 / reference - 1)):.1e}, "
              f"float32 {np.max(np.abs(v32 / reference - 1)):.1e}")

    n = args.events
    big = dalitz_sample(model, n, rng)
    t_numpy = best_time(lambda: model.density(big), 2) / n * 1e9
    print(f"\nTime per event ({n} events; numpy evaluation: {t_numpy:.1f} ns):")
    print(f"  {'L':>3} {'float64 ns':>11} {'float32 ns':>11} {'numpy/float64':>14}")
    for length in lengths:
        d64, d32 = dens[length, "float64"], dens[length, "float32"]
        blocks64 = d64.event_buffer(big, records=True)
        blocks32 = d32.event_buffer(big, records=True)
        t64 = best_time(lambda: d64.evaluate(blocks64, params)) / n * 1e9
        t32 = best_time(lambda: d32.evaluate(blocks32, params)) / n * 1e9
        print(f"  {length:>3} {t64:11.1f} {t32:11.1f} {t_numpy / t64:14.1f}")

    print("\nSignal density over the Dalitz plot, logarithmic shading "
          "(x: m^2(K- pi+), y: m^2(K- pi0)):")
    d = dens[lengths[-1], "float64"]
    values = d.evaluate(d.event_buffer(big, records=True), params)
    print(text_map(big["m2_km_pip"], big["m2_km_piz"], values))


if __name__ == "__main__":
    main()
