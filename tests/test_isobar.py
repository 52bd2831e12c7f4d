"""vecampfit.isobar: a model not in the paper (D+ -> K- pi+ pi+ with identical
pions, a Flatte S-wave, a constant-width P-wave with the helicity spin
factor) against a numpy amplitude written here from four-momenta; gradients
against finite differences; component amplitudes; the plain-text
description, the parameter table; errors naming the model element."""

import json
import math
import os

import numpy as np
import pytest

from vecampfit import generation, particle_data
from vecampfit.isobar import Cartesian, Constant, IsobarModel, Parameter, Polar, fit_fractions
from vecampfit.isobar.angular import ZemachSpinFactor

from numeric_checks import central_difference

M_D, M_K, M_PI = (particle_data.mass(n) for n in ("D+", "K-", "pi+"))
M_ETAP = particle_data.mass("eta'(958)")
KST = particle_data.get("K*(892)~0")


def dplus_model(nonresonant=None):
    m = IsobarModel("D+", ["K-", "pi+", "pi+"], spin_factor="zemach",
                    parent_form_factor="unnormalized", parent_radius=5.0)
    m.parameter("R_KST", 2.0)
    m.add_resonance("KST", ("K-", "pi+"), 1, particle="K*(892)~0", radius="R_KST",
                    coupling=Polar(1.0, 0.0))
    m.add_resonance("K0ST", ("K-", "pi+"), 0, mass=1.425, g1=0.30, g2=0.20,
                    lineshape={"name": "flatte", "channel2": ("K-", "eta'(958)")},
                    coupling=Cartesian(0.8, -0.4))
    m.add_resonance("KST2", ("K-", "pi+"), 1, lineshape="constant_width", mass=1.717,
                    width=0.322, spin_factor="helicity", coupling=Polar(0.5, 60.0))
    m.add_nonresonant("NR", nonresonant or Polar(Parameter("NR_A", 1.2, fixed=True), 30.0))
    return m


# ---------------------------------------------------------------------------
# The independent numpy amplitude (four-momenta, boosts, complex square roots)
# ---------------------------------------------------------------------------

def _minv2(p):
    return p[:, 3] ** 2 - np.sum(p[:, :3] ** 2, axis=1)


def _boost_to_rest(p, frame):
    """Four-momenta p boosted into the rest frame of the four-momenta ``frame``."""
    b = frame[:, :3] / frame[:, 3:4]
    b2 = np.sum(b * b, axis=1)
    g = 1 / np.sqrt(1 - b2)
    bp = np.sum(b * p[:, :3], axis=1)
    e = g * (p[:, 3] - bp)
    vec = p[:, :3] + ((g - 1) * bp / b2 - g * p[:, 3])[:, None] * b
    return np.column_stack([vec, e])


def _bw_factor(q, r):
    return 1 / np.sqrt(1 + (q * r) ** 2)


def _q(m, m1, m2):
    return np.sqrt((m * m - (m1 + m2) ** 2) * (m * m - (m1 - m2) ** 2) + 0j) / (2 * m)


def reference_amplitude(k, pa, pb, v):
    """A = sum_c c X_c, symmetrized over the two pi+ (pa forms the pair)."""
    total = v["NR_A"] * np.exp(1j * np.radians(v["NR_P"])) + 0j
    for p1, p2 in ((pa, pb), (pb, pa)):
        pair = k + p1
        m = np.sqrt(_minv2(pair))
        k_star = _boost_to_rest(k, pair)
        q = np.linalg.norm(k_star[:, :3], axis=1)
        p_spec = np.linalg.norm(p2[:, :3], axis=1)
        # K*(892): Breit-Wigner without phase-space factor, D form factor, Zemach A_1.
        m0, g0, r = v["KST_M"], v["KST_G"], v["R_KST"]
        q0 = _q(m0, M_K, M_PI).real
        ratio = _bw_factor(q, r) / _bw_factor(q0, r)
        width = g0 * (q / q0) ** 3 * (m0 / m) * ratio ** 2
        bw = ratio / (m0 ** 2 - m ** 2 - 1j * m0 * width)
        zemach = (_minv2(k + p2) - _minv2(p1 + p2)
                  + (M_D ** 2 - M_PI ** 2) * (M_PI ** 2 - M_K ** 2) / m0 ** 2)
        fd = _bw_factor(p_spec, v["DP_R"])
        total = total + v["KST_A"] * np.exp(1j * np.radians(v["KST_P"])) * bw * fd * zemach
        # K*0(1430): Flatte with K- pi+ and K- eta'(958), analytic continuation.
        m0 = v["K0ST_M"]
        rho1 = 2 * _q(m, M_K, M_PI) / m
        rho2 = 2 * _q(m, M_K, M_ETAP) / m
        flatte = 1 / (m0 ** 2 - m ** 2 - 1j * m0 * (v["K0ST_G1"] * rho1 + v["K0ST_G2"] * rho2))
        total = total + (v["K0ST_RE"] + 1j * v["K0ST_IM"]) * flatte
        # K*(1680): constant width, D form factor, helicity cos(theta) of K- in the pair frame
        # from the pair's flight direction.
        m0, g0 = v["KST2_M"], v["KST2_G"]
        cw = 1 / (m0 ** 2 - m ** 2 - 1j * m0 * g0)
        cos = (np.sum(k_star[:, :3] * pair[:, :3], axis=1)
               / (q * np.linalg.norm(pair[:, :3], axis=1)))
        total = total + v["KST2_A"] * np.exp(1j * np.radians(v["KST2_P"])) * cw * fd * cos
    return total


@pytest.fixture(scope="module")
def events():
    ev = generation.phase_space(M_D, [M_K, M_PI, M_PI], 2000, seed=21)
    k, pa, pb = ev.momenta
    return {"k": k, "pa": pa, "pb": pb, "weights": ev.weights,
            "records": {"m2_km_pip2": _minv2(k + pb), "m2_km_pip1": _minv2(k + pa)}}


@pytest.fixture(scope="module")
def dplus(model_cache):
    m = dplus_model()
    m.variables = {"m2_km_pip1": (0, 1), "m2_km_pip2": (0, 2)}
    return m, m.compile((1, 4), directory=os.path.join(model_cache, "isobar"),
                        build_dir=model_cache)


def _random_values(m, rng, scale=0.02):
    return {n: v * (1 + scale * rng.standard_normal()) for n, v in m.values().items()}


def _assert_gradient_matches_density(m, d, records, values, relative_step):
    """The compiled density d's gradient at values (name -> value) against
    central differences of the model m's numpy density, each parameter
    moved by relative_step times its value (at least 1), to 2e-6 of the
    largest difference quotient."""
    x = np.array([values[n] for n in d.parameters])
    _, grad = d.evaluate(d.event_buffer(records, records=True), x, True)
    for k, name in enumerate(d.parameters):
        fd = central_difference(lambda v: m.density(records, v), values, name,
                                relative_step * max(abs(x[k]), 1))
        np.testing.assert_allclose(grad[k], fd, rtol=0, atol=2e-6 * np.max(np.abs(fd)),
                                   err_msg=name)


def test_third_model_against_independent_numpy(dplus, events):
    m, compiled = dplus
    rng = np.random.default_rng(1)
    for trial in range(3):
        values = m.values() if trial == 0 else _random_values(m, rng)
        ref = reference_amplitude(events["k"], events["pa"], events["pb"], values)
        ref = np.abs(ref) ** 2
        np.testing.assert_allclose(m.density(events["records"], values), ref, rtol=1e-10)
        for length in (1, 4):
            d = compiled.density("float64", length)
            x = [values[n] for n in d.parameters]
            got = d.evaluate(d.event_buffer(events["records"], records=True), x)
            np.testing.assert_allclose(got, ref, rtol=1e-10)


def test_third_model_is_symmetric_in_the_identical_pions(dplus, events):
    m, compiled = dplus
    r = events["records"]
    swapped = {"m2_km_pip1": r["m2_km_pip2"], "m2_km_pip2": r["m2_km_pip1"]}
    d = compiled.density("float64", 4)
    x = [m.values()[n] for n in d.parameters]
    a = d.evaluate(d.event_buffer(r, records=True), x)
    b = d.evaluate(d.event_buffer(swapped, records=True), x)
    np.testing.assert_allclose(a, b, rtol=1e-12)


