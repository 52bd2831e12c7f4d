"""Model files of the exchange format with four-body cascades, read into vecampfit.cascades.

A file for D0 -> K- pi+ pi+ pi- (indices 1 = K-, 2 = pi+, 3 = pi+, 4 = pi-) is
written in the test, following the format's description and JSON schema:

* D0 -> a1(1260)+ K-, a1+ -> rho0 pi+ (S and D waves), rho0 -> pi+ pi-, in the
  topology [[[3, 4], 2], 1] and its Bose partner [[[2, 4], 3], 1], with
  Blatt-Weisskopf and momentum-power form factors on the vertices;
* the vector-vector chains D0 -> anti-K*0 rho0 in S, P and D waves (LS
  vertices), with helicity and parity vertices, topology [[1, 2], [3, 4]];
* D0 -> f0 anti-K*0 in the topology [[3, 4], [1, 2]] (a polynomial lineshape).

Its intensity is compared with the same model declared directly through
vecampfit.cascades and with an independent numpy evaluation (explicit
boosts, sympy's Wigner D and Clebsch-Gordan coefficients, Jacob and Wick's
second-particle convention: the reference of tests/test_cascades.py); the
read -> write -> read round trip; a three-body model read through both
paths; the published COMPASS model's checksums read as cascades; and the
errors with their JSON paths.
"""

import copy
import importlib.util
import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from vecampfit import generation
from vecampfit.cascades import LS, CascadeModel, Helicity, Isobar, Particle
from vecampfit.expressions import physics
from vecampfit.expressions.nodes import ComplexExpr, sqrt
from vecampfit.model_format import ModelFormatError, read_model, write_model
from vecampfit.model_format.cascade_reader import CascadeDistribution

from numeric_checks import relative_gradient_errors

HERE = Path(__file__).parent
DATA = HERE / "data" / "amplitude_serialization"
SCHEMA = HERE / "data" / "amplitude_serialization" / "schema.json"

_spec = importlib.util.spec_from_file_location("_cascade_reference", HERE / "test_cascades.py")
ref = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ref)

M_D, M_K, M_PI = 1.86484, 0.493677, 0.13957039
MASSES = [M_K, M_PI, M_PI, M_PI]
RHO = dict(mass=0.77526, width=0.1491, ma=M_PI, mb=M_PI, l=1, d=1.5)
A1 = (1.23, 0.42)
KST = dict(mass=0.89555, gsq=0.05, ma=M_K, mb=M_PI, l=1, d=1.5)
POLY = [0.8 + 0.3j, -0.25 + 0j]
R_D, R_RHO = 5.0, 1.5

# name -> (topology, {node: (vertex dict)}, {node: (spin, function)}, weight)
WEIGHTS = {"a1_S": 1.0 + 0.0j, "a1_D": 0.35 - 0.2j, "a1_S_bose": 1.0 + 0.0j,
           "KstRho_S": 0.4 + 0.1j, "KstRho_P": -0.3 + 0.5j, "KstRho_D": 0.2 - 0.15j,
           "KstRho_hel": 0.1 + 0.2j, "KstRho_par": -0.25 + 0.05j, "f0Kst": 0.6 - 0.4j}


def _c(z):
    return f"{z.real!r} {'-' if z.imag < 0 else '+'} {abs(z.imag)!r}i"


def _ls(node, l, s, ff=None):
    v = {"type": "ls", "l": l, "s": s, "node": node}
    if ff:
        v["formfactor"] = ff
    return v


def _a1_chain(name, rho_node, a1_node, top, l_a1, ff_a1):
    return {"name": name, "topology": top, "weight": _c(WEIGHTS[name]),
            "propagators": [{"spin": "1", "node": a1_node, "parametrization": "a1_const"},
                            {"spin": "1", "node": rho_node, "parametrization": "rho_BW"}],
            "vertices": [_ls(top, 1, "1", "BW_D_L1"), _ls(a1_node, l_a1, "1", ff_a1),
                         _ls(rho_node, 1, "0", "BW_rho_L1")]}


def _vv_chain(name, root_vertex, k_vertex=None, rho_vertex=None):
    top = [[1, 2], [3, 4]]
    return {"name": name, "topology": top, "weight": _c(WEIGHTS[name]),
            "propagators": [{"spin": "1", "node": [1, 2], "parametrization": "Kst_MBW"},
                            {"spin": "1", "node": [3, 4], "parametrization": "rho_BW"}],
            "vertices": [dict(root_vertex, node=top),
                         dict(k_vertex or _ls([1, 2], 1, "0"), node=[1, 2]),
                         dict(rho_vertex or _ls([3, 4], 1, "0"), node=[3, 4],
                              formfactor="BW_rho_L1")]}


