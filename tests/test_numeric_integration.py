"""Tests of vecampfit.numeric_integration against closed forms, mpmath and scipy."""

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import scipy.integrate

from vecampfit import numeric_integration as ni

# D0 -> K- pi+ pi0 (GeV).
D0 = (1.86484, 0.493677, 0.13957039, 0.1349768)


# ---------------------------------------------------------------------------
# Simpson
# ---------------------------------------------------------------------------

def test_simpson_exact_for_cubics_and_equal_to_scipy():
    rng = np.random.default_rng(1)
    for degree in range(4):
        c = [Fraction(int(k)) / 7 for k in rng.integers(-20, 20, degree + 1)]
        a, b = Fraction(-3, 4), Fraction(5, 2)
        exact = sum(ck * (b ** (k + 1) - a ** (k + 1)) / (k + 1) for k, ck in enumerate(c))
        cf = [float(ck) for ck in c]
        got = ni.simpson(lambda x: sum(ck * x ** k for k, ck in enumerate(cf)), float(a), float(b), 6)
        err = abs(got - float(exact)) / max(1.0, abs(float(exact)))
        print(f"Simpson, degree {degree}: relative error {err:.2e}")
        assert err < 1e-14
    # Degree 4 is not exact: error -(b - a) h^4 f''''/180.
    got = ni.simpson(lambda x: x ** 4, 0.0, 1.0, 4)
    assert abs(got - 0.2 - 1 / 4 ** 4 * 24 / 180) < 1e-15
    # Equally spaced samples: the same formula as scipy.integrate.simpson for an odd number of points.
    y = rng.normal(size=101)
    ref = scipy.integrate.simpson(y, dx=0.03)
    got = ni.simpson_samples(y, 0.03)
    print(f"simpson_samples vs scipy.integrate.simpson: {abs(got - ref):.2e}")
    assert abs(got - ref) <= 1e-14 * np.abs(y).sum() * 0.03
    # Convergence on a smooth function: h^4.
    errs = [abs(ni.simpson(np.exp, 0, 1, n) - (math.e - 1)) for n in (8, 16)]
    assert 14 < errs[0] / errs[1] < 18


@pytest.mark.parametrize("call,exc,message", [
    (lambda: ni.simpson(np.sin, 0, 1, 3), ValueError, "even number"),
    (lambda: ni.simpson(np.sin, 0, 1, 0), ValueError, ">= 2"),
    (lambda: ni.simpson(np.sin, 0, np.inf, 4), ValueError, "finite"),
    (lambda: ni.simpson(lambda x: 1.0, 0, 1, 4), ValueError, "expected 5 values"),
    (lambda: ni.simpson(lambda x: np.log(x), 0, 1, 4), ValueError, "non-finite"),
    (lambda: ni.simpson_samples(np.ones(4), 0.1), ValueError, "odd number"),
    (lambda: ni.simpson(np.sin, 0, 1, 2.0), TypeError, "integer"),
])
def test_simpson_bad_input(call, exc, message):
    with np.errstate(divide="ignore"):
        with pytest.raises(exc, match=message):
            call()


# ---------------------------------------------------------------------------
# Genz-Malik
# ---------------------------------------------------------------------------

def oscillatory(n, rng):
    while True:  # an integral not close to zero, so that a relative tolerance makes sense
        a = rng.uniform(0.5, 1.5, n) * 6 / n
        u = rng.uniform()
        exact = (np.exp(2j * np.pi * u) * np.prod((np.exp(1j * a) - 1) / (1j * a))).real
        if abs(exact) > 0.2:
            break
    f = lambda x: np.cos(2 * np.pi * u + x @ a)
    return f, exact


def product_peak(n, rng):
    a = rng.uniform(2, 6, n)
    u = rng.uniform(0.1, 0.9, n)
    f = lambda x: np.prod(1 / (a ** -2 + (x - u) ** 2), axis=1)
    exact = np.prod(a * (np.arctan(a * (1 - u)) + np.arctan(a * u)))
    return f, exact


def gaussian(n, rng, width=None):
    a = rng.uniform(1, 4, n) if width is None else np.full(n, 1 / (np.sqrt(2) * width))
    u = rng.uniform(0.2, 0.8, n)
    f = lambda x: np.exp(-np.sum((a * (x - u)) ** 2, axis=1))
    exact = np.prod(np.sqrt(np.pi) / (2 * a) * np.array([math.erf(ai * (1 - ui)) + math.erf(ai * ui)
                                                          for ai, ui in zip(a, u)]))
    return f, exact


