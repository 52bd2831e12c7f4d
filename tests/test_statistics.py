"""Tests of vecampfit.statistics: Feldman-Cousins intervals and asymmetric-Gaussian likelihoods."""

import numpy as np
import pytest
import scipy.integrate
from scipy.stats import norm

from vecampfit import statistics as st

# Feldman and Cousins, Phys. Rev. D 57 (1998) 3873, Table X: confidence intervals for the mean of a
# Gaussian (sigma = 1) constrained to be non-negative, for a measured mean x0, at 68.27%, 90%, 95%, 99%.
TABLE_X = {
    -3.0: [(0.00, 0.04), (0.00, 0.26), (0.00, 0.42), (0.00, 0.80)],
    0.0: [(0.00, 1.00), (0.00, 1.64), (0.00, 1.96), (0.00, 2.58)],
    3.1: [(2.10, 4.10), (1.46, 4.74), (1.22, 5.06), (0.77, 5.68)],
}
TABLE_X_CL = (0.6827, 0.90, 0.95, 0.99)
# More rows of the 90% column of Table X.
TABLE_X_90 = {
    -2.0: (0.00, 0.40), -1.0: (0.00, 0.81), -0.5: (0.00, 1.18), 0.5: (0.00, 2.14), 1.0: (0.00, 2.64),
    1.3: (0.02, 2.94), 1.4: (0.12, 3.04), 1.5: (0.22, 3.14), 1.6: (0.31, 3.24), 1.7: (0.38, 3.34),
    1.8: (0.45, 3.44), 2.0: (0.58, 3.64), 2.6: (1.02, 4.24),
}


def test_reproduces_feldman_cousins_table_x():
    rows = 0
    for x0, intervals in TABLE_X.items():
        for cl, (lo, hi) in zip(TABLE_X_CL, intervals):
            got = st.feldman_cousins_interval(x0, 1.0, 1.0, cl)
            print(f"x0 = {x0:5.2f}, CL {cl}: [{got[0]:.4f}, {got[1]:.4f}]  (Table X: [{lo:.2f}, {hi:.2f}])")
            assert round(got[0], 2) == lo and round(got[1], 2) == hi
            rows += 1
    for x0, (lo, hi) in TABLE_X_90.items():
        got = st.feldman_cousins_interval(x0, 1.0, 1.0, 0.9)
        assert round(got[0], 2) == lo and round(got[1], 2) == hi, (x0, got)
        rows += 1
    print(f"{rows} entries of Table X reproduced to the printed precision")


def neyman_by_grid(x0, sl, sh, cl, bound=0.0):
    """Brute-force Neyman construction with likelihood-ratio ordering on a fine grid of x.

    For each mu the grid points are added in decreasing order of R until their probability
    reaches CL; the interval ends in mu are found by a coarse scan and bisection.
    """
    xs = np.linspace(bound - 10 * sh - 3, x0 + 10 * max(sl, sh) + 3, 40001)
    dx = xs[1] - xs[0]
    best = np.where(xs >= bound, np.sqrt(2 / np.pi) / (sl + sh), st.asymmetric_gaussian_pdf(xs, bound, sl, sh))

    def accepts(mu):
        p = st.asymmetric_gaussian_pdf(xs, mu, sl, sh)
        order = np.argsort(-(p / best), kind="stable")
        k = np.searchsorted(np.cumsum(p[order]) * dx, cl)
        accepted = xs[order[:k + 1]]
        return accepted.min() <= x0 <= accepted.max()

    scan = np.arange(bound + 1e-6, x0 + 8 * sh + 3, 0.05)
    inside = np.array([accepts(mu) for mu in scan])
    k = np.flatnonzero(inside)

    def bisect(a, b):  # accepts(a) != accepts(b)
        fa = accepts(a)
        for _ in range(14):
            m = (a + b) / 2
            if accepts(m) == fa:
                a = m
            else:
                b = m
        return (a + b) / 2

    lower = bound if k[0] == 0 else bisect(scan[k[0] - 1], scan[k[0]])
    upper = bisect(scan[k[-1]], scan[k[-1] + 1])
    return lower, upper


@pytest.mark.parametrize("x0,sl,sh,cl", [(0.3, 0.5, 1.5, 0.9), (2.0, 1.5, 0.5, 0.9), (-0.7, 1.0, 2.0, 0.68),
                                         (3.5, 0.7, 1.2, 0.95)])
def test_asymmetric_against_a_brute_force_construction(x0, sl, sh, cl):
    got = st.feldman_cousins_interval(x0, sl, sh, cl)
    ref = neyman_by_grid(x0, sl, sh, cl)
    print(f"x0 = {x0}, sigma -{sl} +{sh}, CL {cl}: [{got[0]:.4f}, {got[1]:.4f}], grid construction "
          f"[{ref[0]:.4f}, {ref[1]:.4f}]")
    assert abs(got[0] - ref[0]) <= 0.003 and abs(got[1] - ref[1]) <= 0.003


def test_far_from_the_boundary_the_quoted_errors_come_back():
    for sl, sh in ((1.0, 1.0), (0.4, 1.3), (2.0, 0.7)):
        lo, hi = st.feldman_cousins_interval(50.0, sl, sh, 0.682689492137086)
        assert lo == pytest.approx(50 - sl, abs=1e-8) and hi == pytest.approx(50 + sh, abs=1e-8)
        z = norm.ppf(0.95)
        lo, hi = st.feldman_cousins_interval(50.0, sl, sh, 0.9)
        assert lo == pytest.approx(50 - sl * z, abs=1e-8) and hi == pytest.approx(50 + sh * z, abs=1e-8)
    # Another boundary: shifted problem, shifted interval.
    a = st.feldman_cousins_interval(0.7, 0.5, 1.5, 0.9)
    b = st.feldman_cousins_interval(10.7, 0.5, 1.5, 0.9, lower_bound=10.0)
    assert b[0] - 10 == pytest.approx(a[0], abs=1e-9) and b[1] - 10 == pytest.approx(a[1], abs=1e-9)


