"""The tutorial (examples/tutorial): the fit recovers the generated peak, and
the Cython density and its numpy form give the same fit."""

import os
import sys

import numpy as np
import pytest

EXAMPLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples",
                       "tutorial")
sys.path.insert(0, EXAMPLE)
import fit_peak  # noqa: E402


@pytest.fixture(scope="module")
def fits(tmp_path_factory, model_cache):
    d = str(tmp_path_factory.mktemp("tutorial"))
    common = ["--directory", d, "--events", "4000", "--mc-events", "80000", "--seed", "3",
              "--model-cache", model_cache]
    return {"cython": fit_peak.main(common), "numpy": fit_peak.main(common + ["--numpy"]),
            "float32": fit_peak.main(common + ["--precision", "float32", "--vector-length", "4"]),
            "directory": d}


def test_fit_recovers_the_generated_values(fits):
    f = fits["cython"]
    assert f.minuit.valid and f.use_gradient
    for name, truth in fit_peak.TRUTH.items():
        k = f.parameter_index(name)
        pull = (f.values[k] - truth) / f.errors[k]
        print(f"{name}: {f.values[k]:.5f} +- {f.errors[k]:.5f} (generated {truth}), pull {pull:+.2f}")
        assert abs(pull) < 3.5, name
    for name in ("parameters_result.dat", "results.txt", "result.root", "density.root"):
        assert os.path.getsize(os.path.join(fits["directory"], name)) > 0


def test_cython_numpy_and_float32_forms_agree(fits):
    c, n, s = fits["cython"], fits["numpy"], fits["float32"]
    assert n.minuit.valid and s.minuit.valid and not n.use_gradient
    # Same data and start: the minima agree far below the statistical errors
    # (float32 densities with double sums: to a few per mille of an error).
    assert abs(c.minuit.fval - n.minuit.fval) < 1e-3
    diff_numpy = np.max(np.abs(c.values - n.values) / c.errors)
    diff_float32 = np.max(np.abs(c.values - s.values) / c.errors)
    print(f"largest difference in units of the error: numpy form {diff_numpy:.1e}, "
          f"float32 {diff_float32:.1e}")
    assert diff_numpy < 0.01
    assert diff_float32 < 0.05


def test_help():
    with pytest.raises(SystemExit) as e:
        fit_peak.main(["--help"])
    assert e.value.code == 0
