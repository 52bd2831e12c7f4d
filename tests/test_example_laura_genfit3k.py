"""The B+ -> K+ K+ K- example after Laura++'s GenFit3K (examples/laura_genfit3k).

Model conventions (symmetry, helicity angle from four-vectors), the
example's compiled density and likelihood gradient against the numpy
reference (tests/genfit3k_reference.py), the grid against a Monte Carlo
integral, the grid spacing, the cross-check with Laura++'s own fits of its
pseudoexperiments, random starts and the second solution, the scan's
grouping of solutions, a pull study and the programs.
"""

import math
import os
import subprocess
import sys

import numpy as np
import pytest

import fit3k
import generate3k
import genfit3k
import genfit3k_reference as reference
import laura_crosscheck
import plot3k
import scan3k
from vecampfit import generation, kinematics, studies
from vecampfit.fitter import Stage, results as fit_results

EXAMPLE = os.path.dirname(os.path.abspath(genfit3k.__file__))
M = reference.MASSES
NAMES = tuple(genfit3k.GENERATED)
GENERATED = dict(genfit3k.GENERATED)


def setup_args(model_cache, *extra):
    return fit3k.make_parser().parse_args(["--model-cache", model_cache, *extra])


@pytest.fixture(scope="module")
def setup(model_cache):
    """Default grid, compiled density (L = 8, the programs' default), one thread."""
    return genfit3k.Setup(setup_args(model_cache, "--threads", "1"))


def normalization(setup):
    return {c: setup.constants[f"N_{c}"] for c in genfit3k.COMPONENTS}


def dalitz_points(n, seed):
    """Uniform points (m13^2, m23^2) inside the Dalitz plot."""
    rng = np.random.default_rng(seed)
    lo, hi = (2 * M["M_KP"]) ** 2, (M["M_B"] - M["M_KP"]) ** 2
    u, v = rng.uniform(lo, hi, 8 * n), rng.uniform(lo, hi, 8 * n)
    ok = kinematics.dalitz_inside(u, v, M["M_B"], M["M_KP"], M["M_KP"], M["M_KP"])
    return u[ok][:n], v[ok][:n]


def perturbed(seed, masses=0.03, couplings=0.5):
    """The generated values with masses and widths scaled by up to 1 +- ``masses``
    and the free coefficients moved by up to +- ``couplings``."""
    rng = np.random.default_rng(seed)
    x = dict(GENERATED)
    for n in genfit3k.MASSES_AND_WIDTHS:
        x[n] *= rng.uniform(1 - masses, 1 + masses)
    for n in genfit3k.COEFFICIENTS:
        x[n] += rng.uniform(-couplings, couplings)
    return x


# ----------------------------------------------------------------------------
# Conventions
# ----------------------------------------------------------------------------

def test_amplitude_is_symmetric_under_exchange_of_the_two_kplus(setup):
    s13, s23 = dalitz_points(2000, 1)
    s13 = np.concatenate([s13, np.full(50, 1.0195 ** 2)])      # on the phi(1020) too
    s23 = np.concatenate([s23, np.linspace(3.0, 20.0, 50)])
    for x in (GENERATED, perturbed(2)):
        for a, b in ((reference.amplitude(s13, s23, x, normalization(setup)),
                      reference.amplitude(s23, s13, x, normalization(setup))),
                     (setup.model.amplitude({"m13Sq": s13, "m23Sq": s23}, x, setup.constants),
                      setup.model.amplitude({"m13Sq": s23, "m23Sq": s13}, x, setup.constants))):
            assert np.max(np.abs(a - b) / np.abs(a)) < 1e-12
        # Each pair term alone is not symmetric (so the test can fail).
        x13 = reference.resonance_term(reference.pair_kinematics(s13, s23), 1.01946, 0.004247, 1)
        x23 = reference.resonance_term(reference.pair_kinematics(s23, s13), 1.01946, 0.004247, 1)
        assert np.max(np.abs(x13 - x23)) > 1e-3 * np.max(np.abs(x13))


def boost_to_rest_frame(p, frame):
    """Four-vectors p (n, 4) = (px, py, pz, E) in the rest frame of ``frame`` (n, 4)."""
    beta = frame[:, :3] / frame[:, 3:4]
    b2 = np.sum(beta ** 2, axis=1)
    gamma = 1 / np.sqrt(1 - b2)
    bp = np.sum(beta * p[:, :3], axis=1)
    out = np.empty_like(p)
    out[:, :3] = p[:, :3] + ((gamma - 1) * bp / b2 - gamma * p[:, 3])[:, None] * beta
    out[:, 3] = gamma * (p[:, 3] - bp)
    return out


