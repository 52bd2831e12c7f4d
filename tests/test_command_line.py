"""vecampfit.command_line: the options fit programs share."""

import pytest

from vecampfit import command_line


def test_options_parse_with_their_defaults_and_help():
    p = command_line.parser("A fit.")
    command_line.add_model_options(p)
    command_line.add_start_options(p)
    args = p.parse_args([])
    assert (args.vector_length, args.precision, args.threads, args.model_cache) == \
        (8, "float64", None, None)
    assert (args.seed, args.fixed_seed, args.no_gradient) == (None, False, False)
    args = p.parse_args(["--vector-length", "4", "--precision", "float32", "--threads", "2",
                         "--seed", "7", "--fixed-seed", "--no-gradient", "--model-cache", "c"])
    assert (args.vector_length, args.precision, args.threads, args.seed, args.fixed_seed,
            args.no_gradient, args.model_cache) == (4, "float32", 2, 7, True, True, "c")
    text = p.format_help()
    # Defaults are shown where there is one to show, once.
    assert "(default: 8)" in text and "(default: float64)" in text
    assert "(default: None)" not in text and "(default: False)" not in text
    assert text.count("(default: all CPUs)") == 1
    with pytest.raises(SystemExit):
        p.parse_args(["--precision", "float16"])


def test_options_can_be_left_out():
    p = command_line.add_start_options(command_line.add_model_options(
        command_line.parser("x"), threads=False, precision=False, vector_length=16),
        seed=False, fixed_seed=False)
    args = p.parse_args([])
    assert vars(args) == {"vector_length": 16, "model_cache": None, "no_gradient": False}


@pytest.mark.parametrize("argv, message", [(["--vector-length", "0"], "--vector-length must be"),
                                           (["--vector-length", "65"], "in 1..64, got 65"),
                                           (["--threads", "0"], "--threads must be positive")])
def test_check_names_the_bad_option(argv, message):
    p = command_line.add_model_options(command_line.parser("x"))
    with pytest.raises(ValueError, match=message):
        command_line.check_model_options(p.parse_args(argv))
    command_line.check_model_options(p.parse_args(["--vector-length", "64", "--threads", "1"]))


def test_parse_ranges_against_written_out_lists():
    assert command_line.parse_ranges("3") == [3]
    assert command_line.parse_ranges("0-9") == list(range(10))
    assert command_line.parse_ranges("1,4,7") == [1, 4, 7]
    assert command_line.parse_ranges("0-2,5,8-8") == [0, 1, 2, 5, 8]
    for bad in ("3-x", "", "5-2", "-1", "1,,2", "1-2-3"):
        with pytest.raises(ValueError, match="--experiments: expected"):
            command_line.parse_ranges(bad)
    with pytest.raises(ValueError, match="--starts"):
        command_line.parse_ranges("x", "--starts")


def test_forward_options_reparse_to_the_same_values():
    p = command_line.add_model_options(command_line.parser("x"))
    p.add_argument("--directory", default="out")
    p.add_argument("--wave", type=float, nargs=2, default=(0.6, -0.8))
    p.add_argument("--free", nargs="*", default=None)
    args = p.parse_args(["--vector-length", "4", "--wave", "0.1", "1e-07"])
    argv = command_line.forward_options(args, ("directory", "vector_length", "wave"),
                                        optional=("threads", "model_cache", "free"))
    # options set to None (or not given, empty) are left to the other program's default
    assert argv == ["--directory", "out", "--vector-length", "4", "--wave", "0.1", "1e-07"]
    again = p.parse_args(argv)
    assert vars(again) == {**vars(args), "wave": [0.1, 1e-07]}
    args = p.parse_args(["--threads", "2", "--free", "a", "b", "--model-cache", "c"])
    assert command_line.forward_options(args, (), optional=("threads", "model_cache", "free")) \
        == ["--threads", "2", "--model-cache", "c", "--free", "a", "b"]
    with pytest.raises(AttributeError):
        command_line.forward_options(args, ("no_such_option",))


def test_seed_or_random():
    assert command_line.seed_or_random(7) == 7 and command_line.seed_or_random(0) == 0
    drawn = {command_line.seed_or_random(None) for _ in range(4)}
    assert all(isinstance(s, int) and 0 <= s < 2 ** 32 for s in drawn)
    assert len(drawn) > 1


