"""The tutorial (examples/tutorial): the fit recovers the generated peak, and
the Cython density and its numpy form give the same fit."""

import os

import numpy as np
import pytest

from vecampfit.fitter import results as fit_results


EXAMPLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples",
                       "tutorial")
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
        k = f.likelihood.parameter_index(name)
        value, error = fit_results.values(f.minuit)[k], fit_results.errors(f.minuit)[k]
        pull = (value - truth) / error
        print(f"{name}: {value:.5f} +- {error:.5f} (generated {truth}), pull {pull:+.2f}")
        assert abs(pull) < 3.5, name
    for name in ("parameters_result.dat", "results.txt", "result.root", "density.root"):
        assert os.path.getsize(os.path.join(fits["directory"], name)) > 0


def test_cython_numpy_and_float32_forms_agree(fits):
    c, n, s = fits["cython"], fits["numpy"], fits["float32"]
    assert n.minuit.valid and s.minuit.valid and not n.use_gradient
    # Same data and start: the minima agree far below the statistical errors
    # (float32 densities with double sums: to a few per mille of an error).
    assert abs(c.minuit.fval - n.minuit.fval) < 1e-3
    xc, xn, xs = (fit_results.values(f.minuit) for f in (c, n, s))
    ec = fit_results.errors(c.minuit)
    diff_numpy = np.max(np.abs(xc - xn) / ec)
    diff_float32 = np.max(np.abs(xc - xs) / ec)
    print(f"largest difference in units of the error: numpy form {diff_numpy:.1e}, "
          f"float32 {diff_float32:.1e}")
    assert diff_numpy < 0.01
    assert diff_float32 < 0.05


def test_help():
    with pytest.raises(SystemExit) as e:
        fit_peak.main(["--help"])
    assert e.value.code == 0


@pytest.mark.root
@pytest.mark.skipif(os.environ.get("VECAMPFIT_TEST_ROOT") != "1",
                    reason="opt-in: VECAMPFIT_TEST_ROOT=1 with ROOT installed (pip install root)")
def test_real_root_reads_every_file_written(fits):
    """ROOT itself opens the event files and the result files of the fit."""
    ROOT = pytest.importorskip("ROOT")
    d, f = fits["directory"], fits["float32"]      # the last fit wrote the result files
    n = len(f.likelihood.parameters)

    def tree(path, name):
        file = ROOT.TFile.Open(os.path.join(d, path))
        assert file and not file.IsZombie(), path
        t = file.Get(name)
        assert t and t.InheritsFrom("TTree"), (path, name)
        return file, t

    for path, entries in (("data.root", 4000), ("mc.root", 80000)):
        file, t = tree(path, "tree")
        assert t.GetEntries() == entries
    file, t = tree("result.root", "parameters")
    assert t.GetEntries() == n
    for k in range(n):
        t.GetEntry(k)
        assert t.value == f.minuit.values[k] and t.error == fit_results.errors(f.minuit)[k]
    names = list(f.likelihood.parameters.names)
    assert str(file.Get("parameter_names").GetString()).split("\n") == names
    _, t = tree("result.root", "fit")
    t.GetEntry(0)
    assert t.fval == f.minuit.fval and t.valid == 1
    _, t = tree("result.root", "error_matrix")
    assert t.GetEntries() == n
    t.GetEntry(0)
    assert t.row[0] == f.minuit.covariance[0, 0]
    _, t = tree("result.root", "eigen")
    assert t.GetEntries() == n
    _, t = tree("density.root", "data_0")
    assert t.GetEntries() == 4000
    t.GetEntry(5)
    assert t.total > 0 and t.signal + t.background_1 == pytest.approx(t.total, rel=1e-12)
    _, t = tree("density.root", "normalization_0")
    assert t.GetEntries() == 80000
