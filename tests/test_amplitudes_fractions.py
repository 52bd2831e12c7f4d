"""vecampfit.amplitudes.fractions: fit fractions of groups of components.

References written here: closed-form integrals of a model of two
incoherent groups, the intensities of a small polarized model written out
by hand (summed over a quadrature grid), and the ratio of the published
Lambda_c model's intensities with all other couplings set to zero; the
errors against a toy propagation (parameters drawn from the covariance)
and against the spread of fractions over independent normalization samples.
"""

from pathlib import Path

import numpy as np
import pytest

from vecampfit.amplitudes import (AmplitudeFitFractions, AmplitudeModel, ModelParameter,
                                  component_integrals, fit_fractions, resonance_groups)
from vecampfit.expressions import ComplexExpr, event, parameter
from vecampfit.model_format import read_model

DATA = Path(__file__).parent / "data" / "amplitude_serialization"

TRUTH = {"a_re": 0.8, "a_im": -0.5, "b_re": 0.6, "b_im": 0.9, "m": 0.3, "P": 0.4}


def _toy(polarized):
    """Channels (+1,), (-1,); group "A" = components a (coupling a, factor x - m,
    angular (1, y)) and a2 (coupling 1, factor 1, angular (x, 0)); group "B" = b
    (coupling b, factor 1, angular (0, 1)); with a density matrix in P and y."""
    x, y = event("x"), event("y")
    model = AmplitudeModel("toy", [(1,), (-1,)],
                           [ModelParameter(n, v) for n, v in TRUTH.items()], events=("x", "y"))
    model.add_group("A")
    model.add_component("a", "A", ComplexExpr(parameter("a_re"), parameter("a_im")),
                        ComplexExpr(x - parameter("m")), {(1,): 1.0, (-1,): y})
    model.add_component("a2", "A", 1.0, 1.0, {(1,): x})
    model.add_group("B")
    model.add_component("b", "B", ComplexExpr(parameter("b_re"), parameter("b_im")), 1.0,
                        {(-1,): 1.0})
    if polarized:
        p = parameter("P")
        off = ComplexExpr(p * y * 0.5, p * x * 0.5)
        model.set_density_matrix(0, {(1, 1): ComplexExpr((1 + p) * 0.5),
                                     (-1, -1): ComplexExpr((1 - p) * 0.5),
                                     (1, -1): off, (-1, 1): off.conjugate()})
    return model


def _toy_by_hand(x, y, w, v, polarized):
    """Fit fractions of groups A, B and their interference fraction, written out.

    ``v``: parameter values, scalars or arrays (toy draws) broadcast against
    the events (last axis).
    """
    a = v["a_re"] + 1j * v["a_im"]
    b = v["b_re"] + 1j * v["b_im"]
    m, p = v["m"], v["P"]

    def intensity(plus, minus):
        if not polarized:
            return np.abs(plus) ** 2 + np.abs(minus) ** 2
        rho_pm = p * (y + 1j * x) / 2
        return ((1 + p) / 2 * np.abs(plus) ** 2 + (1 - p) / 2 * np.abs(minus) ** 2
                + 2 * np.real(rho_pm * plus * np.conj(minus)))
    a_plus, a_minus = a * (x - m) + x, a * (x - m) * y
    b_minus = b * np.ones_like(x)
    total = np.sum(w * intensity(a_plus, a_minus + b_minus), axis=-1)
    fa = np.sum(w * intensity(a_plus, a_minus), axis=-1) / total
    fb = np.sum(w * intensity(0 * a_plus, b_minus), axis=-1) / total
    return fa, fb, 1 - fa - fb


def _grid(n=8):
    """Gauss-Legendre product grid over x in [0, 1], y in [-1, 1] (exact for the toy)."""
    t, wt = np.polynomial.legendre.leggauss(n)
    x, y = np.meshgrid((t + 1) / 2, t, indexing="ij")
    w = np.outer(wt / 2, wt)
    return {"x": x.ravel(), "y": y.ravel()}, w.ravel()