class _Stop(Exception):
    pass


def scipy_evaluations(f, n, rtol, limit=4_000_000):
    """Points scipy.integrate.cubature (Genz-Malik rule) evaluates, or None without cubature.

    Stopped after ``limit`` points (to keep the test fast).
    """
    if not hasattr(scipy.integrate, "cubature"):
        return None
    count = [0]

    def g(x):
        count[0] += x.shape[0]
        if count[0] > limit:
            raise _Stop
        return f(x)

    try:
        res = scipy.integrate.cubature(g, np.zeros(n), np.ones(n), rule="genz-malik", rtol=rtol, atol=0)
    except _Stop:
        return count[0], f"stopped after {limit} points"
    return count[0], res.status


CASES = [
    ("oscillatory", oscillatory, {2: 1e-9, 3: 1e-8, 5: 1e-6, 7: 1e-5}),
    ("product peak", product_peak, {2: 1e-8, 3: 1e-6, 4: 1e-5}),
    ("gaussian", gaussian, {2: 1e-9, 4: 1e-6, 6: 1e-5}),
]


@pytest.mark.parametrize("name,family,dims", CASES)
def test_genz_malik_known_integrals(name, family, dims):
    rng = np.random.default_rng(len(name))
    for n, rtol in dims.items():
        f, exact = family(n, rng)
        r = ni.genz_malik(f, np.zeros(n), np.ones(n), rtol=rtol, max_evaluations=3_000_000)
        err = abs(r.value - exact)
        other = scipy_evaluations(f, n, rtol)
        print(f"{name}, {n} dims: relative error {err / abs(exact):.2e} (estimate {r.error / abs(exact):.2e}), "
              f"{r.n_evaluations} evaluations, {r.n_regions} regions"
              + (f"; scipy cubature genz-malik: {other[0]} evaluations ({other[1]})" if other else "")
              + f" [rtol {rtol:g}]")
        assert r.converged, r.message
        assert r.error <= rtol * abs(r.value)
        assert err <= max(r.error, 4 * rtol * abs(exact))


def test_genz_malik_peaked_and_degree_seven():
    rng = np.random.default_rng(3)
    # A narrow Gaussian peak (width 0.02 in each of 3 dimensions).
    f, exact = gaussian(3, rng, width=0.02)
    r = ni.genz_malik(f, np.zeros(3), np.ones(3), rtol=1e-6, max_evaluations=3_000_000)
    other = scipy_evaluations(f, 3, 1e-6)
    print(f"peaked gaussian, 3 dims: relative error {abs(r.value - exact) / exact:.2e}, {r.n_evaluations} "
          f"evaluations" + (f"; scipy cubature genz-malik: {other[0]} ({other[1]})" if other else ""))
    assert r.converged and abs(r.value - exact) <= 4e-6 * exact
    # Degree 7 is integrated exactly by one rule application (one region), on any box.
    coef = rng.normal(size=4)
    g = lambda x: (coef[0] * x[:, 0] ** 7 + coef[1] * x[:, 0] ** 3 * x[:, 1] ** 2 * x[:, 3] ** 2
                   + coef[2] * x[:, 1] ** 4 * x[:, 2] ** 2 + coef[3])
    lo, hi = np.array([-1.0, 0.0, 0.5, -2.0]), np.array([2.0, 1.0, 1.5, 1.0])
    mono = lambda k, i: (hi[i] ** (k + 1) - lo[i] ** (k + 1)) / (k + 1)
    vol = np.prod(hi - lo)
    exact = (coef[0] * mono(7, 0) * vol / (hi[0] - lo[0])
             + coef[1] * mono(3, 0) * mono(2, 1) * mono(2, 3) * (hi[2] - lo[2])
             + coef[2] * mono(4, 1) * mono(2, 2) * (hi[0] - lo[0]) * (hi[3] - lo[3]) + coef[3] * vol)
    points = 2 ** 4 + 2 * 4 ** 2 + 2 * 4 + 1
    r = ni.genz_malik(g, lo, hi, rtol=1e-12, max_evaluations=points)
    assert r.n_regions == 1 and r.n_evaluations == points and not r.converged
    print(f"degree-7 polynomial, one rule evaluation: relative error {abs(r.value - exact) / abs(exact):.1e}")
    assert abs(r.value - exact) < 1e-13 * abs(exact)
    # Reversed limits in one axis change the sign.
    r2 = ni.genz_malik(g, np.r_[hi[0], lo[1:]], np.r_[lo[0], hi[1:]], rtol=1e-12, max_evaluations=points)
    assert r2.value == pytest.approx(-exact, rel=1e-13)
    # Degree 5 is exact for both rules: converged after one evaluation, error estimate at rounding level.
    h = lambda x: x[:, 0] ** 5 - 3 * x[:, 1] ** 2 * x[:, 2] ** 3 + 1
    r = ni.genz_malik(h, [0, 0, 0], [1, 2, 1], rtol=1e-12)
    assert r.converged and r.n_regions == 1 and abs(r.value - (2 / 6 - 3 * 8 / 3 / 4 + 2)) < 1e-14