def test_helicity_angle_convention_from_four_vectors():
    """cos(theta) of the pair (K+_a K-) is the cosine of the angle between the K-
    and the bachelor K+_b in the rest frame of the pair."""
    mk = M["M_KP"]
    mom = generation.generate_events(None, M["M_B"], [mk, mk, mk], 3000,
                                     names=("k1", "k2", "k3"), seed=4)
    k1, k2, k3 = (np.asarray(mom[n], dtype=np.float64) for n in ("k1", "k2", "k3"))

    def m2(a, b):
        p = a + b
        return p[:, 3] ** 2 - np.sum(p[:, :3] ** 2, axis=1)
    s13, s23 = m2(k1, k3), m2(k2, k3)
    for a, b, s, t in ((k1, k2, s13, s23), (k2, k1, s23, s13)):
        km, kb = boost_to_rest_frame(k3, a + k3), boost_to_rest_frame(b, a + k3)
        ref = np.sum(km[:, :3] * kb[:, :3], axis=1) / (
            np.linalg.norm(km[:, :3], axis=1) * np.linalg.norm(kb[:, :3], axis=1))
        cos = reference.pair_kinematics(s, t)["cos"]
        assert np.max(np.abs(cos - ref)) < 1e-9
        assert np.max(np.abs(cos + ref)) > 0.5       # not the angle of the K+_a


def test_laura_legendre_normalization_and_covariant_factor():
    """P_L^Laura = (-1)^L 2^(2L)/binom(2L, L) P_L against scipy's Legendre."""
    from scipy.special import eval_legendre
    from vecampfit import high_energy_physics as hep
    x = np.linspace(-1, 1, 11)
    for spin in (1, 2):
        f = np.full_like(x, 1.3)
        got = hep.covariant_angular_distribution(np.ones_like(x), np.ones_like(x), f, x, spin)
        fcov = {1: 1.3, 2: 0.5 + 1.3 ** 2}[spin]
        ref = (-1) ** spin * 4 ** spin / math.comb(2 * spin, spin) * eval_legendre(spin, x) * fcov
        assert np.allclose(got, ref, rtol=1e-13, atol=1e-15)


# ----------------------------------------------------------------------------
# The example's compiled density and likelihood
# ----------------------------------------------------------------------------

def test_compiled_density_equals_the_numpy_reference(setup):
    s13, s23 = dalitz_points(301, 5)
    records = {"m13Sq": s13, "m23Sq": s23}
    for precision, tol in (("float64", 1e-12), ("float32", 2e-3)):
        d = setup.compiled.density(precision, 8, constants=setup.constants)
        for x in (GENERATED, perturbed(6)):
            ref = reference.density(s13, s23, x, normalization(setup))
            got = d.evaluate(d.event_buffer(records, records=True), [x[n] for n in d.parameters])
            assert np.max(np.abs(got[:len(s13)] / ref - 1)) < tol


def test_likelihood_gradient_against_finite_differences(setup):
    """The fitter's gradient of F = -2 ln L (data and grid)."""
    fitter = setup.fitter(*genfit3k.read_events(genfit3k.LAURA_TOYS, 3))
    x = np.array([perturbed(9)[n] for n in setup.names])
    likelihood = fitter.likelihood
    value, grad = likelihood.evaluate(x, gradient=True)
    assert value == pytest.approx(likelihood.evaluate(x)[0], rel=1e-13)
    for k, name in enumerate(setup.names):
        h = 1e-6 * max(abs(x[k]), 1e-2)
        xp, xm = x.copy(), x.copy()
        xp[k] += h
        xm[k] -= h
        num = (likelihood.evaluate(xp)[0] - likelihood.evaluate(xm)[0]) / (2 * h)
        assert grad[k] == pytest.approx(num, rel=2e-5, abs=1e-3), name


# ----------------------------------------------------------------------------
# Grid normalization
# ----------------------------------------------------------------------------

