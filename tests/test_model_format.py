"""Reading the published models of the JSON exchange format and reproducing their checksums."""

import copy
import json
from pathlib import Path

import pytest

from vecampfit.model_format import ModelFormatError, parse_complex, read_model

from numeric_checks import central_difference

DATA = Path(__file__).parent / "data" / "amplitude_serialization"
FILES = ("lc2ppik-lhcb-2683025.json", "lb2pkg-lhcb-2765817.json", "x2pipipi-compass-1391643.json")
TOLERANCE = 1e-12

_MODELS = {}


def _model(name):
    if name not in _MODELS:
        _MODELS[name] = read_model(DATA / name)
    return _MODELS[name]


def _checksums():
    out = []
    for name in FILES:
        data = json.loads((DATA / name).read_text())
        for n, cs in enumerate(data["misc"]["amplitude_model_checksums"]):
            out.append(pytest.param(name, n, id=f"{name.split('-')[0]}-{cs['distribution']}-{cs['point']}"))
    return out


def test_every_checksum_is_listed():
    # 11 (Lambda_c) + 17 (Lambda_b) + 21 (COMPASS) entries
    assert len(_checksums()) == 49


@pytest.mark.parametrize("name, index", _checksums())
def test_checksum(name, index):
    model = _model(name)
    cs = model.checksums[index]
    value = model.checksum_value(cs)
    reference = cs["value"]
    error = abs(value - reference) / abs(reference)
    print(f"\n{name} {cs['distribution']} at {cs['point']}: {value!r} vs {reference!r}, "
          f"relative error {error:.2e}")
    assert error < TOLERANCE


def test_changed_weight_changes_the_intensity():
    # The checksums test the model, not a constant: one weight changed moves the value.
    model = _model("lc2ppik-lhcb-2683025.json")
    dist = model.distributions["default_model"]
    point = model.points["validation_point"]
    name = next(iter(dist.parameters))
    changed = dist.value(point, {name: dist.parameters[name] * 1.001})
    assert abs(changed / dist.value(point) - 1) > 1e-6


def test_model_content():
    lc = _model("lc2ppik-lhcb-2683025.json").distributions["default_model"]
    assert len(lc.model.chains) == 26 and lc.reference == 2
    assert lc.model.two_spins == (1, 1, 0, 0)
    assert sorted({c.k for c in lc.model.chains}) == [1, 2, 3]
    lb = _model("lb2pkg-lhcb-2765817.json").distributions["default_model"]
    assert len(lb.model.chains) == 74 and max(c.two_j for c in lb.model.chains) == 9
    assert lb.model.masses[3] == 0.0
    compass = _model("x2pipipi-compass-1391643.json")
    assert len(compass.distributions) == 4
    # parameters named after the chains, with the file's values
    assert lc.parameters["L1405_re"] == pytest.approx(7.38649400481717)
    assert lc.parameters["L1405_2_im"] == pytest.approx(2.2557724553615772)


@pytest.mark.parametrize("text, value", [("1.5 + 2i", 1.5 + 2j), ("1.0-2.0i", 1 - 2j), (3, 3 + 0j),
                                         ("-0.5 - 1e-3i", -0.5 - 1e-3j), ("2.5", 2.5 + 0j)])
def test_parse_complex(text, value):
    assert parse_complex(text) == value


# -- malformed files ---------------------------------------------------------------------------

def _lc():
    return json.loads((DATA / "lc2ppik-lhcb-2683025.json").read_text())


def _fails(data, tmp_path, *fragments):
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ModelFormatError) as info:
        read_model(path)
    message = str(info.value)
    assert str(path) in message
    for f in fragments:
        assert f in message, message
    return message


def test_missing_field(tmp_path):
    data = _lc()
    del data["distributions"][0]["decay_description"]["chains"][12]["weight"]
    _fails(data, tmp_path, "distributions[0].decay_description.chains[12].weight", "missing field")


def test_unknown_vertex_type(tmp_path):
    data = _lc()
    data["distributions"][0]["decay_description"]["chains"][12]["vertices"][1]["type"] = "lss"
    _fails(data, tmp_path, "distributions[0].decay_description.chains[12].vertices[1].type",
           "unknown vertex type 'lss'")


def test_unknown_function_type(tmp_path):
    data = _lc()
    data["functions"][3]["type"] = "BreitWignerX"
    _fails(data, tmp_path, "functions[3].type", "unknown function type 'BreitWignerX'")


def test_complex_number_that_does_not_parse(tmp_path):
    data = _lc()
    data["distributions"][0]["decay_description"]["chains"][5]["weight"] = "1.0 + 2.0j"
    _fails(data, tmp_path, "distributions[0].decay_description.chains[5].weight",
           "not a complex number")


def test_spin_not_a_multiple_of_one_half(tmp_path):
    data = _lc()
    data["distributions"][0]["decay_description"]["chains"][2]["propagators"][0]["spin"] = "3/4"
    _fails(data, tmp_path, "distributions[0].decay_description.chains[2].propagators[0].spin",
           "multiple of 1/2")
    data = _lc()
    data["distributions"][0]["decay_description"]["kinematics"]["final_state"][0]["spin"] = "0.7"
    _fails(data, tmp_path, "distributions[0].decay_description.kinematics.final_state[0].spin",
           "multiple of 1/2")


