"""Tests of vecampfit.fitter.likelihood: the value of F against a direct numpy
evaluation of the paper's formulas for every kind of fit, the analytic
gradient against finite differences, bit-identical results for any number
of threads, and clear errors on bad input."""

import numpy as np
import pytest

from vecampfit.fitter import (Density, DensityError, EventBufferError, Likelihood,
                              LikelihoodError, FitParameter, ParameterTable)
from vecampfit.fitter import _reduction as reduction_module

from numeric_checks import central_difference
from toy_reference import gauss, gauss_gradient, gauss_integral, gauss_integral_gradient


def python_density():
    def f(events, p):
        return gauss(events["x"].astype(np.float64), p)

    def fg(events, p):
        return gauss_gradient(events["x"].astype(np.float64), p)
    return Density(f, fg, parameters=["mu", "sigma"], event_fields=["x"], name="gauss")


def block_density(toy_models, L, precision="float64"):
    return Density.from_model(toy_models[L], precision, model="gauss", name="gauss")


def linear_density(toy_models, L, kind, precision="float64"):
    if kind == "python":
        return Density(lambda ev, p: 1 + p[0] * ev["x"], parameters=["c"], event_fields=["x"],
                       name="linear")
    return Density.from_model(toy_models[L], precision, model="linear", name="linear")


def table(*names_values):
    return ParameterTable([FitParameter(n, v, 0.01) for n, v in names_values])


RNG = np.random.default_rng(2024)
X_DATA = RNG.uniform(0, 1, 1001)          # not a multiple of any L: padding is exercised
X_MC = RNG.uniform(0, 1, 4003)
W_DATA = RNG.uniform(0.5, 1.5, X_DATA.size)
W_MC = RNG.uniform(0.2, 2.0, X_MC.size)
P = np.array([0.45, 0.18, 0.22, 0.1])     # mu, sigma, f_B1, f_B2


