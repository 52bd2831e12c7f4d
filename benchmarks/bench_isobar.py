"""Generated isobar densities against the hand-written ones, in one run.

Compiles the D0 -> K- pi+ pi0 (CLEO) and GenFit3K models twice: the
hand-written Cython (benchmarks/dz_handwritten/signal_density.pyx,
benchmarks/genfit3k_handwritten/genfit3k_density.pyx)
and the densities vecampfit.isobar generates from the declarations in
examples/*/isobar_model*.py; times the density alone (one thread) over the
same events for each vector length, precision, with and without gradient,
and prints ns per event and the ratio generated / hand-written at the best
L of each (the calls interleaved round by round, best round of each); also for the generated density with masses and widths compiled
in as constants (IsobarModel.freeze).

    python benchmarks/bench_isobar.py [--events N] [--lengths 4,8,16] [--repeat 5]
                                      [--output benchmarks/results/isobar.md]
"""

import importlib.util
import os
import sys

import numpy as np

from timing import benchmark_parser, interleaved_samples, minima, cpu_description, write_report

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def load_example(folder, name, alias, isobar=None):
    """The module ``name`` of ``examples/<folder>``, imported as ``alias``
    (its folder put on the path for its own imports); with ``isobar``, its
    ``vecampfit.isobar`` imports take that package instead."""
    folder = os.path.join(ROOT, "examples", folder)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    saved = sys.modules.get("vecampfit.isobar")
    if isobar is not None:
        sys.modules["vecampfit.isobar"] = isobar
    try:
        spec = importlib.util.spec_from_file_location(alias, os.path.join(folder, name + ".py"))
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    finally:
        if saved is not None:
            sys.modules["vecampfit.isobar"] = saved
    return mod


def dz_isobar_model():
    """The D0 -> K- pi+ pi0 isobar model of examples/dz_kmpippiz/isobar_model.py
    (``build()``), not compiled."""
    return load_example("dz_kmpippiz", "isobar_model", "isobar_model").build()


def phase_space_records(model, n, seed):
    """``n`` phase-space events of an isobar model's decay (random ``seed``)
    as its records: variable name -> squared invariant mass m^2 = E^2 - |p|^2
    of its pair of daughters (GeV^2)."""
    from vecampfit import generation
    masses = [model.daughter_mass(k) for k in range(3)]
    p = generation.phase_space(model.parent_mass, masses, n, seed=seed).momenta

    def m2(a, b):
        q = p[a] + p[b]
        return q[:, 3] ** 2 - np.sum(q[:, :3] ** 2, axis=1)
    return {name: m2(*pair) for name, pair in model.variables.items()}


def density_call(density, records, values, gradient):
    """A call of ``density`` alone (one thread) over an event buffer of
    ``records``, at the parameters ``values`` (name -> value)."""
    buf = density.event_buffer(records, records=True)
    p = [values[k] for k in density.parameters]
    return lambda: density.evaluate(buf, p, gradient, threads=1)


def interleaved_ns(calls, repeat, n):
    """ns per event of each of ``calls`` over ``n`` events, interleaved: every
    round times each call once, so that a slow spell of the host affects all
    of them alike; the best of ``repeat`` rounds counts."""
    wall, _ = interleaved_samples(calls, repeat)
    return {k: 1e9 * t / n for k, t in minima(wall).items()}


def _frozen(model):
    """The model with its masses and widths compiled in as constants."""
    return model.freeze([p for p in model.parameter_names() if p.endswith(("_M", "_G"))])


def dz_setup(lengths, n, seed):
    from vecampfit import generation
    sys.path.insert(0, os.path.join(HERE, "dz_handwritten"))
    import handwritten
    hm = handwritten.dz_reference
    im = load_example("dz_kmpippiz", "isobar_model", "dz_isobar")
    m = hm.MASSES
    ev = generation.phase_space(m["md"], [m["km"], m["pip"], m["piz"]], n, seed=seed)
    recs = {"km_momentum": ev.momenta[0], "pip_momentum": ev.momenta[1],
            "pi0_momentum": ev.momenta[2]}
    s1, s2 = hm.dalitz_variables(recs)
    records = {"m2_km_pip": s1, "m2_km_piz": s2}
    hand = handwritten.compile_signal(lengths)
    model = im.build()
    gen = model.compile(lengths)
    frozen = _frozen(model).compile(lengths, name="isobar_dz_frozen")
    names = hm.parameter_names()
    x = dict(hm.default_parameters())

    def densities(length, precision, gradient):
        return (handwritten.signal_density(hand, length, precision, gradient),
                gen.density(precision, length, gradient=gradient),
                frozen.density(precision, length, gradient=gradient))
    return "D0 -> K- pi+ pi0 (CLEO)", densities, records, x, names