def model_file():
    """The D0 -> K- pi+ pi+ pi- model in the exchange format (dict)."""
    chains = [
        _a1_chain("a1_S", [3, 4], [[3, 4], 2], [[[3, 4], 2], 1], 0, None),
        _a1_chain("a1_D", [3, 4], [[3, 4], 2], [[[3, 4], 2], 1], 2, "MP_L2"),
        _a1_chain("a1_S_bose", [2, 4], [[2, 4], 3], [[[2, 4], 3], 1], 0, None),
        _vv_chain("KstRho_S", {"type": "ls", "l": 0, "s": "0"}),
        _vv_chain("KstRho_P", {"type": "ls", "l": 1, "s": "1"}),
        _vv_chain("KstRho_D", {"type": "ls", "l": "2", "s": "2"}),
        _vv_chain("KstRho_hel", {"type": "helicity", "helicities": ["1", "1"]},
                  {"type": "helicity", "helicities": ["0", "0"]},
                  {"type": "parity", "helicities": ["0", "0"], "parity_factor": "+"}),
        _vv_chain("KstRho_par", {"type": "parity", "helicities": ["1", "1"],
                                 "parity_factor": "-"}),
        {"name": "f0Kst", "topology": [[3, 4], [1, 2]], "weight": _c(WEIGHTS["f0Kst"]),
         "propagators": [{"spin": "0", "node": [3, 4], "parametrization": "f0_poly"},
                         {"spin": "1", "node": [1, 2], "parametrization": "Kst_MBW"}],
         "vertices": [_ls([[3, 4], [1, 2]], 1, "1", "BW_D_L1"), _ls([3, 4], 0, "0"),
                      _ls([1, 2], 1, "0")]},
    ]
    variables = [{"node": [[[3, 4], 2], 1], "mass_phi_costheta": ["m_0", "phi_342", "cos_342"]},
                 {"node": [[3, 4], 2], "mass_phi_costheta": ["m_342", "phi_34", "cos_34"]},
                 {"node": [3, 4], "mass_phi_costheta": ["m_34", "phi_3", "cos_3"]}]
    point = {"m_0": M_D, "phi_342": 0.3, "cos_342": -0.2, "m_342": 1.25, "phi_34": -1.1,
             "cos_34": 0.45, "m_34": 0.78, "phi_3": 2.0, "cos_3": 0.6}
    return {
        "distributions": [{
            "name": "d0_k3pi", "type": "HadronicUnpolarizedIntensity", "variables": variables,
            "decay_description": {
                "kinematics": {
                    "initial_state": {"index": 0, "name": "D0", "spin": "0", "mass": M_D},
                    "final_state": [{"index": 1, "name": "K-", "spin": "0", "mass": M_K},
                                    {"index": 2, "name": "pi+", "spin": "0", "mass": M_PI},
                                    {"index": 3, "name": "pi+", "spin": "0", "mass": M_PI},
                                    {"index": 4, "name": "pi-", "spin": "0", "mass": M_PI}]},
                "reference_topology": [[[3, 4], 2], 1],
                "chains": chains}}],
        "functions": [
            dict(name="rho_BW", type="BreitWigner", x="m_34_sq", **RHO),
            {"name": "a1_const", "type": "generic_function",
             "expression": f"1/({A1[0]}^2 - s - {A1[0]}*{A1[1]}*i)"},
            {"name": "Kst_MBW", "type": "MultichannelBreitWigner", "x": "m_12_sq",
             "mass": KST["mass"], "channels": [{k: KST[k] for k in ("gsq", "ma", "mb", "l", "d")}]},
            {"name": "f0_poly", "type": "Polynomial", "x": "m_34_sq",
             "coefficients": [_c(c) for c in POLY]},
            {"name": "BW_D_L1", "type": "BlattWeisskopf", "radius": R_D, "l": 1},
            {"name": "BW_rho_L1", "type": "BlattWeisskopf", "radius": R_RHO, "l": 1},
            {"name": "MP_L2", "type": "MomentumPower", "l": 2}],
        "parameter_points": [{"name": "validation_point",
                              "parameters": [{"name": k, "value": v} for k, v in point.items()]}],
        "domains": [],
        "misc": {"amplitude_model_checksums": []},
    }


@pytest.fixture(scope="module")
def model_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("format") / "d0_k3pi.json"
    path.write_text(json.dumps(model_file(), indent=1))
    return path


@pytest.fixture(scope="module")
def momenta():
    ps = generation.phase_space(M_D, MASSES, 60, seed=7)
    return [np.asarray(p, dtype=np.float64) for p in ps.momenta]


# ---------------------------------------------------------------------------
# The same model declared directly with vecampfit.cascades
# ---------------------------------------------------------------------------

def _q2(s, ma, mb):
    return physics.breakup_momentum_squared(s, ma, mb)