def make(kind, toy_models, L, fit, precision="float64", threads=1):
    """A likelihood of the given fit kind and its numpy reference F(p)."""
    dens = python_density() if kind == "python" else block_density(toy_models, L, precision)
    lin = lambda: linear_density(toy_models, L, kind, precision)  # noqa: E731
    if fit == "mc_background":
        lk = Likelihood(table(("mu", .5), ("sigma", .2), ("fb1", .2), ("fb2", .1)),
                        precision=precision, vector_length=L, threads=threads)
        pt = lk.add_point(dens)
        pt.add_background(lin(), "fb1", [0.5])
        pt.add_background(lin(), "fb2", [-0.7])
        pt.add_data({"x": X_DATA}, W_DATA)
        pt.add_normalization_events({"x": X_MC}, W_MC)

        def ref(p):
            s = (1 - p[2] - p[3]) * gauss(X_DATA, p) / np.dot(W_MC, gauss(X_MC, p))
            b1 = p[2] * (1 + .5 * X_DATA) / np.dot(W_MC, 1 + .5 * X_MC)
            b2 = p[3] * (1 - .7 * X_DATA) / np.dot(W_MC, 1 - .7 * X_MC)
            return np.sum(-2 * W_DATA * np.log(s + b1 + b2))
        return lk, ref, P
    if fit == "grid":
        xg, wg = np.polynomial.legendre.leggauss(40)
        xg, wg = (xg + 1) / 2, wg / 2
        lk = Likelihood(table(("mu", .5), ("sigma", .2)), precision=precision, vector_length=L,
                        threads=threads)
        pt = lk.add_point(dens, normalization="grid")
        pt.add_data({"x": X_DATA})
        pt.add_normalization_events({"x": xg}, wg)
        return lk, (lambda p: np.sum(-2 * np.log(gauss(X_DATA, p) / np.dot(wg, gauss(xg, p))))), \
            P[:2]
    if fit == "formula":
        lk = Likelihood(table(("mu", .5), ("sigma", .2)), precision=precision, vector_length=L,
                        threads=threads)
        pt = lk.add_point(dens, normalization="formula")
        pt.set_integral_function(gauss_integral, gauss_integral_gradient)
        pt.add_data({"x": X_DATA})
        return lk, (lambda p: np.sum(-2 * np.log(gauss(X_DATA, p) / gauss_integral(p)))), P[:2]
    if fit == "none":
        lk = Likelihood(table(("mu", .5), ("sigma", .2)), precision=precision, vector_length=L,
                        threads=threads)
        pt = lk.add_point(dens, normalization="none")
        pt.add_data({"x": X_DATA}, W_DATA)
        return lk, (lambda p: np.sum(-2 * W_DATA * np.log(gauss(X_DATA, p)))), P[:2]
    if fit == "extended":
        lk = Likelihood(table(("mu", .5), ("sigma", .2), ("ns", 800), ("nb", 200)),
                        precision=precision, vector_length=L, threads=threads, extended=True)
        pt = lk.add_point(dens, signal_yield="ns")
        pt.add_background(lin(), "nb", [0.5])
        pt.add_data({"x": X_DATA})
        pt.add_normalization_events({"x": X_MC})

        def ref(p):
            n = p[2] + p[3]
            s = p[2] / n * gauss(X_DATA, p) / np.sum(gauss(X_MC, p))
            b = p[3] / n * (1 + .5 * X_DATA) / np.sum(1 + .5 * X_MC)
            return np.sum(-2 * np.log(s + b)) + 2 * (n - X_DATA.size * np.log(n))
        return lk, ref, np.array([0.45, 0.18, 850.0, 170.0])
    if fit == "simultaneous_priors":
        lk = Likelihood(table(("mu", .5), ("sigma", .2), ("fa", .2), ("fb", .1)),
                        precision=precision, vector_length=L, threads=threads)
        xa, xb = X_DATA[:600], X_DATA[600:]
        pa = lk.add_point(dens)
        pa.add_background(lin(), "fa", [0.5])
        pa.add_data({"x": xa})
        pa.add_normalization_events({"x": X_MC})
        pb = lk.add_point(dens)
        pb.add_background(lin(), "fb", [-0.5])
        pb.add_data({"x": xb})
        pb.add_normalization_events({"x": X_MC[:2000]}, W_MC[:2000])
        lk.add_prior("sigma", 0.2, 0.01, 0.03)
        lk.set_prior_function(lambda p: (p[0] - 0.5) ** 2 / 0.04 ** 2,
                              lambda p: np.array([2 * (p[0] - 0.5) / 0.04 ** 2, 0, 0, 0]))

        def ref(p):
            fa = (1 - p[2]) * gauss(xa, p) / np.sum(gauss(X_MC, p)) + \
                p[2] * (1 + .5 * xa) / np.sum(1 + .5 * X_MC)
            m, w = X_MC[:2000], W_MC[:2000]
            fb = (1 - p[3]) * gauss(xb, p) / np.dot(w, gauss(m, p)) + \
                p[3] * (1 - .5 * xb) / np.dot(w, 1 - .5 * m)
            s = p[1] - 0.2
            prior = (s / (0.01 if s < 0 else 0.03)) ** 2 + (p[0] - 0.5) ** 2 / 0.04 ** 2
            return np.sum(-2 * np.log(fa)) + np.sum(-2 * np.log(fb)) + prior
        return lk, ref, P
    raise ValueError(fit)


FITS = ["mc_background", "grid", "formula", "none", "extended", "simultaneous_priors"]


@pytest.mark.parametrize("fit", FITS)
@pytest.mark.parametrize("kind,L", [("python", 8), ("block", 1), ("block", 4), ("block", 8)])
def test_value_equals_paper_formula(toy_models, fit, kind, L):
    lk, ref, p = make(kind, toy_models, L, fit)
    value, _ = lk.evaluate(p)
    expected = ref(p)
    rel = abs(value - expected) / abs(expected)
    print(f"{fit} {kind} L={L}: F = {value:.15g}, relative difference {rel:.2e}")
    assert rel < 1e-12


