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