def test_grid_layout_follows_the_scheme(setup):
    info = setup.grid_info
    # Laura++'s grid for this model: about 4.0 million rectangle nodes.
    assert 3.9e6 < info["rectangle_nodes"] < 4.1e6
    (lo, hi, spacing, _), (lo2, hi2, spacing2, _) = info["segments"]
    assert lo == pytest.approx(2 * M["M_KP"]) and hi2 == pytest.approx(M["M_B"] - M["M_KP"])
    assert spacing == pytest.approx(0.004247 / 100) and spacing2 == 0.005
    assert hi == pytest.approx(1.01946 + 5 * 0.004247)     # phi band extended to threshold
    # The folded grid integrates symmetric functions like the whole grid.
    f, n = [], normalization(setup)
    for fold in (False, True):
        r, w, _ = genfit3k.normalization_grid(coarse=0.02, fine=0.1, fold=fold)
        f.append((np.dot(w, reference.density(r["m13Sq"], r["m23Sq"], GENERATED, n)), len(w)))
    assert f[0][0] == pytest.approx(f[1][0], rel=1e-12) and f[1][1] < 0.51 * f[0][1]
    # The area of the Dalitz plot against its closed form by quadrature.
    from scipy.integrate import quad
    mb, mk = M["M_B"], M["M_KP"]

    def width(s):
        e2, e3 = math.sqrt(s) / 2, (mb * mb - s - mk * mk) / (2 * math.sqrt(s))
        return 4 * math.sqrt(e2 * e2 - mk * mk) * math.sqrt(max(e3 * e3 - mk * mk, 0))
    area = quad(width, 4 * mk * mk, (mb - mk) ** 2, limit=200)[0]
    assert setup.weights.sum() == pytest.approx(area, rel=2e-4)
    # The constants n: the reference's integrals over the grid.
    ref = reference.component_integrals(GENERATED, setup.records, setup.weights)
    for c in genfit3k.COMPONENTS:
        assert setup.constants[f"N_{c}"] == pytest.approx(1 / math.sqrt(ref[c]), rel=1e-12)


def test_grid_integral_agrees_with_monte_carlo(setup):
    """Sum of w S over the grid against an importance-sampled MC integral
    (the generator's proposal; 6 million points)."""
    gen = generate3k.Generator(setup.records, setup.weights)
    assert gen.constants == setup.constants
    rng = np.random.default_rng(10)
    n = normalization(setup)
    for x in (GENERATED, perturbed(11, 0.002, 0.3), perturbed(12, 0.002, 0.3)):
        grid = np.dot(setup.weights, reference.density(setup.records["m13Sq"],
                                                      setup.records["m23Sq"], x, n))
        samples = []
        for _ in range(12):
            u, v = gen.proposal.sample(500_000, rng)
            ok = kinematics.dalitz_inside(u, v, M["M_B"], *[M["M_KP"]] * 3)
            r = np.zeros(len(u))
            r[ok] = reference.density(u[ok], v[ok], x, n) / gen.proposal.density(u[ok], v[ok])
            samples.append(r)
        r = np.concatenate(samples)
        mc, err = r.mean(), r.std() / math.sqrt(len(r))
        print(f"grid {grid:.6g}, MC {mc:.6g} +- {err:.2g} ({(grid - mc) / err:+.2f} sigma)")
        assert err < 3e-3 * mc and abs(grid - mc) < 4 * err


def fit_laura(setup, experiment, **kwargs):
    r = setup.fit(*genfit3k.read_events(genfit3k.LAURA_TOYS, experiment), **kwargs)
    del r["fitter"]
    return r


def test_coarser_grid_changes_fits_far_below_their_errors(setup, model_cache):
    """Double spacing moves the fitted values and fit fractions by a small
    fraction of their errors, so the default grid is converged."""
    coarse = genfit3k.Setup(setup_args(model_cache, "--grid-coarse", "0.01", "--grid-fine",
                                       "0.02"), verbose=False)
    assert coarse.grid_info["points"] < 0.3 * setup.grid_info["points"]
    worst = 0.0
    for k in (0, 5):
        a, b = fit_laura(setup, k), fit_laura(coarse, k)
        worst = max([worst] + [abs(a["values"][n] - b["values"][n]) / a["errors"][n]
                               for n in fit3k.FREE] +
                    [abs(a["fit_fractions"][c] - b["fit_fractions"][c])
                     / a["fit_fraction_errors"][c] for c in genfit3k.COMPONENTS])
    print(f"largest change with the double spacing: {worst:.3f} sigma")
    assert worst < 0.1


# ----------------------------------------------------------------------------
# Laura++ cross-check, fit fractions, random starts
# ----------------------------------------------------------------------------

