"""vecampfit.amplitudes: helicity-amplitude models compiled from the expression layer.

References: the expanded DPD intensity (every chain rotated and summed as
one expression, :meth:`ThreeBodyDecay.unpolarized_intensity`, whose
checksums are tested in test_model_format), the model's own numpy
evaluation, and central finite differences for the gradient.
"""

from pathlib import Path

import numpy as np
import pytest

from vecampfit.amplitudes import AmplitudeModel, ModelParameter
from vecampfit.dpd import kinematics
from vecampfit.expressions import ComplexExpr, evaluate, event, parameter
from vecampfit.model_format import read_model

from numeric_checks import central_difference, five_point_difference

DATA = Path(__file__).parent / "data" / "amplitude_serialization"


def _dalitz_points(masses, n, seed):
    """Uniform points inside the Dalitz plot (sigma1, sigma2, sigma3)."""
    rng = np.random.default_rng(seed)
    m0, m1, m2, m3 = masses
    s1 = rng.uniform((m2 + m3) ** 2, (m0 - m1) ** 2, 8 * n)
    s2 = rng.uniform((m3 + m1) ** 2, (m0 - m2) ** 2, 8 * n)
    s3 = m0 ** 2 + m1 ** 2 + m2 ** 2 + m3 ** 2 - s1 - s2
    c = kinematics.cos_theta(1, (s1, s2, s3), masses)
    ok = np.abs(c) < 1
    assert ok.sum() >= n
    return {"sigma1": s1[ok][:n], "sigma2": s2[ok][:n], "sigma3": s3[ok][:n]}


@pytest.fixture(scope="module")
def lc():
    dist = read_model(DATA / "lc2ppik-lhcb-2683025.json").distributions["default_model"]
    # masses and widths free beside the couplings
    free = [n for n in dist.parameters if n not in ("K700_re", "K700_im")]
    model = dist.amplitude_model(free=free)
    return dist, model, model.compile((4,))


def test_structured_numpy_and_compiled_equal_the_expanded_intensity(lc):
    dist, model, compiled = lc
    rec = _dalitz_points(dist.model.masses, 300, 1)
    values = dict(dist.parameters)
    values.update(rec)
    expanded = evaluate(dist.intensity, values)
    structured = model.intensity(rec)
    value = compiled.evaluate(rec)
    err_np = np.max(np.abs(structured / expanded - 1))
    err_c = np.max(np.abs(value / expanded - 1))
    print(f"numpy {err_np:.2e}, compiled {err_c:.2e}")
    assert err_np < 1e-13 and err_c < 1e-13
    # float32: the same to single-precision rounding
    v32 = compiled.evaluate(rec, precision="float32")
    assert np.max(np.abs(v32 / expanded - 1)) < 1e-4


def test_the_cached_likelihood_of_a_spin_model_equals_the_full_path(lc):
    """Lambda_c+ -> p K- pi+ (26 components, 4 helicity channels) with only couplings free:
    the cached evaluation (the components X_kh at the data events, the matrix of the
    normalization events summed over channels) gives F and the couplings' gradient of the
    full path to 1e-12, the same for 1 and 2 threads bit for bit; with a mass free too the
    likelihood takes the full path."""
    from vecampfit.fitter import Likelihood
    dist, model, compiled = lc
    assert compiled.density("float64", 4).components.channels == 4
    data = _dalitz_points(dist.model.masses, 3000, 2)
    mc = _dalitz_points(dist.model.masses, 20000, 3)
    table = compiled.parameter_table()
    couplings = [n for n in table.names if n.endswith(("_re", "_im"))]
    x = np.array([p.value for p in table])
    x[[table.names.index(n) for n in couplings]] *= 1.05
    out = {}
    for cache in ("never", "always"):
        lk = Likelihood(table, vector_length=4, threads=1, cache=cache)
        point = lk.add_point(compiled.density("float64", 4))
        point.add_data(data)
        point.add_normalization_events(mc)
        out[cache] = lk.evaluate(x, True, free=couplings)
        if cache == "always":
            lk.threads = 2
            assert lk.evaluate(x * 1.0, True, free=couplings)[0] == out[cache][0]
            assert lk.evaluate(x, free=couplings + ["K892_BW_mass"])[0] == pytest.approx(
                out[cache][0], rel=1e-12)
    idx = [table.names.index(n) for n in couplings]
    g_full, g_cached = out["never"][1][idx], out["always"][1][idx]
    err_f = abs(out["always"][0] / out["never"][0] - 1)
    err_g = np.max(np.abs(g_cached - g_full)) / np.max(np.abs(g_full))
    print(f"cached against full: F {err_f:.1e}, gradient {err_g:.1e}")
    assert err_f < 1e-12 and err_g < 1e-10


