"""The background fraction of the D0 -> K- pi+ pi0 signal fit: its expected
small-sample bias and pull mean, and toy studies that measure them.

1. Prediction (``--prediction``, the default): the first-order bias of the
   maximum-likelihood estimates (Cox and Snell, J. R. Stat. Soc. B 30 (1968)
   248) of the fit with Cartesian couplings (14 free) and the background
   fraction, at the generated values (parameters_signal_mc.dat,
   parameters_background.dat, 10 % background), for N data events; and the
   mean of the pull (x - x0) / sigma with sigma the HESSE error, which adds
   to bias / sigma the correlation of the HESSE error with x - x0.  Both
   are of order 1/sqrt(N) in units of the error.  Expectations are sums over
   the example's Dalitz grid (``--grid``).  Also for the fraction alone free
   (the signal shape fixed at the truth).
2. Toys (``--toys N``): N samples generated in memory (the example's
   generators; the number of background events binomial), each fitted on
   the grid normalization with the example's Cartesian sequence from
   random starts (``--free all``) or with only the fraction free and the
   rest at the truth (``--free fraction``), run with vecampfit.studies;
   prints the pull mean and width and the mean of x - x0.

::

    python benchmarks/bench_dz_fraction_bias.py --events 5000 20000 80000
    python benchmarks/bench_dz_fraction_bias.py --toys 400 --events 5000 --free all \\
        --workers 2 --results toys_5000.jsonl

Results in ``benchmarks/results/dz_pulls.md``.
"""

import argparse
import json
import math
import os
import sys
import time

import numpy as np

EXAMPLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples",
                       "dz_kmpippiz")
sys.path.insert(0, EXAMPLE)

import common  # noqa: E402
import fit_signal  # noqa: E402
import generate  # noqa: E402
import pseudoexperiments  # noqa: E402

REFERENCE = fit_signal.REFERENCE


def _grid_model(ngrid):
    """Component amplitudes and background density on the grid.

    Returns
    -------
    y : numpy.ndarray, complex, shape (P + 1, n)
        The reference term (its coupling included), then X_k and i X_k of the
        other components (the derivatives of A by their real and imaginary
        parts).
    c : numpy.ndarray, shape (P + 1,)
        1, then the generated real and imaginary parts: A = c @ y.
    names : list of str
        The P coupling parameters.
    b : numpy.ndarray
        The background density normalized on the grid.
    w : numpy.ndarray
        The grid weights.
    """
    records, w = common.dalitz_grid(ngrid)
    x = common.signal_model().component_amplitudes(records)
    truth = pseudoexperiments.true_values()
    coupling = {k: truth[f"{k}_A"] * np.exp(1j * math.radians(truth[f"{k}_P"])) for k in x}
    y, c, names = [coupling[REFERENCE] * x[REFERENCE]], [1.0], []
    for k in x:
        if k != REFERENCE:
            y += [x[k], 1j * x[k]]
            c += [coupling[k].real, coupling[k].imag]
            names += [f"{k}_RE", f"{k}_IM"]
    background = common.background_polynomial(records, generate.background_parameters())
    return np.array(y), np.array(c), names, background / np.sum(w * background), w


def _sym3(t, v):
    """t_jk v_l + t_jl v_k + t_kl v_j for t (m, P, P) and v (P,)."""
    return (np.einsum("mjk,l->mjkl", t, v) + np.einsum("mjl,k->mjkl", t, v)
            + np.einsum("mkl,j->mjkl", t, v))