def test_crosscheck_against_laura_fits_of_its_own_pseudoexperiments(setup):
    comparisons = laura_crosscheck.run(setup, genfit3k.LAURA_TOYS, genfit3k.LAURA_RESULTS,
                                       verbose=False)
    assert [c["experiment"] for c in comparisons] == list(range(10))
    print(laura_crosscheck.summary(comparisons))
    size, k, q = laura_crosscheck.largest(comparisons)
    # Laura++ prints 6 significant digits: 1e-5 GeV of the phi(1020) mass is
    # 0.07 of its error, so this is the resolution of the comparison.
    assert size < 0.1
    assert laura_crosscheck.largest(comparisons, laura_crosscheck.COEFFICIENTS)[0] < 0.1
    assert all(c["result"]["solution"] == "main" for c in comparisons)
    # F = -2 ln L up to a constant that depends only on the number of events.
    offsets = np.array([c["result"]["fval"] - 2 * c["laura"]["NLL"] for c in comparisons])
    assert np.ptp(offsets) < 0.3          # Laura++ prints NLL to 0.1
    # Breaking the comparison shows: a shifted phi(1020) mass is seen.
    row = dict(comparisons[0]["laura"], phi_1020_MASS=comparisons[0]["laura"]["phi_1020_MASS"]
               + 2e-5)
    assert abs(laura_crosscheck.compare(comparisons[0]["result"], row)["PHI_M"][2]) > 0.1


def test_fit_fractions_and_laura_coefficients_against_the_reference(setup):
    """Fit fractions (isobar layer) and Laura++'s coefficients (from them)
    equal the reference's formulas on the grid; the errors equal a
    propagation with central differences of those formulas."""
    x = perturbed(40, 0.002, 0.3)
    free = [n for n in setup.names if n in fit3k.FREE and n not in ("PHI_M", "PHI_G")]
    rng = np.random.default_rng(41)
    b = rng.standard_normal((len(free), len(free))) * 1e-3
    idx = [setup.names.index(n) for n in free]
    cov = np.zeros((10, 10))
    cov[np.ix_(idx, idx)] = b @ b.T
    ff = setup.fit_fractions([x[n] for n in setup.names], cov)
    assert tuple(ff.components) == genfit3k.COMPONENTS
    n = normalization(setup)
    ref = reference.fit_fractions(x, setup.records, setup.weights, n)
    jac = np.zeros((3, 10))
    for k in idx:
        h = 1e-5 * max(abs(x[setup.names[k]]), 1)
        up, dn = (dict(x, **{setup.names[k]: x[setup.names[k]] + s * h}) for s in (1, -1))
        fu, fd = (reference.fit_fractions(y, setup.records, setup.weights, n) for y in (up, dn))
        jac[:, k] = [(fu[c] - fd[c]) / (2 * h) for c in genfit3k.COMPONENTS]
    err = np.sqrt(np.einsum("ik,kl,il->i", jac, cov, jac))
    for i, c in enumerate(genfit3k.COMPONENTS):
        assert ff.fractions[c] == pytest.approx(ref[c], rel=1e-10)
        assert ff.errors[i, i] == pytest.approx(err[i], rel=1e-4)
    got = laura_crosscheck.laura_coefficients(x, ff.fractions)
    want = reference.laura_coefficients(x, setup.records, setup.weights, n)
    for c in genfit3k.COMPONENTS:
        assert abs(got[c] - want[c]) < 1e-10
    assert abs(got["F2"] - complex(x["F2_RE"], x["F2_IM"])) > 1e-3   # differs from c_R


def test_random_starts_find_both_solutions(setup):
    """Random initial coefficients: the fits end in the main solution (the
    minimum of the fit from the generated values) or in the second one
    (f'2(1525) coefficient roughly inverted, F much worse)."""
    ref = fit_laura(setup, 0)
    seen = {}
    for seed in (5, 6, 8):         # seeds found to lead to main, second, second
        r = fit_laura(setup, 0, random_start=True, seed=seed, fractions=False)
        assert r["valid"] and np.all(np.abs(r["initial"]) <= 11)
        if r["solution"] == "main":
            assert r["fval"] == pytest.approx(ref["fval"], abs=0.01)
            for n in fit3k.FREE:
                assert abs(r["values"][n] - ref["values"][n]) < 0.01 * ref["errors"][n]
        else:
            assert r["values"]["F2_IM"] < 0 and r["fval"] > ref["fval"] + 500
        seen.setdefault(r["solution"], seed)
    assert set(seen) == {"main", "second"}