def test_the_gradient_equals_finite_differences_for_couplings_masses_and_widths(lc):
    dist, model, compiled = lc
    rec = _dalitz_points(dist.model.masses, 200, 2)
    p0 = compiled.parameter_vector()
    value, grad = compiled.evaluate(rec, p0, gradient=True)
    assert grad.shape == (len(compiled.parameters), 200)
    kinds = set()
    worst = 0.0
    for k, name in enumerate(compiled.parameters):
        # five-point central differences (the narrow Lambda(1520) needs the higher order)
        fd = five_point_difference(lambda p: compiled.evaluate(rec, p), p0, k,
                                   1e-5 * max(1.0, abs(p0[k])))
        err = np.max(np.abs(fd - grad[k])) / np.max(np.abs(value))
        worst = max(worst, err)
        assert err < 1e-6, name
        kinds.add(name.rsplit("_", 1)[-1])
    print(f"worst relative difference to central differences {worst:.1e}")
    assert {"re", "im", "mass", "width"} <= kinds
    # a parameter moved: the compiled value follows the numpy model
    moved = {"K892_BW_mass": 0.9, "L1520_BW_width": 0.02}
    assert np.allclose(compiled.evaluate(rec, moved), model.intensity(rec, moved), rtol=1e-13)


def _toy(density_matrix=False):
    """Two groups, a real rotation in one, couplings and a lineshape parameter."""
    x = event("x")
    m = parameter("m")
    model = AmplitudeModel("toy", [(1,), (-1,)], [ModelParameter("m", 0.7),
                                                  ModelParameter("a", 0.4),
                                                  ModelParameter("b", -0.3),
                                                  ModelParameter("P", 0.5)], events=("x",))
    bw = ComplexExpr(1.0) / ComplexExpr(m * m - x, 0.1)
    model.add_group("g0")
    model.add_component("c0", "g0", 1.0, bw, {(1,): x, (-1,): 1 - x})
    c = (x + 1) ** 0.5
    model.add_group("g1", [(0, {(1, 1): c, (1, -1): -x, (-1, 1): x, (-1, -1): c})])
    model.add_component("c1", "g1", ComplexExpr(parameter("a"), parameter("b")),
                        ComplexExpr(x, 2.0), {(1,): 1.0})
    if density_matrix:
        p = parameter("P")
        model.set_density_matrix(0, {(1, 1): (1 + p) / 2, (-1, -1): (1 - p) / 2,
                                     (1, -1): ComplexExpr(0.0, p * x), (-1, 1): ComplexExpr(0.0, -p * x)})
    return model