def declared_cascade():
    final = [Particle("K-", 0, None, M_K), Particle("pi+a", 0, None, M_PI),
             Particle("pi+b", 0, None, M_PI), Particle("pi-", 0, None, M_PI)]
    c = CascadeModel("declared", Particle("D0", 0, None, M_D), final)
    mv = CascadeModel.mass_variable

    def rho(node):
        def f(s, ma, mb):
            out = physics.breit_wigner_format(s, **RHO)
            ff = physics.blatt_weisskopf_unnormalized(_q2(s, M_PI, M_PI), R_RHO, 1)
            return out * ComplexExpr(ff) * 3 ** 0.5
        return Isobar("rho0", 1, None, f)

    def a1(rho_node, wave, top_ff=True):
        def f(s, ma, mb):
            out = ComplexExpr(1.0) / ComplexExpr(A1[0] ** 2 - s, -A1[0] * A1[1])
            q2_top = _q2(M_D ** 2, sqrt(s), M_K)
            out = out * ComplexExpr(physics.blatt_weisskopf_unnormalized(q2_top, R_D, 1)) * 3 ** 0.5
            if wave == 2:
                out = out * ComplexExpr(physics.momentum_power(_q2(s, sqrt(mv(rho_node)), M_PI), 2))
            return out
        return Isobar("a1+", 1, None, f)

    def kst(top_ff=None, phase=1.0):
        def f(s, ma, mb):
            out = physics.multichannel_breit_wigner(s, KST["mass"], [
                {k: KST[k] for k in ("gsq", "ma", "mb", "l", "d")}]) * 3 ** 0.5
            if top_ff is not None:
                out = out * ComplexExpr(physics.blatt_weisskopf_unnormalized(
                    _q2(M_D ** 2, sqrt(mv(top_ff)), sqrt(s)), R_D, 1))
            return out * phase
        return Isobar("K*0bar", 1, None, f)

    def f0(s, ma, mb):
        return physics.polynomial(s, POLY)

    for name, rho_node, wave in (("a1_S", (2, 3), 0), ("a1_D", (2, 3), 2), ("a1_S_bose", (1, 3), 0)):
        a1_node = (rho_node, 1 if rho_node == (2, 3) else 2)
        c.add_chain(((rho_node, a1_node[1]), 0), {(a1_node[0], a1_node[1]): a1(rho_node, wave),
                                                  rho_node: rho(rho_node)},
                    [LS({(1, 1): WEIGHTS[name]}, False), LS({(wave, 1): 1.0}, False),
                     LS({(1, 0): 1.0}, False)], name=name)
    # The vector-vector chains: second child of the top vertex a vector (phase -1).
    for name, top in (("KstRho_S", LS({(0, 0): 1.0}, False)), ("KstRho_P", LS({(1, 1): 1.0}, False)),
                      ("KstRho_D", LS({(2, 2): 1.0}, False)),
                      ("KstRho_hel", Helicity({(1, 1): 1.0})),
                      ("KstRho_par", Helicity({(1, 1): 1.0, (-1, -1): -1.0}))):
        c.add_chain(((0, 1), (2, 3)), [kst(phase=-1.0), rho((2, 3))],
                    [top] + ([LS({(1, 0): 1.0}, False)] * 2 if name != "KstRho_hel" else
                             [Helicity({(0, 0): 1.0})] * 2),
                    factor=WEIGHTS[name], name=name)
    c.add_chain(((2, 3), (0, 1)), [Isobar("f0", 0, None, f0), kst(top_ff=(2, 3), phase=-1.0)],
                [LS({(1, 1): 1.0}, False), LS({(0, 0): 1.0}, False), LS({(1, 0): 1.0}, False)],
                factor=WEIGHTS["f0Kst"], name="f0Kst")
    return c


# ---------------------------------------------------------------------------
# The independent numpy evaluation
# ---------------------------------------------------------------------------

def _mass(p):
    return np.sqrt(p[:, 3] ** 2 - np.sum(p[:, :3] ** 2, axis=1))


def _q2_np(m, ma, mb):
    return (m ** 2 - (ma + mb) ** 2) * (m ** 2 - (ma - mb) ** 2) / (4 * m ** 2)


def _bw2(q2, d, l):
    z2 = q2 * d * d
    return {0: 1.0, 1: z2 / (1 + z2), 2: z2 ** 2 / (9 + 3 * z2 + z2 ** 2)}[l]


def _rho_np(m):
    q2, q02 = _q2_np(m, M_PI, M_PI), _q2_np(RHO["mass"], M_PI, M_PI)
    width = (RHO["width"] * np.sqrt(q2 / q02) * RHO["mass"] / m * _bw2(q2, RHO["d"], 1)
             / _bw2(q02, RHO["d"], 1))
    return 1 / (RHO["mass"] ** 2 - m ** 2 - 1j * RHO["mass"] * width) * np.sqrt(_bw2(q2, R_RHO, 1))


def _kst_np(m):
    q2 = _q2_np(m, M_K, M_PI)
    width = KST["gsq"] * 2 * np.sqrt(q2) / m * _bw2(q2, KST["d"], 1)
    return 1 / (KST["mass"] ** 2 - m ** 2 - 1j * KST["mass"] * width)


def _a1_np(m):
    return 1 / (A1[0] ** 2 - m ** 2 - 1j * A1[0] * A1[1])