def test_cached_fit_equals_the_full_fit(setup):
    """With only the coefficients free the cached likelihood equals the full
    one (1e-10) and the fit ends at the same values (1e-4 of the errors)."""
    m13, m23 = genfit3k.read_events(genfit3k.LAURA_TOYS, 2)
    out = {}
    for cache in ("never", "auto"):
        f = setup.fitter(m13, m23)
        f.likelihood.cache = cache
        out[cache, "F"] = f.likelihood.evaluate(f.initial_values.copy(), gradient=True,
                                                free=list(genfit3k.COEFFICIENTS))
        f.minuit.tol = 1e-6
        f.run(Stage(fix_all=True, release=genfit3k.COEFFICIENTS, hesse=True))
        assert f.minuit.valid
        out[cache] = (fit_results.values(f.minuit), fit_results.errors(f.minuit))
    (v0, g0), (v1, g1) = out["never", "F"], out["auto", "F"]
    idx = [setup.names.index(n) for n in genfit3k.COEFFICIENTS]
    assert abs(v1 / v0 - 1) < 1e-10
    np.testing.assert_allclose(g1[idx], g0[idx], rtol=1e-8, atol=1e-9 * np.abs(g0[idx]).max())
    (x0, e0), (x1, _) = out["never"], out["auto"]
    assert np.all(np.abs(x1 - x0)[e0 > 0] < 1e-4 * e0[e0 > 0])


# ----------------------------------------------------------------------------
# Random-start scan: canonical form, grouping, report
# ----------------------------------------------------------------------------

def with_couplings(x, **couplings):
    """Parameters x (dict) with complex couplings set (PHI=..., F2=..., NR=...)."""
    x = dict(x)
    for c, v in couplings.items():
        x[f"{c}_RE"], x[f"{c}_IM"] = v.real, v.imag
    return x


def test_canonical_point_removes_the_common_phase_and_wraps_phases(setup):
    p = dict(zip(scan3k.CANONICAL_NAMES, scan3k.canonical_point(GENERATED)))
    assert p["F2_MAG"] == pytest.approx(1) and p["F2_PHASE"] == pytest.approx(90)
    assert p["NR_MAG"] == pytest.approx(1) and p["NR_PHASE"] == pytest.approx(0)
    assert p["PHI_M"] == GENERATED["PHI_M"]
    # A common phase of every coupling leaves |A|^2 (so F) and the canonical point unchanged.
    x = perturbed(21)
    y = with_couplings(x, **{c: reference.coefficient(x, c) * np.exp(2.5j)
                             for c in genfit3k.COMPONENTS})
    s13, s23 = dalitz_points(200, 22)
    np.testing.assert_allclose(reference.density(s13, s23, y, normalization(setup)),
                               reference.density(s13, s23, x, normalization(setup)), rtol=1e-12)
    np.testing.assert_allclose(scan3k.canonical_point(y), scan3k.canonical_point(x),
                               rtol=1e-12, atol=1e-9)
    # Phases in [-180, 180): just below +180 and just above -180 are neighbours.
    a = scan3k.canonical_point(with_couplings(GENERATED, F2=np.exp(1j * np.radians(179.9))))
    b = scan3k.canonical_point(with_couplings(GENERATED, F2=np.exp(1j * np.radians(-179.9))))
    k = scan3k.CANONICAL_NAMES.index("F2_PHASE")
    assert -180 <= a[k] < 180 and -180 <= b[k] < 180
    errors = np.ones(len(scan3k.CANONICAL_NAMES))
    assert studies.scaled_distance(errors, periodic=scan3k.PHASES)(a, b) == \
        pytest.approx(0.2, abs=1e-6)
    with pytest.raises(ValueError, match="reference coupling PHI is zero"):
        scan3k.canonical_point(with_couplings(GENERATED, PHI=0j))