def expectations(ngrid=200, fraction=0.1, free_couplings=True, chunk=2000):
    """Per-event expectations of the log-likelihood's derivatives at the truth.

    The per-event density is q = f b + (1 - f) |A|^2 / N_S with A linear in
    the couplings' real and imaginary parts and N_S their quadratic form over
    the grid, so its derivatives are exact.

    Parameters
    ----------
    ngrid : int
        Points per dimension of the grid (common.dalitz_grid).
    fraction : float
        The background fraction f.
    free_couplings : bool
        Parameters: the couplings and f (True) or f alone.
    chunk : int
        Grid points per step.

    Returns
    -------
    names : list of str
    info : numpy.ndarray (p, p)
        Fisher information per event, E[l_r l_s].
    k3 : numpy.ndarray (p, p, p)
        E[l_rst].
    j3 : numpy.ndarray (p, p, p)
        E[l_rs l_t].
    """
    y, c, names, b, w = _grid_model(ngrid)
    n_c = len(c) - 1 if free_couplings else 0
    p = n_c + 1
    m_matrix = np.real((y.conj() * w) @ y.T)
    n_s = c @ m_matrix @ c
    n1 = 2 * (m_matrix @ c)[1:1 + n_c]
    n2 = 2 * m_matrix[1:1 + n_c, 1:1 + n_c]
    f = fraction
    info, k3, j3 = np.zeros((p, p)), np.zeros((p, p, p)), np.zeros((p, p, p))
    for start in range(0, y.shape[1], chunk):
        part = slice(start, start + chunk)
        yc = y[:, part]
        a = c @ yc
        s = np.abs(a) ** 2
        m = len(s)
        s1 = 2 * np.real(np.conj(a)[None, :] * yc[1:1 + n_c]).T
        s2 = 2 * np.real(np.einsum("jm,km->mjk", np.conj(yc[1:1 + n_c]), yc[1:1 + n_c]))
        # h = s / N_S: s and N_S are quadratic, so their third derivatives vanish.
        h = s / n_s
        h1 = s1 / n_s - np.outer(s, n1) / n_s ** 2
        h2 = (s2 / n_s - (np.einsum("mj,k->mjk", s1, n1) + np.einsum("mk,j->mjk", s1, n1))
              / n_s ** 2 - s[:, None, None] * n2 / n_s ** 2
              + 2 * s[:, None, None] * np.outer(n1, n1) / n_s ** 3)
        h3 = (-_sym3(s2, n1) / n_s ** 2
              - (np.einsum("mj,kl->mjkl", s1, n2) + np.einsum("mk,jl->mjkl", s1, n2)
                 + np.einsum("ml,jk->mjkl", s1, n2)) / n_s ** 2
              + 2 * (np.einsum("mj,k,l->mjkl", s1, n1, n1) + np.einsum("mk,j,l->mjkl", s1, n1, n1)
                     + np.einsum("ml,j,k->mjkl", s1, n1, n1)) / n_s ** 3
              + 2 * s[:, None, None, None] * _sym3(n2[None], n1) / n_s ** 3
              - 6 * s[:, None, None, None] * np.einsum("j,k,l->jkl", n1, n1, n1) / n_s ** 4)
        q = f * b[part] + (1 - f) * h
        q1 = np.zeros((m, p))
        q1[:, :n_c], q1[:, n_c] = (1 - f) * h1, b[part] - h
        q2 = np.zeros((m, p, p))
        q2[:, :n_c, :n_c] = (1 - f) * h2
        q2[:, :n_c, n_c] = q2[:, n_c, :n_c] = -h1
        q3 = np.zeros((m, p, p, p))
        q3[:, :n_c, :n_c, :n_c] = (1 - f) * h3
        q3[:, :n_c, :n_c, n_c] = q3[:, :n_c, n_c, :n_c] = q3[:, n_c, :n_c, :n_c] = -h2
        l1 = q1 / q[:, None]
        l2 = q2 / q[:, None, None] - np.einsum("mj,mk->mjk", l1, l1)
        l3 = (q3 / q[:, None, None, None]
              - (np.einsum("mjk,ml->mjkl", q2, q1) + np.einsum("mjl,mk->mjkl", q2, q1)
                 + np.einsum("mkl,mj->mjkl", q2, q1)) / (q ** 2)[:, None, None, None]
              + 2 * np.einsum("mj,mk,ml->mjkl", l1, l1, l1))
        wq = w[part] * q
        info += np.einsum("m,mj,mk->jk", wq, l1, l1)
        k3 += np.einsum("m,mjkl->jkl", wq, l3)
        j3 += np.einsum("m,mjk,ml->jkl", wq, l2, l1)
    return names[:n_c] + [common.BACKGROUND_FRACTION], info, k3, j3


def prediction(n_events, ngrid=200, fraction=0.1, free_couplings=True):
    """Expected bias, error and pull mean of every parameter for N events.

    Parameters
    ----------
    n_events : int
        Data events per fit.
    ngrid, fraction, free_couplings
        As for :func:`expectations`.

    Returns
    -------
    dict
        Parameter name -> ``bias`` (Cox-Snell, of order 1/N), ``error``
        (sqrt of the inverse information), ``pull_mean`` (bias / error minus
        the correlation of the HESSE error with the fitted value,
        E[dx (sigma_hat^2 - sigma^2)] / (2 sigma^3); of order 1/sqrt(N)).
    """
    names, info, k3, j3 = expectations(ngrid, fraction, free_couplings)
    inv = np.linalg.inv(info)
    bias = np.einsum("sr,tu,rtu->s", inv, inv, j3 + 0.5 * k3) / n_events
    error = np.sqrt(np.diag(inv) / n_events)
    out = {}
    for s, name in enumerate(names):
        a = inv[s]
        correlation = (np.einsum("rtu,r,t,u->", j3 + k3, a, a, a)
                       / (2 * math.sqrt(n_events) * a[s] ** 1.5))
        out[name] = dict(bias=float(bias[s]), error=float(error[s]),
                         pull_mean=float(bias[s] / error[s] - correlation))
    return out