@pytest.mark.parametrize("density_matrix", [False, True])
def test_a_small_model_against_its_formula(density_matrix):
    model = _toy(density_matrix)
    x = np.linspace(0.1, 0.9, 16)
    m, a, b, P = 0.7, 0.4, -0.3, 0.5
    bw = 1 / (m * m - x + 0.1j)
    b0 = {1: bw * x, -1: bw * (1 - x)}
    u = (a + 1j * b) * (x + 2j)
    c = np.sqrt(x + 1)
    b1 = {1: c * u, -1: x * u}          # column (frame) +1 only
    amp = {h: b0[h] + b1[h] for h in (1, -1)}
    if density_matrix:
        want = ((1 + P) / 2 * abs(amp[1]) ** 2 + (1 - P) / 2 * abs(amp[-1]) ** 2
                + 2 * np.real(1j * P * x * amp[1] * np.conj(amp[-1])))
    else:
        want = abs(amp[1]) ** 2 + abs(amp[-1]) ** 2
    assert np.allclose(model.intensity({"x": x}), want, rtol=1e-14)
    compiled = model.compile((4,))
    value, grad = compiled.evaluate({"x": x}, gradient=True)
    assert np.allclose(value, want, rtol=1e-14)
    p0 = compiled.parameter_vector()
    for k, name in enumerate(compiled.parameters):
        fd = central_difference(
            lambda p: model.intensity({"x": x}, dict(zip(compiled.parameters, p))), p0, k, 1e-6)
        assert np.allclose(grad[k], fd, rtol=1e-6, atol=1e-8), name
    if not density_matrix:
        assert not np.any(grad[compiled.parameters.index("P")])


def test_mistakes_are_named():
    model = _toy()
    model.add_component("c2", "g0", parameter("nope"), 1.0, {(1,): 1.0})
    with pytest.raises(ValueError, match="'c2' uses the parameter 'nope'"):
        model.source()
    with pytest.raises(ValueError, match="no group named 'g9'"):
        model.add_component("c3", "g9", 1.0, 1.0, {(1,): 1.0})
    with pytest.raises(ValueError, match="second component named 'c0'"):
        model.add_component("c0", "g0", 1.0, 1.0, {(1,): 1.0})
    with pytest.raises(ValueError, match="depends on the event"):
        model.add_component("c4", "g0", event("x"), 1.0, {(1,): 1.0})
    bad = _toy()
    bad.add_component("c5", "g0", 1.0, event("y"), {(1,): 1.0})
    with pytest.raises(ValueError, match="event variable 'y'"):
        bad.source()
    wrong = _toy()
    wrong.add_component("c6", "g0", 1.0, 1.0, {(3,): 1.0})
    with pytest.raises(ValueError, match=r"channel \(3,\)"):
        wrong.source()
    compiled = _toy().compile((4,))
    with pytest.raises(KeyError, match="no variable"):
        compiled.evaluate({"z": np.ones(3)})
    with pytest.raises(ValueError, match="unknown parameter"):
        compiled.evaluate({"x": np.ones(3)}, {"mm": 1.0})


@pytest.mark.parametrize("name", ["lc2ppik-lhcb-2683025.json", "lb2pkg-lhcb-2765817.json",
                                  "x2pipipi-compass-1391643.json"])
def test_the_compiled_models_reproduce_the_published_checksums(name):
    """Every intensity checksum of the three published files, through the generated and
    compiled code (float64), to 1e-12 relative."""
    mf = read_model(DATA / name)
    worst, count = 0.0, 0
    for dname, dist in mf.distributions.items():
        compiled = dist.amplitude_model().compile((4,))
        for cs in mf.checksums:
            if cs["distribution"] != dname:
                continue
            sig = dist.sigmas_at(mf.points[cs["point"]])
            rec = {n: np.array([float(v)]) for n, v in zip(dist.model.sigma_names, sig)}
            got = compiled.evaluate(rec)[0]
            err = abs(got / cs["value"] - 1)
            print(f"{dname} {cs['point']}: {got!r} published {cs['value']!r} ({err:.1e})")
            worst, count = max(worst, err), count + 1
            assert err < 1e-12
    assert count >= 1
    print(f"{count} checksums, worst {worst:.1e}")


def test_fixed_parameters_compile_as_constants():
    """The compiled density has the free parameters only; a fixed one is a constant that a
    call can still set (the event fields that depend on it are filled with its value)."""
    model = _toy()
    model.parameters["m"].fixed = True
    compiled = model.compile((4,))
    assert "m" not in compiled.parameters and "a" in compiled.parameters
    x = {"x": np.linspace(0.1, 0.9, 8)}
    assert np.allclose(compiled.evaluate(x), model.intensity(x), rtol=1e-14)
    assert np.allclose(compiled.evaluate(x, {"m": 0.8, "a": 0.1}),
                       model.intensity(x, {"m": 0.8, "a": 0.1}), rtol=1e-14)
    with pytest.raises(ValueError, match="fixed"):
        compiled.parameter_vector({"m": 0.8})
    assert [p.name for p in compiled.parameter_table()] == list(compiled.parameters)


