"""The e+e- -> K K-bar pi pi signal model declared through vecampfit.cascades
(examples/epem_kkpipi/declared_model.py) against the hand-written one.

At all five energies of both processes, at phase-space events and at the
generation and perturbed parameters: the declared model's numpy intensity
equals model.signal_density, and its compiled density's values and analytic
gradients (all 24 parameters free) equal those of the hand-written Cython
density (signal_density.pyx), to 1e-12 relative.
"""

import os

import numpy as np
import pytest

EXAMPLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples",
                       "epem_kkpipi")
import common_kkpipi as common  # noqa: E402
import config  # noqa: E402
import declared_model  # noqa: E402
import model_kkpipi as model  # noqa: E402
from vecampfit import generation  # noqa: E402
from vecampfit.fitter import Density  # noqa: E402
from vecampfit.model_compiler import compile_model  # noqa: E402

POINTS = [f"{p}_{e}_mev" for p in model.PROCESSES for e in model.ENERGIES_MEV]


@pytest.fixture(scope="module")
def handwritten(model_cache):
    return compile_model(os.path.join(EXAMPLE, "signal_density.pyx"), [4], build_dir=model_cache)


def sample(point, n, seed):
    m = point.masses()
    ps = generation.phase_space(point.sqrt_s, [m[k] for k in common.PARTICLES], n, seed=seed)
    return dict(zip(common.PARTICLES, ps.momenta))


def parameter_sets(e):
    rng = np.random.default_rng(e)
    return [model.parameter_vector(e), model.parameter_vector(e) + rng.normal(0, 0.3, 24)]


def test_declared_model_is_short():
    with open(os.path.join(EXAMPLE, "declared_model.py")) as f:
        n = len(f.read().splitlines())
    print(f"declared_model.py: {n} lines")
    assert n <= 120


def test_parameters_are_those_of_the_handwritten_model():
    for e in model.ENERGIES_MEV:
        for p in model.PROCESSES:
            am, _ = declared_model.amplitude_model(p, e, fixed=False)
            assert sorted(am.parameter_names()) == sorted(model.parameter_names(e))
            am, _ = declared_model.amplitude_model(p, e)
            fixed = sorted(n for n, q in am.parameters.items() if q.fixed)
            assert fixed == sorted(model.fixed_parameter_names(e))


@pytest.mark.parametrize("name", POINTS)
def test_numpy_intensity_equals_handwritten(name):
    point = config.POINTS[name]
    e = point.energy_mev
    am, records = declared_model.amplitude_model(point.process, e, fixed=False)
    mom = sample(point, 60, e % 97)
    fields = common.signal_fields(mom, point)
    rec = records(mom)
    worst = 0.0
    for params in parameter_sets(e):
        ref = model.signal_density(fields, params, e, point.constants())
        v = am.intensity(rec, dict(zip(model.parameter_names(e), params)))
        worst = max(worst, float(np.max(np.abs(v / ref - 1))))
    print(f"{name}: declared (numpy) vs model.signal_density, largest relative difference "
          f"{worst:.2e}")
    assert worst < 1e-12


@pytest.mark.parametrize("name", POINTS)
def test_compiled_values_and_gradients_equal_handwritten(handwritten, model_cache, name):
    point = config.POINTS[name]
    e = point.energy_mev
    am, records = declared_model.amplitude_model(point.process, e, fixed=False)
    compiled = am.compile((4,), build_dir=model_cache)
    hand = Density.from_model(handwritten, "float64", constants=point.constants(),
                              vector_length=4, model=f"E{e}")
    names = model.parameter_names(e)
    order = [names.index(n) for n in compiled.parameters]
    mom = sample(point, 45, e % 89 + 1)
    fields = common.signal_fields(mom, point)
    rec = records(mom)
    worst_v = worst_g = 0.0
    for params in parameter_sets(e):
        v_ref, g_ref = hand.evaluate(fields, params, gradient=True)
        v, g = compiled.evaluate(rec, dict(zip(names, params)), gradient=True)
        worst_v = max(worst_v, float(np.max(np.abs(v / v_ref - 1))))
        for i, q in enumerate(order):
            scale = np.max(np.abs(g_ref[q]))
            worst_g = max(worst_g, float(np.max(np.abs(g[i] - g_ref[q])) / scale))
    print(f"{name}: declared (compiled) vs signal_density.pyx: values {worst_v:.2e}, "
          f"gradients {worst_g:.2e} (relative to each parameter's largest)")
    assert worst_v < 1e-12
    assert worst_g < 1e-12