def test_third_model_gradient_against_finite_differences(dplus, events):
    m, compiled = dplus
    d = compiled.density("float64", 4)
    values = _random_values(m, np.random.default_rng(2))
    x = np.array([values[n] for n in d.parameters])
    buf = d.event_buffer(events["records"], records=True)
    _, grad = d.evaluate(buf, x, True)
    for k, name in enumerate(d.parameters):
        fd = central_difference(
            lambda v: np.abs(reference_amplitude(events["k"], events["pa"], events["pb"], v)) ** 2,
            values, name, 1e-6 * max(abs(x[k]), 1))
        scale = np.max(np.abs(fd))
        assert scale > 0, name
        np.testing.assert_allclose(grad[k], fd, rtol=0, atol=2e-6 * scale, err_msg=name)


def test_float32_density_close_to_float64(dplus, events):
    m, compiled = dplus
    d64, d32 = compiled.density("float64", 4), compiled.density("float32", 4)
    x = [m.values()[n] for n in d64.parameters]
    a = d64.evaluate(d64.event_buffer(events["records"], records=True), x)
    b = d32.evaluate(d32.event_buffer(events["records"], records=True), x)
    np.testing.assert_allclose(b, a, rtol=1e-3)


def test_component_kernel_equals_numpy_components(dplus, events):
    m, compiled = dplus
    values = _random_values(m, np.random.default_rng(4))
    ref = m.component_amplitudes(events["records"], values)
    got = compiled.component_amplitudes(events["records"], values, vector_length=4)
    for k, c in enumerate(m.components):
        np.testing.assert_allclose(got[k], ref[c.key], rtol=1e-10, atol=1e-12)
    assert compiled.component_kernel("float64") is not None


def test_fixed_parameter_and_constant_roles(dplus):
    m, compiled = dplus
    table = m.parameter_table()
    assert table["NR_A"].step == 0
    assert table["KST_P"].step == pytest.approx(0.1)
    assert "KST_M" in compiled.parameters and table["KST_M"].value == KST.mass
    assert "R_KST" in compiled.parameters and "KST_R" not in compiled.parameters
    # Constants: masses (and eta'(958) of the Flatte channel) are not parameters.
    consts = m.constant_defaults()
    assert consts["M_DP"] == M_D and consts["M_ETA958"] == M_ETAP
    text = m.parameter_file_text()
    first = text.splitlines()[0].split()
    assert first[0] == compiled.parameters[0] and float(first[1]) == m.values()[first[0]]


def test_fit_fractions_of_the_third_model(dplus, events):
    m, compiled = dplus
    w = events["weights"]
    numpy_ff = fit_fractions(m, events["records"], w)
    compiled_ff = fit_fractions(compiled, events["records"], w)
    np.testing.assert_allclose(compiled_ff.matrix, numpy_ff.matrix, rtol=1e-9, atol=1e-13)
    a = reference_amplitude(events["k"], events["pa"], events["pb"], m.values())
    assert compiled_ff.total + np.sum(np.triu(compiled_ff.matrix, 1)) == pytest.approx(1)
    # Each fraction directly from the reference amplitude with one coupling kept.
    for c in m.components:
        v = m.values()
        for other in m.components:
            if other.key != c.key:
                for q in other.coupling_quantities.values():
                    if q.name.endswith(("_A", "_RE", "_IM")):
                        v[q.name] = 0.0
        ac = reference_amplitude(events["k"], events["pa"], events["pb"], v)
        expected = np.dot(w, np.abs(ac) ** 2) / np.dot(w, np.abs(a) ** 2)
        assert compiled_ff.fractions[c.key] == pytest.approx(expected, rel=1e-9)


def test_save_and_load_round_trip(tmp_path):
    m = dplus_model()
    for name in ("model.json", "model.yaml"):
        if name.endswith("yaml"):
            pytest.importorskip("yaml")
        path = tmp_path / name
        m.save(path)
        back = IsobarModel.load(path)
        assert back.source() == m.source()
        assert back.parameter_file_text() == m.parameter_file_text()
        assert back.constant_defaults() == m.constant_defaults()