def test_formula_that_does_not_parse(tmp_path):
    data = _lc()
    index = next(n for n, f in enumerate(data["functions"]) if f["name"] == "K700_BuggBW")
    data["functions"][index]["expression"] = "1/(0.824^2 - σ - i * (σ - 0.23)"
    message = _fails(data, tmp_path, f"functions[{index}].expression", "column 3")
    assert "0.824^2" in message
    data["functions"][index]["expression"] = "1/(0.824^2 - σ +* 2)"
    # the column in the file's text (the '*' after '+')
    _fails(data, tmp_path, f"functions[{index}].expression", "column 17")
    data["functions"][index]["expression"] = "1/(0.824^2 - σ + foo(2))"
    _fails(data, tmp_path, f"functions[{index}].expression", "column 18", "unknown function 'foo'")


def test_topology_not_a_partition(tmp_path):
    data = _lc()
    data["distributions"][0]["decay_description"]["chains"][0]["topology"] = [[3, 3], 2]
    _fails(data, tmp_path, "distributions[0].decay_description.chains[0].topology",
           "not a partition of the final state")


def test_unknown_lineshape_name(tmp_path):
    data = _lc()
    data["distributions"][0]["decay_description"]["chains"][7]["propagators"][0]["parametrization"] = "nope"
    _fails(data, tmp_path, "chains[7].propagators[0].parametrization", "no function named 'nope'")


def test_the_dict_form_and_a_valid_copy():
    data = copy.deepcopy(_lc())
    model = read_model(data)
    assert model.source == "<dict>"
    assert len(model.checksums) == 11


@pytest.mark.parametrize("name", FILES)
def test_read_write_read(name, tmp_path):
    from vecampfit.model_format import format_complex, write_model
    model = _model(name)
    # new weights (a fit result): every weight scaled and rotated
    new = {}
    for dist in model.distributions.values():
        for label in dist.weight_names:
            z = complex(dist.parameters[f"{label}_re"], dist.parameters[f"{label}_im"]) * (0.9 + 0.1j)
            new[f"{label}_re"], new[f"{label}_im"] = z.real, z.imag
        # and every lineshape's mass, width and coupling moved a little
        for shape, value in dist.shape_parameters.items():
            new[shape] = value * 1.01
    path = tmp_path / name
    write_model(model, path, new)
    again = read_model(path)
    for dname, dist in model.distributions.items():
        other = again.distributions[dname]
        assert other.weight_names == dist.weight_names
        assert other.parameters == {k: new[k] for k in dist.parameters}
        for point in {cs["point"] for cs in model.checksums if cs["distribution"] == dname}:
            assert other.value(model.points[point]) == dist.value(model.points[point], new)
    # unchanged weights: the same values exactly
    write_model(model, path)
    same = read_model(path)
    for cs, cs2 in zip(model.checksums, same.checksums):
        assert same.checksum_value(cs2) == model.checksum_value(cs)
    assert parse_complex(format_complex(-0.0036159432575573903 - 0.04180024616911908j)) == \
        -0.0036159432575573903 - 0.04180024616911908j


def test_gradient_with_respect_to_weights():
    """The intensity is an expression of the weight parameters: its derivative (from the
    expression layer) against central differences over many events."""
    import numpy as np

    from vecampfit.dpd.kinematics import sigmas_from_mass_angle
    from vecampfit.expressions import derivative, evaluate

    dist = _model("lc2ppik-lhcb-2683025.json").distributions["default_model"]
    ms = dist.model.masses
    rng = np.random.default_rng(7)
    m31 = rng.uniform(ms[3] + ms[1], ms[0] - ms[2], 500)
    sig = sigmas_from_mass_angle(2, m31, rng.uniform(-1, 1, 500), ms)
    values = dict(dist.parameters)
    values.update(dist.model.values(sig))
    for name in ("K892_re", "L1520_2_im", "D1232_re"):
        grad = evaluate(derivative(dist.intensity, name), values)
        fd = central_difference(lambda v: evaluate(dist.intensity, v), values, name,
                                1e-5 * max(1.0, abs(values[name])))
        assert np.max(np.abs(grad - fd)) < 1e-7 * np.max(np.abs(fd)), name


def test_helicity_that_is_not_a_projection(tmp_path):
    data = _lc()
    data["distributions"][0]["decay_description"]["chains"][3]["vertices"][0]["helicities"] = ["5/2", "0"]
    _fails(data, tmp_path, "distributions[0].decay_description.chains[3].vertices[0].helicities[0]",
           "5/2 is not a projection of the spin 3/2")


def test_ls_that_does_not_couple(tmp_path):
    data = json.loads((DATA / "lb2pkg-lhcb-2765817.json").read_text())
    data["distributions"][0]["decay_description"]["chains"][0]["vertices"][0]["l"] = "3"
    _fails(data, tmp_path, "distributions[0].decay_description.chains[0].vertices[0].l",
           "do not couple")