@pytest.mark.parametrize("fit", FITS)
@pytest.mark.parametrize("kind", ["python", "block"])
def test_gradient_against_finite_differences(toy_models, fit, kind):
    lk, ref, p = make(kind, toy_models, 8, fit)
    value, grad = lk.evaluate(p, gradient=True)
    assert value == lk.evaluate(p)[0]
    fd = np.empty_like(p)
    for k in range(p.size):
        fd[k] = central_difference(ref, p, k, 1e-6 * max(1.0, abs(p[k])))
    scale = np.abs(fd).max()
    err = np.abs(grad - fd).max() / scale
    print(f"{fit} {kind}: gradient vs finite differences, largest difference {err:.2e} of max|dF|")
    assert err < 1e-6


@pytest.mark.parametrize("chunk_events", [None, 64])
@pytest.mark.parametrize("fit", ["mc_background", "simultaneous_priors"])
def test_threads_give_bit_identical_results(toy_models, fit, chunk_events, monkeypatch):
    # With 64-event chunks the threads take many chunks each, in an order
    # that changes from call to call (dynamic schedule).
    if chunk_events is not None:
        monkeypatch.setattr(reduction_module, "CHUNK_EVENTS", chunk_events)
    lk1, _, p = make("block", toy_models, 4, fit, threads=1)
    lk2, _, _ = make("block", toy_models, 4, fit, threads=2)
    v1, g1 = lk1.evaluate(p, gradient=True)
    for _ in range(5):
        v2, g2 = lk2.evaluate(p, gradient=True)
        assert v1 == v2
        assert np.array_equal(g1, g2)


def test_float32_densities_sum_in_double(toy_models):
    lk64, ref, p = make("block", toy_models, 8, "mc_background")
    lk32, _, _ = make("block", toy_models, 8, "mc_background", precision="float32")
    v64, g64 = lk64.evaluate(p, gradient=True)
    v32, g32 = lk32.evaluate(p, gradient=True)
    rel = abs(v32 - v64) / abs(v64)
    print(f"float32 vs float64: relative difference of F {rel:.2e}")
    # float32 densities are accurate to ~1e-7 relative; F sums 1001 logarithms.
    assert rel < 1e-6
    np.testing.assert_allclose(g32, g64, rtol=1e-3, atol=1e-3 * np.abs(g64).max())


def test_wrong_precision_or_vector_length_is_an_error(toy_models):
    lk = Likelihood(table(("mu", .5), ("sigma", .2)), vector_length=8)
    with pytest.raises(DensityError, match="vector length 4"):
        lk.add_point(block_density(toy_models, 4))
    lk32 = Likelihood(table(("mu", .5), ("sigma", .2)), vector_length=8, precision="float32")
    with pytest.raises(DensityError, match="float64"):
        lk32.add_point(block_density(toy_models, 8))
    c = toy_models[8].vecampfit_model()["gauss"]["functions"]["float64"]
    with pytest.raises(DensityError, match="expected a density_gradient"):
        Density(c["density"], c["density"], parameters=["mu", "sigma"], event_fields=["x"])
    with pytest.raises(DensityError, match="expected a density function"):
        Density(c["fill_parameter_buffer"], parameters=["mu", "sigma"], event_fields=["x"])


def test_invalid_density_values_name_point_density_and_event(toy_models):
    lk = Likelihood(table(("mu", .5), ("sigma", .2)), vector_length=8)
    pt = lk.add_point(block_density(toy_models, 8))
    pt.add_data({"x": X_DATA})
    pt.add_normalization_events({"x": X_MC})
    with pytest.raises(LikelihoodError, match=r"fit point 0: signal density 'gauss'.*nan"):
        lk.evaluate([np.nan, 0.2])
    # A data event far from mu: the Gaussian underflows to 0 there.
    lkz = Likelihood(table(("mu", .5), ("sigma", .2)), vector_length=8)
    ptz = lkz.add_point(block_density(toy_models, 8))
    ptz.add_data({"x": np.concatenate([X_DATA[:10], [50.0]])})
    ptz.add_normalization_events({"x": X_MC})
    with pytest.raises(LikelihoodError, match="likelihood argument is not positive at data event "
                                              "10 "):
        lkz.evaluate([0.5, 0.2])
    lkz.on_invalid = "large"
    assert lkz.evaluate([0.5, 0.2])[0] == Likelihood.LARGE_VALUE

    neg = Density(lambda ev, p: ev["x"] - 0.5 + 0 * p[0], parameters=["mu", "sigma"],
                  event_fields=["x"], name="negative")
    lk2 = Likelihood(table(("mu", .5), ("sigma", .2)))
    pt2 = lk2.add_point(neg)
    pt2.add_data({"x": X_DATA})
    pt2.add_normalization_events({"x": X_MC})
    with pytest.raises(LikelihoodError, match=r"signal density 'negative'.*density is -0\.\d+ at "
                                              r"normalization event"):
        lk2.evaluate([0.5, 0.2])

    zero = Density(lambda ev, p: 0 * ev["x"], parameters=["mu", "sigma"], event_fields=["x"],
                   name="zero")
    lk3 = Likelihood(table(("mu", .5), ("sigma", .2)))
    pt3 = lk3.add_point(zero)
    pt3.add_data({"x": X_DATA})
    pt3.add_normalization_events({"x": X_MC})
    with pytest.raises(LikelihoodError, match="normalization integral is 0"):
        lk3.evaluate([0.5, 0.2])