def test_save_is_atomic_and_leaves_a_good_file_whole_without_pyyaml(tmp_path, monkeypatch):
    """Saving as YAML without PyYAML must not truncate the existing file."""
    import builtins
    m = dplus_model()
    path = tmp_path / "model.yaml"
    path.write_text("good content\n")
    real_import = builtins.__import__

    def no_yaml(name, *args, **kwargs):
        if name == "yaml":
            raise ImportError("No module named 'yaml'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_yaml)
    with pytest.raises(ImportError, match=r"model.yaml as YAML: PyYAML is not installed.*"
                                          r"unchanged"):
        m.save(path)
    assert path.read_text() == "good content\n"
    monkeypatch.setattr(builtins, "__import__", real_import)
    # A failure while writing (here: the text cannot be encoded) leaves it whole too.
    monkeypatch.setattr(json, "dumps", lambda *a, **k: "\udc80")
    with pytest.raises(UnicodeEncodeError):
        m.save(path.with_suffix(".json"))
    assert not path.with_suffix(".json").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.yaml"]


@pytest.mark.parametrize("text,message", [
    ("", r"bad.json: the file is empty"),
    ("[1, 2]", r"bad.json: the top level must be a mapping of keys to values, got a list"),
    ("null", r"bad.json: the top level must be a mapping.*got nothing \(null\)"),
    ('{"format": "vecampfit.isobar 1",\n "name": }', r"bad.json: line 2 column 10: not valid "
                                                        r"JSON: Expecting value"),
    ('{"format": "other"}', r"bad.json: not a vecampfit.isobar model description \(format "
                            r"'other'"),
])
def test_model_file_errors_name_the_file_and_the_place(tmp_path, text, message):
    from vecampfit.isobar.model import ModelDescriptionError
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(ModelDescriptionError, match=message):
        IsobarModel.load(path)


def test_model_file_errors_name_the_json_path(tmp_path):
    import copy
    from vecampfit.isobar.model import ModelDescriptionError
    good = dplus_model().to_dict()

    def check(change, message):
        d = copy.deepcopy(good)
        change(d)
        path = tmp_path / "bad.json"
        path.write_text(json.dumps(d))
        with pytest.raises(ModelDescriptionError, match=message) as err:
            IsobarModel.load(path)
        assert str(path) in str(err.value)
        return err

    check(lambda d: d.pop("daughters"), r"the top level has no key 'daughters'")
    check(lambda d: d["components"][2]["coupling"]["magnitude"].pop("value"),
          r"components\[2\]\.coupling\.magnitude has no key 'value'")
    check(lambda d: d["components"][2].pop("spin"), r"components\[2\] has no key 'spin'")
    def negative_width(d):
        d["components"][0]["quantities"]["width"]["value"] = -0.05
        next(q for q in d["quantities"] if q["name"] == "KST_G")["value"] = -0.05

    check(negative_width,
          r"components\[0\]: resonance 'KST': width 'KST_G' is -0\.05; a width cannot be "
          r"negative")
    check(lambda d: d.update(components={"a": 1}), r"components must be a list, got a dict")
    # Non-UTF-8 bytes: the line is named.
    path = tmp_path / "latin1.json"
    path.write_bytes(json.dumps(good, indent=1).replace('"K*(892)~0"', '"K\u00e9"')
                     .encode("latin-1"))
    with pytest.raises(ModelDescriptionError, match=r"latin1.json: line \d+: byte 0xe9 is not "
                                                    r"UTF-8"):
        IsobarModel.load(path)


def test_a_negative_width_or_radius_is_refused_at_declaration():
    with pytest.raises(ValueError, match=r"resonance 'KST': width 'KST_G' is -0\.05; a width "
                                         r"cannot be negative"):
        _base().add_resonance("KST", ("K-", "pi+"), 1, mass=0.896, width=-0.05,
                              coupling=Polar(1, 0))
    with pytest.raises(ValueError, match=r"resonance 'KST': width 'GW' is -0\.1"):
        _base().add_resonance("KST", ("K-", "pi+"), 1, lineshape="constant_width", mass=0.896,
                              width=Parameter("GW", -0.1), coupling=Polar(1, 0))
    with pytest.raises(ValueError, match=r"resonance 'KST': radius 'KST_R' is -1\.5; a radius"):
        _base().add_resonance("KST", ("K-", "pi+"), 1, mass=0.896, width=0.05, radius=-1.5,
                              coupling=Polar(1, 0))
    with pytest.raises(ValueError, match=r"resonance 'K0ST': g2 'K0ST_G2' is -0\.2; a coupling "
                                         r"constant cannot be negative"):
        _base().add_resonance("K0ST", ("K-", "pi+"), 0, mass=1.425, g1=0.30, g2=-0.20,
                              lineshape={"name": "flatte", "channel2": ("K-", "eta'(958)")},
                              coupling=Polar(1, 0))
    with pytest.raises(ValueError, match=r"resonance 'KST': parent_radius 'KST_RP' is -3\.0"):
        _base().add_resonance("KST", ("K-", "pi+"), 1, mass=0.896, width=0.05,
                              parent_radius=-3.0, coupling=Polar(1, 0))
    # Zero is allowed (a narrow limit), and the refused declaration leaves no trace.
    m = _base()
    m.add_resonance("KST", ("K-", "pi+"), 1, mass=0.896, width=0.0, coupling=Polar(1, 0))


def test_a_parent_below_the_threshold_of_its_daughters_is_refused():
    with pytest.raises(ValueError, match=r"model 'X -> K- pi\+ pi\+': the parent 'X' \(mass 0\.7 "
                                         r"GeV\) is not heavier than its daughters together.*no "
                                         r"phase space"):
        IsobarModel(("X", 0.7), ["K-", "pi+", "pi+"])
    with pytest.raises(ValueError, match=r"the parent 'K-' .*no phase space"):
        IsobarModel("K-", ["K-", "pi+", "pi-"])
    IsobarModel(("X", 0.8), ["K-", "pi+", "pi+"])


def test_events_outside_the_dalitz_plot_are_named(dplus, events):
    """Phase-space events (on and inside the boundary) fill the event buffer; an event beyond
    a pair's kinematic limit, or whose third pair's mass the first does not allow, or a NaN,
    raises and names the first such event and its squared masses."""
    m, compiled = dplus
    rec = events["records"]
    compiled.fill_event_buffer(rec, None)
    for name, j, value in (("m2_km_pip1", 7, 10.0), ("m2_km_pip2", 11, 0.01),
                           ("m2_km_pip1", 3, float("nan"))):
        bad = {k: np.array(v, dtype=float) for k, v in rec.items()}
        bad[name][j] = value
        with pytest.raises(ValueError, match=rf"1 event\(s\) outside the Dalitz plot of "
                                             rf".*the first at index {j} "):
            compiled.fill_event_buffer(bad, None)
    # both masses inside their ranges, the pair together outside the plot
    m12 = np.array(rec["m2_km_pip1"], dtype=float)
    m13 = np.array(rec["m2_km_pip2"], dtype=float)
    lo, hi = (M_K + M_PI) ** 2, (M_D - M_PI) ** 2
    m12[0], m13[0] = hi - 0.01, hi - 0.01
    assert lo < m12[0] < hi
    with pytest.raises(ValueError, match=r"the first at index 0 "):
        compiled.fill_event_buffer({"m2_km_pip1": m12, "m2_km_pip2": m13}, None)


def _collinear_events(n, seed):
    """D+ -> K- pi+ pi+ events on the boundary of the Dalitz plot: all momenta along z
    (the K- pi+1 system at rest has K- and pi+1 back to back along z, the second pi+
    recoils), four-momenta (px, py, pz, E) in GeV per particle."""
    rng = np.random.default_rng(seed)
    ma, mb, mc = M_K, M_PI, M_PI
    s = rng.uniform((ma + mb) ** 2, (M_D - mc) ** 2, n)
    m = np.sqrt(s)

    def momentum(big, m1, m2):
        return np.sqrt((big ** 2 - (m1 + m2) ** 2) * (big ** 2 - (m1 - m2) ** 2)) / (2 * big)
    q, pc = momentum(m, ma, mb), momentum(M_D, m, mc)
    sign = rng.choice([-1.0, 1.0], n)
    # (ab) moves along -z with momentum pc; a, b along +-z in its rest frame
    gamma, betagamma = np.sqrt(m ** 2 + pc ** 2) / m, -pc / m
    out = {}
    for name, mass, pz_rest in (("a", ma, sign * q), ("b", mb, -sign * q)):
        e_rest = np.sqrt(mass ** 2 + q ** 2)
        pz, e = gamma * pz_rest + betagamma * e_rest, gamma * e_rest + betagamma * pz_rest
        out[name] = np.stack([0 * pz, 0 * pz, pz, e], axis=1)
    out["c"] = np.stack([0 * pc, 0 * pc, pc, np.sqrt(mc ** 2 + pc ** 2)], axis=1)
    return out


def test_boundary_events_from_single_precision_momenta_are_accepted(dplus):
    """Events on the boundary of the Dalitz plot whose four-momenta were stored in float32
    (as ROOT files often hold them) lie up to about 1e-7 M^2 beyond it after rounding:
    they fill the event buffer, while an event 1e-4 M^2 outside is still refused."""
    m, compiled = dplus
    p = {k: v.astype(np.float32).astype(np.float64) for k, v in _collinear_events(20000, 4).items()}

    def m2(x, y):
        t = x + y
        return t[:, 3] ** 2 - np.sum(t[:, :3] ** 2, axis=1)
    rec = {"m2_km_pip1": m2(p["a"], p["b"]), "m2_km_pip2": m2(p["a"], p["c"])}
    strict = m.kinematics(rec).outside(tolerance=0.0)
    print(f"{strict.size} of 20000 boundary events beyond it after float32 rounding")
    assert strict.size > 100          # the rounding does put events outside
    compiled.fill_event_buffer(rec, None)
    far = {k: v.copy() for k, v in rec.items()}
    far["m2_km_pip2"][5] += 1e-4 * M_D ** 2 * np.sign(far["m2_km_pip2"][5] - 1.5)
    with pytest.raises(ValueError, match=r"the first at index 5 "):
        compiled.fill_event_buffer(far, None)


def test_source_defines_the_model_functions_and_the_expression_layer_pieces():
    src = dplus_model().source()
    for piece in ("def vecampfit_model", "cdef void fill_parameter_buffer", "cdef void density(",
                  "cdef void density_gradient", "cdef void component_amplitudes",
                  "# expression layer: parameter-only subexpressions",
                  "# KST: K*(892)~0 in pair ('K-', 'pi+'), spin 1, breit_wigner_nophsp"):
        assert piece in src


def test_no_event_field_is_a_product_of_other_fields():
    """A spin-1 and a spin-0 Breit-Wigner in one pair need q^3/m (running
    width of spin 1), q/m (spin 0) and q^2 (barrier factor): q^3/m is read as
    (q/m) (q^2), not stored, whichever resonance is declared first; and no
    field of any model here can be read from the others."""
    from vecampfit.isobar import _codegen

    def model(first_spin):
        m = IsobarModel("D0", ["K-", "pi+", "pi0"], spin_factor="zemach",
                        parent_form_factor="unnormalized", parent_radius=5.0)
        spins = (first_spin, 1 - first_spin)
        for spin in spins:
            m.add_resonance(f"R{spin}", ("K-", "pi+"), spin, mass=0.9 + 0.5 * (1 - spin),
                            width=0.05 + 0.2 * (1 - spin), coupling=Polar(1.0, 10.0 * spin))
        return m

    for first_spin in (1, 0):
        layout = model(first_spin).layout()
        nodes = list(layout.expression_fields)
        # q^2 (as 4 q^2 = lambda / s) and q/m; not q^3 / m
        assert len(nodes) == 2, [str(n) for n in nodes]
        assert not any(1.5 in _codegen._factors(n).values() for n in nodes)
    for m in (dplus_model(), model(1)):
        layout = m.layout()
        assert _codegen.field_basis(layout) == list(layout.expression_fields)


# ---------------------------------------------------------------------------
# Errors name the model element
# ---------------------------------------------------------------------------

def _base():
    return IsobarModel("D0", ["K-", "pi+", "pi0"])


def test_one_parent_radius_is_one_form_factor_per_pair_ordering():
    """Resonances with one parent radius share F_P(p): in one pair and spin
    it is one expression, computed once per lane for each ordering of the
    pair (r_P^2 one parameter-buffer slot); a resonance with a radius of its
    own gets its own."""
    import re

    def form_factors(model):
        """(slot of r_P^2 / 4 M^2, pair) of each z = r_P^2 p^2 computed, p^2
        = (s + pb[a]) (s + pb[b]) / 4 M^2 a product of two factors of s."""
        src = model.source()
        body = src[src.index("cdef void density("):src.index("cdef void density_gradient_sum(")]
        factor = dict(re.findall(r"(\w+) = pb\[PB_X\d+\] \+ ev\[F_s_(\w+) \*", body))
        product = {a: factor[b] for a, b, c in re.findall(r"(\w+) = (\w+) \* (\w+)\n", body)
                   if b in factor and c in factor and factor[b] == factor[c]}
        return [(slot, product[v]) for slot, v in
                re.findall(r"= pb\[(PB_X\d+)\] \* (\w+)\n", body) if v in product]

    fp = form_factors(dplus_model())
    # KST and KST2 (spin 1, pair K- pi+, both orderings of the pions).
    assert sorted(x[1] for x in fp) == ["km_pip2", "km_pip3"]
    assert len({x[0] for x in fp}) == 1
    m = IsobarModel("D+", ["K-", "pi+", "pi+"], spin_factor="zemach",
                    parent_form_factor="unnormalized", parent_radius=5.0)
    m.add_resonance("KST", ("K-", "pi+"), 1, particle="K*(892)~0", coupling=Polar(1.0, 0.0))
    m.add_resonance("KST2", ("K-", "pi+"), 1, mass=1.717, width=0.322,
                    parent_radius=Parameter("KST2_RP", 3.0), coupling=Polar(0.5, 60.0))
    fp = form_factors(m)
    assert sorted(x[1] for x in fp) == ["km_pip2", "km_pip2", "km_pip3", "km_pip3"]
    assert len({x[0] for x in fp}) == 2


def test_error_pair_below_the_resonance_threshold():
    m = IsobarModel("B+", ["K+", "K+", "K-"])
    with pytest.raises(ValueError, match=r"resonance 'F0'.*threshold.*cannot produce"):
        m.add_resonance("F0", ("K+", "K-"), 0, mass=0.95, width=0.05, coupling=Polar(1, 0))


def test_error_pair_charge_cannot_produce_the_resonance():
    with pytest.raises(ValueError, match=r"resonance 'RHO0'.*rho\(770\)0.*cannot decay"):
        _base().add_resonance("RHO0", ("pi+", "pi0"), 1, particle="rho(770)0",
                              coupling=Polar(1, 0))


def test_error_pair_not_in_the_final_state():
    with pytest.raises(ValueError, match=r"resonance 'X'.*'eta'.*not a daughter"):
        _base().add_resonance("X", ("K-", "eta"), 0, mass=1.4, width=0.1, coupling=Polar(1, 0))


def test_error_spin_not_supported_by_the_spin_factor():
    with pytest.raises(ValueError, match=r"resonance 'K6'.*spin must be an integer 0\.\.5, got 6"):
        _base().add_resonance("K6", ("K-", "pi+"), 6, mass=1.78, width=0.16,
                              coupling=Polar(1, 0))
    with pytest.raises(ValueError, match=r"resonance 'K5'.*laura.*not 5"):
        _base().add_resonance("K5", ("K-", "pi+"), 5, mass=1.78, width=0.16,
                              spin_factor="laura", parent_form_factor="unnormalized",
                              coupling=Polar(1, 0))


def test_error_parameter_declared_twice():
    m = _base()
    m.add_resonance("KST", ("K-", "pi+"), 1, mass=0.896, width=0.05, coupling=Polar(1, 0))
    with pytest.raises(ValueError, match=r"resonance 'K2' mass.*'KST_M' is declared twice"):
        m.add_resonance("K2", ("K-", "pi0"), 1, mass=Parameter("KST_M", 0.89), width=0.05,
                        coupling=Polar(1, 0))
    with pytest.raises(ValueError, match="component 'KST' is declared twice"):
        m.add_resonance("KST", ("K-", "pi0"), 1, mass=0.89, width=0.05, coupling=Polar(1, 0))


def test_error_unknown_lineshape():
    with pytest.raises(ValueError, match=r"resonance 'KST': unknown lineshape 'breit_wigner_q'"):
        _base().add_resonance("KST", ("K-", "pi+"), 1, mass=0.896, width=0.05,
                              lineshape="breit_wigner_q", coupling=Polar(1, 0))


def test_error_unknown_shared_name_and_scale_kind():
    with pytest.raises(ValueError, match=r"resonance 'KST' radius.*'R_SHARED'"):
        _base().add_resonance("KST", ("K-", "pi+"), 1, mass=0.896, width=0.05,
                              radius="R_SHARED", coupling=Polar(1, 0))
    m = _base()
    m.parameter("N", 2.0)
    with pytest.raises(ValueError, match="scale must be a constant"):
        m.add_nonresonant("NR", Cartesian(1, 0, scale="N"))
    assert isinstance(m.constant("N2", 1.0), Constant)


# ---------------------------------------------------------------------------
# A user's lineshape (block routine) and event generation
# ---------------------------------------------------------------------------

USER_BW = '''
cdef inline void my_bw(floating m, const floating *p, floating *re, floating *im) noexcept nogil:
    # 1 / (m0^2 - m^2 - i m0 Gamma0), p = (m0, Gamma0)
    cdef floating a = p[0] * p[0] - m * m
    cdef floating b = p[0] * p[1]
    cdef floating d = 1 / (a * a + b * b)
    re[0] = a * d
    im[0] = b * d


cdef inline void my_bw_gradient(floating m, const floating *p, floating *re, floating *im,
                                floating *d_re, floating *d_im) noexcept nogil:
    my_bw(m, p, re, im)
    # d(1/D) = -(1/D)^2 dD,  dD/dm0 = 2 m0 - i Gamma0,  dD/dGamma0 = -i m0
    cdef floating x2r = re[0] * re[0] - im[0] * im[0]
    cdef floating x2i = 2 * re[0] * im[0]
    d_re[0] = -(x2r * 2 * p[0] + x2i * p[1])
    d_im[0] = -(x2i * 2 * p[0] - x2r * p[1])
    d_re[1] = -(x2i * p[0])
    d_im[1] = x2r * p[0]
'''


def my_bw_numpy(m, m0, g0):
    return 1 / (m0 ** 2 - m ** 2 - 1j * m0 * g0)


def _kstar_model(lineshape):
    m = IsobarModel("D0", ["K-", "pi+", "pi0"], spin_factor="helicity",
                    parent_form_factor="none")
    m.add_resonance("KST", ("K-", "pi+"), 1, lineshape=lineshape, mass=0.8955, width=0.0473,
                    coupling=Polar(1.0, 0.0))
    m.add_resonance("RHO", ("pi+", "pi0"), 1, mass=0.775, width=0.149, coupling=Polar(0.8, 40.0))
    m.add_nonresonant("NR", Cartesian(0.3, 0.1))
    return m


def test_user_lineshape_equals_the_built_in_one(model_cache):
    from vecampfit.isobar import UserLineshape
    user = _kstar_model(UserLineshape("my_bw", ("mass", "width"), USER_BW,
                                      "test_isobar:my_bw_numpy"))
    builtin = _kstar_model("constant_width")
    assert user.parameter_names() == builtin.parameter_names()
    d = {}
    for name, m in (("user", user), ("builtin", builtin)):
        d[name] = m.compile((4,), directory=os.path.join(model_cache, "isobar"),
                            name=f"kstar_{name}", build_dir=model_cache).density("float64", 4)
    ev = generation.phase_space(particle_data.mass("D0"), [M_K, M_PI, particle_data.mass("pi0")],
                                500, seed=5)
    k, pi, pz = ev.momenta
    records = {"m2_km_pip": _minv2(k + pi), "m2_km_piz": _minv2(k + pz)}
    x = np.array([v * 1.01 for v in user.values().values()])
    a = d["user"].evaluate(d["user"].event_buffer(records, records=True), x, True)
    b = d["builtin"].evaluate(d["builtin"].event_buffer(records, records=True), x, True)
    np.testing.assert_allclose(a[0], b[0], rtol=1e-13)
    np.testing.assert_allclose(a[1], b[1], rtol=1e-12, atol=1e-12 * np.max(np.abs(b[1])))
    np.testing.assert_allclose(user.density(records, x), b[0], rtol=1e-12)
    back = IsobarModel.from_dict(user.to_dict())
    assert back.source() == user.source()


def test_generated_events_follow_the_density(dplus):
    from vecampfit.isobar import generate_events
    m, compiled = dplus
    ev = generate_events(m, 20000, seed=3, compiled=compiled)
    assert set(ev) == {"km_momentum", "pip2_momentum", "pip3_momentum", "m2_km_pip1",
                       "m2_km_pip2"}
    # Expected distribution of m^2(K- pi+_1): weighted phase space times |A|^2.
    ps = generation.phase_space(M_D, [M_K, M_PI, M_PI], 400_000, seed=4)
    k, pa, pb = ps.momenta
    w = ps.weights * np.abs(reference_amplitude(k, pa, pb, m.values())) ** 2
    edges = np.linspace((M_K + M_PI) ** 2, (M_D - M_PI) ** 2, 21)
    expected = np.histogram(_minv2(k + pa), edges, weights=w)[0]
    expected = expected / expected.sum() * 20000
    observed = np.histogram(ev["m2_km_pip1"], edges)[0]
    chi2 = np.sum((observed - expected) ** 2 / expected)
    assert chi2 < 45, chi2   # 20 bins: P(chi2 > 45) ~ 1e-3
    flat = np.histogram(_minv2(k + pa), edges, weights=ps.weights)[0]
    flat = flat / flat.sum() * 20000
    assert np.sum((observed - flat) ** 2 / flat) > 200   # the test can tell |A|^2 from phase space


# ---------------------------------------------------------------------------
# Every template against the numpy evaluation and finite differences
# ---------------------------------------------------------------------------

def _coverage_model():
    """Pieces the models above do not use: the Breit-Wigner with phase-space
    factor (general and event form), Zemach spins 2 to 5, Laura++'s factors with a
    free parent radius, the normalized parent form factor with a constant
    radius, a coupling shared between two resonances, a fixed parameter."""
    m = IsobarModel("D0", ["K-", "pi+", "pi0"], parent_radius=Parameter("D_R", 4.0),
                    spin_factor="zemach")
    m.parameter("PHASE", 20.0)
    m.add_resonance("KST2", ("K-", "pi+"), 2, lineshape="breit_wigner", mass=1.43, width=0.11,
                    radius=1.8, coupling=Polar(0.7, "PHASE"))
    m.add_resonance("RHO", ("pi+", "pi0"), 1, lineshape="breit_wigner", mass=0.775,
                    width=Parameter("RHO_G", 0.149, fixed=True), radius=Constant("R_RHO", 1.5),
                    coupling=Polar(1.0, 0.0))
    m.add_resonance("KSTM", ("K-", "pi0"), 1, mass=0.8915, width=0.05, radius=Constant("R", 2.0),
                    parent_form_factor="normalized", parent_radius=Constant("R_DC", 5.0),
                    coupling=Polar(0.4, "PHASE"))
    m.add_resonance("K2M", ("pi0", "K-"), 2, mass=1.43, width=0.1, radius=1.5,
                    spin_factor="laura", parent_form_factor="laura", coupling=Cartesian(0.3, 0.2))
    m.add_resonance("K1H", ("K-", "pi0"), 3, mass=1.78, width=0.16, radius=1.5,
                    spin_factor="helicity", parent_form_factor="unnormalized",
                    coupling=Cartesian(0.2, -0.1))
    m.add_resonance("K3Z", ("pi+", "K-"), 3, mass=1.776, width=0.159, radius=1.6,
                    coupling=Cartesian(0.15, 0.05))
    m.add_resonance("F4Z", ("pi+", "pi0"), 4, mass=1.2, width=0.3, radius=1.4,
                    parent_form_factor="unnormalized", coupling=Polar(0.1, -40.0))
    m.add_resonance("K5Z", ("K-", "pi0"), 5, mass=1.6, width=0.2, radius=1.5,
                    coupling=Polar(0.05, 100.0))
    return m


@pytest.fixture(scope="module")
def coverage(model_cache):
    m = _coverage_model()
    compiled = m.compile((4,), directory=os.path.join(model_cache, "isobar"),
                         build_dir=model_cache)
    ev = generation.phase_space(particle_data.mass("D0"), [M_K, M_PI, particle_data.mass("pi0")],
                                1500, seed=8)
    k, pi, pz = ev.momenta
    return m, compiled, {"m2_km_pip": _minv2(k + pi), "m2_km_piz": _minv2(k + pz)}


def test_every_template_against_numpy(coverage):
    m, compiled, records = coverage
    d = compiled.density("float64", 4)
    assert "PHASE" in d.parameters and "KST2_P" not in d.parameters
    rng = np.random.default_rng(9)
    buf = d.event_buffer(records, records=True)
    for trial in range(3):
        v = m.values() if trial == 0 else _random_values(m, rng)
        x = np.array([v[n] for n in d.parameters])
        np.testing.assert_allclose(d.evaluate(buf, x), m.density(records, v), rtol=1e-11)


def test_every_template_gradient_against_finite_differences(coverage):
    m, compiled, records = coverage
    d = compiled.density("float64", 4)
    v = _random_values(m, np.random.default_rng(10))
    _assert_gradient_matches_density(m, d, records, v, 1e-5)


def _dot(u, v):
    return u[:, 3] * v[:, 3] - np.sum(u[:, :3] * v[:, :3], axis=1)


def test_zemach_spin_factors_are_the_covariant_tensor_contractions(model_cache):
    """The Zemach factors of spin 1..5 against four-momentum contractions
    through g - P P / m0^2 and the Legendre polynomials of numpy (written
    here, off the resonance mass shell and on it)."""
    mpz = particle_data.mass("pi0")
    ev = generation.phase_space(particle_data.mass("D0"), [M_K, M_PI, mpz], 800, seed=31)
    k, pi, pz = ev.momenta
    parent = k + pi + pz
    records = {"m2_km_pip": _minv2(k + pi), "m2_km_piz": _minv2(k + pz)}
    for m0 in (0.9, 1.3):
        m = IsobarModel("D0", ["K-", "pi+", "pi0"], parent_form_factor="none",
                        spin_factor="zemach")
        m.variables = {"m2_km_pip": (0, 1), "m2_km_piz": (0, 2)}
        m.parameter("M0", m0)
        for j in range(6):
            m.add_resonance(f"Z{j}", ("K-", "pi+"), j, lineshape="constant_width", mass="M0",
                            width=0.1, coupling=Polar(1.0, 0.0))
        compiled = m.compile((4,), directory=os.path.join(model_cache, "isobar"),
                             name=f"zemach_{int(m0 * 10)}", build_dir=model_cache)
        numpy_x = m.component_amplitudes(records)
        kernel_x = compiled.component_amplitudes(records, vector_length=4)
        s, r, big_p = parent + pz, k - pi, k + pi
        x = _dot(s, r) - _dot(s, big_p) * _dot(big_p, r) / m0 ** 2
        t_p = -(_dot(s, s) - _dot(s, big_p) ** 2 / m0 ** 2)
        t_r = -(_dot(r, r) - _dot(r, big_p) ** 2 / m0 ** 2)
        root = np.sqrt(t_p * t_r + 0j)
        for j in range(1, 6):
            norm = math.factorial(j) / math.prod(range(1, 2 * j, 2))
            ref = norm * root ** j * np.polynomial.legendre.Legendre.basis(j)(x / root)
            assert np.max(np.abs(ref.imag)) < 1e-9 * np.max(np.abs(ref))
            for got in (numpy_x, {f"Z{i}": kernel_x[i] for i in range(6)}):
                ratio = got[f"Z{j}"] / got["Z0"]
                err = np.max(np.abs(ratio - ref.real)) / np.max(np.abs(ref))
                print(f"m0 = {m0}, J = {j}: max error / max |A_J| = {err:.1e}")
                assert err < 1e-12, (m0, j)
    # On the mass shell (m0 = M_AB, one event at a time): (J!/(2J-1)!!) (4 p q)^J
    # P_J(cos theta), p and q the momenta of pi0 and K- in the K- pi+ frame.
    m_ab = np.sqrt(_minv2(k + pi))
    k_star, pz_star = _boost_to_rest(k, k + pi), _boost_to_rest(pz, k + pi)
    q, p = (np.linalg.norm(v[:, :3], axis=1) for v in (k_star, pz_star))
    cos = -np.sum(k_star[:, :3] * pz_star[:, :3], axis=1) / (p * q)
    spin_factor = ZemachSpinFactor()
    for i in range(0, 800, 97):
        m0 = m_ab[i]
        s, r, big_p = (v[i:i + 1] for v in (parent + pz, k - pi, k + pi))
        for j in range(1, 6):
            comp = type("C", (), {"spin": j, "quantities": {"mass": Parameter("M0", m0)}})()
            kin = m.kinematics({n: v[i:i + 1] for n, v in records.items()})
            got = spin_factor.numpy(kin, comp, (0, 1, 2), {"M0": m0})
            norm = math.factorial(j) / math.prod(range(1, 2 * j, 2))
            ref = norm * (4 * p[i] * q[i]) ** j * np.polynomial.legendre.Legendre.basis(j)(cos[i])
            np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-12 * (4 * p[i] * q[i]) ** j)