def test_genz_malik_budget_and_bad_input():
    f, exact = gaussian(5, np.random.default_rng(4), width=0.01)
    r = ni.genz_malik(f, np.zeros(5), np.ones(5), rtol=1e-12, max_evaluations=20_000)
    assert not r.converged and "budget" in r.message and r.n_evaluations <= 20_000
    print(f"budget exhausted: {r.message}")
    with pytest.raises(ValueError, match="dimension >= 2"):
        ni.genz_malik(lambda x: x[:, 0], [0], [1])
    with pytest.raises(ValueError, match="one length"):
        ni.genz_malik(lambda x: x[:, 0], [0, 0], [1, 1, 1])
    with pytest.raises(ValueError, match="finite"):
        ni.genz_malik(lambda x: x[:, 0], [0, 0], [1, np.inf])
    with pytest.raises(ValueError, match="tolerances"):
        ni.genz_malik(lambda x: x[:, 0], [0, 0], [1, 1], rtol=0, atol=0)
    with pytest.raises(ValueError, match="below one rule evaluation"):
        ni.genz_malik(lambda x: x[:, 0], [0, 0], [1, 1], max_evaluations=10)
    with pytest.raises(ValueError, match="non-finite"), np.errstate(divide="ignore"):
        ni.genz_malik(lambda x: 1 / (x[:, 0] - 0.5), [0, 0], [1, 1])
    with pytest.raises(ValueError, match="expected 17 values"):
        ni.genz_malik(lambda x: x, [0, 0], [1, 1])


# ---------------------------------------------------------------------------
# Gauss-Legendre and grids
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gauss_legendre_against_mpmath(dtype):
    mpmath.mp.prec = 200
    worst = 0.0
    for n in (1, 2, 5, 16, 33):
        x, w = ni.gauss_legendre(n, dtype)
        assert x.dtype == dtype and w.dtype == dtype and np.all(np.diff(x) > 0)
        # Exact nodes: roots of P_n by Newton's method in mpmath from Tricomi's approximations.
        starts = sorted(mpmath.cos(mpmath.pi * (4 * k - 1) / (4 * n + 2)) for k in range(1, n + 1))
        for xk, wk, start in zip(x, w, starts):
            root = mpmath.findroot(lambda t: mpmath.legendre(n, t), start, solver="newton")
            weight = 2 / ((1 - root ** 2) * mpmath.diff(lambda t: mpmath.legendre(n, t), root) ** 2)
            ulp = float(np.spacing(dtype(abs(float(root)) or 1)))
            worst = max(worst, abs(float(xk) - float(root)) / max(ulp, float(np.spacing(dtype(1))) * 1e-3),
                        abs(float(wk) - float(weight)) / float(np.spacing(dtype(weight))))
    # Correctly rounded (numpy's leggauss has weights off by up to a few hundred ulps for n ~ 30).
    print(f"{np.dtype(dtype)}: Gauss-Legendre nodes and weights within {worst:.2f} ulp")
    assert worst <= 0.5 + 1e-6


def exact_monomial(a, b, k):
    return (Fraction(b) ** (k + 1) - Fraction(a) ** (k + 1)) / (k + 1)


