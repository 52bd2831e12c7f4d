"""The D0 -> rho0 anti-K*0 example: generate a small sample, fit the P- and D-wave
couplings, recover the truth within the errors, print the wave fractions, plot.

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
                       "d0_rho_kstar")
FREE = ["P_RE", "P_IM", "D_RE", "D_IM"]
#: The generation's couplings, away from the programs' defaults.
P_WAVE, D_WAVE = (0.5, 0.9), (-0.4, 0.3)


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
    work = tmp_path_factory.mktemp("d0_rho_kstar")
    shared = ["--directory", str(work / "out"), "--model-cache", model_cache,
              "--vector-length", "4", "--threads", "1"]
    gen = _run("generate", shared + ["--events", "3000", "--mc-events", "30000", "--seed", "3",
                                     "--p-wave", *map(str, P_WAVE),
                                     "--d-wave", *map(str, D_WAVE)], work)
    fit = _run("fit", shared + ["--start", "random", "--seed", "5", "--quiet",
                                "--fraction-events", "20000"], work)
    print(gen, fit)
    with open(work / "out" / "truth.json") as f:
        truth = json.load(f)["values"]
    with open(work / "out" / "fit_result.json") as f:
        result = json.load(f)
    return work, shared, truth, result, fit


def test_the_fit_recovers_the_truth(fitted):
    _, _, truth, result, _ = fitted
    assert (truth["P_RE"], truth["P_IM"], truth["D_RE"], truth["D_IM"]) == P_WAVE + D_WAVE
    assert result["valid"]
    assert result["free"] == FREE
    pulls = {n: (result["values"][n] - truth[n]) / result["errors"][n] for n in FREE}
    print("pulls: " + ", ".join(f"{n} {p:+.2f}" for n, p in pulls.items()))
    print(f"fit time {result['fit_wall_time']:.2f} s")
    assert all(abs(p) < 4 for p in pulls.values()), pulls
    # 3000 events measure the couplings to a few percent, not better than 0.5 %
    assert all(0.005 < result["errors"][n] < 0.2 for n in FREE), result["errors"]
    # the S wave is the fixed reference
    assert result["values"]["S_RE"] == 1.0 and result["values"]["S_IM"] == 0.0
    cov = np.array(result["covariance"])
    assert np.allclose(np.sqrt(np.diag(cov)), [result["errors"][n] for n in FREE], rtol=1e-6)


def test_wave_fractions_are_printed_with_errors(fitted):
    _, _, truth, result, out = fitted
    assert "Fit fractions of the waves" in out
    ff, ft = result["fractions"], result["truth_fractions"]
    assert set(ff) == {"S", "P", "D"}
    for wave in ("S", "P", "D"):
        value, error, norm_error = ff[wave]
        assert error > 0 and norm_error > 0
        assert abs(value - ft[wave]) < 4 * np.hypot(error, norm_error), wave
    # without form factors at the D0 vertex the waves hardly interfere after the
    # integration over the angles: the fractions are close to |g_L|^2 / sum |g|^2
    g2 = {"S": 1.0, "P": abs(complex(*P_WAVE)) ** 2, "D": abs(complex(*D_WAVE)) ** 2}
    for wave in ("S", "P", "D"):
        assert abs(ft[wave] - g2[wave] / sum(g2.values())) < 0.05, (wave, ft[wave])


def test_plot_writes_the_projections(fitted):
    work, shared, _, _, _ = fitted
    out = _run("plot", shared + ["--bins", "30"], work)
    print(out)
    assert (work / "out" / "projections.png").stat().st_size > 10000
    chi2 = {line.split(":")[0]: float(line.split("chi2 = ")[1].split()[0])
            for line in out.splitlines() if "chi2 =" in line}
    assert set(chi2) == {"m(pi+pi-)", "m(K-pi+)", "cos(theta_rho)", "cos(theta_K*)", "chi"}
    # two entries per event are correlated: a loose bound over 30 bins
    assert all(c < 120 for c in chi2.values()), chi2