def numpy_intensity(p):
    """The model's intensity from four-momenta, written from the format's description."""
    names = ["K", "pa", "pb", "pm"]
    mom = dict(zip(names, p))
    spins = {"D0": 0, "a1": 2, "rho": 2, "kst": 2, "f0": 0, "K": 0, "pa": 0, "pb": 0, "pm": 0}
    total = {}

    def add(tree, vertices, factor):
        amps = ref.reference_amplitudes(tree, spins, vertices, {}, mom, names, (0,), "jw")
        for k, v in amps.items():
            total[k] = total.get(k, 0) + factor * v

    rho_ls = ref.ls_helicity(2, 0, 0, {(1, 0): 1.0})
    for name, first, wave in (("a1_S", "pb", 0), ("a1_D", "pb", 2), ("a1_S_bose", "pa", 0)):
        other = "pa" if first == "pb" else "pb"
        m_rho, m_a1 = _mass(mom[first] + mom["pm"]), _mass(mom[first] + mom["pm"] + mom[other])
        shape = (3 * _rho_np(m_rho) * _a1_np(m_a1)
                 * np.sqrt(_bw2(_q2_np(M_D, m_a1, M_K), R_D, 1)))
        if wave == 2:
            shape = shape * _q2_np(m_a1, m_rho, M_PI)
        vertices = {"D0": ref.ls_helicity(0, 2, 0, {(1, 2): 1.0}),
                    "a1": ref.ls_helicity(2, 2, 0, {(wave, 2): 1.0}), "rho": rho_ls}
        add(("D0", ("a1", ("rho", first, "pm"), other), "K"), vertices, WEIGHTS[name] * shape)
    m_kst, m_rho = _mass(mom["K"] + mom["pa"]), _mass(mom["pb"] + mom["pm"])
    vv_shape = 3 * _kst_np(m_kst) * _rho_np(m_rho)
    tree = ("D0", ("kst", "K", "pa"), ("rho", "pb", "pm"))
    for name, top in (("KstRho_S", ref.ls_helicity(0, 2, 2, {(0, 0): 1.0})),
                      ("KstRho_P", ref.ls_helicity(0, 2, 2, {(1, 2): 1.0})),
                      ("KstRho_D", ref.ls_helicity(0, 2, 2, {(2, 4): 1.0}))):
        add(tree, {"D0": top, "kst": ref.ls_helicity(2, 0, 0, {(1, 0): 1.0}), "rho": rho_ls},
            WEIGHTS[name] * vv_shape)
    add(tree, {"D0": {(2, 2): 1.0}, "kst": {(0, 0): 1.0}, "rho": {(0, 0): 1.0}},
        WEIGHTS["KstRho_hel"] * vv_shape)
    add(tree, {"D0": {(2, 2): 1.0, (-2, -2): -1.0}, "kst": ref.ls_helicity(2, 0, 0, {(1, 0): 1.0}),
               "rho": rho_ls}, WEIGHTS["KstRho_par"] * vv_shape)
    s34 = m_rho ** 2
    f0 = POLY[0] + POLY[1] * s34
    shape = _kst_np(m_kst) * np.sqrt(3) * f0 * np.sqrt(_bw2(_q2_np(M_D, m_rho, m_kst), R_D, 1))
    add(("D0", ("f0", "pb", "pm"), ("kst", "K", "pa")),
        {"D0": ref.ls_helicity(0, 0, 2, {(1, 2): 1.0}), "f0": ref.ls_helicity(0, 0, 0, {(0, 0): 1.0}),
         "kst": ref.ls_helicity(2, 0, 0, {(1, 0): 1.0})}, WEIGHTS["f0Kst"] * shape)
    return sum(np.abs(v) ** 2 for v in total.values())


def _relative(a, b):
    return float(np.max(np.abs(np.asarray(a) - np.asarray(b)) / np.abs(np.asarray(b))))


# ---------------------------------------------------------------------------
# Tests
# ---------------------------------------------------------------------------

