"""Tests of vecampfit.generation.

References: closed forms (massless n-body phase-space volume, the three-body
volume from the Dalitz-plot area, two-body breakup momentum), the flatness of
the Dalitz plot (chi-square on a binned plot, scipy's chi-square
distribution), and four-momentum conservation per event.
"""

import io
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import integrate, stats

from vecampfit import generation as gen

MD, MK, MPI, MPI0 = 1.86484, 0.493677, 0.13957039, 0.1349768


def minkowski_m2(p):
    return p[:, 3] ** 2 - np.sum(p[:, :3] ** 2, axis=1)


def m23_range(m12s, M, m1, m2, m3):
    """Closed-form m23^2 range at fixed m12^2 (PDG kinematics review, eq. 49.23)."""
    m12 = np.sqrt(m12s)
    e2 = (m12s - m1**2 + m2**2) / (2 * m12)
    e3 = (M**2 - m12s - m3**2) / (2 * m12)
    p2 = np.sqrt(np.maximum(e2**2 - m2**2, 0))
    p3 = np.sqrt(np.maximum(e3**2 - m3**2, 0))
    return (e2 + e3) ** 2 - (p2 + p3) ** 2, (e2 + e3) ** 2 - (p2 - p3) ** 2


def dalitz_area(M, m1, m2, m3):
    lo, hi = (m1 + m2) ** 2, (M - m3) ** 2
    return integrate.quad(lambda x: np.subtract(*m23_range(x, M, m1, m2, m3)[::-1]), lo, hi,
                          epsabs=0, epsrel=1e-12, limit=200)[0]


def test_conservation_and_masses_per_event():
    masses = [MK, MPI, MPI0, 0.0, 0.000511]
    parent = np.array([0.3, -1.2, 2.5, 0.0])
    parent[3] = np.sqrt(MD**2 + 4 + 0.09 + 1.44) + 2.0  # time-like, mass > MD
    s = gen.phase_space(parent, masses, 20000, seed=1)
    total = sum(s.momenta)
    err = np.max(np.abs(total - parent)) / parent[3]
    print(f"largest four-momentum non-conservation {err:.2e} (relative to E)")
    assert err < 1e-12
    for p, m in zip(s.momenta, masses):
        e = np.max(np.abs(minkowski_m2(p) - m**2)) / parent[3] ** 2
        assert e < 1e-12
    assert np.all(s.weights > 0) and np.all(s.weights <= s.max_weight * (1 + 1e-12))


def test_two_body_decay_at_rest_and_boosted():
    p1, p2 = gen.two_body_decay(MD, MK, MPI, n_events=1000, seed=3)
    q = np.sqrt((MD**2 - (MK + MPI) ** 2) * (MD**2 - (MK - MPI) ** 2)) / (2 * MD)
    np.testing.assert_allclose(np.linalg.norm(p1[:, :3], axis=1), q, rtol=1e-14)
    np.testing.assert_allclose(p1 + p2, np.tile([0, 0, 0, MD], (1000, 1)), atol=1e-15)
    # Fixed angles, then boosted along z: the momenta follow the explicit boost.
    parent = np.array([0.0, 0.0, 3.0, np.sqrt(9 + MD**2)])
    a1, a2 = gen.two_body_decay(parent, MK, MPI, n_events=1, cos_theta=1.0, phi=0.0)
    gamma, beta = parent[3] / MD, 3.0 / parent[3]
    e1 = np.sqrt(q * q + MK**2)
    np.testing.assert_allclose(a1[0], [0, 0, gamma * (q + beta * e1), gamma * (e1 + beta * q)], rtol=1e-14)
    np.testing.assert_allclose(a1 + a2, parent[None, :], rtol=1e-14)
    with pytest.raises(ValueError, match="threshold"):
        gen.two_body_decay(0.5, MK, MPI)
    with pytest.raises(ValueError, match="non-negative"):
        gen.two_body_decay(MD, -MK, MPI)


def test_two_body_decay_at_threshold():
    # A parent mass equal to the rounded m1 + m2 is above the exact threshold when
    # the sum was rounded up: the momentum is small but not zero, and the same as
    # vecampfit.kinematics.decay_momentum (the rounded sum gave 0).
    from vecampfit import kinematics
    m1, m2 = 0.000511, 5.27966
    m = m1 + m2
    assert Fraction(m) > Fraction(m1) + Fraction(m2)
    q_exact = kinematics.decay_momentum(m, m1, m2)
    assert 0 < q_exact < 1e-8
    p1, p2 = gen.two_body_decay(m, m1, m2, n_events=5, seed=1)
    np.testing.assert_allclose(np.linalg.norm(p1[:, :3], axis=1), q_exact, rtol=1e-15)
    s = gen.phase_space(m + m1, [m1, m1, m2], 5, seed=1)
    assert np.all(s.weights >= 0)


