"""The Lambda_c+ -> p K- pi+ example: generate a small sample with a polarization,
fit a few couplings and the polarization, recover the truth within the errors.

The programs run as subprocesses from a folder outside the source tree (a
script's folder, not the working folder, is first on its ``sys.path``, so the
installed vecampfit is the one imported).
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

EXAMPLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples",
                       "lc_pkpi")
FREE = ["L1520_re", "L1520_im", "L1520_2_re", "L1520_2_im", "D1232_re", "D1232_im", "K892_re",
        "K892_im", "Px", "Py", "Pz"]


def _run(program, args, cwd, timeout=300):
    env = dict(os.environ, OMP_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, os.path.join(EXAMPLE, program + ".py"), *args],
                          capture_output=True, text=True, cwd=cwd, env=env, timeout=timeout)
    assert proc.returncode == 0, f"{program} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


@pytest.mark.parametrize("program", ["generate", "fit", "plot", "run"])
def test_programs_have_help(program, tmp_path):
    out = _run(program, ["--help"], tmp_path)
    assert "usage:" in out and "--directory" in out


@pytest.fixture(scope="module")
def fitted(tmp_path_factory, model_cache):
    work = tmp_path_factory.mktemp("lc_pkpi")
    shared = ["--directory", str(work / "out"), "--model-cache", model_cache,
              "--vector-length", "8", "--threads", "1"]
    gen = _run("generate", shared + ["--events", "4000", "--mc-events", "40000", "--seed", "3",
                                     "--polarization", "0.2", "0.0", "-0.65"], work)
    fit = _run("fit", shared + ["--free", *FREE, "--start", "random", "--seed", "5"], work)
    print(gen, fit)
    with open(work / "out" / "truth.json") as f:
        truth = json.load(f)["values"]
    with open(work / "out" / "fit_result.json") as f:
        result = json.load(f)
    return work, shared, truth, result, fit


def test_the_fit_recovers_the_truth(fitted):
    _, _, truth, result, _ = fitted
    assert truth["Px"] == 0.2 and truth["Pz"] == -0.65
    assert result["valid"]
    assert result["free"] == FREE
    pulls = {n: (result["values"][n] - truth[n]) / result["errors"][n] for n in FREE}
    print("pulls: " + ", ".join(f"{n} {p:+.2f}" for n, p in pulls.items()))
    print(f"fit time {result['fit_wall_time']:.1f} s")
    assert all(abs(p) < 4 for p in pulls.values()), pulls
    # the polarization is measured: errors of a few percent for 4000 events
    assert all(0.01 < result["errors"][n] < 0.1 for n in ("Px", "Py", "Pz"))
    # parameters that were not free stay at the generation's values
    assert result["values"]["K700_re"] == truth["K700_re"]
    assert result["values"]["L1405_re"] == truth["L1405_re"]
    cov = np.array(result["covariance"])
    assert np.allclose(np.sqrt(np.diag(cov)), [result["errors"][n] for n in FREE], rtol=1e-6)


def test_fit_fractions_are_printed_with_errors(fitted):
    _, _, truth, result, out = fitted
    assert "Fit fractions of the resonances" in out
    ff, ft = result["fractions"], result["truth_fractions"]
    assert set(ff) == {"K700", "K892", "K1430", "L1405", "L1520", "L1600", "L1670", "L1690",
                       "L2000", "D1232", "D1600", "D1700"}
    for name in ("K892", "L1520", "D1232"):
        value, error, norm_error = ff[name]
        assert error > 0 and norm_error > 0
        assert abs(value - ft[name]) < 4 * np.hypot(error, norm_error), name
    # a resonance whose couplings are all fixed still moves a little with the total
    assert ff["L1670"][1] < ff["K892"][1]


def test_plot_writes_the_projections(fitted):
    work, shared, _, _, _ = fitted
    out = _run("plot", shared + ["--bins", "40", "--components", "3"], work)
    assert (work / "out" / "projections.png").stat().st_size > 10000
    chi2 = [float(line.split("chi2 = ")[1].split()[0]) for line in out.splitlines()
            if "chi2 =" in line]
    print(out)
    assert len(chi2) == 3 and all(c < 90 for c in chi2)
