"""The cached data term: the fused kernel against the numpy form it replaced, in one run.

The D0 -> K- pi+ pi0 isobar model of the example, 100,000 data events
(phase space), its 8 component amplitudes stored as the cached path stores
them (complex128, 16 bytes per event and component).  The per-chunk rows of
the data term (-2 w ln t, r S and, with the gradient, X_k r conj(A)) by

* ``numpy``: the form of the cached path before the fused kernel (einsum
  for A, numpy logarithm, per-chunk sums of every column);
* ``kernel``: ``_kernels.cached_data_rows``, one pass over the amplitudes,
  at one and two threads.

Reports ns per data event per call, and ns per event of a likelihood call
with 1,000,000 normalization events beside (the normalization is a K x K
matrix product on the cached path and costs nothing per event), the bytes
the call streams (16 K bytes per data event) and the achieved GB/s.
Writes ``benchmarks/results/cached_kernel.md``::

    python benchmarks/bench_cached_kernel.py [--repeat 21]
"""

import argparse
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def numpy_rows(x, c, scale, w, gradient, ce):
    """The cached path's data rows before the fused kernel."""
    from vecampfit.fitter._reduction import chunk_sums
    n = x.shape[1]
    a = np.einsum("k,kn->n", c, x)
    s = a.real * a.real + a.imag * a.imag
    term = scale * s
    lg = np.log(term)
    r = -2 / term
    if w is not None:
        lg, r = w * lg, w * r
    rows = chunk_sums([-2 * lg, r * s], n, ce)
    if not gradient:
        return rows
    ra = r * a.conj()
    parts = []
    group = 8 * ce
    for e0 in range(0, n, group):
        e1 = min(e0 + group, n)
        v = x[:, e0:e1] * ra[e0:e1]
        parts.append(chunk_sums([v.real, v.imag], e1 - e0, ce))
    return np.hstack([rows, np.concatenate(parts, axis=0)])


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=int, default=21)
    p.add_argument("--output", default=os.path.join(HERE, "results", "cached_kernel.md"))
    args = p.parse_args(argv)
    sys.path.insert(0, HERE)
    from bench_isobar import dz_isobar_model, phase_space_records
    from timing import cpu_description, interleaved_samples, load_average, medians, write_report
    from vecampfit.fitter._dispatch import kernels
    from vecampfit.fitter._reduction import chunk_events
    model = dz_isobar_model()
    compiled = model.compile((8,))
    n = 100_000
    records = phase_space_records(model, n, 1)
    x = np.ascontiguousarray(compiled.component_amplitudes(records))
    c = np.array(list(model.couplings(scale=False).values()), dtype=np.complex128)
    K = x.shape[0]
    ce = chunk_events(8)
    n_chunks = -(-n // ce)
    scale = 1.0 / float(np.mean(np.abs(c @ x) ** 2))

    def kernel(gradient, threads):
        rows = np.empty((n_chunks, 2 + (2 * K if gradient else 0)))
        bad = np.empty(n_chunks, dtype=np.intp)
        kernels.cached_data_rows(x.view(np.float64), c.view(np.float64), scale,
                                 np.zeros((0, 1)), np.zeros(0), np.zeros(0), gradient, n, ce,
                                 rows, bad, threads)
        return rows

    for gradient in (False, True):
        ref, got = numpy_rows(x, c, scale, None, gradient, ce), kernel(gradient, 1)
        if not gradient:
            # a value call fills the first column only (the others serve the gradient)
            assert np.all(got[:, 1:] == 0)
            ref, got = ref[:, :1], got[:, :1]
        err = np.max(np.abs(got - ref) / np.maximum(np.abs(ref), 1e-300))
        assert err < 1e-12, err
        assert np.array_equal(kernel(gradient, 1), kernel(gradient, 2))
    contenders = {
        "numpy (before)": lambda g: numpy_rows(x, c, scale, None, g, ce),
        "kernel, 1 thread": lambda g: kernel(g, 1),
        "kernel, 2 threads": lambda g: kernel(g, 2),
    }
    calls = {(name, g): (lambda f=f, g=g: f(g)) for name, f in contenders.items()
             for g in (False, True)}
    times = medians(interleaved_samples(calls, args.repeat)[0])
    # each kernel call repeated alone, as inside a fit (the amplitudes stay in the caches)
    alone = {}
    for key in [(name, g) for name in contenders if name.startswith("kernel")
                for g in (False, True)]:
        alone[key] = medians(interleaved_samples({key: calls[key]}, 3 * args.repeat)[0])[key]
    load = load_average()
    nbytes = 16 * K * n
    lines = ["# The cached data term: fused kernel against the numpy form", "",
             f"`python benchmarks/bench_cached_kernel.py --repeat {args.repeat}` on "
             f"{cpu_description()}; load average {load} "
             "(2 cores).  D0 -> K- pi+ pi0 isobar model, 100,000 data events, K = "
             f"{K} stored component amplitudes ({nbytes / 1e6:.1f} MB streamed per call); "
             "medians of interleaved calls.  Rows equal to the numpy form to 1e-12 "
             "(checked), bit-identical for 1 and 2 threads (checked).  'per event of the "
             "call' divides by 1,100,000 (data + 1,000,000 normalization events, whose "
             "cached term is a K x K product).", "",
             "| data term | value: ns / data event | value: ns / event of the call | "
             "value: GB/s | value + gradient: ns / data event | value + gradient: ns / event "
             "of the call |",
             "|---|---|---|---|---|---|"]
    for name in contenders:
        tv = times[(name, False)]
        tg = times[(name, True)]
        lines.append(f"| {name} | {tv / n * 1e9:.2f} | {tv / 1.1e6 * 1e9:.2f} | "
                     f"{nbytes / tv / 1e9:.1f} | {tg / n * 1e9:.2f} | {tg / 1.1e6 * 1e9:.2f} |")
    base_v = times[("numpy (before)", False)]
    base_g = times[("numpy (before)", True)]
    one_v = times[("kernel, 1 thread", False)]
    one_g = times[("kernel, 1 thread", True)]
    two_v = times[("kernel, 2 threads", False)]
    two_g = times[("kernel, 2 threads", True)]
    lines += ["", f"Kernel against numpy at one thread: value {base_v / one_v:.2f}x, value + "
              f"gradient {base_g / one_g:.2f}x faster.  Two threads against one: value "
              f"{one_v / two_v:.2f}x, value + gradient {one_g / two_g:.2f}x.", "",
              "Interleaved, each call reads the amplitudes after the other contenders' "
              "calls have used the caches.  Each kernel call repeated alone, as inside a "
              "fit:", "",
              "| data term | value: ns / data event | value: GB/s | value + gradient: ns / "
              "data event | value + gradient: GB/s |", "|---|---|---|---|---|"]
    for name in ("kernel, 1 thread", "kernel, 2 threads"):
        tv, tg = alone[(name, False)], alone[(name, True)]
        lines.append(f"| {name} | {tv / n * 1e9:.2f} | {nbytes / tv / 1e9:.1f} | "
                     f"{tg / n * 1e9:.2f} | {nbytes / tg / 1e9:.1f} |")
    write_report("\n".join(lines) + "\n", args.output)


if __name__ == "__main__":
    main()
