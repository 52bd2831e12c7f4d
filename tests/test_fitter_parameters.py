"""Tests of vecampfit.fitter.parameters: the paper's parameter-file format."""

import numpy as np
import pytest

from vecampfit.fitter import (FitParameter, ParameterFileError, ParameterTable,
                              read_parameter_file, write_parameter_file)

PAPER_LINES = """\
D_R          5.0 1E-3 0E0 0E0      0E0
RHOP1_M    0.770 1E-3 0E0 0E0      0E0
RHOP1_G   0.1507 1E-3 0E0 0E0      0E0
RHOP1_R      1.5 1E-3 0E0 0E0      0E0
"""


def write(tmp_path, text, name="p.dat"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_paper_example_lines(tmp_path):
    t = read_parameter_file(write(tmp_path, PAPER_LINES + "# a comment\n\nBKG_F 0.1 1D-2 0 1 0.05  # trailing\n"))
    assert t.names == ["D_R", "RHOP1_M", "RHOP1_G", "RHOP1_R", "BKG_F"]
    assert t["RHOP1_G"] == FitParameter("RHOP1_G", 0.1507, 1e-3, 0.0, 0.0, 0.0)
    assert not t["D_R"].bounded and t["D_R"].limits == (None, None)
    assert t["BKG_F"].limits == (0, 1) and t["BKG_F"].step == 0.01
    np.testing.assert_array_equal(t.values, [5.0, 0.770, 0.1507, 1.5, 0.1])


def test_round_trip_is_exact(tmp_path):
    rng = np.random.default_rng(1)
    values = rng.normal(size=5) * 10.0 ** rng.integers(-8, 8, 5)
    t = ParameterTable([FitParameter(f"P_{k}", float(v), 1e-3, 0, 0, 0.5) for k, v in
                        enumerate(values)])
    path = tmp_path / "out.dat"
    write_parameter_file(path, t)
    back = read_parameter_file(path)
    assert list(back) == list(t)
    new = values * 1.000000001
    write_parameter_file(path, t, new)
    np.testing.assert_array_equal(read_parameter_file(path).values, new)


def test_random_initial_values_are_uniform_in_the_interval():
    t = ParameterTable([FitParameter("A", 1.0, 0.1, 0, 0, 0.5),
                        FitParameter("B", 2.0, 0.1, 1.9, 3, 0.5),
                        FitParameter("C", 3.0, 0.1, 0, 0, 0)])
    draws = np.array([t.randomized_values(np.random.default_rng(s)) for s in range(4000)])
    assert np.all(np.abs(draws[:, 0] - 1) < 0.5) and np.all(draws[:, 2] == 3)
    assert np.all(draws[:, 1] >= 1.9)  # clipped into the bounds
    # Uniform on (0.5, 1.5): mean 1, variance 1/12.
    assert abs(draws[:, 0].mean() - 1) < 4 * np.sqrt(1 / 12 / 4000)
    assert abs(draws[:, 0].var() - 1 / 12) < 0.01


@pytest.mark.parametrize("text,message", [
    ("A 1 0.1 0 0\n", r"p.dat:1: expected 6 columns .* got 5"),
    ("A 1 0.1 0 0 0\nB 1 x 0 0 0\n", r"p.dat:2: parameter B: column 3 is not a number: 'x'"),
    ("A 1 0.1 0 0 0\n\nA 2 0.1 0 0 0\n", r"p.dat:3: duplicated parameter name 'A' \(first on line 1\)"),
    ("A 1 0.1 2 1 0\n", r"p.dat:1: parameter A: lower bound 2.0 is not below upper bound 1.0"),
    ("A 5 0.1 0 1 0\n", r"p.dat:1: parameter A: initial value 5.0 is outside its bounds \[0.0, 1.0\]"),
    ("A nan 0.1 0 0 0\n", r"p.dat:1: parameter A: value is not finite"),
    ("A 1 -0.1 0 0 0\n", r"p.dat:1: parameter A: negative step"),
    ("1A 1 0.1 0 0 0\n", r"p.dat:1: invalid parameter name '1A'"),
    ("# nothing\n", r"p.dat: no parameters"),
    # Python's float() reads these; no Fortran or C reader of the format does.
    ("A 0.7_75 0.1 0 0 0\n", r"p.dat:1: parameter A: column 2 is not a number: '0.7_75'"),
    ("A 1 0.1 0 1_0 0\n", r"p.dat:1: parameter A: column 5 is not a number: '1_0'"),
    ("A \u0661.5 0.1 0 0 0\n", r"p.dat:1: parameter A: column 2 is not a number"),
    ("A 0x1p3 0.1 0 0 0\n", r"p.dat:1: parameter A: column 2 is not a number"),
])
def test_bad_files_name_file_and_line(tmp_path, text, message):
    with pytest.raises(ParameterFileError, match=message):
        read_parameter_file(write(tmp_path, text))


def test_missing_file_and_unknown_names(tmp_path):
    with pytest.raises(FileNotFoundError):
        read_parameter_file(tmp_path / "missing.dat")
    t = read_parameter_file(write(tmp_path, PAPER_LINES))
    with pytest.raises(KeyError, match="unknown parameter .RHOP1_W. in .*p.dat; did you mean .*RHOP1_G"):
        t.index("RHOP1_W")


AWKWARD = [1 / 3, 1e-300, 0.1 + 0.2, -2 / 3, 5e-324, 1.7976931348623157e308, 123456789.12345679,
           -0.0, 2.0 ** -1074 * 3, 1 - 2.0 ** -53, 6.02214076e23]


def random_table(rng, n):
    """Parameters with awkward values, steps, bounds and random changes; a third
    of the bounded ones start exactly at a bound."""
    def number(scale):
        kind = rng.integers(4)
        if kind == 0:
            return float(rng.choice(AWKWARD)) * scale
        if kind == 1:
            return float(rng.normal() * 10.0 ** rng.integers(-12, 12))
        if kind == 2:
            return float(rng.uniform(-1, 1))
        return float(rng.integers(-5, 6))

    params = []
    for k in range(n):
        step = abs(number(1.0))
        change = abs(number(1.0))
        if rng.uniform() < 0.6:
            lower = number(1.0)
            upper = lower + abs(number(1.0)) + 1e-3 * (abs(lower) + 1) * rng.uniform(0.1, 1)
            if not np.isfinite(upper):
                lower, upper = -abs(lower), abs(lower)
            if lower == upper or (lower == 0 and upper == 0):
                upper = lower + 1.0
            where = rng.integers(3)
            u = float(rng.uniform())
            value = lower if where == 0 else upper if where == 1 else \
                min(max(lower * (1 - u) + upper * u, lower), upper)
        else:
            lower = upper = 0.0
            value = number(1.0)
        params.append(FitParameter(f"P{k}_{'x' * int(rng.integers(0, 12))}", value, step,
                                   lower, upper, change))
    return ParameterTable(params)


@pytest.mark.parametrize("seed", range(20))
def test_every_field_reads_back_exactly(tmp_path, seed):
    rng = np.random.default_rng(seed)
    t = random_table(rng, 30)
    path = tmp_path / "out.dat"
    write_parameter_file(path, t)
    back = read_parameter_file(path)
    assert back.names == t.names
    for p, q in zip(t, back):
        for field in ("value", "step", "lower", "upper", "random_change"):
            a, b = getattr(p, field), getattr(q, field)
            assert a == b and np.signbit(a) == np.signbit(b), (p.name, field, a, b)
    # Fitted values at the bounds (the usual case for a parameter that a
    # fit pushes to its limit) read back too.
    at_bounds = np.array([p.upper if p.bounded else p.value for p in t])
    write_parameter_file(path, t, at_bounds)
    np.testing.assert_array_equal(read_parameter_file(path).values, at_bounds)


def test_awkward_floats_and_columns(tmp_path):
    t = ParameterTable([FitParameter("THIRD", 1 / 3, 1 / 3, 0, 0, 1 / 3),
                        FitParameter("TINY", 1e-300, 1e-300, 0, 0, 1e-300),
                        FitParameter("SUM", 0.1 + 0.2, 0.1, 0.1 + 0.2, 1 / 3, 0.0),
                        FitParameter("AT_LOWER_BOUND", 0.1234567891, 1e-3, 0.1234567891, 7 / 3, 0)])
    path = tmp_path / "out.dat"
    write_parameter_file(path, t)
    text = path.read_text()
    print(text)
    assert list(read_parameter_file(path)) == list(t)
    lines = text.splitlines()
    assert "0.30000000000000004" in lines[2] and "1e-300" in lines[1]
    # Aligned columns: every line has its numbers ending at the same places.
    def ends(line):
        return [i for i in range(1, len(line) + 1) if line[i - 1] != " " and
                (i == len(line) or line[i] == " ")]
    assert len({tuple(ends(line)[1:]) for line in lines}) == 1
    assert len({len(line) for line in lines}) == 1


def test_fortran_and_c_reals_are_read(tmp_path):
    t = read_parameter_file(write(tmp_path, "A 1.5D0 .1 -2.E+1 3d1 1e-3\nB +7 1. 0 0 0\n"))
    assert [(p.value, p.step, p.lower, p.upper, p.random_change) for p in t] == [(1.5, 0.1, -20.0, 30.0, 1e-3), (7.0, 1.0, 0.0, 0.0, 0.0)]


def test_a_byte_that_is_not_utf8_names_the_file_and_line(tmp_path):
    path = tmp_path / "latin1.dat"
    path.write_bytes("A 1 0.1 0 0 0\n# r\u00e9sonance K*\nB 1 0.1 0 0 0\n".encode("latin-1"))
    with pytest.raises(ParameterFileError, match=r"latin1.dat:2: byte 0xe9 at column 4 is not "
                                                 r"UTF-8"):
        read_parameter_file(path)


def test_a_byte_order_mark_is_not_part_of_the_first_name(tmp_path):
    path = tmp_path / "bom.dat"
    path.write_bytes(b"\xef\xbb\xbfA 1 0.1 0 0 0\n")
    assert read_parameter_file(path).names == ["A"]


def test_the_old_name_parameter_warns_and_names_fitparameter():
    import vecampfit.fitter
    import vecampfit.fitter.parameters
    for module in (vecampfit.fitter, vecampfit.fitter.parameters):
        with pytest.warns(DeprecationWarning, match=f"{module.__name__}.Parameter is deprecated: "
                                                    f"it is now {module.__name__}.FitParameter"):
            old = module.Parameter
        assert old is FitParameter
    with pytest.warns(DeprecationWarning, match="FitParameter"):
        from vecampfit.fitter import Parameter
    assert Parameter("A", 1.0, 0.1) == FitParameter("A", 1.0, 0.1)
    with pytest.raises(AttributeError, match="has no attribute 'Parameters'"):
        vecampfit.fitter.Parameters