def test_models_that_differ_only_in_names_share_one_compiled_module():
    """Two models, equal but for the names of their parameters (one free, one fixed, as the
    production couplings of one process at two energies): one generated source and one
    module, each density with its model's names, values and gradients as the numpy models."""
    first = _toy()
    first.parameters["m"].fixed = True
    second = first.renamed({"a": "a_E2", "b": "b_E2", "m": "m_E2"}, name="toy at E2")
    assert second.parameters["m_E2"].fixed and "a" not in second.parameters
    one, two = first.compile((4,)), second.compile((4,))
    assert one.source_path == two.source_path
    assert one.modules[4] is two.modules[4]
    assert two.parameters == ("a_E2", "b_E2", "P") and "m_E2" in two.constants
    x = {"x": np.linspace(0.1, 0.9, 8)}
    values = {"a_E2": 0.2, "b_E2": 0.6, "m_E2": 0.75}
    want = first.intensity(x, {"a": 0.2, "b": 0.6, "m": 0.75})
    got, grad = two.evaluate(x, values, gradient=True)
    print(f"renamed model: {np.max(np.abs(got / want - 1)):.1e}")
    assert np.allclose(got, want, rtol=1e-14)
    assert np.allclose(second.intensity(x, values), want, rtol=1e-14)
    up = dict(values, a_E2=0.2 + 1e-6)
    down = dict(values, a_E2=0.2 - 1e-6)
    fd = (second.intensity(x, up) - second.intensity(x, down)) / 2e-6
    assert np.allclose(grad[0], fd, rtol=1e-6)
    density = two.density("float64", 4, constants={"m_E2": 0.75})
    assert density.parameters == two.parameters and density.constants["m_E2"] == 0.75
    with pytest.raises(ValueError, match="no parameter or constant"):
        first.renamed({"zz": "y"})
    with pytest.raises(ValueError, match="two names equal"):
        first.renamed({"a": "b"})


def test_polarized_lambda_c_compiled_gradient_and_value():
    """The polarized Lambda_c model compiled: the value equals the numpy model's, and the
    gradient of the polarization vector, the couplings and a mass equals finite differences."""
    dist = read_model(DATA / "lc2ppik-lhcb-2683025.json").distributions["default_model"]
    free = [n for n in dist.parameters if n.startswith(("L1520", "K892"))
            and not n.endswith("gsq0")]
    model = dist.amplitude_model(free=free, polarized=True)
    compiled = model.compile((4,))
    assert {"Px", "Py", "Pz", "K892_BW_mass"} <= set(compiled.parameters)
    rng = np.random.default_rng(4)
    rec = _dalitz_points(dist.model.masses, 150, 5)
    rec.update(alpha=rng.uniform(-np.pi, np.pi, 150), cos_beta=rng.uniform(-1, 1, 150),
               gamma=rng.uniform(-np.pi, np.pi, 150))
    p0 = dict(zip(compiled.parameters, compiled.parameter_vector()))
    p0.update(Px=0.2, Py=-0.4, Pz=0.5)
    value, grad = compiled.evaluate(rec, p0, gradient=True)
    assert np.allclose(value, model.intensity(rec, p0), rtol=1e-13)
    vec = compiled.parameter_vector(p0)
    for k, name in enumerate(compiled.parameters):
        fd = five_point_difference(lambda p: compiled.evaluate(rec, p), vec, k,
                                   1e-5 * max(1.0, abs(vec[k])))
        assert np.max(np.abs(fd - grad[k])) < 1e-6 * np.max(np.abs(value)), name


