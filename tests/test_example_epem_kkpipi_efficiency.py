"""The e+e- -> K K-bar pi pi example: the efficiency parameterization and its fit (paper 8.2).

The protection function g against its definition, the explicit gradient of
the efficiency density against central finite differences, the fit with the
explicit gradient against the same fit with Minuit's numerical gradient, and
the fitted efficiency against the reconstructed fraction in the projections.
"""

import os

import numpy as np
import pytest

from vecampfit.fitter import results as fit_results


EXAMPLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples",
                       "epem_kkpipi")
import config  # noqa: E402
import efficiency  # noqa: E402


@pytest.fixture(scope="module")
def mc_dir(tmp_path_factory):
    import generate_kkpipi as generate
    d = str(tmp_path_factory.mktemp("epem_eff"))
    for name in ("kpkmpippim_2000_mev", "kskspippim_1900_mev"):
        point = config.POINTS[name]
        import dataclasses
        generate.generate_point(dataclasses.replace(point, mc_events=12000, data_events=0,
                                                    background_events=0), d, 11)
    return d


def test_protection_function():
    e1, e2 = efficiency.EPSILON_1, efficiency.EPSILON_2
    x = np.array([-1.0, 0.0, 1e-16, 1e-15, 0.3, 1 - 2e-5, 1 - e2, 1 - e2 + 1e-6, 1.0, 2.0, 1e6])
    g, dg = efficiency.protection(x)
    ref = []
    for v in x:
        if v < e1:
            ref.append(e1)
        elif v < 1 - e2:
            ref.append(v)
        else:
            y = v - (1 - e2)
            ref.append(1 - e2 + e2 * y / (e2 + y))
    np.testing.assert_allclose(g, ref, rtol=1e-15)
    # below 1 for every E/w the fit meets (E <= 1, w = R > 0.9), so that ln(1 - g) is finite
    assert np.all(g[x <= 2] < 1) and np.all(g >= e1) and np.all(g <= 1)
    # continuous with a continuous derivative at 1 - epsilon_2, derivative by differences
    h = 1e-9
    for v in (0.5, 1 - e2 + 3e-6, 1 - e2 + 2e-5):
        fd = (efficiency.protection(v + h)[0] - efficiency.protection(v - h)[0]) / (2 * h)
        assert efficiency.protection(v)[1] == pytest.approx(fd, rel=1e-5)
    assert efficiency.protection(1 - e2)[1] == pytest.approx(1.0)


@pytest.mark.parametrize("name", ["kpkmpippim_2000_mev", "kskspippim_1900_mev"])
@pytest.mark.parametrize("data_efficiency", [False, True])
def test_gradient_against_finite_differences(mc_dir, name, data_efficiency):
    from vecampfit.root_io import read_events
    point = config.POINTS[name]
    records, _ = read_events(os.path.join(mc_dir, point.file("mc")))
    records = {k: v[:400] for k, v in records.items()}
    fields = efficiency.event_fields(records, point, data_efficiency)
    table = efficiency.initial_parameters(point)
    rng = np.random.default_rng(3)
    p = table.values.copy()
    nc = len(efficiency.chebyshev_terms(point.efficiency_order))
    p[:nc] += rng.normal(0, 0.01, nc)
    p[nc + 6:nc + 13] = rng.normal(0, 0.1, 7)
    _, grad = efficiency.efficiency_density(fields, p, point, True)
    worst = 0.0
    for k, pname in enumerate(table.names):
        h = 1e-6 * max(1.0, abs(p[k]))
        pp, pm = p.copy(), p.copy()
        pp[k] += h
        pm[k] -= h
        fd = (efficiency.efficiency_density(fields, pp, point)
              - efficiency.efficiency_density(fields, pm, point)) / (2 * h)
        scale = np.max(np.abs(fd))
        if scale == 0:
            assert np.all(grad[k] == 0), pname
            continue
        err = np.max(np.abs(grad[k] - fd)) / scale
        worst = max(worst, err)
        assert err < 1e-5, (pname, err)
    print(f"{name}: largest gradient difference from finite differences {worst:.1e}")