def test_two_incoherent_groups_in_closed_form():
    """Group A in channel +1 only, B in channel -1 only: they do not interfere,
    the fractions are ratios of polynomial integrals and add up to 1."""
    x = event("x")
    model = AmplitudeModel("incoherent", [(1,), (-1,)],
                           {"a_re": 1.5, "a_im": 0.5, "c_re": -0.7, "c_im": 0.2, "b_re": 0.4,
                            "b_im": -1.1}, events=("x",))
    model.add_group("A")
    model.add_component("a", "A", ComplexExpr(parameter("a_re"), parameter("a_im")), 1.0,
                        {(1,): x})
    model.add_component("c", "A", ComplexExpr(parameter("c_re"), parameter("c_im")), 1.0,
                        {(1,): 1 - x})
    model.add_group("B")
    model.add_component("b", "B", ComplexExpr(parameter("b_re"), parameter("b_im")), 1.0,
                        {(-1,): 1.0})
    t, wt = np.polynomial.legendre.leggauss(5)
    rec, w = {"x": (t + 1) / 2}, wt / 2
    ff = fit_fractions(model, rec, {"A": ["a", "c"], "B": ["b"]}, weights=w)
    a, c, b = 1.5 + 0.5j, -0.7 + 0.2j, 0.4 - 1.1j
    # int_0^1 |a x + c (1 - x)|^2 dx = (|a|^2 + |c|^2) / 3 + Re(a conj(c)) / 3
    ia = (abs(a) ** 2 + abs(c) ** 2) / 3 + np.real(a * np.conj(c)) / 3
    ib = abs(b) ** 2
    assert isinstance(ff, AmplitudeFitFractions)
    assert ff.fractions["A"] == pytest.approx(ia / (ia + ib), rel=1e-13)
    assert ff.fractions["B"] == pytest.approx(ib / (ia + ib), rel=1e-13)
    assert ff.total == pytest.approx(1.0, rel=1e-14)
    assert abs(ff.interference[("A", "B")]) < 1e-15
    # each component alone: within A, a and c interfere by 2 Re(a conj(c)) / 6
    single = fit_fractions(model, rec, weights=w)
    assert single.components == ("a", "c", "b")
    assert single.matrix[0, 1] == pytest.approx(np.real(a * np.conj(c)) / 3 / (ia + ib), rel=1e-13)
    assert single.total + single.interference_total == pytest.approx(1.0, rel=1e-14)
    # the integral matrix gives the total integral
    names, m = component_integrals(model, rec, weights=w)
    cv = np.array([a, c, b])
    assert names == ["a", "c", "b"]
    assert np.allclose(m, m.conj().T, rtol=0, atol=1e-15)
    assert np.real(cv @ m @ cv.conj()) == pytest.approx(ia + ib, rel=1e-13)


@pytest.mark.parametrize("polarized", [False, True])
def test_a_polarized_model_against_its_intensities_by_hand(polarized):
    model = _toy(polarized)
    rec, w = _grid()
    ff = fit_fractions(model, rec, {"A": ["a", "a2"], "B": ["b"]}, weights=w)
    fa, fb, fab = _toy_by_hand(rec["x"], rec["y"], w, TRUTH, polarized)
    print(f"fractions {ff.fractions}, by hand {fa:.6f} {fb:.6f} {fab:.6f}")
    assert ff.fractions["A"] == pytest.approx(fa, rel=1e-12)
    assert ff.fractions["B"] == pytest.approx(fb, rel=1e-12)
    assert ff.interference[("A", "B")] == pytest.approx(fab, rel=1e-10, abs=1e-14)
    if polarized:
        # the polarization makes A and B interfere (their channels differ)
        assert abs(fab) > 0.01
    else:
        assert abs(fab) < 1e-14
    # other parameter values, given to the function
    moved = dict(TRUTH, m=0.1, P=-0.6, b_im=0.2)
    ff2 = fit_fractions(model, rec, {"A": ["a", "a2"], "B": ["b"]}, weights=w, params=moved)
    assert ff2.fractions["A"] == pytest.approx(_toy_by_hand(rec["x"], rec["y"], w, moved,
                                                            polarized)[0], rel=1e-12)


def test_errors_against_a_toy_propagation():
    """Parameters drawn from a covariance (couplings, a lineshape parameter and
    the polarization, correlated): the spread of the fractions by hand equals
    the propagated errors."""
    model = _toy(True)
    rec, w = _grid()
    names = ["a_re", "a_im", "b_re", "b_im", "m", "P"]
    sigma = np.array([0.02, 0.03, 0.02, 0.02, 0.01, 0.03])
    rng = np.random.default_rng(3)
    corr = np.eye(6)
    corr[0, 4] = corr[4, 0] = 0.5
    corr[2, 5] = corr[5, 2] = -0.4
    corr[1, 3] = corr[3, 1] = 0.3
    cov = corr * np.outer(sigma, sigma)
    # a fixed parameter (a row of zeros) in the matrix is allowed
    names_with_fixed = names + ["dummy"]
    model.parameters["dummy"] = ModelParameter("dummy", 1.0)
    cov_with_fixed = np.zeros((7, 7))
    cov_with_fixed[:6, :6] = cov
    ff = fit_fractions(model, rec, {"A": ["a", "a2"], "B": ["b"]}, weights=w,
                       covariance=cov_with_fixed, covariance_names=names_with_fixed)
    draws = rng.multivariate_normal([TRUTH[n] for n in names], cov, size=20000)
    v = {n: draws[:, k, None] for k, n in enumerate(names)}
    fa, fb, fab = _toy_by_hand(rec["x"][None], rec["y"][None], w[None], v, True)
    toy = {"A": fa.std(), "B": fb.std(), "AB": fab.std()}
    got = {"A": ff.errors[0, 0], "B": ff.errors[1, 1], "AB": ff.errors[0, 1]}
    print({k: (got[k], toy[k]) for k in got})
    for k in got:
        assert got[k] == pytest.approx(toy[k], rel=0.03), k
    # only the couplings: a smaller error, still equal to its toy
    ff_c = fit_fractions(model, rec, {"A": ["a", "a2"], "B": ["b"]}, weights=w,
                         covariance=cov[:4, :4], covariance_names=names[:4])
    assert ff_c.errors[0, 0] < ff.errors[0, 0]
    d4 = rng.multivariate_normal([TRUTH[n] for n in names[:4]], cov[:4, :4], size=20000)
    v4 = dict(TRUTH, **{n: d4[:, k, None] for k, n in enumerate(names[:4])})
    fa4 = _toy_by_hand(rec["x"][None], rec["y"][None], w[None], v4, True)[0]
    assert ff_c.errors[0, 0] == pytest.approx(fa4.std(), rel=0.03)