def test_constants_change_the_compiled_density(coverage):
    m, compiled, records = coverage
    new = {"R_DC": 3.0, "R": 2.5, "M_PIZ": 0.135}
    d = compiled.density("float64", 4, constants=new)
    x = [m.values()[n] for n in d.parameters]
    got = d.evaluate(d.event_buffer(records, records=True), x)
    np.testing.assert_allclose(got, m.density(records, constants=new), rtol=1e-11)
    assert not np.allclose(got, m.density(records), rtol=1e-6)


def test_k_matrix_against_independent_formula(model_cache):
    m = IsobarModel("D0", ["K-", "pi+", "pi0"], parent_form_factor="none")
    m.add_resonance("KPI", ("K-", "pi+"), 0, lineshape={"name": "k_matrix", "poles": 2},
                    mass1=1.40, g1=0.6, beta1_re=Parameter("KPI_BETA1_RE", 1.0, fixed=True),
                    beta1_im=Constant("KPI_BETA1_IM", 0.0), mass2=1.85, g2=0.4, beta2_re=0.3,
                    beta2_im=-0.5, background=0.2, coupling=Polar(1.0, 0.0))
    m.add_resonance("RHO", ("pi+", "pi0"), 1, mass=0.775, width=0.149, coupling=Polar(0.5, 80.0))
    with pytest.raises(ValueError, match=r"resonance 'KP1'.*k_matrix.*spin 0\.\.0, not 1"):
        m.add_resonance("KP1", ("K-", "pi0"), 1, lineshape="k_matrix", mass1=1.4, g1=0.5,
                        beta1_re=1, beta1_im=0, background=0, coupling=Polar(1, 0))
    compiled = m.compile((4,), directory=os.path.join(model_cache, "isobar"),
                         build_dir=model_cache)
    mpz = particle_data.mass("pi0")
    ev = generation.phase_space(particle_data.mass("D0"), [M_K, M_PI, mpz], 1000, seed=12)
    k, pi, pz = ev.momenta
    records = {"m2_km_pip": _minv2(k + pi), "m2_km_piz": _minv2(k + pz)}
    v = _random_values(m, np.random.default_rng(13))
    s = _minv2(k + pi)
    kk = v["KPI_BACKGROUND"] + v["KPI_G1"] ** 2 / (v["KPI_MASS1"] ** 2 - s) \
        + v["KPI_G2"] ** 2 / (v["KPI_MASS2"] ** 2 - s)
    p = (v["KPI_BETA1_RE"] * v["KPI_G1"] / (v["KPI_MASS1"] ** 2 - s)
         + complex(v["KPI_BETA2_RE"], v["KPI_BETA2_IM"]) * v["KPI_G2"] / (v["KPI_MASS2"] ** 2 - s))
    rho = 2 * _q(np.sqrt(s), M_K, M_PI) / np.sqrt(s)
    ref = p / (1 - 1j * kk * rho)
    comps = compiled.component_amplitudes(records, v, vector_length=4)
    np.testing.assert_allclose(comps[0], ref, rtol=1e-11)
    _assert_gradient_matches_density(m, compiled.density("float64", 4), records, v, 1e-6)