def test_file_follows_the_schema(model_path, tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    if not SCHEMA.exists():
        pytest.skip("the format's schema is not available")
    schema = json.loads(SCHEMA.read_text())
    jsonschema.validate(json.loads(model_path.read_text()), schema)
    out = tmp_path / "written.json"
    write_model(read_model(model_path), out)
    jsonschema.validate(json.loads(out.read_text()), schema)


def test_reading_gives_a_cascade(model_path):
    model = read_model(model_path)
    dist = model.distributions["d0_k3pi"]
    assert isinstance(dist, CascadeDistribution)
    assert [p.name for p in dist.cascade.final_state] == ["K-", "pi+_2", "pi+_3", "pi-"]
    assert dist.reference == (((2, 3), 1), 0)
    assert len(dist.cascade.chains) == 9
    assert dist.weight_names == list(WEIGHTS)
    for name, w in WEIGHTS.items():
        assert complex(dist.parameters[f"{name}_re"], dist.parameters[f"{name}_im"]) == w
    assert dist.shape_parameters == {"rho_BW_mass": RHO["mass"], "rho_BW_width": RHO["width"],
                                     "Kst_MBW_mass": KST["mass"], "Kst_MBW_gsq0": KST["gsq"]}
    free = {p.name for p in dist.fit_parameters() if not p.fixed}
    assert free == {f"{n}_{s}" for n in list(WEIGHTS)[1:] for s in ("re", "im")}


def test_intensity_equals_the_declared_cascade_and_numpy(model_path, momenta):
    dist = read_model(model_path).distributions["d0_k3pi"]
    value = dist.intensity(momenta)
    c = declared_cascade()
    declared = c.amplitude_model().intensity(c.event_records(momenta))
    independent = numpy_intensity(momenta)
    e1, e2 = _relative(value, declared), _relative(value, independent)
    print(f"\nread vs declared: {e1:.2e}, read vs numpy: {e2:.2e} (relative, {len(value)} events)")
    assert e1 < 1e-12 and e2 < 1e-12
    # each chain alone (an error in one chain cannot hide behind the others)
    for name in WEIGHTS:
        alone = {f"{n}_{s}": (dist.parameters[f"{n}_{s}"] if n == name else 0.0)
                 for n in WEIGHTS for s in ("re", "im")}
        v = dist.intensity(momenta, alone)
        factors = {n: (WEIGHTS[n] if n == name else 0.0) for n in WEIGHTS}
        saved = dict(WEIGHTS)
        WEIGHTS.update(factors)
        try:
            indep = numpy_intensity(momenta)
        finally:
            WEIGHTS.update(saved)
        assert _relative(v, indep) < 1e-12, name


def test_value_at_a_point_in_the_format_variables(model_path):
    model = read_model(model_path)
    dist = model.distributions["d0_k3pi"]
    point = model.points["validation_point"]
    p = dist.momenta_at(point)
    # the four-momenta have the point's variables
    rec = dist.event_records(p)
    assert rec["t0_0_cos"][0] == pytest.approx(point["cos_342"], abs=1e-12)
    assert rec["t0_0_phi"][0] == pytest.approx(point["phi_342"], abs=1e-12)
    assert rec["t0_1_cos"][0] == pytest.approx(point["cos_34"], abs=1e-12)
    assert rec["t0_1_phi"][0] == pytest.approx(point["phi_34"], abs=1e-12)
    assert rec["t0_2_cos"][0] == pytest.approx(point["cos_3"], abs=1e-12)
    assert rec["t0_2_phi"][0] == pytest.approx(point["phi_3"], abs=1e-12)
    assert rec["s_1_2_3"][0] == pytest.approx(point["m_342"] ** 2, rel=1e-12)
    assert rec["s_2_3"][0] == pytest.approx(point["m_34"] ** 2, rel=1e-12)
    assert sum(p)[0] == pytest.approx([0, 0, 0, M_D], abs=1e-12)
    assert dist.value(point) == pytest.approx(numpy_intensity(p)[0], rel=1e-12)


def test_read_write_read(model_path, tmp_path, momenta):
    model = read_model(model_path)
    dist = model.distributions["d0_k3pi"]
    out = tmp_path / "same.json"
    write_model(model, out)
    again = read_model(out).distributions["d0_k3pi"]
    assert again.parameters == dist.parameters
    assert again.weight_names == dist.weight_names
    assert np.array_equal(again.intensity(momenta), dist.intensity(momenta))
    # new values (a fit result): weights and a lineshape parameter
    new = {"a1_D_re": 0.5, "a1_D_im": -0.75, "KstRho_P_im": 0.125, "rho_BW_mass": 0.77}
    write_model(model, tmp_path / "new.json", new)
    changed = read_model(tmp_path / "new.json").distributions["d0_k3pi"]
    assert {k: changed.parameters[k] for k in new} == new
    v_new = changed.intensity(momenta)
    assert _relative(v_new, dist.intensity(momenta, new)) < 1e-13
    assert _relative(v_new, dist.intensity(momenta)) > 1e-3
    write_model(read_model(tmp_path / "new.json"), tmp_path / "new2.json")
    assert json.loads((tmp_path / "new2.json").read_text()) == json.loads(
        (tmp_path / "new.json").read_text())


def test_compass_checksums_through_the_cascade_path():
    model = read_model(DATA / "x2pipipi-compass-1391643.json", three_body="cascade")
    worst, n = 0.0, 0
    for cs in model.checksums:
        if cs["distribution"] in model.distributions:
            assert isinstance(model.distributions[cs["distribution"]], CascadeDistribution)
            value = model.checksum_value(cs)
            worst = max(worst, abs(value / cs["value"] - 1))
            n += 1
    print(f"\nCOMPASS as cascades: {n} checksums, largest relative difference {worst:.2e}")
    assert n == 16 and worst < 1e-12


def three_body_file():
    """B0 -> J/psi K+ pi- (1, 2, 3) with K*0 -> K+ pi- and Z- -> pi- J/psi."""
    m = [5.27966, 3.0969, 0.493677, M_PI]
    return {
        "distributions": [{
            "name": "bz", "type": "HadronicUnpolarizedIntensity",
            "variables": [{"node": [2, 3], "mass_phi_costheta": ["m_23", "phi_23", "cos_23"]},
                          {"node": [[2, 3], 1], "mass_phi_costheta": ["m_0", "phi_0", "cos_0"]}],
            "decay_description": {
                "kinematics": {
                    "initial_state": {"index": 0, "name": "B0", "spin": "0", "mass": m[0]},
                    "final_state": [{"index": 1, "name": "Jpsi", "spin": "1", "mass": m[1]},
                                    {"index": 2, "name": "K+", "spin": "0", "mass": m[2]},
                                    {"index": 3, "name": "pi-", "spin": "0", "mass": m[3]}]},
                "reference_topology": [[2, 3], 1],
                "chains": [
                    {"name": "Kst", "topology": [[2, 3], 1], "weight": "1.0 + 0.0i",
                     "propagators": [{"spin": "1", "node": [2, 3], "parametrization": "Kst"}],
                     "vertices": [{"type": "helicity", "helicities": ["1", "1"], "node": [[2, 3], 1]},
                                  {"type": "ls", "l": 1, "s": "0", "node": [2, 3],
                                   "formfactor": "BW1"}]},
                    {"name": "Kst", "topology": [[2, 3], 1], "weight": "0.3 - 0.6i",
                     "propagators": [{"spin": "1", "node": [2, 3], "parametrization": "Kst"}],
                     "vertices": [{"type": "parity", "helicities": ["0", "0"], "parity_factor": "+",
                                   "node": [[2, 3], 1]},
                                  {"type": "ls", "l": 1, "s": "0", "node": [2, 3]}]},
                    {"name": "Z", "topology": [[3, 1], 2], "weight": "0.4 + 0.7i",
                     "propagators": [{"spin": "1", "node": [3, 1], "parametrization": "Z"}],
                     "vertices": [{"type": "ls", "l": 1, "s": "1", "node": [[3, 1], 2],
                                   "formfactor": "BW1"},
                                  {"type": "ls", "l": 0, "s": "1", "node": [3, 1]}]},
                    {"name": "Z", "topology": [[3, 1], 2], "weight": "-0.2 + 0.1i",
                     "propagators": [{"spin": "1", "node": [3, 1], "parametrization": "Z"}],
                     "vertices": [{"type": "ls", "l": 1, "s": "1", "node": [[3, 1], 2]},
                                  {"type": "ls", "l": 2, "s": "1", "node": [3, 1]}]}]}}],
        "functions": [
            {"name": "Kst", "type": "BreitWigner", "x": "m_23_sq", "mass": 0.89555, "width": 0.0473,
             "ma": m[2], "mb": m[3], "l": 1, "d": 1.5},
            {"name": "Z", "type": "BreitWigner", "x": "m_31_sq", "mass": 4.43, "width": 0.18,
             "ma": m[3], "mb": m[1], "l": 0, "d": 1.5},
            {"name": "BW1", "type": "BlattWeisskopf", "radius": 1.5, "l": 1}],
        "parameter_points": [], "misc": {}}


def test_three_body_model_through_both_paths():
    """A vector daughter in two topologies: the Dalitz-plot decomposition of the
    three-body reader and the cascade with its Wigner rotation agree."""
    data = three_body_file()
    dpd = read_model(data).distributions["bz"]
    cascade = read_model(data, three_body="cascade").distributions["bz"]
    assert isinstance(cascade, CascadeDistribution) and not isinstance(dpd, CascadeDistribution)
    rng = np.random.default_rng(3)
    worst = 0.0
    for m23, c23, phi23, c0, phi0 in zip(rng.uniform(0.7, 1.9, 20), rng.uniform(-1, 1, 20),
                                         rng.uniform(-3, 3, 20), rng.uniform(-1, 1, 20),
                                         rng.uniform(-3, 3, 20)):
        point = {"m_23": m23, "cos_23": c23, "phi_23": phi23, "m_0": 5.27966, "cos_0": c0,
                 "phi_0": phi0}
        worst = max(worst, abs(cascade.value(point) / dpd.value(point) - 1))
    print(f"\nB0 -> J/psi K pi, cascade vs Dalitz-plot decomposition: {worst:.2e}")
    assert worst < 1e-12


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------

CH = "distributions[0].decay_description.chains"


def _broken(edit):
    data = model_file()
    edit(data["distributions"][0]["decay_description"], data)
    return data


def _set(path_value):
    def edit(dd, data):
        obj, keys, value = dd, path_value[:-2], path_value[-2:]
        for k in keys:
            obj = obj[k]
        obj[value[0]] = value[1]
    return edit


ERRORS = [
    ("not a partition", _set(["chains", 0, "topology", [[[3, 4], 2], 2]]),
     f"{CH}[0].topology", "not a partition of the final state"),
    ("index out of range", _set(["chains", 0, "topology", [[[3, 5], 2], 1]]),
     f"{CH}[0].topology", "not a final-state index"),
    ("three-body node", _set(["chains", 3, "topology", [[1, 2, 3], 4]]),
     f"{CH}[3].topology", "only two-body decays"),
    ("reference", _set(["reference_topology", [[1, 2], [3, 3]]]),
     "distributions[0].decay_description.reference_topology", "not a partition"),
    ("vertex node", _set(["chains", 0, "vertices", 2, "node", [2, 4]]),
     f"{CH}[0].vertices[2].node", "is not a node of the topology"),
    ("second vertex", _set(["chains", 0, "vertices", 2, "node", [[3, 4], 2]]),
     f"{CH}[0].vertices[2].node", "a second vertex"),
    ("propagator node", _set(["chains", 3, "propagators", 0, "node", [1, 3]]),
     f"{CH}[3].propagators[0].node", "is not a node of the topology"),
    ("propagator of the top", _set(["chains", 3, "propagators", 0, "node", [[1, 2], [3, 4]]]),
     f"{CH}[3].propagators[0].node", "has no propagator"),
    ("missing propagator", lambda dd, d: dd["chains"][0]["propagators"].pop(),
     f"{CH}[0].propagators", "no propagator for the node [3, 4]"),
    ("missing vertex", lambda dd, d: dd["chains"][4]["vertices"].pop(0),
     f"{CH}[4].vertices", "no vertex for the node [[1, 2], [3, 4]]"),
    ("unknown lineshape", _set(["chains", 1, "propagators", 1, "parametrization", "nope"]),
     f"{CH}[1].propagators[1].parametrization", "no function named 'nope'"),
    ("form factor as lineshape", _set(["chains", 1, "propagators", 1, "parametrization", "MP_L2"]),
     f"{CH}[1].propagators[1].parametrization", "is a form factor"),
    ("unknown form factor", _set(["chains", 1, "vertices", 0, "formfactor", "nope"]),
     f"{CH}[1].vertices[0].formfactor", "no function named 'nope'"),
    ("ls coupling", _set(["chains", 1, "vertices", 0, "l", 0]),
     f"{CH}[1].vertices[0].l", "do not couple to the spin 0"),
    ("ls spin", _set(["chains", 1, "vertices", 2, "s", "1"]),
     f"{CH}[1].vertices[2].s", "is not a coupling of the spins"),
    ("helicity projection", _set(["chains", 6, "vertices", 1, "helicities", ["1", "0"]]),
     f"{CH}[6].vertices[1].helicities[0]", "is not a projection of the spin 0"),
    ("helicity difference", _set(["chains", 6, "vertices", 0, "helicities", ["1", "0"]]),
     f"{CH}[6].vertices[0].helicities", "exceeds the spin 0"),
    ("vertex type", _set(["chains", 2, "vertices", 1, "type", "canonical"]),
     f"{CH}[2].vertices[1].type", "unknown vertex type 'canonical'"),
    ("weight", _set(["chains", 2, "weight", "1 + i2"]), f"{CH}[2].weight", "not a complex number"),
    ("spin", _set(["chains", 2, "propagators", 0, "spin", "1/3"]),
     f"{CH}[2].propagators[0].spin", "1/3"),
    ("mass", _set(["kinematics", "final_state", 0, "mass", "m_K"]),
     "distributions[0].decay_description.kinematics.final_state[0].mass", "expected a number"),
    ("index", _set(["kinematics", "final_state", 2, "index", 2]),
     "distributions[0].decay_description.kinematics.final_state[2].index", "each once"),
]


@pytest.mark.parametrize("edit, where, what", [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_errors_name_the_file_and_the_json_path(edit, where, what, tmp_path):
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(_broken(edit)))
    with pytest.raises(ModelFormatError) as info:
        read_model(path)
    message = str(info.value)
    print(message)
    assert message.startswith(f"{path}: {where}: "), message
    assert what in message


def _fermion_file():
    """The three-body file with a spin-1/2 parent and a spin-1/2 daughter in two
    topologies (LS and helicity vertices)."""
    data = three_body_file()
    kin = data["distributions"][0]["decay_description"]["kinematics"]
    kin["final_state"][0]["spin"] = "1/2"
    kin["initial_state"]["spin"] = "1/2"
    dd = data["distributions"][0]["decay_description"]
    for ch in dd["chains"]:
        for v in ch["vertices"]:
            if v["type"] == "helicity" or v["type"] == "parity":
                v.update(type="helicity", helicities=["1", "1/2"])
            elif v["node"] == [[3, 1], 2]:
                v.update(l=1, s="1/2")
            elif v["node"] == [3, 1]:
                v.update(l=0, s="1/2")
        if ch["topology"] == [[3, 1], 2]:
            ch["propagators"][0]["spin"] = "1/2"
    for ch in dd["chains"][1:2]:
        ch["vertices"][0].update(type="ls", l=1, s="1/2")
        ch["vertices"][0].pop("helicities", None)
        ch["vertices"][0].pop("parity_factor", None)
    return data


def test_fermion_daughter_in_two_topologies_through_both_paths(monkeypatch):
    """A spin-1/2 parent and a spin-1/2 daughter in two topologies: the cascade, its
    daughter's helicities turned by the SU(2) Wigner rotation, equals the Dalitz-plot
    decomposition of the three-body reader (its own zeta angles and sign rules); with the
    Euler angles of the SO(3) rotation alone (the SU(2) sign lost) it does not."""
    from vecampfit.cascades import frames, model as cascade_model
    data = _fermion_file()
    dpd = read_model(data).distributions["bz"]
    rng = np.random.default_rng(3)
    points = [{"m_23": m23, "cos_23": c23, "phi_23": phi23, "m_0": 5.27966, "cos_0": c0,
               "phi_0": phi0}
              for m23, c23, phi23, c0, phi0 in zip(
                  rng.uniform(0.7, 1.9, 20), rng.uniform(-1, 1, 20), rng.uniform(-3, 3, 20),
                  rng.uniform(-1, 1, 20), rng.uniform(-3, 3, 20))]

    def worst():
        cascade = read_model(data, three_body="cascade").distributions["bz"]
        return max(abs(cascade.value(p) / dpd.value(p) - 1) for p in points)
    err = worst()
    print(f"\nspin-1/2 daughter, cascade vs Dalitz-plot decomposition: {err:.2e}")
    assert err < 1e-12

    def so3_angles(frame, reference):
        alpha, cos_beta, gamma = frames.wigner_rotation_angles(frame, reference)
        return np.angle(np.exp(1j * alpha)), cos_beta, np.angle(np.exp(1j * gamma))
    monkeypatch.setattr(cascade_model, "wigner_rotation_angles", so3_angles)
    assert worst() > 1e-2


def test_massless_daughter_in_two_topologies_is_an_error():
    """A photon in two topologies: the cascades cannot align it (no rest frame)."""
    data = three_body_file()
    kin = data["distributions"][0]["decay_description"]["kinematics"]
    kin["final_state"][0].update(spin="1", mass=0.0)
    with pytest.raises(ModelFormatError, match=r"<dict>: distributions\[0\]\.decay_description"
                                               r"\.chains: .*massless"):
        read_model(data, three_body="cascade")


def test_three_body_option():
    with pytest.raises(ValueError, match="three_body"):
        read_model(model_file(), three_body="isobar")


# ---------------------------------------------------------------------------
# A cascade declared in Python, written to the format
# ---------------------------------------------------------------------------

def python_cascade():
    """D0 -> K- pi+ pi+ pi- with the two pi+ symmetrized: a1+ K- (S and D waves of
    a1 -> rho pi) and anti-K*0 rho0 (S, P, D waves), the builder's lineshapes."""
    from vecampfit.cascades import lineshapes
    final = [Particle("K-", 0, -1, M_K), Particle("pi+a", 0, -1, M_PI),
             Particle("pi+b", 0, -1, M_PI), Particle("pi-", 0, -1, M_PI)]
    c = CascadeModel("d0_k3pi_python", Particle("D0", 0, -1, M_D), final,
                     identical=[("pi+a", "pi+b")])
    rho = Isobar("rho0", 1, -1, lineshapes.breit_wigner("m_rho", RHO["width"], 1, 1.5))
    kst = Isobar("K*0bar", 1, -1, lineshapes.breit_wigner(0.89555, 0.0473, 1, 1.5))
    a1 = Isobar("a1+", 1, 1, lineshapes.constant_width(*A1))
    c.add_chain(((("pi+b", "pi-"), "pi+a"), "K-"), [a1, rho],
                [LS({(1, 1): 1.0}, parity_conserving=False),
                 LS({(0, 1): "a1_S", (2, 1): "a1_D"}), LS({(1, 0): 1.0})], name="a1")
    c.add_chain((("K-", "pi+a"), ("pi+b", "pi-")), [kst, rho],
                [LS({(0, 0): "S", (1, 1): "P", (2, 2): "D"}, parity_conserving=False),
                 LS({(1, 0): 1.0}), LS({(1, 0): 1.0})], factor=ComplexExpr(0.5, -0.25), name="vv")
    c.set_parameter("m_rho", RHO["mass"])
    for k, v in {"a1_S": 1.0, "a1_D": 0.35 - 0.2j, "S": 0.4 + 0.1j, "P": -0.3 + 0.5j,
                 "D": 0.2 - 0.15j}.items():
        c.set_coupling(k, v)
    return c


PY_LINESHAPES = {
    "rho0": dict(name="rho", type="BreitWigner", x="m_sq", **RHO),
    "K*0bar": {"name": "Kst", "type": "BreitWigner", "x": "m_sq", "mass": 0.89555, "width": 0.0473,
               "ma": M_K, "mb": M_PI, "l": 1, "d": 1.5},
    "a1+": {"name": "a1", "type": "generic_function",
            "expression": f"1/({A1[0]}^2 - s - {A1[0]}*{A1[1]}*i)"}}
PY_FORM_FACTORS = {"rho0": {"name": "BW_L1", "type": "BlattWeisskopf", "radius": 1.5, "l": 1},
                   "K*0bar": {"name": "BW_L1", "type": "BlattWeisskopf", "radius": 1.5, "l": 1}}


def test_python_cascade_is_written_and_read_back(tmp_path, momenta):
    from vecampfit.model_format import cascade_model_dict, write_cascade
    c = python_cascade()
    path = tmp_path / "python.json"
    write_cascade(c, path, PY_LINESHAPES, PY_FORM_FACTORS)
    data = json.loads(path.read_text())
    chains = data["distributions"][0]["decay_description"]["chains"]
    # 2 a1 waves x 2 permutations + 3 vector-vector waves x 2 permutations
    assert len(chains) == 10
    assert {ch["name"] for ch in chains} == {"a1_L0S1", "a1_L2S1", "vv_L0S0", "vv_L1S1", "vv_L2S2"}
    dist = read_model(path).distributions["d0_k3pi_python"]
    declared = c.amplitude_model().intensity(c.event_records(momenta))
    error = _relative(dist.intensity(momenta), declared)
    print(f"\ndeclared in Python -> written -> read: {error:.2e}")
    assert error < 1e-12
    # other parameter values are written with the values given
    new = {"a1_D_RE": -0.1, "P_IM": 0.9}
    dist2 = read_model(cascade_model_dict(c, PY_LINESHAPES, PY_FORM_FACTORS, new)).distributions[
        "d0_k3pi_python"]
    assert _relative(dist2.intensity(momenta),
                     c.amplitude_model().intensity(c.event_records(momenta), new)) < 1e-12
    if SCHEMA.exists():
        jsonschema = pytest.importorskip("jsonschema")
        jsonschema.validate(data, json.loads(SCHEMA.read_text()))


def test_python_cascade_with_a_wrong_function_is_refused():
    from vecampfit.model_format import cascade_model_dict
    c = python_cascade()
    wrong = dict(PY_LINESHAPES, **{"rho0": dict(PY_LINESHAPES["rho0"], width=0.15)})
    with pytest.raises(ValueError, match="'rho0' is not the format's function 'rho' times the "
                                         "form factor 'BW_L1'"):
        cascade_model_dict(c, wrong, PY_FORM_FACTORS)
    with pytest.raises(ValueError, match="'rho0' is not the format's function 'rho' up to"):
        cascade_model_dict(c, PY_LINESHAPES, {"K*0bar": PY_FORM_FACTORS["K*0bar"]})
    with pytest.raises(ValueError, match="no format function for the isobar 'a1\\+'"):
        cascade_model_dict(c, {k: v for k, v in PY_LINESHAPES.items() if k != "a1+"},
                           PY_FORM_FACTORS)


def test_compiled_model_of_a_file(model_path, momenta, model_cache):
    """The model read from the file compiles; values and gradients (weights and two
    lineshape masses free: the rho's, whose fixed width's event fields are built
    from other fields) against the numpy intensity and its central differences."""
    dist = read_model(model_path).distributions["d0_k3pi"]
    free = {"a1_D_re", "a1_D_im", "KstRho_P_re", "f0Kst_im", "Kst_MBW_mass", "rho_BW_mass"}
    model = dist.amplitude_model(free)
    compiled = model.compile((4,), build_dir=model_cache)
    rec = dist.event_records(momenta)
    values = {"a1_D_re": 0.3, "a1_D_im": -0.1, "KstRho_P_re": -0.2, "f0Kst_im": -0.5,
              "Kst_MBW_mass": 0.9, "rho_BW_mass": 0.78}
    assert set(compiled.parameters) == free
    v, g = compiled.evaluate(rec, values, gradient=True)
    err_v = _relative(v, model.intensity(rec, values))
    worst = max(relative_gradient_errors(g, compiled.parameters,
                                         lambda v: model.intensity(rec, v), values, 1e-6).values())
    print(f"\ncompiled file model: values {err_v:.1e}, gradients vs central differences {worst:.1e}")
    assert err_v < 1e-12 and worst < 1e-6