@pytest.mark.slow
def test_fit_with_explicit_gradient_agrees_with_numerical(mc_dir):
    """Same minimum with the explicit gradient and with Minuit's numerical
    one (values within 0.1 of their errors, F within 0.01), and the fitted
    efficiency describes the projections (chi2 per bin below 2)."""
    import fit_efficiency
    point = config.POINTS["kpkmpippim_2000_mev"]
    fa, proj = fit_efficiency.fit_point(point, mc_dir, gradient=True)
    fn, _ = fit_efficiency.fit_point(point, mc_dir, gradient=False)
    assert fa.minuit.valid and fn.minuit.valid
    assert fa.minuit.fval == pytest.approx(fn.minuit.fval, abs=1e-2)
    free = [i for i, p in enumerate(fa.likelihood.parameters) if p.step > 0]
    xa, xn = fit_results.values(fa.minuit), fit_results.values(fn.minuit)
    d = np.abs(xa[free] - xn[free]) / fit_results.errors(fa.minuit)[free]
    assert np.max(d) < 0.1, dict(zip(np.array(fa.likelihood.parameters.names)[free], d))
    for name, h in proj.items():
        assert h["chi2"] / h["ndf"] < 2.0, (name, h["chi2"], h["ndf"])
    print(f"F = {fa.minuit.fval:.4f} (explicit, {fa.minuit.nfcn} calls) and "
          f"{fn.minuit.fval:.4f} (numerical, {fn.minuit.nfcn} calls); "
          f"largest |difference| / error {np.max(d):.3f}")
    assert os.path.exists(os.path.join(mc_dir, f"parameters_efficiency_mc_{point.name}.dat"))


@pytest.fixture(scope="module")
def compiled(model_cache):
    import common_kkpipi as common
    return common.compile_efficiency_density((1, 4), build_dir=model_cache)


def test_compiled_efficiency_equals_numpy(mc_dir, compiled):
    """efficiency_density.pyx (with the polynomial tool's code, active order 1)
    equals the numpy form, values and gradient, to 1e-12 (float64): also with
    non-zero order-2 correction coefficients, which both must ignore."""
    from vecampfit.root_io import read_events
    for name in ("kpkmpippim_2000_mev", "kskspippim_1900_mev"):
        point = config.POINTS[name]
        records, _ = read_events(os.path.join(mc_dir, point.file("mc")))
        records = {k: v[:301] for k, v in records.items()}
        p = efficiency.initial_parameters(point).values.copy()
        rng = np.random.default_rng(5)
        nc = len(efficiency.chebyshev_terms(point.efficiency_order))
        p[:nc] += rng.normal(0, 0.01, nc)
        p[nc + 6:] = rng.normal(0, 0.1, 35)
        for data_efficiency in (False, True):
            fields = efficiency.event_fields(records, point, data_efficiency)
            ref, gref = efficiency.efficiency_density(fields, p, point, True)
            for length in (1, 4):
                d = efficiency.density_cython(compiled, point, "float64", length, data_efficiency)
                assert d.parameters == tuple(efficiency.parameter_names(point))
                v, g = d.evaluate(fields, p, gradient=True)
                np.testing.assert_allclose(v, ref, rtol=1e-12)
                np.testing.assert_allclose(g, gref, rtol=1e-10, atol=1e-12 * np.max(np.abs(gref)))
                assert np.all(g[nc + 13:] == 0)
            d32 = efficiency.density_cython(compiled, point, "float32", 4, data_efficiency)
            np.testing.assert_allclose(d32.evaluate(fields, p), ref, rtol=1e-3, atol=1e-5)


@pytest.mark.slow
def test_compiled_fit_equals_numpy_fit(mc_dir, compiled):
    import fit_efficiency
    point = config.POINTS["kpkmpippim_2000_mev"]
    fn, _ = fit_efficiency.fit_point(point, mc_dir, max_events=6000)
    fc, _ = fit_efficiency.fit_point(point, mc_dir, max_events=6000, modules=compiled,
                                     vector_length=4)
    assert fc.minuit.valid
    assert fc.minuit.fval == pytest.approx(fn.minuit.fval, abs=1e-6)
    np.testing.assert_allclose(fit_results.values(fc.minuit), fit_results.values(fn.minuit),
                               atol=1e-3 * np.max(fit_results.errors(fn.minuit)))