@pytest.mark.parametrize("threads", [1, 2])
def test_first_invalid_event_is_reported_whatever_the_chunks_and_threads(toy_models, threads,
                                                                        monkeypatch):
    # Small chunks, handed out dynamically: the invalid events lie in
    # different chunks and blocks, and the first of them must be named.
    monkeypatch.setattr(reduction_module, "CHUNK_EVENTS", 64)
    rng = np.random.default_rng(7)
    x_mc = rng.uniform(0, 0.9, 5003)
    x_mc[[4100, 2999, 3000, 1234]] = 1.5          # 1 - x < 0 there
    lk = Likelihood(table(("c", -1.0)), vector_length=8, threads=threads)
    pt = lk.add_point(linear_density(toy_models, 8, "block"))
    pt.add_data({"x": rng.uniform(0, 0.9, 3001)})
    pt.add_normalization_events({"x": x_mc})
    with pytest.raises(LikelihoodError, match=r"density is -0\.5 at normalization event 1234 "):
        lk.evaluate([-1.0])

    x_data = rng.uniform(0.3, 0.7, 3001)
    x_data[[2900, 777, 1500]] = 50.0              # the Gaussian underflows to 0 there
    lkz = Likelihood(table(("mu", .5), ("sigma", .2)), vector_length=8, threads=threads)
    ptz = lkz.add_point(block_density(toy_models, 8))
    ptz.add_data({"x": x_data})
    ptz.add_normalization_events({"x": rng.uniform(0, 1, 5003)})
    for gradient in (False, True):
        with pytest.raises(LikelihoodError, match="not positive at data event 777 "):
            lkz.evaluate([0.5, 0.2], gradient=gradient)


def test_a_negative_density_is_found_where_a_background_keeps_the_argument_positive(
        toy_models, monkeypatch):
    # 1 - x < 0 at data events 1700 and 2500, but f_B b(x) keeps the likelihood
    # argument positive there: the signal density itself must be named, in
    # value and gradient calls, with and without weights, in small and
    # default chunks.
    flat = Density(lambda ev, p: np.ones_like(ev["x"]), parameters=[], event_fields=["x"],
                   name="flat")
    rng = np.random.default_rng(8)
    x_data = rng.uniform(0, 0.9, 3001)
    x_data[[2500, 1700]] = 1.2
    for chunk in (64, 2048):
        monkeypatch.setattr(reduction_module, "CHUNK_EVENTS", chunk)
        for weights in (None, rng.uniform(0.5, 1.5, x_data.size)):
            lk = Likelihood(table(("c", -1.0), ("fb", 0.9)), vector_length=8)
            pt = lk.add_point(linear_density(toy_models, 8, "block"))
            pt.add_background(flat, "fb")
            pt.add_data({"x": x_data}, weights)
            pt.add_normalization_events({"x": rng.uniform(0, 0.9, 5003)})
            for gradient in (False, True):
                with pytest.raises(LikelihoodError,
                                   match=r"density is -0\.(2|19999)\d* at data event 1700 "):
                    lk.evaluate([-1.0, 0.9], gradient=gradient)
            x_ok = np.where(x_data > 1, 0.5, x_data)
            lk2 = Likelihood(table(("c", -1.0), ("fb", 0.9)), vector_length=8)
            pt2 = lk2.add_point(linear_density(toy_models, 8, "block"))
            pt2.add_background(flat, "fb")
            pt2.add_data({"x": x_ok}, weights)
            pt2.add_normalization_events({"x": rng.uniform(0, 0.9, 5003)})
            assert np.isfinite(lk2.evaluate([-1.0, 0.9])[0])