# -- toys ----------------------------------------------------------------------

_SETUP = {}


def _setup(ngrid, cache):
    if not _SETUP:
        ps, pb = generate.signal_parameters(), generate.background_parameters()
        signal = common.signal_model().density
        _SETUP.update(grid=common.dalitz_grid(ngrid), ps=ps, pb=pb, signal=signal,
                      smax=generate.maximum(signal, ps),
                      bmax=generate.maximum(common.background_polynomial, pb),
                      cartesian=common.signal_model(True).compile([8], build_dir=cache))
    return _SETUP


def _generate(density, n, rng, params, maximum):
    from vecampfit import generation
    if n == 0:
        return {b: np.zeros((0, 4), np.float32) for b in common.BRANCHES}
    model = common.signal_model()
    momenta = generation.generate_events(density, model.parent_mass,
                                         [model.daughter_mass(k) for k in range(3)], n, params,
                                         names=common.BRANCHES, seed=rng, maximum=maximum)
    return {k: np.asarray(v, dtype=np.float32) for k, v in momenta.items()}


class Toy:
    """One toy: generate a sample in memory and fit it (picklable).

    Parameters
    ----------
    events : int
        Events per sample (background binomial with ``fraction``).
    fraction : float
        Generated background fraction.
    free : {"all", "fraction", "extended"}
        Fit the Cartesian couplings and the fraction from random starts (the
        example's ``--cartesian`` sequence), or the fraction alone; with
        ``"extended"`` also an extended fit of the same sample (yields
        ``N_SIGNAL``, ``N_BACKGROUND`` and the couplings from the same random
        start).
    ngrid : int
        Grid normalization points per dimension.
    cache : str or None
        Folder for compiled models.
    """

    def __init__(self, events, fraction=0.1, free="all", ngrid=400, cache=None):
        self.events, self.fraction, self.free = events, fraction, free
        self.ngrid, self.cache = ngrid, cache

    def __call__(self, index, seed):
        setup = _setup(self.ngrid, self.cache)
        rng = np.random.default_rng(seed)
        n_bkg = int(rng.binomial(self.events, self.fraction))
        sig = _generate(setup["signal"], self.events - n_bkg, rng, setup["ps"],
                        setup["smax"])
        bkg = _generate(common.background_polynomial, n_bkg, rng, setup["pb"],
                        setup["bmax"])
        records = {b: np.concatenate([sig[b], bkg[b]]) for b in common.BRANCHES}
        out = {"n_background": n_bkg}
        fitter = self._fit(records, seed, extended=False)
        m = fitter.minuit
        out.update(fraction=m.values[common.BACKGROUND_FRACTION],
                   fraction_error=m.errors[common.BACKGROUND_FRACTION], valid=bool(m.valid))
        if self.free == "extended":
            m = self._fit(records, seed, extended=True).minuit
            out.update(yields=[m.values["N_SIGNAL"], m.values["N_BACKGROUND"]],
                       yield_errors=[m.errors["N_SIGNAL"], m.errors["N_BACKGROUND"]],
                       extended_valid=bool(m.valid))
        return out

    def _fit(self, records, seed, extended):
        from vecampfit.fitter import FitParameter, Fitter, Likelihood, ParameterTable, \
            read_parameter_file
        setup = _setup(self.ngrid, self.cache)
        parameters = fit_signal.parameter_table(fit_signal.parse(["--cartesian"]))
        background = common.BACKGROUND_FRACTION
        if extended:
            n = self.events
            parameters = ParameterTable(
                [q for q in parameters if q.name != background]
                + [FitParameter("N_SIGNAL", (1 - self.fraction) * n, 1.0, 0.0, 0.0, 0.0),
                   FitParameter("N_BACKGROUND", self.fraction * n, 1.0, 0.0, 0.0, 0.0)],
                source="toy (extended)")
            background = "N_BACKGROUND"
        likelihood = Likelihood(parameters, vector_length=8, threads=1, on_invalid="large",
                                extended=extended)
        point = likelihood.add_point(setup["cartesian"].density("float64", 8),
                                     normalization="grid",
                                     signal_yield="N_SIGNAL" if extended else None)
        point.add_background(common.background_density(8, "float64", self.cache),
                             background,
                             read_parameter_file(os.path.join(EXAMPLE,
                                                              "parameters_background.dat")))
        point.add_normalization_events(*setup["grid"])
        point.add_data(records)
        fitter = Fitter(likelihood, seed=seed % 2 ** 32, randomize=self.free != "fraction",
                        verbose=False)
        if self.free == "fraction":
            fitter.fix_all()
            fitter.release(background)
            fitter.migrad(100000)
            fitter.hesse()
        elif extended:
            fitter.fix_all()
            fitter.release(fit_signal.names("RE", True) + fit_signal.names("IM", True)
                           + ["N_SIGNAL", "N_BACKGROUND"])
            fitter.migrad(100000)
            fitter.hesse()
        else:
            fit_signal.run_sequence(fitter, fit_signal.parse(["--cartesian"]))
        return fitter