def test_product_grid_exact_for_polynomials():
    ab = [ni.Interval(0.5, 0.9, points=4), ni.Interval(0.9, 0.95, spacing=0.004, order=5), (0.95, 1.5, 4)]
    bc = (0.25, 1.25, 6)
    x, y, w = ni.product_grid(ab, bc)
    worst = 0.0
    for p in range(8):          # degree 2*4 - 1 = 7 on the first axis
        for q in range(12):     # 2*6 - 1 = 11 on the second
            exact = float(sum(exact_monomial(iv[0], iv[1], p) for iv in ((0.5, 0.9), (0.9, 0.95), (0.95, 1.5)))
                          * exact_monomial(0.25, 1.25, q))
            got = math.fsum(w * x ** p * y ** q)
            worst = max(worst, abs(got - exact) / abs(exact))
    print(f"product Gauss-Legendre grid: largest relative error on x^p y^q (p <= 7, q <= 11): {worst:.2e}")
    assert worst < 1e-14
    # The spacing rule: ceil(0.05 / (5 * 0.004)) = 3 subintervals of 5 points.
    nodes, _ = ni.gauss_legendre_intervals(ab[1])
    assert nodes.shape == (15,)
    # One degree more is not exact.
    got = math.fsum(w * x ** 8)
    exact = float(sum(exact_monomial(*iv, 8) for iv in ((0.5, 0.9), (0.9, 0.95), (0.95, 1.5)))) * 1.0
    assert abs(got - exact) > 1e-12


def mp_dalitz(masses, moment=0):
    """Integral of m_bc^(2 moment) over the Dalitz plot in (m_ab^2, m_bc^2), by mpmath quad."""
    mpmath.mp.prec = 120
    big_m, ma, mb, mc = (mpmath.mpf(m) for m in masses)

    def width(s):
        m = mpmath.sqrt(s)
        eb = (s - ma ** 2 + mb ** 2) / (2 * m)
        ec = (big_m ** 2 - s - mc ** 2) / (2 * m)
        pb = mpmath.sqrt(max(eb ** 2 - mb ** 2, 0))
        pc = mpmath.sqrt(max(ec ** 2 - mc ** 2, 0))
        lo = (eb + ec) ** 2 - (pb + pc) ** 2
        hi = (eb + ec) ** 2 - (pb - pc) ** 2
        return (hi ** (moment + 1) - lo ** (moment + 1)) / (moment + 1)

    return mpmath.quad(width, [(ma + mb) ** 2, (big_m - mc) ** 2])


@pytest.mark.parametrize("masses", [D0, (5.27934, 0.493677, 0.493677, 0.493677), (1.0, 0.0, 0.0, 0.2)])
def test_dalitz_area_boundary_grid(masses):
    exact = mp_dalitz(masses)
    exact1 = mp_dalitz(masses, 1)
    for variables in ("mass", "mass_squared"):
        g = ni.dalitz_grid_boundary(*masses, 48, 4, variables=variables)
        area = math.fsum(g.weights)
        moment = math.fsum(g.weights * g.m_bc_squared)
        e0 = abs(area - float(exact)) / float(exact)
        e1 = abs(moment - float(exact1)) / float(exact1)
        print(f"masses {masses}, grid in {variables}: area relative error {e0:.1e}, <m_bc^2> moment {e1:.1e}")
        assert e0 < 2e-14 and e1 < 2e-14
        # The points are inside the Dalitz plot.
        lo, hi = ni.dalitz_range(g.m_ab_squared, *masses)
        assert np.all((g.m_bc_squared >= lo * (1 - 1e-12)) & (g.m_bc_squared <= hi * (1 + 1e-12)))
    assert abs(ni.dalitz_area(*masses) - float(exact)) < 2e-14 * float(exact)


