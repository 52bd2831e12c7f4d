"""The e+e- -> K K-bar pi pi example: the Cython signal density against the numpy reference.

The model is compiled as a user's model (vecampfit.model_compiler) for L = 1
and 4 and read through the model protocol (Density.from_model); its values
must equal model.signal_density to 1e-12 relative in float64 (and its chain
amplitudes model.chain_amplitudes), for both processes and two energy
points, at phase-space events and perturbed parameters.
"""

import os

import numpy as np
import pytest


EXAMPLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples",
                       "epem_kkpipi")
import common_kkpipi as common  # noqa: E402
import config  # noqa: E402
import model_kkpipi as model  # noqa: E402
from vecampfit import generation  # noqa: E402
from vecampfit.fitter import Density  # noqa: E402
from vecampfit.model_compiler import compile_model  # noqa: E402

LENGTHS = (1, 4)


@pytest.fixture(scope="module")
def compiled(model_cache):
    return compile_model(os.path.join(EXAMPLE, "signal_density.pyx"), LENGTHS,
                         build_dir=model_cache)


def events(point, n, seed):
    m = point.masses()
    ps = generation.phase_space(point.sqrt_s, [m[k] for k in common.PARTICLES], n, seed=seed)
    return common.signal_fields(dict(zip(common.PARTICLES, ps.momenta)), point)


def perturbed(energy, seed):
    return model.parameter_vector(energy) + np.random.default_rng(seed).normal(0, 0.3, 24)


def test_description_matches_the_numpy_model(compiled):
    desc = compiled[4].vecampfit_model()
    assert sorted(desc) == [f"E{e}" for e in model.ENERGIES_MEV]
    for e in model.ENERGIES_MEV:
        d = desc[f"E{e}"]
        assert d["parameters"] == tuple(model.parameter_names(e))
        assert d["event_fields"] == model.EVENT_FIELDS
        assert tuple(d["constants"]) == model.CONSTANT_NAMES
        assert d["vector_length"] == 4
    defaults = desc["E1800"]["constants"]
    ref = model.constants("kpkmpippim")
    for k in model.CONSTANT_NAMES:
        assert defaults[k] == pytest.approx(ref[k], rel=1e-15), k


@pytest.mark.parametrize("name", ["kpkmpippim_1800_mev", "kpkmpippim_2000_mev",
                                  "kskspippim_1850_mev", "kskspippim_2000_mev"])
def test_cython_density_equals_numpy(compiled, name):
    point = config.POINTS[name]
    e = point.energy_mev
    fields = events(point, 203, 7)
    worst = 0.0
    for seed in (None, 3):
        params = model.parameter_vector(e) if seed is None else perturbed(e, seed)
        ref = model.signal_density(fields, params, e, point.constants())
        for length in LENGTHS:
            d64 = Density.from_model(compiled, "float64", constants=point.constants(),
                                     vector_length=length, model=f"E{e}")
            v = d64.evaluate(fields, params)
            err = float(np.max(np.abs(v - ref) / ref))
            worst = max(worst, err)
            assert err < 1e-12, (length, err)
            d32 = Density.from_model(compiled, "float32", constants=point.constants(),
                                     vector_length=length, model=f"E{e}")
            v32 = d32.evaluate(fields, params)
            assert v32.dtype == np.float32
            assert np.max(np.abs(v32 - ref) / ref) < 1e-4
    print(f"{name}: largest relative difference Cython vs numpy (float64): {worst:.2e}")


def test_chain_amplitudes_equal_numpy(compiled):
    """Complex chain amplitudes (both chains, both photon helicities), L = 4."""
    point = config.POINTS["kskspippim_1900_mev"]
    e = point.energy_mev
    fields = events(point, 4, 9)
    params = perturbed(e, 4)
    const = point.constants()
    block = np.ascontiguousarray(np.stack([fields[k] for k in model.EVENT_FIELDS]))
    cv = np.array([const[k] for k in model.CONSTANT_NAMES])
    out = compiled[4].chain_amplitudes(block, params, cv)
    for c in (1, 2):
        ref = model.chain_amplitudes(fields, params, e, const, c)
        for k, lg in enumerate((-1, 1)):
            np.testing.assert_allclose(out[c - 1, k], ref[lg], rtol=1e-12)


def test_python_form_density_agrees(compiled):
    """The numpy density in the fitter's Python form (common.signal_density_numpy)
    and the compiled model give the same values from the same ROOT-style records."""
    point = config.POINTS["kpkmpippim_1950_mev"]
    m = point.masses()
    ps = generation.phase_space(point.sqrt_s, [m[k] for k in common.PARTICLES], 50, seed=3)
    records = {common.BRANCH[k]: p for k, p in zip(common.PARTICLES, ps.momenta)}
    py = common.signal_density_numpy(point)
    fields = py.fill_event_buffer(records)
    params = perturbed(point.energy_mev, 8)
    cy = common.signal_density_cython(compiled, point, "float64", 4)
    np.testing.assert_allclose(cy.evaluate(cy.fill_event_buffer(records), params),
                               py.evaluate(fields, params), rtol=1e-12)
    assert cy.parameters == py.parameters


@pytest.mark.parametrize("name", ["kpkmpippim_1900_mev", "kskspippim_2000_mev"])
def test_gradient_against_finite_differences_of_numpy(compiled, name):
    """density_gradient: dS/dp of all 24 parameters against central differences
    of the numpy density; its values equal the density's."""
    point = config.POINTS[name]
    e = point.energy_mev
    fields = events(point, 41, 4)
    params = perturbed(e, 1)
    const = point.constants()
    worst = 0.0
    for length in LENGTHS:
        d = Density.from_model(compiled, "float64", constants=const, vector_length=length,
                               model=f"E{e}")
        assert d.has_gradient
        v, g = d.evaluate(fields, params, gradient=True)
        np.testing.assert_allclose(v, d.evaluate(fields, params), rtol=1e-13)
        for q in range(24):
            h = 1e-6
            pp, pm = params.copy(), params.copy()
            pp[q] += h
            pm[q] -= h
            fd = (model.signal_density(fields, pp, e, const)
                  - model.signal_density(fields, pm, e, const)) / (2 * h)
            err = float(np.max(np.abs(g[q] - fd)) / np.max(np.abs(fd)))
            worst = max(worst, err)
            assert err < 1e-6, (model.parameter_names(e)[q], err)
        d32 = Density.from_model(compiled, "float32", constants=const, vector_length=length,
                                 model=f"E{e}")
        _, g32 = d32.evaluate(fields, params, gradient=True)
        np.testing.assert_allclose(g32, g, rtol=1e-3, atol=1e-4 * np.max(np.abs(g)))
    print(f"{name}: largest gradient difference from finite differences {worst:.1e}")