def test_normalization_errors_against_independent_samples():
    """The normalization-sample error equals the spread of the fractions over
    independent uniform samples."""
    model = _toy(True)
    rng = np.random.default_rng(8)
    n = 2000
    values, reported = [], []
    for k in range(300):
        x, y = rng.uniform(0, 1, n), rng.uniform(-1, 1, n)
        values.append(_toy_by_hand(x, y, np.ones(n), TRUTH, True)[0])
        if k < 5:
            ff = fit_fractions(model, {"x": x, "y": y}, {"A": ["a", "a2"], "B": ["b"]},
                               chunk_size=700)
            assert ff.fractions["A"] == pytest.approx(values[-1], rel=1e-12)
            reported.append(ff.normalization_errors[0, 0])
    spread, mean = np.std(values), np.mean(reported)
    print(f"spread {spread:.5f}, reported {mean:.5f}")
    assert mean == pytest.approx(spread, rel=0.15)


@pytest.fixture(scope="module")
def lc():
    dist = read_model(DATA / "lc2ppik-lhcb-2683025.json").distributions["default_model"]
    return dist, dist.amplitude_model(polarized=True)


def _lc_events(dist, n, seed):
    from vecampfit import generation
    from vecampfit.dpd import kinematics
    masses = dist.model.masses
    p = generation.phase_space(masses[0], masses[1:], n, seed=seed).momenta
    s = kinematics.sigmas_from_four_momenta(*p)
    alpha, cos_beta, gamma = kinematics.orientation(*p, reference=dist.model.references[0])
    return {"sigma1": s[0], "sigma2": s[1], "sigma3": s[2], "alpha": alpha,
            "cos_beta": cos_beta, "gamma": gamma}


def test_lambda_c_resonance_fractions_equal_the_intensity_of_one_resonance(lc):
    dist, model = lc
    groups = resonance_groups(model, dist)
    assert list(groups) == ["K700", "K892", "K1430", "L1405", "L1520", "L1600", "L1670",
                            "L1690", "L2000", "D1232", "D1600", "D1700"]
    assert groups["K892"] == ["K892", "K892_2", "K892_3", "K892_4"]
    assert groups == resonance_groups(model)
    rec = _lc_events(dist, 1500, 4)
    pol = {"Px": 0.3, "Py": -0.4, "Pz": 0.6}
    ff = fit_fractions(model, rec, groups, params=pol, chunk_size=400)
    total = model.intensity(rec, pol).sum()
    couplings = [n for n in model.parameters if n.endswith(("_re", "_im"))]
    for name, members in groups.items():
        only = dict(pol, **{n: 0.0 for n in couplings if n.rsplit("_", 1)[0] not in members})
        want = model.intensity(rec, only).sum() / total
        assert ff.fractions[name] == pytest.approx(want, rel=1e-11), name
    assert ff.total + ff.interference_total == pytest.approx(1.0, rel=1e-13)
    assert "L1520 x" in ff.table(interference=True) or "x L1520" in ff.table(interference=True)


def test_mistakes_are_named(lc):
    dist, model = lc
    rec, w = _grid(3)
    toy = _toy(False)
    with pytest.raises(ValueError, match="names 'c'"):
        fit_fractions(toy, rec, {"A": ["a", "c"]}, weights=w)
    with pytest.raises(ValueError, match="groups must be disjoint"):
        fit_fractions(toy, rec, {"A": ["a", "a2"], "B": ["a"]}, weights=w)
    with pytest.raises(ValueError, match="has no components"):
        fit_fractions(toy, rec, {"A": []}, weights=w)
    with pytest.raises(ValueError, match="expected shape"):
        fit_fractions(toy, rec, weights=w, covariance=np.eye(2))
    with pytest.raises(ValueError, match="not parameters"):
        fit_fractions(toy, rec, weights=w, covariance=np.eye(1), covariance_names=["zz"])
    with pytest.raises(ValueError, match="unknown parameter"):
        fit_fractions(toy, rec, weights=w, params={"zz": 1.0})
    with pytest.raises(KeyError, match="no variable"):
        fit_fractions(toy, {"x": rec["x"]}, weights=w)
    with pytest.raises(ValueError, match="weights"):
        fit_fractions(toy, rec, weights=w[:-1])
    with pytest.raises(ValueError, match="not positive"):
        fit_fractions(toy, rec, weights=0 * w)
    with pytest.raises(ValueError, match="chains"):
        resonance_groups(toy, dist)