def test_dalitz_grid_cut_to_the_plot():
    big_m, ma, mb, mc = D0
    exact = float(mp_dalitz(D0))
    ab_range = (ma + mb, big_m - mc)
    bc_range = (mb + mc, big_m - ma)
    for n in (40, 80, 160):
        g = ni.dalitz_grid(*D0, ((ab_range[0], ab_range[1], n), (bc_range[0], bc_range[1], n)))
        err = abs(math.fsum(g.weights) - exact) / exact
        # Expected accuracy: the cut removes or keeps whole cells along the boundary; bound the error by the
        # weight of the full-grid points within one node spacing of the boundary.
        u, v, w = ni.product_grid((ab_range[0], ab_range[1], n), (bc_range[0], bc_range[1], n))
        w = w * 4 * u * v
        lo, hi = ni.dalitz_range(u * u, *D0)
        h = (bc_range[1] - bc_range[0]) / n
        with np.errstate(invalid="ignore"):
            near = (np.abs(v - np.sqrt(lo)) < h) | (np.abs(v - np.sqrt(hi)) < h) | np.isnan(lo)
        bound = math.fsum(w[near]) / exact
        print(f"cut grid {n}x{n} in masses: {len(g.weights)} points, area relative error {err:.1e} "
              f"(band bound {bound:.1e})")
        assert err < bound
    # Errors of cells crossing the boundary partly cancel, so the convergence is not monotonic.
    assert err < 1e-3
    # A fine region around a narrow resonance (phi -> K+ K- style band) plus the coarse rest.
    mphi = 1.0
    fine = ni.Interval(mphi - 0.02, mphi + 0.02, spacing=0.001)
    regions = [([(ab_range[0], mphi - 0.02, 30), fine, (mphi + 0.02, ab_range[1], 30)],
                (bc_range[0], bc_range[1], 60))]
    g = ni.dalitz_grid(*D0, regions)
    g2 = ni.dalitz_grid(*D0, regions, variables="mass", dtype=np.float32)
    assert g2.weights.dtype == np.float32 and len(g2.weights) == len(g.weights)
    err = abs(math.fsum(g.weights) - exact) / exact
    print(f"split grid: {len(g.weights)} points, area relative error {err:.1e}")
    assert err < 1e-2
    # Jacobian: weights are GL weights times 4 m_ab m_bc.
    u, v, w = ni.product_grid(regions[0][0], regions[0][1])
    keep = np.isin(u * 1e6 + v, g.m_ab * 1e6 + g.m_bc)
    np.testing.assert_allclose(np.sort(g.weights), np.sort((w * 4 * u * v)[keep]), rtol=1e-15)
    # The same grid in squared masses (Jacobian 1).
    gs = ni.dalitz_grid(*D0, ((ab_range[0] ** 2, ab_range[1] ** 2, 160), (bc_range[0] ** 2, bc_range[1] ** 2, 160)),
                        variables="mass_squared")
    errs = abs(math.fsum(gs.weights) - exact) / exact
    print(f"cut grid 160x160 in squared masses: area relative error {errs:.1e}")
    assert errs < 1e-2


#: B+ -> K+ K+ K- with Laura++'s masses (GeV): particles a and c identical.
B_KKK = (5.27934, 0.493677, 0.493677, 0.493677)


@pytest.mark.parametrize("variables", ["mass", "mass_squared"])
def test_folded_grid_integrates_symmetric_functions_with_half_the_points(variables):
    big_m, mk = B_KKK[0], B_KKK[1]
    lo, hi = 2 * mk, big_m - mk
    if variables == "mass_squared":
        lo, hi = lo * lo, hi * hi
    axis = [(lo, 1.05 if variables == "mass" else 1.1, 13),
            ni.Interval(1.05 if variables == "mass" else 1.1, hi, points=41)]
    whole = ni.dalitz_grid(*B_KKK, (axis, axis), variables=variables)
    half = ni.dalitz_grid(*B_KKK, (axis, axis), variables=variables, fold=True)
    diagonal = np.count_nonzero(half.m_ab == half.m_bc)
    assert diagonal > 0 and np.all(half.m_ab <= half.m_bc)
    assert 2 * len(half.weights) - diagonal == len(whole.weights)

    def symmetric(s, t):          # a narrow peak in either pair, and a smooth term
        return 1 / ((s - 1.04) ** 2 + 1e-4) + 1 / ((t - 1.04) ** 2 + 1e-4) + s * t

    full = math.fsum(whole.weights * symmetric(whole.m_ab_squared, whole.m_bc_squared))
    folded = math.fsum(half.weights * symmetric(half.m_ab_squared, half.m_bc_squared))
    assert folded == pytest.approx(full, rel=1e-13)
    # An asymmetric function is not integrated by the folded grid.
    f = np.exp(whole.m_ab_squared)
    assert math.fsum(half.weights * np.exp(half.m_ab_squared)) != pytest.approx(
        math.fsum(whole.weights * f), rel=1e-3)
    # fold_grid of the whole grid is the folded grid; float32 on request.
    again = ni.fold_grid(whole, np.float32)
    assert again.weights.dtype == np.float32
    np.testing.assert_array_equal(again.m_ab, half.m_ab.astype(np.float32))
    np.testing.assert_allclose(again.weights, half.weights, rtol=1e-7)


