"""Tests of vecampfit.fitter.components: the cached evaluation of a density
with components gives the full path's F and gradient (to 1e-10 relative),
with backgrounds, weights, extended fits and two fit points; the cache is
rebuilt when a parameter that is not a coupling changes; fits with the
cache reach the full path's minimum."""

import numpy as np
import pytest

from vecampfit.fitter import (Density, DensityError, Fitter, Likelihood, Parameter,
                              ParameterTable)
from vecampfit.fitter.components import Components
from vecampfit.model_compiler import compile_model

P0 = {"M1": 0.77, "G1": 0.15, "M2": 1.3, "G2": 0.2, "A2": 0.8, "P2": 60.0, "R3": 0.3,
      "I3": -0.4}
COUPLINGS = ("A2", "P2", "R3", "I3")


@pytest.fixture(scope="module")
def model(model_cache, models_dir):
    return compile_model(f"{models_dir}/component_model.pyx", [4], build_dir=model_cache)[4]


def reference(m, p):
    """S = |X1 + A2 e^(i P2) X2 + (R3 + i I3)|^2, written here independently."""
    x1 = 1 / (p["M1"] ** 2 - m ** 2 - 1j * p["M1"] * p["G1"])
    x2 = 1 / (p["M2"] ** 2 - m ** 2 - 1j * p["M2"] * p["G2"])
    a = x1 + p["A2"] * np.exp(1j * np.deg2rad(p["P2"])) * x2 + (p["R3"] + 1j * p["I3"])
    return np.abs(a) ** 2


def table(extra=()):
    return ParameterTable([Parameter(n, v, 0.01) for n, v in P0.items()]
                          + [Parameter(n, v, 0.01, lo, hi) for n, v, lo, hi in extra])


RNG = np.random.default_rng(11)
M_DATA = RNG.uniform(0.5, 1.6, 3001)
M_MC = RNG.uniform(0.4, 1.7, 20003)
W_DATA = RNG.uniform(0.5, 1.5, M_DATA.size)
W_MC = RNG.uniform(0.5, 2.0, M_MC.size)


def flat(name="flat"):
    return Density(lambda ev, p: np.ones_like(ev["m"]), parameters=[], event_fields=["m"],
                   name=name)


def build(model, kind, cache, precision="float64"):
    sig = Density.from_model(model, precision)
    if kind == "background":
        lk = Likelihood(table([("FB", 0.2, 0, 1)]), vector_length=4, threads=2, cache=cache,
                        precision=precision)
        pt = lk.add_point(sig)
        pt.add_background(flat(), "FB")
        pt.add_data({"m": M_DATA}, W_DATA)
        pt.add_normalization_events({"m": M_MC}, W_MC)
        x = np.array(list(P0.values()) + [0.2])
    elif kind == "extended":
        lk = Likelihood(table([("NS", 2500, 0, 0), ("NB", 500, 0, 0)]), vector_length=4,
                        threads=1, cache=cache, extended=True, precision=precision)
        pt = lk.add_point(sig, signal_yield="NS")
        pt.add_background(flat(), "NB")
        pt.add_data({"m": M_DATA})
        pt.add_normalization_events({"m": M_MC})
        x = np.array(list(P0.values()) + [2500.0, 500.0])
    else:   # two fit points sharing the signal parameters, each with its background fraction
        lk = Likelihood(table([("FA", 0.1, 0, 1), ("FB", 0.3, 0, 1)]), vector_length=4,
                        threads=2, cache=cache, precision=precision)
        for frac, sl in (("FA", slice(0, 1500)), ("FB", slice(1500, None))):
            pt = lk.add_point(sig)
            pt.add_background(flat(frac), frac)
            pt.add_data({"m": M_DATA[sl]}, W_DATA[sl])
            pt.add_normalization_events({"m": M_MC[sl.start or 0:(sl.stop or 30000) * 5]})
        x = np.array(list(P0.values()) + [0.1, 0.3])
    return lk, x