def test_canonical_errors_against_the_parameters_errors():
    """Magnitude and phase errors of a coupling c = RE + i IM with
    uncorrelated errors s: s and s/|c| radians."""
    x = with_couplings(GENERATED, F2=0.6 + 0.8j)
    cov = np.zeros((10, 10))
    for n, s in (("F2_RE", 0.02), ("F2_IM", 0.02), ("F2_M", 0.003)):
        cov[NAMES.index(n), NAMES.index(n)] = s * s
    e = dict(zip(scan3k.CANONICAL_NAMES, studies.propagate_errors(
        scan3k.canonical_point, x, cov, NAMES, periodic=scan3k.PHASES)))
    assert e["F2_MAG"] == pytest.approx(0.02, rel=1e-6)
    assert e["F2_PHASE"] == pytest.approx(np.degrees(0.02), rel=1e-6)
    assert e["F2_M"] == pytest.approx(0.003, rel=1e-6)
    assert e["NR_MAG"] == 0 and e["PHI_G"] == 0


def synthetic_fit(x, fval, valid=True, start=0):
    var = {"PHI_M": 1e-8, "PHI_G": 1e-8, "F2_M": 1e-5, "F2_G": 1e-5, "F2_RE": 1e-3,
           "F2_IM": 1e-3, "NR_RE": 1e-3, "NR_IM": 1e-3}
    return {"fval": fval, "valid": valid, "values": dict(x), "start": start,
            "covariance": np.diag([var.get(n, 0.0) for n in NAMES])}


def test_grouping_of_minima_into_solutions():
    """Minima equal within f_tolerance and within the errors are one solution;
    the same F at a distant point, or a distant F, is another; invalid fits
    are not counted."""
    rng = np.random.default_rng(30)
    second = with_couplings(GENERATED, F2=-0.1 - 0.8j, NR=0.9 - 0.36j)
    far = with_couplings(GENERATED, NR=-1 + 0j)
    fits = [synthetic_fit({n: v + 1e-6 * rng.standard_normal() for n, v in GENERATED.items()},
                          100.0 + 1e-4 * k, start=k) for k in range(3)]
    fits += [synthetic_fit(second, 1097.6, start=3), synthetic_fit(second, 1097.61, start=4),
             synthetic_fit(far, 100.02, start=5), synthetic_fit(GENERATED, 50.0, False, 6)]
    sols = studies.group_fits(fits, scan3k.canonical_point, NAMES, periodic=scan3k.PHASES)
    assert [s["count"] for s in sols] == [3, 1, 2]
    assert [genfit3k.solution(fits[s["members"][0]]["values"]) for s in sols] == \
        ["main", "main", "second"]
    assert sols[0]["delta"] == 0 and sols[0]["fval"] == 100.0
    assert sols[2]["delta"] == pytest.approx(997.6) and sols[2]["members"] == [3, 4]
    assert sols[0]["frequency"] == pytest.approx(3 / 6)
    # Without the distance the distant point at the same F joins the main solution.
    assert len(studies.group_solutions([f["fval"] for f in fits[:6]],
                                       [scan3k.canonical_point(f["values"]) for f in fits[:6]],
                                       f_tolerance=0.1)) == 2


def test_report_of_solutions():
    ff = {"PHI": 0.34, "F2": 0.33, "NR": 0.33}
    sols = [dict(solution=label, fval=100.0 + delta, delta=delta, count=n, frequency=n / 10,
                 point=scan3k.canonical_point(GENERATED), fit_fractions=ff,
                 fit_fraction_errors={c: e for c in ff}, fit_fraction_sum=1.0)
            for label, delta, n, e in (("main", 0.0, 7, 0.007), ("second", 1000.0, 3, 0.008))]
    per = {4: {"fits": [{"valid": True}] * 10, "solutions": sols}}
    laura = {4: {genfit3k.LAURA_COLUMNS[f"FF_{c}"]: ff[c] + 0.0014 for c in ff}}
    laura[4]["NLL"] = -30.0
    summary = scan3k.summarize(per, laura)
    assert summary["counts"] == {"main": 7, "second": 3}
    assert summary["second_delta"] == [1000.0]      # the best second solution per experiment
    assert summary["fraction_differences"] == pytest.approx([-0.2] * 3)
    assert summary["nll_offsets"] == [160.0]
    text = scan3k.format_report(per, summary, 10)
    print(text)
    assert "dF = 1000.000 (d(-ln L) = 500.000), reached by 3 of 10 (30 %)" in text
    assert "second solution reached by 3 of 10 fits (30.0 %)" in text
    assert "(Laura++'s second solutions: 460 .. 560; 1 of 1 experiments inside)" in text
    assert "F2 33.00 +- 0.80 %" in text