def test_seeded_runs_are_reproducible():
    a = gen.phase_space(MD, [MK, MPI, MPI0], 100, seed=42)
    b = gen.phase_space(MD, [MK, MPI, MPI0], 100, seed=np.random.default_rng(42))
    for x, y in zip(a.momenta, b.momenta):
        np.testing.assert_array_equal(x, y)
    np.testing.assert_array_equal(a.weights, b.weights)
    c = gen.phase_space(MD, [MK, MPI, MPI0], 100, seed=43)
    assert not np.array_equal(a.weights, c.weights)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_massless_phase_space_volume(n):
    M = 2.0
    s = gen.phase_space(M, [0.0] * n, 400_000, seed=100 + n)
    mean = s.weights.mean()
    sem = s.weights.std() / np.sqrt(s.weights.size)
    ref = gen.phase_space_volume_massless(M, n)
    print(f"n={n}: mean weight {mean:.6g} +- {sem:.2g}, closed form {ref:.6g}, pull {(mean - ref) / max(sem, 1e-300):.2f}")
    if n == 2:
        np.testing.assert_allclose(s.weights, ref, rtol=1e-14)
    else:
        assert abs(mean - ref) < 4 * sem
        assert sem < 0.01 * ref
    assert np.max(s.weights) <= s.max_weight * (1 + 1e-12)


def test_three_body_volume_from_dalitz_area():
    # dPhi_3 = pi^2 / (4 M^2) dm12^2 dm23^2 in this normalization.
    s = gen.phase_space(MD, [MK, MPI, MPI0], 400_000, seed=7)
    ref = np.pi**2 / (4 * MD**2) * dalitz_area(MD, MK, MPI, MPI0)
    mean, sem = s.weights.mean(), s.weights.std() / np.sqrt(s.weights.size)
    print(f"massive 3-body volume {mean:.6g} +- {sem:.2g} vs {ref:.6g}")
    assert abs(mean - ref) < 4 * sem


def _dalitz_chi2(x, y, weights, M, m1, m2, m3, bins=12):
    """Chi-square of a binned (m12^2, m23^2) plot against uniform density, full-inside bins only."""
    xe = np.linspace((m1 + m2) ** 2, (M - m3) ** 2, bins + 1)
    ye = np.linspace((m2 + m3) ** 2, (M - m1) ** 2, bins + 1)
    h, _, _ = np.histogram2d(x, y, [xe, ye], weights=weights)
    h2, _, _ = np.histogram2d(x, y, [xe, ye], weights=weights**2)
    area = dalitz_area(M, m1, m2, m3)
    cell = (xe[1] - xe[0]) * (ye[1] - ye[0])
    total = weights.sum()
    chi2, ndf = 0.0, 0
    for i in range(bins):
        for j in range(bins):
            inside = True
            for xx in (xe[i], xe[i + 1]):
                lo, hi = m23_range(xx, M, m1, m2, m3)
                inside &= bool(lo <= ye[j] and ye[j + 1] <= hi)
            if inside:
                expected = total * cell / area
                chi2 += (h[i, j] - expected) ** 2 / h2[i, j]
                ndf += 1
    return chi2, ndf


def test_dalitz_plot_is_uniform():
    masses = (MK, MPI, MPI0)
    # Weighted phase-space events.
    s = gen.phase_space(MD, masses, 300_000, seed=11)
    p1, p2, p3 = s.momenta
    x = minkowski_m2(p1 + p2)
    y = minkowski_m2(p2 + p3)
    chi2, ndf = _dalitz_chi2(x, y, s.weights, MD, *masses)
    p = stats.chi2.sf(chi2, ndf)
    print(f"weighted: chi2/ndf = {chi2:.1f}/{ndf}, p = {p:.3f}")
    assert ndf > 40 and p > 1e-3
    # Unweighted events from accept-reject with a flat density.
    ev = gen.generate_events(None, MD, masses, 150_000, seed=12, names=["K-", "pi+", "pi0"])
    x = minkowski_m2(ev["K-"] + ev["pi+"])
    y = minkowski_m2(ev["pi+"] + ev["pi0"])
    chi2, ndf = _dalitz_chi2(x, y, np.ones_like(x), MD, *masses)
    p = stats.chi2.sf(chi2, ndf)
    print(f"accept-reject: chi2/ndf = {chi2:.1f}/{ndf}, p = {p:.3f}")
    assert p > 1e-3
    # The same test rejects the raw (unweighted) GENBOD points, which are not flat.
    chi2, ndf = _dalitz_chi2(minkowski_m2(p1 + p2), minkowski_m2(p2 + p3), np.ones_like(s.weights),
                             MD, *masses)
    assert stats.chi2.sf(chi2, ndf) < 1e-6