def toy_summary(rows, events, fraction=0.1):
    """Pull mean and width, mean of x - x0 and of x - n_B / N of the valid toys.

    Parameters
    ----------
    rows : list of dict
        Study rows (``vecampfit.studies`` results).
    events : int
    fraction : float
        The generated fraction x0.

    Returns
    -------
    dict
        ``n``, ``pull_mean``, ``pull_mean_error``, ``pull_width``,
        ``pull_width_error``, ``shift`` and ``shift_error`` (x - x0),
        ``shift_sample`` and its error (x - n_B / N, the sample's own
        fraction), ``error`` (mean HESSE error); with extended fits also
        ``extended_fraction_difference`` (largest |N_B / (N_S + N_B) - x|)
        and ``extended_total_difference`` (largest |N_S + N_B - N|).
    """
    ok = [r for r in rows if r.get("status") == "ok" and r["valid"]]
    x = np.array([r["fraction"] for r in ok])
    e = np.array([r["fraction_error"] for r in ok])
    nb = np.array([r["n_background"] for r in ok])
    n = len(ok)
    pull = (x - fraction) / e
    width = float(np.std(pull, ddof=1))
    d, ds = x - fraction, x - nb / events
    extra = {}
    if ok and "yields" in ok[0]:
        y = np.array([r["yields"] for r in ok])
        extra = dict(extended_fraction_difference=float(np.max(np.abs(y[:, 1] / y.sum(1) - x))),
                     extended_total_difference=float(np.max(np.abs(y.sum(1) - events))),
                     extended_valid=sum(r["extended_valid"] for r in ok))
    return dict(**extra, n=n, pull_mean=float(pull.mean()), pull_mean_error=width / math.sqrt(n),
                pull_width=width, pull_width_error=width / math.sqrt(2 * (n - 1)),
                shift=float(d.mean()), shift_error=float(d.std(ddof=1) / math.sqrt(n)),
                shift_sample=float(ds.mean()),
                shift_sample_error=float(ds.std(ddof=1) / math.sqrt(n)), error=float(e.mean()))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--events", type=int, nargs="+", default=[5000, 20000, 80000])
    p.add_argument("--grid", type=int, default=200,
                   help="grid points per dimension of the expectations")
    p.add_argument("--toys", type=int, default=0, help="number of toys (0: prediction only)")
    p.add_argument("--free", choices=("all", "fraction", "extended"), default="all")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--results", default=None, help="results file of the toy study (resumable)")
    p.add_argument("--model-cache", default=None)
    args = p.parse_args(argv)
    if not args.toys:
        for free in (False, True):
            for n in args.events:
                r = prediction(n, args.grid, free_couplings=free)[common.BACKGROUND_FRACTION]
                print(f"{'couplings and fraction' if free else 'fraction alone':22s} N = {n:6d}: "
                      f"bias {r['bias']:+.6f}, error {r['error']:.6f}, bias / error "
                      f"{r['bias'] / r['error']:+.3f}, pull mean {r['pull_mean']:+.3f}")
        return
    from vecampfit import studies
    if len(args.events) != 1:
        p.error("toys need one --events")
    n = args.events[0]
    executor = studies.process_executor(args.workers, 1) if args.workers > 1 else None
    t0 = time.perf_counter()
    try:
        table = studies.run_study(Toy(n, free=args.free, cache=args.model_cache), args.toys,
                                  seed=args.seed, executor=executor, results=args.results,
                                  progress=False)
    finally:
        if executor is not None:
            executor.shutdown()
    s = toy_summary(list(table.ok), n)
    print(json.dumps(s))
    print(f"{s['n']} toys of {n} events ({args.free} free): pull mean {s['pull_mean']:+.3f} "
          f"+- {s['pull_mean_error']:.3f}, width {s['pull_width']:.3f} +- "
          f"{s['pull_width_error']:.3f}; x - x0 {s['shift']:+.6f} +- {s['shift_error']:.6f}; "
          f"x - nB/N {s['shift_sample']:+.6f} +- {s['shift_sample_error']:.6f}; "
          f"{time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