def test_json_files_round_trip_and_name_what_is_missing(tmp_path):
    path = tmp_path / "result.json"
    content = {"values": {"a": 1.5, "b": -2.0}, "free": ["a"], "valid": True}
    command_line.write_json(path, content)
    assert command_line.read_json(path) == content
    assert path.read_text() == '{\n "values": {\n  "a": 1.5,\n  "b": -2.0\n },\n' \
                               ' "free": [\n  "a"\n ],\n "valid": true\n}'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["result.json"]
    with pytest.raises(FileNotFoundError, match="truth.json not found: run generate.py"):
        command_line.read_json(tmp_path / "truth.json", missing="run generate.py")
    with pytest.raises(FileNotFoundError):
        command_line.read_json(tmp_path / "truth.json")
    with pytest.raises(FileNotFoundError):
        command_line.write_json(tmp_path / "no" / "result.json", content)


def test_fit_summary_of_a_known_minimum():
    """F = (x - 1)^2 + ((y - 2)/0.5)^2 + 0.5 (x - 1)(y - 2): minimum at (1, 2),
    error matrix 2 H^-1 (errordef 1), H the Hessian of F."""
    from types import SimpleNamespace

    import numpy as np
    from iminuit import Minuit

    def f(x, y):
        return (x - 1) ** 2 + ((y - 2) / 0.5) ** 2 + 0.5 * (x - 1) * (y - 2)

    m = Minuit(f, x=0.0, y=0.0)
    m.errordef = 1
    m.migrad()
    m.hesse()
    fitter = SimpleNamespace(minuit=m, wall_time=0.25)
    out = command_line.fit_summary(fitter, {"x": 5.0, "y": 5.0, "z": 3.0}, ["y", "x"])
    assert out["free"] == ["y", "x"] and out["valid"] is True and out["fit_wall_time"] == 0.25
    assert out["values"]["z"] == 3.0
    assert out["values"]["x"] == pytest.approx(1, abs=1e-6)
    assert out["values"]["y"] == pytest.approx(2, abs=1e-6)
    hessian = np.array([[8.0, 0.5], [0.5, 2.0]])            # order y, x
    cov = 2 * np.linalg.inv(hessian)
    np.testing.assert_allclose(out["covariance"], cov, rtol=1e-6)
    assert out["errors"] == pytest.approx({"y": np.sqrt(cov[0, 0]), "x": np.sqrt(cov[1, 1])})
    assert out["fval"] == pytest.approx(0, abs=1e-10) and out["edm"] >= 0
    assert all(type(v) is float for row in out["covariance"] for v in row)


def test_values_table_with_and_without_pulls():
    values, errors = {"P_RE": 0.61, "P_IM": 0.79}, {"P_RE": 0.02, "P_IM": 0.04}
    assert command_line.values_table(["P_RE"], values, errors) == (
        "parameter      value    error\n"
        "P_RE          0.6100   0.0200")
    text = command_line.values_table(["P_RE", "P_IM"], values, errors,
                                     {"P_RE": 0.6, "P_IM": 0.8}, widths=(6, 7, 6))
    assert text.split("\n") == ["parameter   value  error   truth   pull",
                                "P_RE    0.6100 0.0200  0.6000   0.50",
                                "P_IM    0.7900 0.0400  0.8000  -0.25"]


def test_fractions_report_adds_the_truth_column():
    import numpy as np
    from types import SimpleNamespace

    def fractions(diagonal, errors=None):
        return SimpleNamespace(
            components=["S", "P"], matrix=np.diag(diagonal),
            errors=None if errors is None else np.diag(errors),
            normalization_errors=None if errors is None else np.diag(errors) / 10,
            table=lambda interference=False: "group fraction\nS x\nP y"
                                              + ("\ninterference" if interference else ""))

    ff, ft = fractions([0.7, 0.3], [0.02, 0.01]), fractions([0.65, 0.35])
    text, numbers = command_line.fractions_report(ff)
    assert text == "group fraction\nS x\nP y"
    assert numbers == {"fractions": {"S": [0.7, 0.02, 0.002], "P": [0.3, 0.01, 0.001]}}
    text, numbers = command_line.fractions_report(ff, ft, interference=True)
    assert text.split("\n") == ["group fraction   truth %", "S x    65.000", "P y    35.000",
                                "interference"]
    assert numbers["truth_fractions"] == {"S": 0.65, "P": 0.35}