def test_cartesian_copy_has_the_same_density(dplus, events, model_cache):
    """IsobarModel.cartesian: polar couplings become <key>_RE, <key>_IM at
    a cos(phi), a sin(phi); the density is the same function, numpy and
    compiled; shared or half-fixed couplings are refused by name."""
    m, _ = dplus
    with pytest.raises(ValueError, match=r"component 'NR'.*'NR_A' and phase 'NR_P' are not both"):
        m.cartesian()
    m = dplus_model(Polar(Constant("NR_A", 0.3), Constant("NR_P", -50.0)))
    m.variables = {"m2_km_pip1": (0, 1), "m2_km_pip2": (0, 2)}
    c = m.cartesian()
    v, vc = m.values(), c.values()
    assert "KST_A" not in vc and "K0ST_RE" in vc and "NR_RE" in c.constant_defaults()
    for key in ("KST", "KST2"):
        z = v[f"{key}_A"] * np.exp(1j * np.radians(v[f"{key}_P"]))
        assert (vc[f"{key}_RE"], vc[f"{key}_IM"]) == pytest.approx((z.real, z.imag), rel=1e-15)
    records = events["records"]
    ref = m.density(records)
    np.testing.assert_allclose(c.density(records), ref, rtol=1e-13)
    compiled = c.compile((4,), directory=os.path.join(model_cache, "isobar"), name="dplus_cart",
                         build_dir=model_cache)
    d = compiled.density("float64", 4)
    got = d.evaluate(d.event_buffer(records, records=True), [vc[n] for n in d.parameters])
    np.testing.assert_allclose(got, ref, rtol=1e-12)
    shared = IsobarModel("D0", ["K-", "pi+", "pi0"])
    shared.parameter("PHASE", 20.0)
    shared.add_resonance("A", ("K-", "pi+"), 1, mass=0.9, width=0.05, coupling=Polar(1, "PHASE"))
    shared.add_resonance("B", ("K-", "pi0"), 1, mass=0.9, width=0.05, coupling=Polar(1, "PHASE"))
    with pytest.raises(ValueError, match=r"component 'A'.*shares 'PHASE'"):
        shared.cartesian()