def test_accept_reject_follows_the_density():
    # Density linear in m12^2: the accepted m12^2 distribution must follow it.
    masses = (MK, MPI, MPI0)
    lo, hi = (MK + MPI) ** 2, (MD - MPI0) ** 2

    def variables(events):
        return {"m12s": minkowski_m2(events["p1"] + events["p2"])}

    def density(ev, params):
        return 1 + params[0] * (ev["m12s"] - lo) / (hi - lo)

    err = io.StringIO()
    ev = gen.generate_events(density, MD, masses, 60_000, params=np.array([3.0]), variables=variables,
                             maximum=4.0, seed=5, progress=True, stream=err, batch_size=50_000)
    assert "60000/60000" in err.getvalue()
    x = minkowski_m2(ev["p1"] + ev["p2"])
    assert x.shape == (60_000,)
    # Expected: uniform-in-phase-space projection times the density.
    edges = np.linspace(lo, hi, 21)
    proj = np.array([integrate.quad(lambda t: np.subtract(*m23_range(t, MD, *masses)[::-1]) * density({"m12s": t}, [3.0]),
                                    a, b)[0] for a, b in zip(edges[:-1], edges[1:])])
    expected = x.size * proj / proj.sum()
    h, _ = np.histogram(x, edges)
    chi2 = np.sum((h - expected) ** 2 / expected)
    p = stats.chi2.sf(chi2, 19)
    print(f"linear density: chi2/ndf = {chi2:.1f}/19, p = {p:.3f}")
    assert p > 1e-3


def test_accept_reject_errors():
    with pytest.raises(ValueError, match="above the assumed maximum"):
        gen.generate_events(lambda ev: np.full(len(ev["p1"]), 2.0), MD, (MK, MPI), 10, maximum=1.0, seed=1,
                            batch_size=100)
    with pytest.raises(ValueError, match="negative"):
        gen.generate_events(lambda ev: -np.ones(len(ev["p1"])), MD, (MK, MPI), 10, seed=1, batch_size=100)
    with pytest.raises(ValueError, match="shape"):
        gen.generate_events(lambda ev: np.ones(3), MD, (MK, MPI), 10, seed=1, batch_size=100)
    with pytest.raises(RuntimeError, match="trials"):
        gen.generate_events(lambda ev: np.full(len(ev["p1"]), 1e-9), MD,
                            (MK, MPI), 10, maximum=1.0, seed=1, batch_size=100, max_trials=1000)
    with pytest.raises(ValueError, match="threshold"):
        gen.phase_space(0.5, (MK, MPI, MPI0), 10)
    with pytest.raises(ValueError, match="at least two"):
        gen.phase_space(MD, (MK,), 10)
    with pytest.raises(ValueError, match="n_events"):
        gen.phase_space(MD, (MK, MPI), -1)


def test_parent_of_varying_mass():
    rng = np.random.default_rng(9)
    n = 5000
    mparent = rng.uniform(1.0, 3.0, n)
    pz = rng.normal(size=n)
    parent = np.stack([np.zeros(n), np.zeros(n), pz, np.sqrt(pz**2 + mparent**2)], axis=1)
    s = gen.phase_space(parent, [0.0, 0.0, 0.0], seed=2)
    np.testing.assert_allclose(sum(s.momenta), parent, atol=1e-12 * 4)
    ref = np.array([gen.phase_space_volume_massless(m, 3) for m in mparent])
    ratio = s.weights / ref
    assert abs(ratio.mean() - 1) < 4 * ratio.std() / np.sqrt(n)
    assert np.all(s.weights <= s.max_weight * (1 + 1e-12))


