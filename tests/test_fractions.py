"""vecampfit.fractions: the covariance check shared by the fit-fraction functions.

(The fractions themselves are tested against independent numpy evaluations in
test_example_isobar_models.py, test_amplitudes_fractions.py and the isobar tests.)
"""

import numpy as np
import pytest

from vecampfit.fractions import covariance_matrix


def test_covariance_matrix_is_checked_against_the_parameters():
    cov, names = covariance_matrix([[1.0, 0.5], [0.5, 2.0]], ("a", "b"), {"a": 1, "b": 2, "c": 3})
    assert names == ["a", "b"] and cov.dtype == np.float64 and cov[1, 1] == 2.0
    with pytest.raises(ValueError, match=r"expected shape \(2, 2\), got \(3,\)"):
        covariance_matrix([1.0, 2.0, 3.0], ["a", "b"], {"a", "b"})
    with pytest.raises(ValueError, match=r"\['x'\] are not parameters of model 'm'"):
        covariance_matrix(np.eye(2), ["a", "x"], {"a", "b"}, "model 'm'")
