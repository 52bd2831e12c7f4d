"""The D0 -> rho0 anti-K*0 example: generate a small sample, fit the P- and D-wave
couplings, recover the truth within the errors, print the wave fractions, plot.
"""

import numpy as np
import pytest

from example_programs import (check_fit, generate_and_fit, help_test, printed_chi2,
                              run_program)

EXAMPLE = "d0_rho_kstar"
FREE = ["P_RE", "P_IM", "D_RE", "D_IM"]
#: The generation's couplings, away from the programs' defaults.
P_WAVE, D_WAVE = (0.5, 0.9), (-0.4, 0.3)


test_programs_have_help = help_test(EXAMPLE)


@pytest.fixture(scope="module")
def fitted(tmp_path_factory, model_cache):
    return generate_and_fit(
        EXAMPLE, tmp_path_factory.mktemp(EXAMPLE), model_cache, 4,
        ["--events", "3000", "--mc-events", "30000", "--seed", "3",
         "--p-wave", *map(str, P_WAVE), "--d-wave", *map(str, D_WAVE)],
        ["--start", "random", "--seed", "5", "--quiet", "--fraction-events", "20000"])


def test_the_fit_recovers_the_truth(fitted):
    _, _, truth, result, _ = fitted
    assert (truth["P_RE"], truth["P_IM"], truth["D_RE"], truth["D_IM"]) == P_WAVE + D_WAVE
    check_fit(truth, result, FREE)
    # 3000 events measure the couplings to a few percent, not better than 0.5 %
    assert all(0.005 < result["errors"][n] < 0.2 for n in FREE), result["errors"]
    # the S wave is the fixed reference
    assert result["values"]["S_RE"] == 1.0 and result["values"]["S_IM"] == 0.0


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
    out = run_program(EXAMPLE, "plot", shared + ["--bins", "30"], work)
    print(out)
    assert (work / "out" / "projections.png").stat().st_size > 10000
    chi2 = printed_chi2(out)
    assert set(chi2) == {"m(pi+pi-)", "m(K-pi+)", "cos(theta_rho)", "cos(theta_K*)", "chi"}
    # two entries per event are correlated: a loose bound over 30 bins
    assert all(c < 120 for c in chi2.values()), chi2