def test_band_proposal_density_and_samples():
    """g integrates to 1 (scipy's quadrature), and the samples' marginal
    histogram in x follows the integral of the written-out marginal."""
    lo, hi, s0, gamma, beta = 1.0, 9.0, 1.5 ** 2, 1.5 * 0.02, 0.3
    prop = gen.BandProposal(lo, hi, 1.5, 0.02, band=beta)

    def cauchy(u):
        return 1 / (gamma * (1 + ((u - s0) / gamma) ** 2)
                    * (math.atan((hi - s0) / gamma) - math.atan((lo - s0) / gamma)))
    for x, y in ((2.25, 5.0), (3.0, 2.26), (8.0, 1.2)):
        assert prop.density(x, y) == pytest.approx((1 - 2 * beta) / 64 + beta / 8
                                                   * (cauchy(x) + cauchy(y)), rel=1e-12)

    def marginal(u):            # the integral of g over y
        return (1 - 2 * beta) / 8 + beta * cauchy(u) + beta / 8
    total = integrate.quad(marginal, lo, hi, points=[s0], limit=400)[0]
    assert total == pytest.approx(1.0, rel=1e-8)
    x, y = prop.sample(400_000, seed=3)
    assert np.all((x >= lo) & (x <= hi) & (y >= lo) & (y <= hi))
    edges = np.array([1.0, 2.0, 2.2, 2.25, 2.3, 2.5, 5.0, 9.0])
    counts, _ = np.histogram(x, edges)
    want = len(x) * np.array([integrate.quad(marginal, a, b, limit=400)[0]
                              for a, b in zip(edges[:-1], edges[1:])])
    chi2 = np.sum((counts - want) ** 2 / want)
    assert chi2 < 25, (counts, want)     # 7 bins
    # Breaking the band shows: without it the counts near s0 are far too many.
    assert counts[2] > 3 * (1 - 2 * beta + beta) / 8 * 0.05 * len(x)
    with pytest.raises(ValueError, match="BandProposal"):
        gen.BandProposal(lo, hi, 1.5, 0.02, band=0.5)


def test_band_accept_reject_follows_the_density():
    """f(x, y) = x y on [0, 1]^2 inside x < y: the accepted points have
    E[x] = 8/15 and E[y] = 4/5 (analytic), and a bound below max f/g is refused."""
    prop = gen.BandProposal(0.0, 1.0, 0.6, 0.1, band=0.2)
    x, y = gen.accept_reject(lambda x, y: x * y, prop, 100_000, bound=1.0 / (0.6 * 1.0),
                             inside=lambda x, y: x < y, seed=5)
    assert len(x) == 100_000 and np.all(x < y)
    # Var(x) = E[x^2] - E[x]^2 = 1/3 - 64/225 for the density 8xy on x < y.
    err_x = math.sqrt(1 / 3 - (8 / 15) ** 2) / math.sqrt(len(x))
    assert abs(x.mean() - 8 / 15) < 4 * err_x
    assert abs(y.mean() - 4 / 5) < 4 * math.sqrt(2 / 3 - 0.64) / math.sqrt(len(y))
    assert len(gen.accept_reject(lambda x, y: x, prop, 0, bound=2.0)[0]) == 0
    with pytest.raises(ValueError, match="above the bound"):
        gen.accept_reject(lambda x, y: x * y, prop, 1000, bound=0.1, seed=1)


def test_accept_reject_restarts_with_a_larger_maximum():
    """With ``restarts``, a density above the assumed maximum starts the generation again
    with twice the maximum (a RuntimeWarning each time), discarding what was accepted; without
    restarts left the error is raised."""
    calls = []

    def density(ev):
        # 2.5 on the third batch and 4.5 on the fifth, 0.9 elsewhere: events are
        # accepted before each restart
        calls.append(1)
        return np.full(len(ev["p1"]), {3: 2.5, 5: 4.5}.get(len(calls), 0.9))
    with pytest.warns(RuntimeWarning) as record:
        ev = gen.generate_events(density, MD, (MK, MPI), 250, maximum=1.0, seed=3,
                                 batch_size=100, restarts=2)
    messages = [str(w.message) for w in record]
    assert len(messages) == 2 and "starting again with 2.0" in messages[0] \
        and "starting again with 4.0" in messages[1]
    assert ev["p1"].shape == (250, 4)
    calls.clear()
    with pytest.raises(ValueError, match="above the assumed maximum"):
        with pytest.warns(RuntimeWarning):
            gen.generate_events(density, MD, (MK, MPI), 250, maximum=1.0, seed=3,
                                batch_size=100, restarts=1)
    with pytest.raises(ValueError, match="restarts must be a non-negative integer"):
        gen.generate_events(density, MD, (MK, MPI), 10, maximum=1.0, restarts=-1)
