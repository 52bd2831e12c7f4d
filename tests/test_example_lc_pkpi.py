"""The Lambda_c+ -> p K- pi+ example: generate a small sample with a polarization,
fit a few couplings and the polarization, recover the truth within the errors.
"""

import numpy as np
import pytest

from example_programs import (check_fit, generate_and_fit, help_test, printed_chi2,
                              run_program)

EXAMPLE = "lc_pkpi"
FREE = ["L1520_re", "L1520_im", "L1520_2_re", "L1520_2_im", "D1232_re", "D1232_im", "K892_re",
        "K892_im", "Px", "Py", "Pz"]


test_programs_have_help = help_test(EXAMPLE)


@pytest.fixture(scope="module")
def fitted(tmp_path_factory, model_cache):
    return generate_and_fit(
        EXAMPLE, tmp_path_factory.mktemp(EXAMPLE), model_cache, 8,
        ["--events", "4000", "--mc-events", "40000", "--seed", "3", "--polarization", "0.2",
         "0.0", "-0.65"],
        ["--free", *FREE, "--start", "random", "--seed", "5"])


def test_the_fit_recovers_the_truth(fitted):
    _, _, truth, result, _ = fitted
    assert truth["Px"] == 0.2 and truth["Pz"] == -0.65
    check_fit(truth, result, FREE)
    # the polarization is measured: errors of a few percent for 4000 events
    assert all(0.01 < result["errors"][n] < 0.1 for n in ("Px", "Py", "Pz"))
    # parameters that were not free stay at the generation's values
    assert result["values"]["K700_re"] == truth["K700_re"]
    assert result["values"]["L1405_re"] == truth["L1405_re"]


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
    out = run_program(EXAMPLE, "plot", shared + ["--bins", "40", "--components", "3"], work)
    assert (work / "out" / "projections.png").stat().st_size > 10000
    chi2 = printed_chi2(out)
    print(out)
    assert set(chi2) == {"m(pK-)", "m(K-pi+)", "m(ppi+)"}
    assert all(c < 90 for c in chi2.values()), chi2