def _example_isobar_model(folder):
    """The isobar model of an example (the build() of its isobar_model.py, in
    the GenFit3K example isobar_model3k.py)."""
    import importlib
    return importlib.import_module({"dz_kmpippiz": "isobar_model",
                                    "laura_genfit3k": "isobar_model3k"}[folder]).build()


@pytest.mark.parametrize("folder", ["dz_kmpippiz", "laura_genfit3k"])
def test_spinless_isobar_models_as_amplitude_models_equal_the_isobar_layer(folder):
    """The D0 -> K- pi+ pi0 (CLEO) and B+ -> K+ K+ K- (GenFit3K) isobar models turned into
    helicity-amplitude models (one channel) and compiled by vecampfit.amplitudes: density
    and gradient equal those of the isobar layer's own compiled code to 1e-12, with every
    coupling, mass and width free."""
    from vecampfit import generation
    isobar = _example_isobar_model(folder)
    for p in isobar.parameters():
        p.fixed = False
    masses = [isobar.daughter_mass(k) for k in range(3)]
    ev = generation.phase_space(isobar.parent_mass, masses, 400, seed=3)
    p = ev.momenta

    def m2(a, b):
        q = p[a] + p[b]
        return q[:, 3] ** 2 - np.sum(q[:, :3] ** 2, axis=1)
    records = {name: m2(*pair) for name, pair in isobar.variables.items()}
    reference = isobar.compile((4,)).density("float64", 4)
    ref_buf = reference.event_buffer(records, records=True)
    x = np.array([isobar.values()[n] for n in reference.parameters])
    ref_value, ref_grad = reference.evaluate(ref_buf, x, gradient=True)
    model = isobar.amplitude_model()
    compiled = model.compile((4,))
    assert set(compiled.parameters) == set(reference.parameters)
    value, grad = compiled.evaluate(records, dict(zip(reference.parameters, x)), gradient=True)
    order = [compiled.parameters.index(n) for n in reference.parameters]
    err_v = np.max(np.abs(value / ref_value - 1))
    scale = np.max(np.abs(ref_grad), axis=1, keepdims=True)
    err_g = np.max(np.abs(grad[order] - ref_grad) / np.where(scale > 0, scale, 1))
    print(f"{isobar.name}: value {err_v:.1e}, gradient {err_g:.1e} ({len(x)} parameters)")
    assert err_v < 1e-12 and err_g < 1e-12
    assert np.allclose(model.intensity(records), ref_value, rtol=1e-12)


@pytest.fixture(scope="module")
def lc_polarized():
    dist = read_model(DATA / "lc2ppik-lhcb-2683025.json").distributions["default_model"]
    model = dist.amplitude_model(polarized=True)
    return dist, model, model.compile((4,))


def _oriented(masses, n, seed):
    rng = np.random.default_rng(seed)
    rec = _dalitz_points(masses, n, seed)
    rec.update(alpha=rng.uniform(-np.pi, np.pi, n), cos_beta=rng.uniform(-1, 1, n),
               gamma=rng.uniform(-np.pi, np.pi, n))
    return rec