def test_fold_refuses_asymmetric_grids():
    big_m, mk = B_KKK[0], B_KKK[1]
    lo, hi = 2 * mk, big_m - mk
    with pytest.raises(ValueError, match="not symmetric"):
        ni.dalitz_grid(*B_KKK, ((lo, hi, 20), (lo, hi, 21)), fold=True)
    with pytest.raises(ValueError, match="same mass"):
        ni.dalitz_grid(big_m, mk, mk, 0.13957, ((lo, hi, 20), (lo, hi, 20)), fold=True)
    g = ni.dalitz_grid(*B_KKK, ((lo, hi, 20), (lo, hi, 20)))
    tilted = g._replace(weights=g.weights * (1 + 1e-9 * g.m_ab))
    with pytest.raises(ValueError, match="not symmetric"):
        ni.fold_grid(tilted)


@pytest.mark.parametrize("call,exc,message", [
    (lambda: ni.dalitz_grid(1.0, 0.5, 0.3, 0.3, ((0.8, 0.9, 4), (0.6, 0.7, 4))), ValueError, "not above"),
    (lambda: ni.dalitz_grid(*D0, ((0.8, 0.9, 4), (0.6, 0.7, 4)), variables="s"), ValueError, "variables"),
    (lambda: ni.dalitz_grid(*D0, [((0.7, 0.9, 4), (0.3, 0.7, 4)), ((0.8, 1.0, 4), (0.5, 0.9, 4))]),
     ValueError, "overlap"),
    (lambda: ni.gauss_legendre_intervals([(0.7, 0.9, 4), (0.8, 1.0, 4)]), ValueError, "overlap"),
    (lambda: ni.Interval(1.0, 0.5, points=3), ValueError, "lower < upper"),
    (lambda: ni.Interval(0.0, 0.5), ValueError, "exactly one"),
    (lambda: ni.Interval(0.0, 0.5, spacing=-1), ValueError, "positive"),
    (lambda: ni.gauss_legendre(0), ValueError, ">= 1"),
    (lambda: ni.gauss_legendre(4, np.int32), ValueError, "float32 or float64"),
    (lambda: ni.dalitz_grid(*D0, [(0.8, 0.9)]), TypeError, "intervals"),
    (lambda: ni.dalitz_grid(*D0, [0.8]), TypeError, "pairs"),
])
def test_grid_bad_input(call, exc, message):
    with pytest.raises(exc, match=message):
        call()


def test_dalitz_range_of_light_particles():
    # (E_b + E_c)^2 - (p_b + p_c)^2 lost every digit of the lower limit for light
    # particles: for massless ones it is exactly 0, and for an electron pair in
    # B -> K e e it is about m_e^2.
    masses = (5.27966, 0.493677, 0.000511, 0.000511)
    mpmath.mp.dps = 50
    big_m, ma, mb, mc = (mpmath.mpf(m) for m in masses)
    s = np.concatenate([np.linspace(0.3, 22.0, 30), (0.493677 + 0.000511) ** 2 * (1 + np.logspace(-12, -1, 12)),
                        (5.27966 - 0.000511) ** 2 * (1 - np.logspace(-12, -2, 12))])
    lo, hi = ni.dalitz_range(s, *masses)
    worst = 0.0
    for x, a, b in zip(s, lo, hi):
        x = mpmath.mpf(x)
        m = mpmath.sqrt(x)
        eb = (x - ma**2 + mb**2) / (2 * m)
        ec = (big_m**2 - x - mc**2) / (2 * m)
        pb, pc = mpmath.sqrt(eb**2 - mb**2), mpmath.sqrt(ec**2 - mc**2)
        for got, want in ((a, (eb + ec) ** 2 - (pb + pc) ** 2), (b, (eb + ec) ** 2 - (pb - pc) ** 2)):
            worst = max(worst, float(abs(got - want) / want) / np.finfo(np.float64).eps)
    print(f"dalitz_range, light particles: largest relative error {worst:.2f} eps")
    assert worst < 8
    lo0, hi0 = ni.dalitz_range(np.array([1e-10, 1.0, 27.0]), 5.27966, 0.0, 0.0, 0.0)
    assert np.all(lo0 == 0) and np.all(hi0 > 0)
    assert np.isnan(ni.dalitz_range(0.1, *masses)[0])   # outside the m_ab^2 range