def g3k_events(n):
    """n events (m13Sq, m23Sq) from Laura++'s GenFit3K pseudoexperiments, repeated."""
    from vecampfit.root_io import read_events
    recs, _ = read_events(os.path.join(ROOT, "examples", "laura_genfit3k", "data",
                                       "toys_expt_0-9.root"), "toys", ["m13Sq", "m23Sq"])
    reps = -(-n // len(recs["m13Sq"]))
    return {k: np.tile(np.asarray(v, dtype=np.float64), reps)[:n] for k, v in recs.items()}


def g3k_setup(lengths, n, seed):
    sys.path.insert(0, os.path.join(HERE, "genfit3k_handwritten"))
    import genfit3k_handwritten as hw
    im = load_example("laura_genfit3k", "isobar_model3k", "g3k_isobar")
    records = g3k_events(n)
    hand = hw.compile_density(lengths)
    model = im.build()
    gen = model.compile(lengths)
    frozen = _frozen(model).compile(lengths, name="isobar_g3k_frozen")
    norm = {"PHI": 0.7, "F2": 1.3, "NR": 2.1}
    consts = {f"N_{k}": v for k, v in norm.items()}
    x = model.values()

    def densities(length, precision, gradient):
        return (hw.signal_density(hand[length], precision, norm, gradient),
                gen.density(precision, length, gradient=gradient, constants=consts),
                frozen.density(precision, length, gradient=gradient, constants=consts))
    return "B+ -> K+ K+ K- (GenFit3K)", densities, records, x, list(hw.PARAMETER_NAMES)


def run(setup, lengths, n, repeat, seed):
    title, densities, records, x, names = setup(lengths, n, seed)
    rows = []
    for precision in ("float64", "float32"):
        for gradient in (False, True):
            calls = {}
            for length in lengths:
                hand, gen, frozen = densities(length, precision, gradient)
                for label, d in (("hand", hand), ("generated", gen), ("frozen", frozen)):
                    calls[label, length] = density_call(d, records, x, gradient)
            times = interleaved_ns(calls, repeat, n)
            best = {k: min(lengths, key=lambda L: times[k, L])
                    for k in ("hand", "generated", "frozen")}
            rows.append((precision, gradient, times, best))
    return title, rows


def report(results, lengths, n, repeat):
    out = ["# Generated isobar densities against hand-written ones", "",
           f"{n} events, one thread, {cpu_description()}, "
           f"ns per event (best of {repeat} interleaved rounds).", ""]
    for title, rows in results:
        out += [f"## {title}", "",
                "hand: the hand-written Cython (benchmarks/*_handwritten); gen: generated "
                "from isobar_model*.py; frozen: generated with masses and widths compiled in "
                "as constants (no gradient rows "
                "for them).", "",
                "| precision | gradient | " + " | ".join(f"hand L={L} | gen L={L} | frozen L={L}"
                                                       for L in lengths)
                + " | best hand | best gen | gen/hand | frozen/hand |",
                "|" + "---|" * (2 + 3 * len(lengths) + 4)]
        for precision, gradient, t, best in rows:
            cells = " | ".join(f"{t['hand', L]:.2f} | {t['generated', L]:.2f} | "
                               f"{t['frozen', L]:.2f}" for L in lengths)
            bh, bg, bf = best["hand"], best["generated"], best["frozen"]
            out.append(f"| {precision} | {'yes' if gradient else 'no'} | {cells} | "
                       f"{t['hand', bh]:.2f} (L={bh}) | {t['generated', bg]:.2f} (L={bg}) | "
                       f"{t['generated', bg] / t['hand', bh]:.3f} | "
                       f"{t['frozen', bf] / t['hand', bh]:.3f} |")
        out.append("")
    return "\n".join(out)


def main(argv=None):
    ap = benchmark_parser(__doc__, repeat=5, events=200_000, lengths="4,8,16", seed=1,
                          models="dz,g3k", output=None)
    args = ap.parse_args(argv)
    lengths = [int(x) for x in args.lengths.split(",")]
    setups = {"dz": dz_setup, "g3k": g3k_setup}
    results = [run(setups[k], lengths, args.events, args.repeat, args.seed)
               for k in args.models.split(",")]
    write_report(report(results, lengths, args.events, args.repeat) + "\n", args.output)

if __name__ == "__main__":
    main()