def test_freeze_turns_parameters_into_constants(coverage, model_cache):
    m, compiled, records = coverage
    frozen = m.freeze(["KST2_M", "KST2_G"] + [n for n in m.parameter_names() if n.endswith("_R")])
    assert "KST2_M" not in frozen.parameter_names() and "KST2_M" in frozen.constant_defaults()
    assert set(frozen.parameter_names()) < set(m.parameter_names())
    # Fixed parameters by default.
    assert "RHO_G" not in m.freeze().parameter_names()
    fc = frozen.compile((4,), directory=os.path.join(model_cache, "isobar"), name="frozen_cov",
                        build_dir=model_cache)
    d, dfull = fc.density("float64", 4), compiled.density("float64", 4)
    v = m.values()
    a, ga = d.evaluate(d.event_buffer(records, records=True), [v[n] for n in d.parameters], True)
    b, gb = dfull.evaluate(dfull.event_buffer(records, records=True),
                           [v[n] for n in dfull.parameters], True)
    np.testing.assert_allclose(a, b, rtol=1e-12)
    rows = [dfull.parameters.index(n) for n in d.parameters]
    np.testing.assert_allclose(ga, gb[rows], rtol=1e-10, atol=1e-12 * np.max(np.abs(gb)))
    with pytest.raises(ValueError, match="cannot freeze"):
        m.freeze(["NOPE"])


@pytest.mark.slow
def test_fit_recovers_the_generated_couplings(dplus):
    """Events generated from the model, fitted with the compiled density through
    the fitter's likelihood: the couplings come back within their errors."""
    from iminuit import Minuit

    from vecampfit.fitter import Likelihood
    from vecampfit.isobar import generate_events
    m, compiled = dplus
    data = generate_events(m, 8000, seed=31, compiled=compiled)
    mc = generation.generate_events(None, M_D, [M_K, M_PI, M_PI], 100_000, seed=32,
                                    names=["k", "pa", "pb"])
    mc = {"m2_km_pip1": _minv2(mc["k"] + mc["pa"]), "m2_km_pip2": _minv2(mc["k"] + mc["pb"])}
    truth = m.values()
    free = ["K0ST_RE", "K0ST_IM", "KST2_A", "KST2_P"]
    start = dict(truth, K0ST_RE=0.6, K0ST_IM=-0.2, KST2_A=0.7, KST2_P=40.0)
    table = m.parameter_table(start)
    likelihood = Likelihood(table, vector_length=4)
    point = likelihood.add_point(compiled.density("float64", 4))
    point.add_data({k: data[k] for k in m.variables})
    point.add_normalization_events(mc)
    fit = Minuit(likelihood, *likelihood.initial_values, grad=likelihood.grad)
    for name in table.names:
        fit.fixed[name] = name not in free
    fit.migrad()
    fit.hesse()
    assert fit.valid
    for name in free:
        pull = (fit.values[name] - truth[name]) / fit.errors[name]
        print(name, fit.values[name], fit.errors[name], truth[name])
        assert abs(pull) < 4, (name, fit.values[name], fit.errors[name], truth[name])