def test_bad_set_up_is_reported(toy_models):
    lk = Likelihood(table(("mu", .5), ("sigma", .2), ("f", .1)))
    pt = lk.add_point(python_density(), normalization="formula")
    with pytest.raises(ValueError, match="formula normalization is for fits without background"):
        pt.add_background(python_density(), "f")
    with pytest.raises(KeyError, match="unknown parameter 'fraction'"):
        lk.add_point(python_density()).add_background(python_density(), "fraction")
    p2 = lk.add_point(python_density())
    with pytest.raises(EventBufferError, match="needs event field 'x'"):
        p2.add_data({"y": X_DATA})
    with pytest.raises(EventBufferError, match="not finite at event 3"):
        p2.add_data({"x": np.array([0.1, 0.2, 0.3, np.inf])})
    lk_empty = Likelihood(table(("mu", .5), ("sigma", .2)))
    pe = lk_empty.add_point(python_density())
    pe.add_normalization_events({"x": X_MC})
    with pytest.raises(EventBufferError, match="data of fit point 0: no events"):
        lk_empty.evaluate([0.5, 0.2])
    with pytest.raises(ValueError, match="normalization must be one of"):
        Likelihood(table(("mu", .5))).add_point(python_density(), normalization="vegas")
    lk_f = Likelihood(table(("mu", .5), ("sigma", .2)))
    lk_f.add_point(python_density(), normalization="formula").add_data({"x": X_DATA})
    with pytest.raises(ValueError, match="needs an integral function"):
        lk_f.evaluate([0.5, 0.2])


# ----------------------------------------------------------------------------
# Parameters bound by name, bad set-ups named before anything runs
# ----------------------------------------------------------------------------

def test_densities_bind_their_parameters_by_name(toy_models):
    """The order of the table does not matter, a density may use a subset,
    and two points share the parameters they name alike."""
    lk, ref, p = make("block", toy_models, 4, "simultaneous_priors")
    value, grad = lk.evaluate(p, gradient=True)
    order = [3, 1, 0, 2]          # fb, sigma, mu, fa
    names = [("mu", .5), ("sigma", .2), ("fa", .2), ("fb", .1)]
    shuffled = Likelihood(table(*[names[k] for k in order]), vector_length=4, threads=1)
    xa, xb = X_DATA[:600], X_DATA[600:]
    pa = shuffled.add_point(block_density(toy_models, 4))
    pa.add_background(linear_density(toy_models, 4, "block"), "fa", {"c": 0.5})
    pa.add_data({"x": xa})
    pa.add_normalization_events({"x": X_MC})
    pb = shuffled.add_point(block_density(toy_models, 4))
    pb.add_background(linear_density(toy_models, 4, "block"), "fb", [-0.5])
    pb.add_data({"x": xb})
    pb.add_normalization_events({"x": X_MC[:2000]}, W_MC[:2000])
    shuffled.add_prior("sigma", 0.2, 0.01, 0.03)
    shuffled.set_prior_function(lambda q: (q[2] - 0.5) ** 2 / 0.04 ** 2,
                                lambda q: np.array([0, 0, 2 * (q[2] - 0.5) / 0.04 ** 2, 0]))
    v2, g2 = shuffled.evaluate(p[order], gradient=True)
    assert v2 == pytest.approx(value, rel=1e-14)
    np.testing.assert_allclose(g2, grad[order], rtol=1e-12)
    np.testing.assert_array_equal(shuffled.parameter_map(pa.signal), [2, 1])


