"""The e+e- -> K K-bar pi pi example: the background parameterization and its fit (paper 8.4).

The compiled polynomial (the polynomial tool's code) against the numpy
form, and the fit with MC normalization recovering the coefficients the
background was generated with (pulls), with projections described.
"""

import dataclasses
import os
import sys

import numpy as np
import pytest

EXAMPLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples",
                       "epem_kkpipi")
sys.path.insert(0, EXAMPLE)
import background  # noqa: E402
import common  # noqa: E402
import config  # noqa: E402
from vecampfit import generation  # noqa: E402


@pytest.fixture(scope="module")
def compiled(model_cache):
    return background.compile_density((4,), build_dir=model_cache)


def test_truth_is_positive_and_named_like_the_tool():
    from vecampfit.polynomial_parameters import exponents
    assert background.PARAMETERS[0] == "BKG_0_0_0_0_0_0_0" and len(background.PARAMETERS) == 36
    assert [common.background_parameter_name(e) for e in exponents(2, 7)] == \
        list(background.PARAMETERS)
    v = np.random.default_rng(1).uniform(-1, 1, (7, 100000))
    assert np.min(common.polynomial(v, common.BACKGROUND_TRUTH)) > 0.09


def test_compiled_polynomial_equals_numpy(compiled):
    point = config.POINTS["kskspippim_1850_mev"]
    m = point.masses()
    ps = generation.phase_space(point.sqrt_s, [m[k] for k in common.PARTICLES], 101, seed=2)
    records = {common.BRANCH[k]: p for k, p in zip(common.PARTICLES, ps.momenta)}
    fields = background.event_fields(records, point)
    p = background.truth() + np.random.default_rng(3).normal(0, 0.1, 36)
    ref, gref = background.polynomial(fields, p, True)
    for precision, tol in (("float64", 1e-13), ("float32", 1e-5)):
        d = background.density(point, compiled, precision, 4)
        assert d.parameters == background.PARAMETERS
        v, g = d.evaluate(fields, p, gradient=True)
        np.testing.assert_allclose(v, ref, rtol=tol, atol=tol)
        np.testing.assert_allclose(g, gref, rtol=tol, atol=tol)
    # the simulation's background model is the same polynomial
    np.testing.assert_allclose(background.polynomial(fields, background.truth()),
                               common.polynomial(np.stack([fields[f"v{d}"] for d in range(7)]),
                                                 common.BACKGROUND_TRUTH), rtol=1e-14)


@pytest.mark.parametrize("name", ["kpkmpippim_1900_mev", "kskspippim_1950_mev"])
def test_fit_recovers_the_generated_polynomial(tmp_path, compiled, name):
    import fit_background
    import generate
    point = dataclasses.replace(config.POINTS[name], mc_events=60000, data_events=0,
                                background_events=8000)
    generate.generate_point(point, str(tmp_path), 21)
    fitter, pulls, proj = fit_background.fit_point(point, str(tmp_path), modules=compiled,
                                                   vector_length=4)
    assert fitter.minuit.valid
    assert np.max(np.abs(pulls)) < 4, dict(zip(background.PARAMETERS, np.round(pulls, 2)))
    # pulls of the 35 free coefficients look like a standard normal sample
    free = pulls[1:]
    assert abs(np.mean(free)) < 4 / np.sqrt(35) and 0.5 < np.std(free) < 1.6
    for key, h in proj.items():
        assert h["chi2"] / h["ndf"] < 2.0, (key, h["chi2"], h["ndf"])
    print(name, "largest |pull|", np.max(np.abs(pulls)).round(2), "std", np.std(free).round(2))
