"""The e+e- -> K K-bar pi pi example: the resolution parameterization, its fit and the generation models (paper 8.3).

The explicit gradient against finite differences, the normalization of the
density, the fitted widths against the widths the detector simulation used,
the generation-model base classes, and the fit-result histograms (events
generated with the fitted efficiency, smeared with the fitted resolution)
against the simulated MC.
"""

import dataclasses
import os

import numpy as np
import pytest

from vecampfit.fitter import results as fit_results


EXAMPLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples",
                       "epem_kkpipi")
import config  # noqa: E402
import generation_models  # noqa: E402
import resolution  # noqa: E402


@pytest.fixture(scope="module")
def mc_dir(tmp_path_factory):
    import fit_efficiency
    import generate_kkpipi as generate
    d = str(tmp_path_factory.mktemp("epem_res"))
    point = dataclasses.replace(config.POINTS["kpkmpippim_1950_mev"], mc_events=30000,
                                data_events=0, background_events=0)
    generate.generate_point(point, d, 31)
    fit_efficiency.fit_point(point, d)
    return d, point


def _fields(mc_dir, n=None):
    from vecampfit.root_io import read_events
    d, point = mc_dir
    records, _ = read_events(os.path.join(d, point.file("mc")))
    ok = records["reconstructed"].astype(bool)
    records = {k: v[ok][:n] for k, v in records.items()}
    return records, resolution.event_fields(records, point)


def test_gradient_and_normalization(mc_dir):
    _, fields = _fields(mc_dir, 300)
    p = resolution.initial_parameters(fields).values
    p = p + np.random.default_rng(2).normal(0, 1e-4, p.size)
    _, grad = resolution.density(fields, p, True)
    for k in range(p.size):
        h = 1e-7
        pp, pm = p.copy(), p.copy()
        pp[k] += h
        pm[k] -= h
        fd = (resolution.density(fields, pp) - resolution.density(fields, pm)) / (2 * h)
        assert np.max(np.abs(grad[k] - fd)) < 1e-5 * np.max(np.abs(fd)), resolution.PARAMETERS[k]
    # normalized: the integral over one difference of one event's density, the
    # others held, equals the density without that factor
    from scipy.integrate import quad
    one = {k: v[:1].copy() for k, v in fields.items()}
    s, _ = resolution.widths(one, p)
    w = resolution.WIDTHS[4]

    def at(x):
        one[f"x_{w}"] = np.array([x])
        return resolution.density(one, p)[0]

    total, _ = quad(at, -12 * s[w][0], 12 * s[w][0], points=[0.0])
    one[f"x_{w}"] = np.array([0.0])
    assert total == pytest.approx(at(0.0) * np.sqrt(2 * np.pi) * s[w][0], rel=1e-9)


@pytest.mark.slow
def test_fit_recovers_the_simulated_widths_and_the_histograms(mc_dir):
    import fit_resolution
    d, point = mc_dir
    fitter, summary, hist = fit_resolution.fit_point(point, d, fit_result_events=20000)
    assert fitter.minuit.valid
    for name, (ratio, spread) in summary.items():
        # the widths of detector.py are not linear in Phi: a few per cent
        assert abs(ratio - 1) < 0.04, (name, ratio)
        assert abs(spread - 1) < 0.02, (name, spread)
    for name, h in hist.items():
        assert h["chi2"] / h["ndf"] < 2.0, (name, h["chi2"], h["ndf"])
    assert os.path.exists(os.path.join(d, f"maximum_density_efficiency_mc_{point.name}.txt"))
    print({k: round(r, 3) for k, (r, _) in summary.items()})


def test_generation_model_base_classes(mc_dir):
    from vecampfit.fitter.parameters import read_parameter_file
    with pytest.raises(TypeError):
        generation_models.GenerationModel()
    with pytest.raises(TypeError):
        generation_models.GenerationModelResolution()
    d, point = mc_dir
    values = read_parameter_file(os.path.join(d, f"parameters_efficiency_mc_{point.name}.dat")).values
    m = generation_models.EfficiencyGenerationModel(point, values, d, n_maximum=20000)
    m.fill_parameter_buffer()
    with pytest.raises(RuntimeError):
        m.density({})
    top = m.load_maximum_density("test_fit")
    assert 0 < top <= 1
    assert m.load_maximum_density("test_fit") == top   # read back from its file
    ev = m.generate(point, 2000, np.random.default_rng(4))
    assert np.all(m.density(ev) <= 1)
    # accepted events have E distributed as E x phase space: <E>_accepted =
    # <E^2>/<E> over phase space
    from vecampfit import generation
    import common_kkpipi as common
    mm = point.masses()
    ps = generation.generate_events(None, point.sqrt_s, [mm[k] for k in common.PARTICLES], 40000,
                                    names=common.PARTICLES, seed=5)
    e_ps = m.density(ps)
    expected = np.mean(e_ps ** 2) / np.mean(e_ps)
    e_acc = m.density(ev)
    assert abs(np.mean(e_acc) - expected) < 4 * np.std(e_acc) / np.sqrt(len(e_acc))
    assert expected > 1.2 * np.mean(e_ps)


@pytest.fixture(scope="module")
def compiled(model_cache):
    return resolution.compile_density((1, 4), build_dir=model_cache)


def test_compiled_density_equals_numpy(mc_dir, compiled):
    _, fields = _fields(mc_dir, 301)
    p = resolution.initial_parameters(fields).values
    p = p + np.random.default_rng(7).normal(0, 1e-4, p.size)
    ref, gref = resolution.density(fields, p, True)
    d, point = mc_dir
    for length in (1, 4):
        dens = resolution.fitter_density_cython(compiled, point, "float64", length)
        assert dens.parameters == resolution.PARAMETERS
        v, g = dens.evaluate(fields, p, gradient=True)
        np.testing.assert_allclose(v, ref, rtol=1e-12)
        np.testing.assert_allclose(g, gref, rtol=1e-11, atol=1e-12 * np.max(np.abs(gref)))
    bad = p.copy()
    bad[0] = -1.0     # a negative width: NaN in both forms
    assert np.all(np.isnan(dens.evaluate(fields, bad))) and np.all(np.isnan(resolution.density(fields, bad)))


@pytest.mark.slow
def test_compiled_fit_equals_numpy_fit(mc_dir, compiled):
    import fit_resolution
    d, point = mc_dir
    fn, _, _ = fit_resolution.fit_point(point, d, max_events=3000, fit_result_events=2000)
    fc, _, _ = fit_resolution.fit_point(point, d, max_events=3000, fit_result_events=2000,
                                        modules=compiled, vector_length=4)
    assert fc.minuit.valid
    assert fc.minuit.fval == pytest.approx(fn.minuit.fval, abs=1e-5)
    np.testing.assert_allclose(fit_results.values(fc.minuit), fit_results.values(fn.minuit),
                               atol=1e-3 * np.max(fit_results.errors(fn.minuit)))