def test_a_table_that_lacks_a_model_parameter_names_it_and_the_file(toy_models, tmp_path):
    from vecampfit.fitter import ParameterFileError, read_parameter_file
    path = tmp_path / "parameters.dat"
    path.write_text("mu 0.5 0.01 0 0 0\n")          # one line short of the model
    lk = Likelihood(read_parameter_file(path), vector_length=4)
    with pytest.raises(ParameterFileError, match=rf"needs parameter\(s\) sigma, which {path} does "
                                                 r"not have"):
        lk.add_point(block_density(toy_models, 4))
    # A parameter of the table that nothing uses (a typo, a stale line).
    path.write_text("mu 0.5 0.01 0 0 0\nsigma 0.2 0.01 0 0 0\nsigmaa 0.2 0.01 0 0 0\n")
    lk = Likelihood(read_parameter_file(path), vector_length=4)
    pt = lk.add_point(block_density(toy_models, 4))
    pt.add_data({"x": X_DATA})
    pt.add_normalization_events({"x": X_MC})
    with pytest.raises(ParameterFileError, match=rf"{path}: parameter\(s\) sigmaa are used by no "
                                                 r"density"):
        lk.evaluate([0.5, 0.2, 0.2])
    assert not pt.data_events.frozen                  # nothing was prepared
    lk.unused_parameters = "ignore"
    assert np.isfinite(lk.evaluate([0.5, 0.2, 0.2])[0])


def test_background_parameter_values_must_match_the_density(toy_models, tmp_path):
    from vecampfit.fitter import ParameterFileError, read_parameter_file
    lk = Likelihood(table(("mu", .5), ("sigma", .2), ("f", .1)), vector_length=4)
    pt = lk.add_point(block_density(toy_models, 4))
    with pytest.raises(DensityError, match=r"background 1: 2 parameter values given for density "
                                           r"'linear', which has 1 \(c\)"):
        pt.add_background(linear_density(toy_models, 4, "block"), "f", [0.5, 0.1])
    with pytest.raises(DensityError, match="missing: c; unknown: C"):
        pt.add_background(linear_density(toy_models, 4, "block"), "f", {"C": 0.5})
    path = tmp_path / "background.dat"
    path.write_text("d 0.5 0.01 0 0 0\n")
    with pytest.raises(ParameterFileError, match=rf"{path} has no line for parameter\(s\) c"):
        pt.add_background(linear_density(toy_models, 4, "block"), "f", read_parameter_file(path))
    path.write_text("c 0.5 0.01 0 0 0\n")
    bg = pt.add_background(linear_density(toy_models, 4, "block"), "f", read_parameter_file(path))
    np.testing.assert_array_equal(bg.parameters, [0.5])


def test_extended_fit_with_a_non_positive_total_yield_is_an_error(toy_models):
    lk, _, p = make("block", toy_models, 4, "extended")
    bad = p.copy()
    bad[2:] = [100.0, -100.0]
    with pytest.raises(LikelihoodError, match=r"total yield N = 0\.0 is not positive \(signal "
                                              r"yield ns = 100\.0, nb = -100\.0\)"):
        lk.evaluate(bad)
    lk.on_invalid = "large"
    assert lk.evaluate(bad)[0] == Likelihood.LARGE_VALUE


def test_threads_and_vector_length_are_checked(monkeypatch):
    import vecampfit.fitter.likelihood as lkmod
    monkeypatch.setattr(lkmod, "available_cpus", lambda: 2)
    with pytest.warns(RuntimeWarning, match="threads=8 is more than the 2 CPUs.*using 2"):
        assert Likelihood(table(("mu", .5)), threads=8).threads == 2
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    assert Likelihood(table(("mu", .5))).threads == 1
    monkeypatch.setenv("OMP_NUM_THREADS", "two")
    with pytest.raises(ValueError, match="OMP_NUM_THREADS='two' is not an integer"):
        Likelihood(table(("mu", .5)))
    monkeypatch.delenv("OMP_NUM_THREADS")
    assert Likelihood(table(("mu", .5))).threads == 2
    for bad in (1.5, "2", True, 0):
        with pytest.raises(ValueError, match="threads must be"):
            Likelihood(table(("mu", .5)), threads=bad)
    for bad in (8.0, "8", True, 0, -4):
        with pytest.raises(ValueError, match="vector_length must be a positive integer"):
            Likelihood(table(("mu", .5)), vector_length=bad)