def test_scan_finds_the_second_solution_of_laura_experiment(setup, tmp_path):
    """A reduced scan (experiment 0, 6 random starts; seed 1 leads to both
    solutions): the second solution worse by 460-560 in -ln L = F/2 as in
    Laura++'s random-start fits, the best one equal to the fit from the
    generated values and to Laura++'s fit fractions."""
    results = str(tmp_path / "fits.jsonl")
    fits = scan3k.run(setup, [0], 6, 1, results=results)
    assert fits["failed"] == [] and len(fits[0]) == 6
    sols = scan3k.solutions_of(setup, fits[0])
    assert len(sols) >= 2 and [s["solution"] for s in sols[:2]] == ["main", "second"]
    lo, hi = scan3k.LAURA_SECOND_SOLUTION_DELTA_NLL
    assert lo < sols[1]["delta"] / 2 < hi and sum(s["count"] for s in sols) == 6
    ref = fit_laura(setup, 0)
    assert sols[0]["fval"] == pytest.approx(ref["fval"], abs=0.01)
    laura = genfit3k.read_laura_results()[0]
    for s in sols:
        assert sum(s["fit_fractions"].values()) == pytest.approx(s["fit_fraction_sum"])
        assert all(0.002 < s["fit_fraction_errors"][c] < 0.02 for c in genfit3k.COMPONENTS)
    for c in genfit3k.COMPONENTS:
        assert sols[0]["fit_fractions"][c] == pytest.approx(ref["fit_fractions"][c], abs=1e-4)
        assert abs(sols[0]["fit_fractions"][c] - laura[genfit3k.LAURA_COLUMNS[f"FF_{c}"]]) \
            < 0.1 * sols[0]["fit_fraction_errors"][c]
    # The file of fits resumes the scan: nothing is fitted again.
    again = scan3k.run(setup, [0], 6, 1, results=results)
    assert [f["fval"] for f in again[0]] == [f["fval"] for f in fits[0]]
    with pytest.raises(ValueError, match="another scan"):
        scan3k.run(setup, [1], 6, 1, results=results)


@pytest.mark.slow
def test_full_scan_of_laura_experiments(setup):
    """Laura++'s experiments 0-9, 20 random starts each: every experiment has
    the second solution, reached by 20-60 % of the starts (Laura++: 4 of 10
    fits), worse in -ln L by what Laura++ found (its 460-560 from four fits:
    the median inside, every experiment within 5 % of its ends)."""
    experiments = list(range(10))
    fits = scan3k.run(setup, experiments, 20, 1)
    per = {k: {"fits": fits[k], "solutions": scan3k.solutions_of(setup, fits[k])}
           for k in experiments}
    summary = scan3k.summarize(per)
    print(scan3k.format_report(per, summary, 20))
    lo, hi = scan3k.LAURA_SECOND_SOLUTION_DELTA_NLL
    nll = np.array(summary["second_delta"]) / 2
    assert len(nll) == 10 and lo < np.median(nll) < hi
    assert np.all((nll > 0.95 * lo) & (nll < 1.05 * hi))
    assert 0.2 < summary["counts"]["second"] / summary["valid"] < 0.6


# ----------------------------------------------------------------------------
# Programs and pseudoexperiments
# ----------------------------------------------------------------------------

@pytest.mark.parametrize("program", [generate3k, fit3k, plot3k, laura_crosscheck, scan3k])
def test_help(program):
    with pytest.raises(SystemExit) as e:
        program.main(["--help"])
    assert e.value.code == 0