def test_components_and_couplings(model):
    d = Density.from_model(model, "float64")
    comp = d.components
    assert comp.names == ("X1", "X2", "X3") and comp.n_components == 3
    assert [d.parameters[k] for k in comp.coupling_parameters] == list(COUPLINGS)
    p = np.array(list(P0.values()))
    c = comp.couplings(p)
    np.testing.assert_allclose(c, [1, 0.8 * np.exp(1j * np.pi / 3), 0.3 - 0.4j], rtol=1e-15)
    # The Jacobian against finite differences of the couplings.
    jac = comp.coupling_jacobian(p)
    for j in range(p.size):
        h = 1e-6 * max(1, abs(p[j]))
        up, dn = p.copy(), p.copy()
        up[j] += h
        dn[j] -= h
        np.testing.assert_allclose(jac[:, j], (comp.couplings(up) - comp.couplings(dn)) / (2 * h),
                                   atol=1e-8)
    np.testing.assert_allclose(d.evaluate({"m": M_DATA}, p), reference(M_DATA, P0), rtol=1e-13)
    with pytest.raises(DensityError, match="coupling parameter 'A9' is not a parameter"):
        Components(["a"], [("polar", "A9", "P2")], comp.function, d.parameters)
    with pytest.raises(DensityError, match="the coupling's two parameters are both 'R3'"):
        Components(["a"], [("cartesian", "R3", "R3")], comp.function, d.parameters)
    # A phase shared by two components: its derivative is the sum of both.
    shared = Components(["a", "b", "c"], [("polar_degrees", "A2", "P2"),
                                          ("polar_degrees", "R3", "P2"), ("fixed", 1, 0)],
                        comp.function, d.parameters)
    jac = shared.coupling_jacobian(p)
    h = 1e-6
    up, dn = p.copy(), p.copy()
    up[5] += h
    dn[5] -= h
    np.testing.assert_allclose(jac[:, 5], (shared.couplings(up) - shared.couplings(dn)) / (2 * h),
                               atol=1e-8)
    with pytest.raises(DensityError, match="is not \\(form, a, b\\)"):
        Components(["a"], [("exponential", "R3", "I3")], comp.function, d.parameters)


@pytest.mark.parametrize("kind", ["background", "extended", "two_points"])
def test_cached_path_equals_the_full_path(model, kind):
    full, x = build(model, kind, "never")
    cached, _ = build(model, kind, "always")
    cached.free_parameters = list(COUPLINGS) + [n for n in full.parameters.names if n not in P0]
    rng = np.random.default_rng(5)
    for trial in range(3):
        y = x.copy()
        for name in COUPLINGS:
            y[full.parameter_index(name)] *= rng.uniform(0.7, 1.3)
        v_full, g_full = full.evaluate(y, gradient=True)
        v_cached, g_cached = cached.evaluate(y, gradient=True)
        rel = abs(v_cached - v_full) / abs(v_full)
        free = [full.parameter_index(n) for n in cached.free_parameters]
        grel = np.max(np.abs(g_cached[free] - g_full[free])) / np.max(np.abs(g_full[free]))
        print(f"{kind}: F full {v_full:.12g}, cached relative difference {rel:.1e}, gradient "
              f"{grel:.1e}")
        assert rel < 1e-10
        assert grel < 1e-9
    # One cache of the data amplitudes per point and one matrix per
    # normalization sample, built once for the three parameter points.
    ev = cached.signal_evaluator(cached.points[0].signal, True)
    assert ev.rebuilds == 2 * len(cached.points)


def test_the_cache_follows_the_other_parameters(model):
    full, x = build(model, "background", "never")
    cached, _ = build(model, "background", "always")
    for name, factor in (("M1", 1.01), ("G2", 0.9)):
        x[full.parameter_index(name)] *= factor
        assert cached.evaluate(x)[0] == pytest.approx(full.evaluate(x)[0], rel=1e-10)
    ev = cached.signal_evaluator(cached.points[0].signal)
    assert ev.rebuilds == 4
    # "auto" uses the cache only when nothing but couplings of the density is free.
    auto, _ = build(model, "background", "auto")
    assert auto.signal_evaluator(auto.points[0].signal) is auto._evaluator(auto.points[0].signal)
    auto.free_parameters = ["A2", "P2", "FB"]
    assert auto.signal_evaluator(auto.points[0].signal) is not \
        auto._evaluator(auto.points[0].signal)
    auto.free_parameters = ["A2", "P2", "M1"]
    assert auto.signal_evaluator(auto.points[0].signal) is auto._evaluator(auto.points[0].signal)
    with pytest.raises(ValueError, match="cache must be 'auto', 'always' or 'never'"):
        Likelihood(table(), cache="yes")


def test_a_fit_with_the_cache_reaches_the_full_minimum(model):
    """A fit of the couplings and the background fraction: the cached fit and
    the fit on the full path end at the same values, to 1e-4 of the errors."""
    results = {}
    for cache in ("never", "auto"):
        f = Fitter(table([("FB", 0.2, 0, 1)]), vector_length=4, threads=1, seed=3,
                   verbose=False, cache=cache)
        pt = f.add_point(Density.from_model(model, "float64"))
        pt.add_background(flat(), "FB")
        pt.add_data({"m": M_DATA})
        pt.add_normalization_events({"m": M_MC})
        f.fix_all()
        f.release(*COUPLINGS, "FB")
        f.migrad(hesse=True)
        assert f.minuit.valid
        results[cache] = (f.values, f.errors, f.minuit.fval)
    (v0, e0, f0), (v1, e1, f1) = results["never"], results["auto"]
    free = e0 > 0
    print(f"F {f0:.10f} (full) {f1:.10f} (cached); largest difference of the values "
          f"{np.max(np.abs(v1 - v0)[free] / e0[free]):.1e} errors")
    assert abs(f1 - f0) < 1e-6
    assert np.all(np.abs(v1 - v0)[free] < 1e-4 * e0[free])
    np.testing.assert_allclose(e1[free], e0[free], rtol=1e-3)