def test_the_likelihood_is_an_iminuit_cost_function(toy_models):
    from iminuit import Minuit
    rng = np.random.default_rng(3)
    lk = Likelihood(ParameterTable([FitParameter("mu", 0.5, 0.01, 0, 1, 0),
                                    FitParameter("sigma", 0.2, 0.01, 0.01, 1, 0)]),
                    vector_length=8, threads=1)
    pt = lk.add_point(block_density(toy_models, 8))
    pt.add_data({"x": np.clip(rng.normal(0.45, 0.12, 3000), 0, 1)})
    pt.add_normalization_events({"x": rng.uniform(0, 1, 30000)})
    m = Minuit(lk, *lk.initial_values)
    assert m.parameters == ("mu", "sigma")
    assert m.errordef == 1.0
    assert m.limits["sigma"] == (0.01, 1)
    m.migrad()
    assert m.valid and m.fmin.ngrad > 0          # the analytic gradient was used
    assert abs(m.values["mu"] - 0.45) < 4 * m.errors["mu"]
    assert lk(np.array(m.values)) == lk.evaluate(np.array(m.values))[0] == lk(*m.values)
    np.testing.assert_array_equal(lk.grad(np.array(m.values)),
                                  lk.evaluate(np.array(m.values), gradient=True)[1])


def test_a_failed_preparation_leaves_the_buffers_as_they_were(toy_models):
    lk = Likelihood(table(("mu", .5), ("sigma", .2)), vector_length=4)
    pt = lk.add_point(block_density(toy_models, 4))
    pt.add_data({"x": X_DATA})
    with pytest.raises(EventBufferError, match="normalization events of fit point 0: no events"):
        lk.evaluate([0.5, 0.2])
    assert not pt.data_events.frozen and not pt.prepared
    pt.add_normalization_events({"x": X_MC})        # the data were not frozen: this works
    pt.add_data({"x": X_DATA[:3]})
    value = lk.evaluate([0.5, 0.2])[0]
    x = np.concatenate([X_DATA, X_DATA[:3]])
    ref = np.sum(-2 * np.log(gauss(x, [0.5, 0.2]) / np.sum(gauss(X_MC, [0.5, 0.2]))))
    assert value == pytest.approx(ref, rel=1e-12)


def test_a_file_that_fails_part_way_keeps_none_of_its_events(toy_models, tmp_path):
    from vecampfit import root_io
    path = tmp_path / "data.root"
    root_io.write_tree(path, {"x": X_DATA})
    lk = Likelihood(table(("mu", .5), ("sigma", .2), ("f", .1)), vector_length=4)
    pt = lk.add_point(block_density(toy_models, 4))
    pt.add_background(linear_density(toy_models, 4, "block"), "f", [0.5])
    pt.add_data({"x": X_DATA[:10]})
    calls = []

    def failing(arrays):
        calls.append(len(arrays["x"]))
        if len(calls) == 3:
            raise RuntimeError("a corrupt chunk")
        return {"x": arrays["x"]}

    with pytest.raises(RuntimeError, match="a corrupt chunk"):
        pt.load_data_file(path, map_records=failing, step_size=100)
    assert len(calls) == 3
    assert all(buf.n_events == 10 for buf in pt.data.values())
    pt.load_data_file(path)
    assert all(buf.n_events == 10 + X_DATA.size for buf in pt.data.values())
    np.testing.assert_array_equal(pt.data_events.field("x")[10:], X_DATA)


def test_precision_is_the_relative_precision_minuit_assumes(toy_models):
    """iminuit reads ``precision`` from a cost function: the likelihood gives
    a number, 4 eps of float64 (what Minuit2 assumes for double precision),
    for float32 densities too (the sums are in float64); the precision of
    the densities is ``density_precision``."""
    from iminuit import Minuit
    for precision in ("float64", "float32"):
        lk, _, p = make("block", toy_models, 8, "mc_background", precision=precision)
        assert lk.precision == 4 * np.finfo(np.float64).eps == 2.0 ** -50
        assert lk.density_precision == precision
        m = Minuit(lk, *lk.initial_values)
        assert m.precision == lk.precision