def run_program(name, cwd, *argv):
    """A program of the example as a script, from the folder ``cwd``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([sys.executable, os.path.join(EXAMPLE, name), *argv], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_programs_generate_fit_plot(tmp_path, model_cache):
    d = str(tmp_path)
    run_program("generate3k.py", d, "--experiments", "2", "--seed", "5")
    m13, m23 = genfit3k.read_events(genfit3k.experiment_file(d, 1))
    assert len(m13) == 5000 and np.all(m13 < m23)
    results = fit3k.main(["--directory", d, "--model-cache", model_cache, "--grid-coarse",
                          "0.01", "--grid-fine", "0.02", "--quiet"])
    assert len(results) == 2 and all(r["valid"] and r["solution"] == "main" for r in results)
    text = open(os.path.join(d, "fit3k_results.txt")).read().splitlines()
    assert text[0].split()[1:4] == ["experiment", "fval", "valid"] and len(text) > 3
    assert float(text[2].split()[1]) == pytest.approx(results[1]["fval"], rel=1e-9)
    assert plot3k.read_fit(os.path.join(d, "fit3k_results.root"), 1) == pytest.approx(
        results[1]["values"], rel=1e-12)
    hist = plot3k.main(["--directory", d, "--experiment", "1", "--grid-coarse", "0.01",
                        "--grid-fine", "0.02"])
    from matplotlib.image import imread
    assert imread(os.path.join(d, "projections3k_1.png")).shape[:2] == (600, 1800)
    assert imread(os.path.join(d, "dalitz3k_1.png")).shape[:2] == (660, 720)
    # The fit curve holds the events of the experiment (within the plotted ranges).
    assert hist["max"].fit.sum() == pytest.approx(hist["max"].data.sum(), rel=0.01)
    assert hist["min"].data.sum() == 5000
    phi = hist["phi"].components          # in the phi(1020) window the phi dominates
    assert set(phi) == set(genfit3k.COMPONENTS)
    assert phi["PHI"].sum() > max(phi["F2"].sum(), phi["NR"].sum())


def test_scan_program_writes_its_result_files(tmp_path, model_cache):
    d = str(tmp_path)
    argv = ["--experiments", "3", "--starts", "3", "--seed", "2", "--output", d, "--threads", "1",
            "--model-cache", model_cache, "--grid-coarse", "0.01", "--grid-fine", "0.02",
            "--quiet"]
    per, summary = scan3k.main(argv)
    assert summary["fits"] == 3 and summary["valid"] == 3
    assert "experiment 3: 3 random starts, 3 valid" in \
        open(os.path.join(d, "scan3k_results.txt")).read()
    sols = per[3]["solutions"]
    assert sum(s["count"] for s in sols) == 3
    assert sols[0]["delta"] == 0 and set(sols[0]["fit_fractions"]) == set(genfit3k.COMPONENTS)
    assert len(open(os.path.join(d, "scan3k_fits.jsonl")).read().splitlines()) == 3
    for bad in (argv[:-1] + ["--starts", "0"], ["--experiments", "x", "--output", d]):
        with pytest.raises(SystemExit):
            scan3k.main(bad)


def test_bad_input_is_reported(tmp_path, model_cache):
    d = str(tmp_path)
    with pytest.raises(SystemExit):
        fit3k.main(["--directory", d, "--model-cache", model_cache, "--grid-coarse", "0.02",
                    "--grid-fine", "0.1"])                  # no pseudoexperiments there
    with pytest.raises(ValueError, match="experiment 12"):
        genfit3k.read_events(genfit3k.LAURA_TOYS, 12)
    from vecampfit.root_io import write_tree
    path = os.path.join(d, "wrong.root")
    write_tree(path, {"m13Sq": np.ones(3), "m12Sq": np.ones(3)}, "toys")
    with pytest.raises(Exception, match="m23Sq"):
        genfit3k.read_events(path)
    bad = os.path.join(d, "laura.txt")
    with open(bad, "w") as f:
        f.write("# iExpt fitStatus\n0 3 7\n")
    with pytest.raises(ValueError, match="malformed"):
        genfit3k.read_laura_results(bad)
    with pytest.raises(ValueError, match="grid options"):
        genfit3k.normalization_grid(coarse=-1)


@pytest.mark.slow
def test_pseudoexperiment_pulls(tmp_path, setup):
    """30 pseudoexperiments of 5000 events generated by generate3k.py and
    fitted with the default grid: pulls consistent with a unit Gaussian."""
    d = str(tmp_path)
    n = 30
    generate3k.main(["--directory", d, "--experiments", str(n), "--seed", "2024"])
    results = []
    for k in range(n):
        r = setup.fit(*genfit3k.read_events(genfit3k.experiment_file(d, k)))
        del r["fitter"]
        results.append(r)
    print(fit3k.summary(results))
    assert all(r["valid"] and r["solution"] == "main" for r in results)
    pulls = fit3k.pulls(results)
    assert set(pulls) == set(fit3k.FREE)
    for name, p in pulls.items():
        assert p["n"] == n
        assert abs(p["mean"]) < 0.6 and 0.6 < p["width"] < 1.45, name
    ff = np.array([[r["fit_fractions"][c] for c in genfit3k.COMPONENTS] for r in results])
    assert np.all(np.abs(ff.mean(axis=0) - 1 / 3) < 0.03)