def test_the_cached_likelihood_of_a_polarized_model_equals_the_full_path(lc_polarized):
    """Lambda_c+ -> p K- pi+ with the parent's polarization: the event's orientation is
    folded into the stored components and the density matrix becomes weights of pairs of
    channels, so a fit of the couplings and the polarization vector reads the stored
    amplitudes.  F and the gradient (couplings and Px, Py, Pz) equal the full path's to
    1e-12, bit for bit for 1 and 2 threads; moving P does not rebuild the cache."""
    from vecampfit.fitter import Likelihood
    dist, model, compiled = lc_polarized
    components = compiled.density("float64", 4).components
    assert components is not None and components.channel_weights is not None
    assert components.channel_weights.n_weights == 4
    data = _oriented(dist.model.masses, 3000, 6)
    mc = _oriented(dist.model.masses, 20000, 7)
    table = compiled.parameter_table()
    free = list(table.names)
    assert {"Px", "Py", "Pz"} <= set(free)
    x = np.array([p.value for p in table]) * 1.05
    x[[free.index(n) for n in ("Px", "Py", "Pz")]] = (0.3, -0.2, 0.6)
    y = x.copy()
    y[free.index("Pz")] = -0.4
    out, moved, lks = {}, {}, {}
    for cache in ("never", "always"):
        lk = lks[cache] = Likelihood(table, vector_length=4, threads=1, cache=cache)
        point = lk.add_point(compiled.density("float64", 4))
        point.add_data(data)
        point.add_normalization_events(mc)
        out[cache] = lk.evaluate(x, True, free=free)
        moved[cache] = lk.evaluate(y, True, free=free)
    lk = lks["always"]
    (evaluator,) = lk._cached.values()
    assert evaluator.rebuilds == 2          # data and normalization events, once
    assert moved["always"][0] == pytest.approx(moved["never"][0], rel=1e-12)
    lk.threads = 2
    again = lk.evaluate(x * 1.0, True, free=free)
    assert again[0] == out["always"][0] and np.array_equal(again[1], out["always"][1])
    err_f = abs(out["always"][0] / out["never"][0] - 1)
    g_full, g_cached = out["never"][1], out["always"][1]
    err_g = np.max(np.abs(g_cached - g_full)) / np.max(np.abs(g_full))
    ip = [free.index(n) for n in ("Px", "Py", "Pz")]
    err_p = np.max(np.abs(g_cached[ip] - g_full[ip])) / np.max(np.abs(g_full[ip]))
    print(f"polarized, cached against full: F {err_f:.1e}, gradient {err_g:.1e}, "
          f"polarization gradient {err_p:.1e}")
    assert err_f < 1e-12 and err_g < 1e-10 and err_p < 1e-10


def test_density_at_takes_the_fixed_parameters_as_constants(lc):
    """CompiledAmplitudeModel.density_at: the fixed parameters' values become the density's
    constants and the free ones its parameter vector; the intensity equals the numpy model's
    at those values, and a missing value is named."""
    dist, model, compiled = lc
    values = model.values()
    fixed = [n for n in model.parameters if n not in compiled.parameters]
    assert fixed
    values[fixed[0]] = 1.1 * values[fixed[0]] + 0.01
    density, p = compiled.density_at(values, gradient=False)
    assert list(p) == [values[n] for n in compiled.parameters]
    rec = _dalitz_points(dist.model.masses, 50, 9)
    got = density.evaluate(density.event_buffer(rec, records=True), p)
    assert np.allclose(got, model.intensity(rec, values), rtol=1e-12)
    del values[fixed[0]]
    with pytest.raises(KeyError, match=fixed[0]):
        compiled.density_at(values)


def test_cached_values_of_a_polarized_model_equal_the_density(lc_polarized):
    """The cached evaluator's per-event values and gradient (numpy form of the Hermitian
    form with the channel weights) equal the compiled density's at the same events."""
    from vecampfit.fitter._evaluation import CachedEvaluator
    dist, model, compiled = lc_polarized
    d = compiled.density("float64", 4)
    rec = _oriented(dist.model.masses, 300, 8)
    buf = d.event_buffer(rec, records=True)
    p0 = dict(zip(compiled.parameters, compiled.parameter_vector() * 1.03))
    p0.update(Px=0.25, Py=-0.3, Pz=0.45)
    p = compiled.parameter_vector(p0)
    value, grad = d.evaluate(buf, p, gradient=True)
    ev = CachedEvaluator(d, np.float64, 4)
    pbuf = d.fill_buffer(d.new_parameter_buffer(np.float64), p)
    s = ev.values(buf, p, pbuf, 1)
    s2, g2 = ev.values_and_gradient(buf, p, pbuf, 1)
    err = np.max(np.abs(s / value - 1))
    gerr = np.max(np.abs(g2 - grad)) / np.max(np.abs(grad))
    print(f"values {err:.1e}, gradient {gerr:.1e}")
    assert err < 1e-12 and np.array_equal(s, s2) and gerr < 1e-11