@pytest.mark.parametrize("sl,sh,cl", [(1.0, 1.0, 0.9), (0.5, 1.5, 0.9), (0.2, 1.5, 0.68)])
def test_coverage_by_pseudoexperiments(sl, sh, cl):
    rng = np.random.default_rng(11)
    n = 600
    for mu in (0.0, 0.4, 2.5):
        if mu == 0 and sh / (sl + sh) >= cl:
            # Measurements far below the boundary get [0, 0]: over-coverage exactly at the boundary.
            assert st.feldman_cousins_interval(-20.0, sl, sh, cl) == (0.0, 0.0)
            continue
        # Measurements from p(x | mu): below mu with probability sh / (sl + sh), width sh there.
        below = rng.uniform(size=n) < sh / (sl + sh)
        z = np.abs(rng.normal(size=n))
        x = np.where(below, mu - sh * z, mu + sl * z)
        covered = 0
        x1, x2 = st.feldman_cousins_acceptance(mu, sl, sh, cl)
        for xi in x:
            lo, hi = st.feldman_cousins_interval(xi, sl, sh, cl)
            inside = lo <= mu <= hi
            # The interval contains mu exactly when x lies in mu's acceptance region.
            assert inside == (x1 <= xi <= x2) or min(abs(xi - x1), abs(xi - x2)) < 1e-8
            covered += inside
        frac = covered / n
        sigma = np.sqrt(cl * (1 - cl) / n)
        print(f"sigma -{sl} +{sh}, mu = {mu}: coverage {frac:.3f} (expected {cl} +- {sigma:.3f})")
        assert abs(frac - cl) < 4 * sigma
        # The acceptance region has probability CL.
        prob = st.asymmetric_gaussian_cdf(x2, mu, sl, sh) - st.asymmetric_gaussian_cdf(x1, mu, sl, sh)
        assert prob == pytest.approx(cl, abs=1e-12)


def test_asymmetric_gaussian_distribution_and_prior():
    sl, sh, mu = 0.6, 1.7, 0.4
    total = scipy.integrate.quad(lambda x: st.asymmetric_gaussian_pdf(x, mu, sl, sh), -np.inf, mu)[0] + \
        scipy.integrate.quad(lambda x: st.asymmetric_gaussian_pdf(x, mu, sl, sh), mu, np.inf)[0]
    assert total == pytest.approx(1, abs=1e-12)
    for x in (-3.0, 0.0, mu, 1.0, 4.0):
        ref = scipy.integrate.quad(lambda t: st.asymmetric_gaussian_pdf(t, mu, sl, sh), -np.inf, min(x, mu))[0]
        if x > mu:
            ref += scipy.integrate.quad(lambda t: st.asymmetric_gaussian_pdf(t, mu, sl, sh), mu, x)[0]
        assert st.asymmetric_gaussian_cdf(x, mu, sl, sh) == pytest.approx(ref, abs=1e-12)
    # The likelihood of a quoted result x^{+sh}_{-sl} as a function of mu is exp(-C(mu) / 2).
    mus = np.linspace(-4, 5, 91)
    c, dc = st.asymmetric_gaussian_prior(mus, 0.4, sl, sh)
    lik = np.array([st.asymmetric_gaussian_pdf(0.4, m, sl, sh) for m in mus])
    np.testing.assert_allclose(lik / lik.max(), np.exp(-c / 2), rtol=1e-14)
    # Prior values and derivative (finite differences), both sides.
    assert st.asymmetric_gaussian_prior(1.0, 2.0, 0.5, 2.0) == (4.0, -8.0)
    assert st.asymmetric_gaussian_prior(3.0, 2.0, 0.5, 2.0) == (0.25, 0.5)
    h = 1e-6
    for p in (-1.0, 0.39, 0.41, 2.0):
        v, d = st.asymmetric_gaussian_prior(p, 0.4, sl, sh)
        num = (st.asymmetric_gaussian_prior(p + h, 0.4, sl, sh)[0]
               - st.asymmetric_gaussian_prior(p - h, 0.4, sl, sh)[0]) / (2 * h)
        assert d == pytest.approx(num, rel=1e-7, abs=1e-7)
    assert isinstance(st.asymmetric_gaussian_prior(1.0, 0.0, 1.0, 1.0)[0], float)


@pytest.mark.parametrize("call,message", [
    (lambda: st.feldman_cousins_interval(1.0, 0.0, 1.0), "positive"),
    (lambda: st.feldman_cousins_interval(1.0, 1.0, np.nan), "positive"),
    (lambda: st.feldman_cousins_interval(1.0, 1.0, 1.0, cl=1.0), r"\(0, 1\)"),
    (lambda: st.feldman_cousins_interval(np.inf, 1.0, 1.0), "finite"),
    (lambda: st.feldman_cousins_acceptance(-0.1, 1.0, 1.0), "below the physical boundary"),
    (lambda: st.asymmetric_gaussian_prior(1.0, 0.0, -1.0, 1.0), "positive"),
    (lambda: st.asymmetric_gaussian_prior(1.0, np.nan, 1.0, 1.0), "finite"),
    # A non-finite true value gave NaN (pdf) or a silent 0 (cdf at mu = inf).
    (lambda: st.asymmetric_gaussian_pdf([0.0, 1.0], np.nan, 1.0, 2.0), "mu: expected a finite"),
    (lambda: st.asymmetric_gaussian_cdf([0.0, 1.0], np.inf, 1.0, 2.0), "mu: expected a finite"),
])
def test_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()