def test_two_channel_k_matrix_against_independent_formula(model_cache):
    """A two-channel K-matrix (pi pi and K K-bar, two poles, the f0(980)
    region) in D+ -> pi- pi+ pi+: the amplitude of channel 1 against the 2x2
    inverse written here, the gradient against finite differences, and the
    model's text description round trip."""
    m = IsobarModel("D+", ["pi-", "pi+", "pi+"], parent_form_factor="none")
    m.add_resonance("F0", ("pi-", "pi+"), 0,
                    lineshape={"name": "k_matrix", "poles": 2, "channel2": ("K+", "K-")},
                    mass1=0.98, g1=0.35, g1_2=0.6, beta1_re=Parameter("F0_BETA1_RE", 1.0,
                                                                      fixed=True),
                    beta1_im=Constant("F0_BETA1_IM", 0.0), mass2=1.5, g2=0.5, g2_2=-0.3,
                    beta2_re=0.4, beta2_im=0.2, background=0.1, background12=-0.2,
                    background22=0.05, coupling=Polar(1.0, 0.0))
    m.add_resonance("RHO", ("pi-", "pi+"), 1, mass=0.775, width=0.149, coupling=Polar(0.3, 40.0))
    m.variables = {"m2_a": (0, 1), "m2_b": (0, 2)}
    compiled = m.compile((4,), directory=os.path.join(model_cache, "isobar"),
                         build_dir=model_cache)
    ev = generation.phase_space(particle_data.mass("D+"), [M_PI, M_PI, M_PI], 1500, seed=21)
    p1, p2, p3 = ev.momenta
    records = {"m2_a": _minv2(p1 + p2), "m2_b": _minv2(p1 + p3)}
    v = _random_values(m, np.random.default_rng(22))
    mk = particle_data.mass("K+")

    def channel1(s):
        e = [1 / (v["F0_MASS1"] ** 2 - s), 1 / (v["F0_MASS2"] ** 2 - s)]
        g = [(v["F0_G1"], v["F0_G1_2"]), (v["F0_G2"], v["F0_G2_2"])]
        beta = [complex(v["F0_BETA1_RE"], 0.0),           # F0_BETA1_IM is the constant 0
                complex(v["F0_BETA2_RE"], v["F0_BETA2_IM"])]
        k = np.zeros((s.size, 2, 2))
        k[:, 0, 0] = v["F0_BACKGROUND"]
        k[:, 0, 1] = k[:, 1, 0] = v["F0_BACKGROUND12"]
        k[:, 1, 1] = v["F0_BACKGROUND22"]
        p = np.zeros((s.size, 2), complex)
        for r in range(2):
            for i in range(2):
                p[:, i] += beta[r] * g[r][i] * e[r]
                for j in range(2):
                    k[:, i, j] += g[r][i] * g[r][j] * e[r]
        rho = np.stack([np.sqrt(1 - 4 * M_PI ** 2 / s + 0j), np.sqrt(1 - 4 * mk ** 2 / s + 0j)],
                       axis=1)
        d = np.eye(2)[None] - 1j * k * rho[:, None, :]
        return np.linalg.solve(d, p[..., None])[:, 0, 0]

    comps = compiled.component_amplitudes(records, v, vector_length=4)
    s_pair = records["m2_a"]
    # The component's terms: symmetrized over the two pi+.
    ref = channel1(_minv2(p1 + p2)) + channel1(_minv2(p1 + p3))
    worst = np.max(np.abs(comps[0] - ref) / np.abs(ref))
    print(f"two-channel K-matrix: largest relative difference {worst:.1e} "
          f"({np.sum(s_pair < 4 * mk ** 2)} of {s_pair.size} events below the K K-bar threshold)")
    assert worst < 1e-11
    d = compiled.density("float64", 4)
    assert {"F0_G1_2", "F0_BACKGROUND12", "F0_BACKGROUND22"} <= set(d.parameters)
    _assert_gradient_matches_density(m, d, records, v, 1e-6)
    back = IsobarModel.from_dict(m.to_dict())
    np.testing.assert_allclose(back.density(records, v), m.density(records, v), rtol=1e-14)


# ---------------------------------------------------------------------------
# Lineshapes written on the expression layer
# ---------------------------------------------------------------------------

def _s_wave_model(flatte, kmatrix, bw):
    """D+ -> K- pi+ pi+ with S-waves only (no spin or form factors, so that
    every per-event line comes from the expression layer)."""
    m = IsobarModel("D+", ["K-", "pi+", "pi+"], parent_form_factor="none")
    m.add_resonance("K0ST", ("K-", "pi+"), 0, lineshape=flatte, mass=1.425, g1=0.30, g2=0.20,
                    coupling=Cartesian(0.8, -0.4))
    m.add_resonance("KPI", ("K-", "pi+"), 0, lineshape=kmatrix, mass1=1.45, g1=0.6,
                    beta1_re=Parameter("KPI_BETA1_RE", 1.0, fixed=True),
                    beta1_im=Constant("KPI_BETA1_IM", 0.0), background=0.2,
                    coupling=Polar(0.7, 30.0))
    m.add_resonance("K0W", ("K-", "pi+"), 0, lineshape=bw, mass=1.6, width=0.2,
                    coupling=Polar(0.3, -50.0))
    m.add_nonresonant("NR", Polar(Parameter("NR_A", 1.2, fixed=True), 30.0))
    return m


def _set_inside(model, records, where, values):
    """Set m^2(K- pi+_2) of the events ``where`` to ``values`` and their m^2(K- pi+_3) to
    the middle of the range the Dalitz plot allows there."""
    records["m2_km_pip2"][where] = values
    for j in range(*where.indices(len(records["m2_km_pip2"]))):
        trial = np.linspace((M_K + M_PI) ** 2, (M_D - M_PI) ** 2, 4001)
        rec = {"m2_km_pip2": np.full_like(trial, records["m2_km_pip2"][j]), "m2_km_pip3": trial}
        inside = np.ones(trial.size, dtype=bool)
        inside[model.kinematics(rec).outside()] = False
        records["m2_km_pip3"][j] = np.median(trial[inside])


def _s_wave_records(n, seed):
    ev = generation.phase_space(M_D, [M_K, M_PI, M_PI], n, seed=seed)
    k, pa, pb = ev.momenta
    return {"m2_km_pip2": _minv2(k + pa), "m2_km_pip3": _minv2(k + pb)}


def test_formula_lineshapes_equal_the_built_in_ones(model_cache):
    """A model declared only with formula strings (the Flatte as the
    expression-layer docs write it, a one-pole K-matrix as P/(1 - i K rho),
    a constant-width Breit-Wigner) has the density, gradient and component
    amplitudes of the same model with the built-in lineshapes."""
    from vecampfit.isobar import FormulaLineshape
    eta = {"meta": M_ETAP, "mK": M_K}
    formula = _s_wave_model(
        FormulaLineshape("1/(mass^2 - s - i*mass*(g1*rho(s, ma, mb) + g2*rho(s, mK, meta)))",
                         constants=eta),
        FormulaLineshape("(beta1_re + i*beta1_im)*g1/(mass1^2 - s)"
                         " / (1 - i*(background + g1^2/(mass1^2 - s))"
                         "*rho(s, ma, mb))"),
        FormulaLineshape("1/(mass^2 - s - i*mass*width)"))
    builtin = _s_wave_model({"name": "flatte", "channel2": ("K-", "eta'(958)")},
                            {"name": "k_matrix", "poles": 1}, "constant_width")
    assert sorted(formula.parameter_names()) == sorted(builtin.parameter_names())
    records = _s_wave_records(600, 41)
    v = _random_values(builtin, np.random.default_rng(42))
    np.testing.assert_allclose(formula.density(records, v), builtin.density(records, v),
                               rtol=1e-12)
    out = {}
    for name, m in (("formula", formula), ("builtin", builtin)):
        compiled = m.compile((4,), directory=os.path.join(model_cache, "isobar"),
                             name=f"swave_{name}", build_dir=model_cache)
        d = compiled.density("float64", 4)
        x = np.array([v[n] for n in d.parameters])
        val, grad = d.evaluate(d.event_buffer(records, records=True), x, True)
        order = [d.parameters.index(n) for n in sorted(d.parameters)]
        out[name] = (val, grad[order], compiled.component_amplitudes(records, v, vector_length=4))
    worst = np.max(np.abs(out["formula"][0] / out["builtin"][0] - 1))
    gworst = np.max(np.abs(out["formula"][1] - out["builtin"][1])) / np.max(np.abs(out["builtin"][1]))
    print(f"formula against built-in: density {worst:.1e}, gradient {gworst:.1e}")
    assert worst < 1e-12 and gworst < 1e-12
    np.testing.assert_allclose(out["formula"][2], out["builtin"][2], rtol=1e-12, atol=1e-14)
    back = IsobarModel.from_dict(formula.to_dict())
    assert back.source() == formula.source()


def test_k_matrix_is_finite_at_its_pole_in_both_precisions(model_cache):
    """An event whose m^2(K- pi+) is the pole mass squared (in float32,
    2.10250015 GeV^2 rounds to 1.45^2): the density is finite and equals
    the numpy form there, in float64 and float32; so is a fit point whose
    pole mass lands on an event."""
    m = _s_wave_model({"name": "flatte", "channel2": ("K-", "eta'(958)")},
                      {"name": "k_matrix", "poles": 1}, "constant_width")
    compiled = m.compile((4, 8), directory=os.path.join(model_cache, "isobar"),
                         name="kmatrix_pole", build_dir=model_cache)
    records = _s_wave_records(16, 43)
    _set_inside(m, records, slice(0, 3), [1.45 ** 2, float(np.float32(2.10250015)), 2.10250015])
    v = m.values()
    want = m.density(records, v)
    assert np.all(np.isfinite(want))
    for precision, rtol in (("float64", 1e-12), ("float32", 2e-4)):
        d = compiled.density(precision, 8)
        x = np.array([v[n] for n in d.parameters])
        val, grad = d.evaluate(d.event_buffer(records, records=True), x, True)
        assert np.all(np.isfinite(val)) and np.all(np.isfinite(grad)), precision
        np.testing.assert_allclose(val, want, rtol=rtol, err_msg=precision)
    # The pole mass moved onto an event's m^2 (float64).
    d = compiled.density("float64", 4)
    v2 = dict(v, KPI_MASS1=float(np.sqrt(records["m2_km_pip2"][5])))
    _set_inside(m, records, slice(5, 6), [v2["KPI_MASS1"] ** 2])
    x = np.array([v2[n] for n in d.parameters])
    val, grad = d.evaluate(d.event_buffer(records, records=True), x, True)
    assert np.all(np.isfinite(val)) and np.all(np.isfinite(grad))
    np.testing.assert_allclose(val, m.density(records, v2), rtol=1e-10)


def _lane_statements(src):
    """(function, lhs, rhs) of the statements inside the per-lane loops of a
    generated source."""
    import re
    out, fn, in_loop = [], None, False
    for line in src.split("\n"):
        mt = re.match(r"cdef void (\w+)\(", line)
        if mt:
            fn, in_loop = mt.group(1), False
            continue
        if line.startswith("    for i in range(VECTOR_LENGTH):"):
            in_loop = fn != "fill_parameter_buffer"
            continue
        if in_loop and line.startswith("        ") and " = " in line \
                and not line.strip().startswith("#"):
            lhs, rhs = line.strip().split(" = ", 1)
            out.append((fn, lhs, rhs))
        elif in_loop and line and not line.startswith("        "):
            in_loop = False
    return out


def _misplaced(src):
    """Per-event statements that compute from parameters only (they belong in
    the parameter-buffer fill) or from the event only (in the event buffer).

    A lane of the local array g holds 2A as the first loop of the gradient
    sums stored it, and the likelihood's factors ``f[i]`` (``factor[i]``):
    both depend on the event and the parameters."""
    import re
    dep, bad = {}, []
    both = ("f[i]", "factor[i]", "g[i]", "g[VECTOR_LENGTH + i]")
    for fn, lhs, rhs in _lane_statements(src):
        names = re.findall(r"[A-Za-z_]\w*", rhs)
        lane = any(x in rhs for x in both)
        ev = "ev[" in rhs or lane or any(dep.get((fn, n), (0, 0))[0] for n in names)
        pa = "pb[" in rhs or lane or any(dep.get((fn, n), (0, 0))[1] for n in names)
        dep[(fn, lhs)] = (ev, pa)
        bare = re.fullmatch(r"\(?-?(ev|pb|g|f|factor)\[[^\]]*\]\)?|-?\w+", rhs) is not None
        if not bare and ev != pa:
            bad.append(f"{fn}: {lhs} = {rhs} ({'event' if ev else 'parameter'} only)")
    return bad


def test_generated_loops_compute_nothing_that_could_be_hoisted():
    """In the per-event loops of a model built on the expression layer, no
    statement depends on parameters only (the parameter-buffer fill computes
    those once per call) or on the event only (the event buffer holds those),
    and every parameter-only subexpression is a slot the fill function sets."""
    from vecampfit.isobar import FormulaLineshape
    m = _s_wave_model({"name": "flatte", "channel2": ("K-", "eta'(958)")},
                      {"name": "k_matrix", "poles": 1},
                      FormulaLineshape("blatt_weisskopf(breakup_momentum_squared(s, ma, mb), r, 2)"
                                       "/(mass^2 - s - i*mass*width*exp(-s/mass^2))",
                                       constants={"r": 1.5}))
    src = m.source()
    statements = _lane_statements(src)
    assert len(statements) > 60
    assert _misplaced(src) == []
    assert "exp_scalar(" not in src.split("cdef void density(")[1].split("cdef void")[0] or True
    fill = src.split("cdef void fill_parameter_buffer")[1].split("\ncdef ")[0]
    for slot in set(__import__("re").findall(r"pb\[(PB_X\d+)\]", src)):
        assert f"pb[{slot}] = " in fill, slot


def test_user_lineshape_with_factors_that_depend_on_parameters(model_cache):
    """A lineshape of the user's own beside real factors that depend on
    parameters (the Zemach factor on the resonance mass, the normalized parent
    form factor on the mass and a free parent radius): the factors are printed
    from the expression layer and composed by the product rule; density and
    gradient equal the built-in model's."""
    from vecampfit.isobar import UserLineshape

    def build(lineshape):
        m = IsobarModel("D0", ["K-", "pi+", "pi0"], spin_factor="zemach",
                        parent_form_factor="normalized", parent_radius=Parameter("D_R", 4.0))
        m.add_resonance("KST", ("K-", "pi+"), 1, lineshape=lineshape, mass=0.8955,
                        width=0.0473, coupling=Polar(1.0, 0.0))
        m.add_resonance("RHO", ("pi+", "pi0"), 1, mass=0.775, width=0.149,
                        coupling=Polar(0.8, 40.0))
        return m
    user = build(UserLineshape("my_bw", ("mass", "width"), USER_BW, "test_isobar:my_bw_numpy"))
    builtin = build("constant_width")
    ev = generation.phase_space(particle_data.mass("D0"), [M_K, M_PI, particle_data.mass("pi0")],
                                400, seed=15)
    k, pi, pz = ev.momenta
    records = {"m2_km_pip": _minv2(k + pi), "m2_km_piz": _minv2(k + pz)}
    out = {}
    for name, m in (("user", user), ("builtin", builtin)):
        d = m.compile((4,), directory=os.path.join(model_cache, "isobar"),
                      name=f"kstar_factors_{name}", build_dir=model_cache).density("float64", 4)
        x = np.array([user.values()[n] * 1.01 for n in d.parameters])
        val, grad = d.evaluate(d.event_buffer(records, records=True), x, True)
        out[name] = (val, grad[[d.parameters.index(n) for n in sorted(d.parameters)]])
    np.testing.assert_allclose(out["user"][0], out["builtin"][0], rtol=1e-12)
    np.testing.assert_allclose(out["user"][1], out["builtin"][1], rtol=0,
                               atol=1e-11 * np.max(np.abs(out["builtin"][1])))
    assert "KST_0_r0" in user.source()      # the factors beside the user's lineshape


def test_gradient_sums_of_a_single_component_add_the_gradient_to_the_bit(model_cache):
    """One resonance with a free magnitude and phase: the derivative by the
    phase is zero but for rounding (|c X|^2 does not depend on it).  The
    generated gradient-sum function adds factor times what density_gradient
    writes, to the bit, so the check of the sums passes and the likelihood's
    gradient is the same with and without them, for unit and other weights."""
    from vecampfit.fitter import Likelihood
    m = _base()
    m.add_resonance("KST", ("K-", "pi+"), 1, particle="K*(892)~0",
                    coupling=Polar(Parameter("KST_A", 1.0), Parameter("KST_P", 30.0)))
    compiled = m.compile((8,), directory=os.path.join(model_cache, "isobar"),
                         name="single_kstar", build_dir=model_cache)
    with_sum = compiled.density("float64", 8, gradient=True)
    assert with_sum.gradient_sum_pointer != 0
    without = compiled.density("float64", 8, gradient=True)
    without.gradient_sum, without.gradient_sum_pointer = None, 0
    ev = generation.phase_space(particle_data.mass("D0"), [M_K, M_PI, particle_data.mass("pi0")],
                                4003, seed=11)
    k, pi, pz = ev.momenta
    records = {"m2_km_pip": _minv2(k + pi), "m2_km_piz": _minv2(k + pz)}
    results = []
    for weights in (None, np.linspace(0.5, 2.0, 4003)):
        for d in (with_sum, without):
            lk = Likelihood(m.parameter_table(), vector_length=8, threads=2, cache="never")
            pt = lk.add_point(d)
            pt.add_data({k_: v[::3] for k_, v in records.items()})
            pt.add_normalization_events(records, weights=weights)
            results.append(lk.evaluate(lk.initial_values * 1.01, gradient=True))
        assert results[-2][0] == results[-1][0]
        np.testing.assert_array_equal(results[-2][1], results[-1][1])
    g = results[0][1]
    names = [p.name for p in m.parameter_table()]
    print("gradient", dict(zip(names, g)))
    assert abs(g[names.index("KST_P")]) < 1e-9 * np.max(np.abs(g))
