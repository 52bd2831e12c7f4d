"""Fits with vecampfit.fitter.Fitter that recover known truth: Monte Carlo,
grid and formula normalization agree, background fractions, extended yields,
simultaneous points, priors, pulls over pseudoexperiments; result files."""

import os
import re

import numpy as np
import pytest
import uproot
from scipy.stats import truncnorm

from vecampfit.fitter import (Density, FitParameter, Fitter, Likelihood, ParameterTable, Stage,
                              read_parameter_file)
from vecampfit.fitter.results import covariance_matrix, errors, values

from toy_reference import gauss_integral, gauss_integral_gradient

TRUE_MU, TRUE_SIGMA = 0.45, 0.12


def signal(toy_model_l8, precision="float64"):
    return Density.from_model(toy_model_l8, precision, model="gauss", name="gauss")


def linear(toy_model_l8, precision="float64"):
    return Density.from_model(toy_model_l8, precision, model="linear", name="linear")


def sample_gauss(n, rng, mu=TRUE_MU, sigma=TRUE_SIGMA):
    a, b = (0 - mu) / sigma, (1 - mu) / sigma
    return truncnorm.rvs(a, b, loc=mu, scale=sigma, size=n, random_state=rng)


def sample_linear(n, rng, c):
    """x in [0, 1] with density proportional to 1 + c x (inverse CDF)."""
    u = rng.uniform(size=n) * (1 + c / 2)
    return u if c == 0 else (-1 + np.sqrt(1 + 2 * c * u)) / c


def params(*extra, mu=0.5, sigma=0.15, random=0.0):
    return ParameterTable([FitParameter("mu", mu, 0.01, 0, 1, random),
                           FitParameter("sigma", sigma, 0.01, 0.01, 1, random), *extra])


def fit(fitter, names=None):
    if names is not None:
        fitter.fix_all()
        fitter.release(*names)
    fitter.migrad(100000, hesse=True)
    assert fitter.minuit.valid
    return values(fitter.minuit), errors(fitter.minuit)


def test_mc_grid_and_formula_normalization_agree(toy_model_l8):
    rng = np.random.default_rng(11)
    x = sample_gauss(3000, rng)
    results = {}
    for how in ("mc", "grid", "formula"):
        f = Fitter(Likelihood(params()), seed=1, verbose=False)
        pt = f.likelihood.add_point(signal(toy_model_l8), normalization=how)
        pt.add_data({"x": x})
        if how == "mc":
            pt.add_normalization_events({"x": rng.uniform(0, 1, 400000)})
        elif how == "grid":
            xg, wg = np.polynomial.legendre.leggauss(64)
            pt.add_normalization_events({"x": (xg + 1) / 2}, wg / 2)
        else:
            pt.set_integral_function(gauss_integral, gauss_integral_gradient)
        results[how] = fit(f)
    (v_f, e_f), (v_g, e_g), (v_m, e_m) = results["formula"], results["grid"], results["mc"]
    print("fitted mu, sigma:", {k: (v[0], v[1]) for k, (v, e) in results.items()})
    truth = np.array([TRUE_MU, TRUE_SIGMA])
    assert np.all(np.abs(v_f - truth) < 3 * e_f)
    # Grid and formula integrate the same function to rounding: same minimum.
    np.testing.assert_allclose(v_g, v_f, atol=1e-4 * e_f.max())
    # MC integration of 4e5 points adds a fluctuation of order sqrt(3000 / 4e5) sigma.
    assert np.all(np.abs(v_m - v_f) < 0.3 * e_f)


def test_background_fraction_recovered_with_and_without_gradient(toy_model_l8):
    rng = np.random.default_rng(12)
    n, fb = 4000, 0.3
    nb = rng.binomial(n, fb)
    x = np.concatenate([sample_gauss(n - nb, rng), sample_linear(nb, rng, 0.8)])
    mc = rng.uniform(0, 1, 200000)
    out = []
    for use_gradient in (True, False):
        f = Fitter(Likelihood(params(FitParameter("BACKGROUND_FRACTION", 0.2, 0.01, 0, 1, 0))),
                   seed=3, use_gradient=use_gradient, verbose=False)
        pt = f.likelihood.add_point(signal(toy_model_l8))
        pt.add_background(linear(toy_model_l8), "BACKGROUND_FRACTION", [0.8])
        pt.add_data({"x": x})
        pt.add_normalization_events({"x": mc})
        # The paper's sequence: shape parameters first, then the fraction too.
        f.fix_all()
        f.release("mu", "sigma")
        f.migrad(100000)
        f.release("BACKGROUND_FRACTION")
        v, e = fit(f)
        out.append((v, e, f.likelihood.n_calls))
        pull = (v[2] - nb / n) / e[2]
        print(f"gradient={use_gradient}: f_B = {v[2]:.4f} +- {e[2]:.4f} (generated {nb / n:.4f}, "
              f"pull {pull:.2f}), {f.likelihood.n_calls} likelihood calls")
        assert abs(pull) < 3
        assert abs(v[0] - TRUE_MU) < 3 * e[0] and abs(v[1] - TRUE_SIGMA) < 3 * e[1]
    # Both find the same minimum.
    np.testing.assert_allclose(out[0][0], out[1][0], atol=1e-3 * out[0][1].max())


def test_extended_fit_recovers_yields(toy_model_l8):
    rng = np.random.default_rng(13)
    ns_true, nb_true = 2500, 700
    ns, nb = rng.poisson(ns_true), rng.poisson(nb_true)
    x = np.concatenate([sample_gauss(ns, rng), sample_linear(nb, rng, 0.8)])
    f = Fitter(Likelihood(params(FitParameter("NS", 2000, 10, 0, 0, 0),
                                 FitParameter("NB", 1000, 10, 0, 0, 0)), extended=True),
               seed=4, verbose=False)
    pt = f.likelihood.add_point(signal(toy_model_l8), signal_yield="NS")
    pt.add_background(linear(toy_model_l8), "NB", [0.8])
    pt.add_data({"x": x})
    pt.add_normalization_events({"x": rng.uniform(0, 1, 200000)})
    v, e = fit(f)
    print(f"N_S = {v[2]:.1f} +- {e[2]:.1f} (true {ns_true}), N_B = {v[3]:.1f} +- {e[3]:.1f} "
          f"(true {nb_true})")
    assert abs(v[2] - ns_true) < 3 * e[2] and abs(v[3] - nb_true) < 3 * e[3]
    # At the extended-likelihood maximum the total yield equals the data count.
    assert abs(v[2] + v[3] - x.size) < 1e-3 * np.sqrt(x.size)


def test_simultaneous_fit_of_two_points_with_shared_parameters(toy_model_l8):
    rng = np.random.default_rng(14)
    f = Fitter(Likelihood(params(FitParameter("FA", 0.2, 0.01, 0, 1, 0),
                                 FitParameter("FB", 0.2, 0.01, 0, 1, 0))), seed=5, verbose=False)
    truth = {"FA": 0.15, "FB": 0.45}
    sig = signal(toy_model_l8)  # one density (and parameter buffer) shared by both points
    for name, slope, n in (("FA", 0.8, 2000), ("FB", -0.6, 2500)):
        nb = rng.binomial(n, truth[name])
        pt = f.likelihood.add_point(sig)
        pt.add_background(linear(toy_model_l8), name, [slope])
        pt.add_data({"x": np.concatenate([sample_gauss(n - nb, rng), sample_linear(nb, rng,
                                                                                    slope)])})
        pt.add_normalization_events({"x": rng.uniform(0, 1, 100000)})
    v, e = fit(f)
    print("simultaneous fit:", dict(zip(f.likelihood.parameters.names, zip(v, e))))
    assert abs(v[0] - TRUE_MU) < 3 * e[0] and abs(v[1] - TRUE_SIGMA) < 3 * e[1]
    assert abs(v[2] - truth["FA"]) < 3 * e[2] and abs(v[3] - truth["FB"]) < 3 * e[3]


def test_priors_pull_the_fit(toy_model_l8):
    rng = np.random.default_rng(15)
    x = sample_gauss(2000, rng)

    def run(prior):
        f = Fitter(Likelihood(params()), seed=6, verbose=False)
        pt = f.likelihood.add_point(signal(toy_model_l8), normalization="formula")
        pt.set_integral_function(gauss_integral, gauss_integral_gradient)
        pt.add_data({"x": x})
        if prior:
            f.likelihood.add_prior("mu", *prior)
        return fit(f)

    (v0, e0), (v1, e1) = run(None), run((0.5, 1e-4, 1e-4))
    print(f"mu without prior {v0[0]:.5f} +- {e0[0]:.5f}; tight prior at 0.5: {v1[0]:.5f} +- "
          f"{e1[0]:.5f}")
    assert abs(v1[0] - 0.5) < 3e-4 and e1[0] < 1.1e-4
    # Asymmetric priors, centred 3 errors on either side of the free fit: a
    # tight side that the fit lies on pulls it to the centre, a wide side
    # (sigma = 1) leaves it where it was.
    below, above = v0[0] - 3 * e0[0], v0[0] + 3 * e0[0]
    (v_wide, _), (v_tight, _) = run((below, 1e-5, 1.0)), run((above, 1e-5, 1.0))
    (v_wide2, _), (v_tight2, _) = run((above, 1.0, 1e-5)), run((below, 1.0, 1e-5))
    print(f"asymmetric priors: wide side {v_wide[0]:.5f}, {v_wide2[0]:.5f}; tight side "
          f"{v_tight[0]:.5f} (centre {above:.5f}), {v_tight2[0]:.5f} (centre {below:.5f})")
    assert abs(v_wide[0] - v0[0]) < 0.05 * e0[0] and abs(v_wide2[0] - v0[0]) < 0.05 * e0[0]
    assert abs(v_tight[0] - above) < 0.05 * e0[0] and abs(v_tight2[0] - below) < 0.05 * e0[0]


@pytest.mark.slow
def test_pulls_over_pseudoexperiments(toy_model_l8):
    rng = np.random.default_rng(16)
    pulls = []
    for k in range(60):
        x = sample_gauss(600, rng)
        # MIGRAD's line searches may probe a narrow Gaussian that vanishes at
        # some data event: let it step back instead of stopping the fit.
        f = Fitter(Likelihood(params(random=0.03), on_invalid="large"), seed=100 + k, verbose=False)
        pt = f.likelihood.add_point(signal(toy_model_l8), normalization="formula")
        pt.set_integral_function(gauss_integral, gauss_integral_gradient)
        pt.add_data({"x": x})
        v, e = fit(f)
        pulls.append((v - [TRUE_MU, TRUE_SIGMA]) / e)
    pulls = np.array(pulls)
    n = len(pulls)
    mean, width = pulls.mean(axis=0), pulls.std(axis=0, ddof=1)
    print(f"pulls over {n} pseudoexperiments: mean {mean}, width {width} "
          f"(uncertainties {1 / np.sqrt(n):.3f}, {1 / np.sqrt(2 * (n - 1)):.3f})")
    assert np.all(np.abs(mean) < 3 / np.sqrt(n))
    assert np.all(np.abs(width - 1) < 3 / np.sqrt(2 * (n - 1)))


def test_seed_and_random_initial_values(toy_model_l8, capsys):
    table = params(random=0.05)
    a = Fitter(Likelihood(table), seed=42)
    assert "Random seed: 42" in capsys.readouterr().out
    b = Fitter(Likelihood(table), seed=42, verbose=False)
    c = Fitter(Likelihood(table), seed=43, verbose=False)
    assert np.array_equal(a.initial_values, b.initial_values)
    assert not np.array_equal(a.initial_values, c.initial_values)
    assert np.all(np.abs(a.initial_values - table.values) <= 0.05)
    d = Fitter(Likelihood(table), verbose=True)
    assert f"Random seed: {d.seed}" in capsys.readouterr().out


def test_argument_errors_name_the_argument():
    table = params(random=0.05)
    with pytest.raises(ValueError, match=r"seed must be a non-negative integer, got -1"):
        Fitter(Likelihood(table), seed=-1, verbose=False)
    with pytest.raises(ValueError, match=r"seed must be a non-negative integer, got 1.5"):
        Fitter(Likelihood(table), seed=1.5, verbose=False)
    # Strings are true: "no" would silently randomize, or make the fit extended.
    for name in ("randomize", "verbose"):
        with pytest.raises(TypeError, match=f"{name} must be True or False, got 'no'"):
            Fitter(Likelihood(table), seed=1, **{"verbose": False, name: "no"})
    for name in ("extended", "release_normalization_events"):
        with pytest.raises(TypeError, match=f"{name} must be True or False, got 'no'"):
            Likelihood(table, **{name: "no"})
    # The likelihood's arguments belong to the likelihood.
    with pytest.raises(TypeError, match=r"cache, threads belong to the Likelihood "
                                        r"\(Likelihood\(table, cache=..., threads=...\)\)"):
        Fitter(Likelihood(table), threads=1, cache="never")
    with pytest.raises(TypeError, match="unexpected keyword argument\\(s\\) sed"):
        Fitter(Likelihood(table), sed=1)
    with pytest.raises(TypeError, match="must be a vecampfit.fitter.Likelihood, got dict"):
        Fitter({"mu": 0.5})
    assert Fitter(Likelihood(table), seed=2 ** 70, randomize=0, verbose=False).seed == 2 ** 70


def test_fix_release_by_name_index_and_range(toy_model_l8):
    f = Fitter(Likelihood(params(FitParameter("FA", 0.2, 0.01, 0, 1, 0),
                                 FitParameter("FB", 0.2, 0, 0, 1, 0))), seed=1, verbose=False)
    pt = f.likelihood.add_point(signal(toy_model_l8))
    pt.add_data({"x": np.linspace(0.1, 0.9, 50)})
    pt.add_normalization_events({"x": np.linspace(0, 1, 500)})
    m = f.minuit
    assert m.fixed["FB"]  # step 0 in the file: starts fixed
    f.fix_all()
    assert all(m.fixed)
    f.release_range("mu", 2)
    assert [m.fixed[k] for k in range(4)] == [False, False, False, True]
    f.fix(0, "FA")
    assert [m.fixed[k] for k in range(4)] == [True, False, True, True]
    with pytest.raises(KeyError, match="unknown parameter 'MU' in parameter table; did you mean mu"):
        f.release("MU")
    assert m.limits["FA"] == (0, 1) and m.limits["sigma"] == (0.01, 1)


def _background_fit(toy_model_l8, rng, n_background=500, n_normalization=None):
    """The likelihood of the signal (gauss) and the linear background (slope
    0.8, fraction BACKGROUND_FRACTION, starting at 0.25) for 2000 events of
    which n_background are background, drawn from rng, normalized on
    n_normalization uniform events in [0, 1] drawn next from rng, or on a
    grid of 20001 points when n_normalization is None: (likelihood, data x)."""
    x = np.concatenate([sample_gauss(2000 - n_background, rng),
                        sample_linear(n_background, rng, 0.8)])
    lk = Likelihood(params(FitParameter("BACKGROUND_FRACTION", 0.25, 0.01, 0, 1, 0)))
    pt = lk.add_point(signal(toy_model_l8))
    pt.add_background(linear(toy_model_l8), "BACKGROUND_FRACTION", [0.8])
    pt.add_data({"x": x})
    if n_normalization is None:
        pt.add_normalization_events({"x": np.linspace(0, 1, 20001)})
    else:
        pt.add_normalization_events({"x": rng.uniform(0, 1, n_normalization)})
    return lk, x


def test_result_files(toy_model_l8, tmp_path):
    lk, x = _background_fit(toy_model_l8, np.random.default_rng(17), n_background=600,
                            n_normalization=50000)
    f = Fitter(lk, seed=7, verbose=False)
    v, e = fit(f)
    paths = {k: tmp_path / n for k, n in (("parameters", "parameters_result.dat"),
                                          ("text", "results.txt"), ("root", "result.root"),
                                          ("density", "density.root"))}
    f.write_results(**paths)
    assert sorted(os.listdir(tmp_path)) == sorted(p.name for p in paths.values())  # no leftovers

    back = read_parameter_file(paths["parameters"])
    assert back.names == f.likelihood.parameters.names
    np.testing.assert_array_equal(back.values, v)
    text = paths["text"].read_text()
    assert f"F = {f.minuit.fval:.12g}" in text and "BACKGROUND_FRACTION" in text

    with uproot.open(paths["root"]) as r:
        assert r["parameter_names"] == "mu\nsigma\nBACKGROUND_FRACTION"
        assert r["fit"]["fval"].array(library="np")[0] == f.minuit.fval
        np.testing.assert_array_equal(r["parameters"]["value"].array(library="np"), v)
        np.testing.assert_array_equal(r["parameters"]["error"].array(library="np"), e)
        cov = r["error_matrix"]["row"].array(library="np")
        np.testing.assert_allclose(cov, np.array(f.minuit.covariance), rtol=1e-12)
        lam = r["eigen"]["eigenvalue"].array(library="np")
        vec = r["eigen"]["eigenvector"].array(library="np")
        np.testing.assert_allclose(vec.T @ np.diag(lam) @ vec, cov, atol=1e-12 * np.abs(cov).max())
        assert np.all(np.diff(lam) >= 0)

    with uproot.open(paths["density"]) as d:
        data = d["data_0"].arrays(library="np")
        np.testing.assert_array_equal(data["x"], x)
        np.testing.assert_allclose(data["total"], data["signal"] + data["background_1"],
                                   rtol=1e-15)
        norm = d["normalization_0"].arrays(library="np")
        # The fitted density integrates to one over the normalization sample.
        assert abs(np.sum(norm["total"] * norm["weight"]) - 1) < 1e-12
        assert abs(np.sum(norm["background_1"]) / v[2] - 1) < 1e-12

    # A failure while writing leaves neither a half-written file nor a temporary one.
    with pytest.raises(FileNotFoundError, match="does not exist"):
        f.write_results(root=tmp_path / "missing" / "r.root")
    assert sorted(os.listdir(tmp_path)) == sorted(p.name for p in paths.values())


def test_covariance_of_the_free_parameters(toy_model_l8):
    lk, _ = _background_fit(toy_model_l8, np.random.default_rng(19), n_normalization=30000)
    f = Fitter(lk, seed=3, verbose=False)
    assert not np.any(covariance_matrix(f.minuit))    # nothing fitted yet
    fit(f, ["mu", "BACKGROUND_FRACTION"])         # sigma fixed
    cov = covariance_matrix(f.minuit)
    m = f.minuit
    assert cov.shape == (3, 3) and not np.any(cov[1]) and not np.any(cov[:, 1])
    for i, a in enumerate(("mu", "BACKGROUND_FRACTION")):
        for j, b in enumerate(("mu", "BACKGROUND_FRACTION")):
            assert cov[2 * i, 2 * j] == m.covariance[a, b]
    assert cov[0, 0] == pytest.approx(errors(f.minuit)[0] ** 2, rel=1e-3)
    sub = covariance_matrix(f.minuit, ["BACKGROUND_FRACTION", "sigma", "mu"])
    np.testing.assert_array_equal(sub, cov[np.ix_([2, 1, 0], [2, 1, 0])])
    with pytest.raises(ValueError, match="'nu' not parameters of the fit"):
        covariance_matrix(f.minuit, ["mu", "nu"])


def test_index_errors_name_what_was_asked_and_what_exists(toy_model_l8, tmp_path):
    f = Fitter(Likelihood(params()), seed=1, verbose=False)
    pt = f.likelihood.add_point(signal(toy_model_l8), normalization="none")
    pt.add_data({"x": np.linspace(0.2, 0.8, 20)})
    with pytest.raises(IndexError, match=r"parameter index 7 is out of range: the fit has 2 "
                                         r"parameters \(0\.\.1\)"):
        f.fix(7)
    with pytest.raises(IndexError, match=r"fit point 5 does not exist: the fit has 1 point\(s\) "
                                         r"\(0\.\.0\)"):
        f.write_results(density=tmp_path / "d.root", point=5)
    assert not os.listdir(tmp_path)
    with pytest.raises(IndexError, match="range 1..0 is empty"):
        f.fix_range(1, 0)


def test_fixing_before_the_events_are_loaded_prepares_nothing(toy_model_l8, tmp_path):
    """The paper's sequence may fix parameters before the MC is read; a
    missing MC file is then an error naming the file, and once it is read
    the fit runs."""
    from vecampfit import root_io
    rng = np.random.default_rng(21)
    f = Fitter(Likelihood(params()), seed=1, verbose=False)
    pt = f.likelihood.add_point(signal(toy_model_l8))
    pt.add_data({"x": sample_gauss(1000, rng)})
    f.fix_all()
    f.release("mu", "sigma")
    with pytest.raises(FileNotFoundError, match="mc.root"):
        pt.load_normalization_file(tmp_path / "mc.root")
    assert not pt.data_events.frozen
    root_io.write_tree(tmp_path / "mc.root", {"x": rng.uniform(0, 1, 20000)})
    pt.load_normalization_file(tmp_path / "mc.root")
    v, e = fit(f)
    assert abs(v[0] - TRUE_MU) < 4 * e[0]




def test_stages_are_the_commands_one_by_one(toy_model_l8):
    """Fitter.run(Stage, ...) is fix_all/fix/release, MIGRAD, HESSE and MINOS
    in order: the same fit, bit for bit, as the commands given one by one."""
    a = Fitter(_background_fit(toy_model_l8, np.random.default_rng(23))[0], seed=2, verbose=False)
    a.run(Stage(fix_all=True, release=["mu", "sigma"]),
          Stage(release="BACKGROUND_FRACTION", fix=0, hesse=True, minos=["sigma"]))
    b = Fitter(_background_fit(toy_model_l8, np.random.default_rng(23))[0], seed=2, verbose=False)
    b.fix_all()
    b.release("mu", "sigma")
    b.migrad()
    b.fix("mu")
    b.release("BACKGROUND_FRACTION")
    b.migrad()
    b.hesse()
    b.minos("sigma")
    assert a.minuit.fval == b.minuit.fval and a.minuit.fixed["mu"]
    np.testing.assert_array_equal(values(a.minuit), values(b.minuit))
    assert a.minuit.merrors["sigma"].lower == b.minuit.merrors["sigma"].lower
    assert a.likelihood.n_calls == b.likelihood.n_calls
    assert a.free_parameters == ("sigma", "BACKGROUND_FRACTION")
    with pytest.raises(TypeError, match="a stage is a vecampfit.fitter.Stage"):
        a.run({"release": ["mu"]})
    with pytest.raises(TypeError, match="Stage.hesse must be True or False"):
        Stage(hesse="yes")
    assert Stage(minos=False).minos == () and Stage(minos=True).minos is True
    assert Stage(release="mu", minos="sigma") == Stage(release=["mu"], minos=("sigma",))
    with pytest.raises(TypeError, match="Stage.release must be names or indices, got True"):
        Stage(release=True)


def test_the_old_api_works_and_says_what_replaced_it(toy_model_l8, tmp_path):
    """Scripts written for Fitter(table, ...) and the attributes the fitter
    repeated from the likelihood and Minuit keep working; each warns,
    naming its replacement, and gives what the replacement gives."""
    rng = np.random.default_rng(29)
    x = sample_gauss(1500, rng)
    with pytest.warns(DeprecationWarning, match=r"Fitter\(parameter_table, ...\) is deprecated: "
                                                r"build the likelihood first"):
        old = Fitter(params(), seed=5, verbose=False, threads=1, cache="never")
    assert old.likelihood.cache == "never" and old.likelihood.threads == 1
    expect = {
        "add_point": "fitter.likelihood.add_point", "parameters": "fitter.likelihood.parameters",
        "points": "fitter.likelihood.points", "precision": "fitter.likelihood.density_precision",
        "vector_length": "fitter.likelihood.vector_length",
        "threads": "fitter.likelihood.threads", "extended": "fitter.likelihood.extended",
        "n_calls": "fitter.likelihood.n_calls", "has_gradient": "fitter.likelihood.has_gradient",
        "parameter_index": "fitter.likelihood.parameter_index",
        "evaluate": "fitter.likelihood.evaluate", "values": "fitter.minuit.values",
        "errors": "fitter.minuit.errors", "covariance": "fitter.minuit.covariance",
        "point(index)": r"fitter.likelihood.points\[index\]",
        "add_prior": "fitter.likelihood.add_prior",
        "set_prior_function": "fitter.likelihood.set_prior_function"}

    def old_name(name, call):
        with pytest.warns(DeprecationWarning, match=f"Fitter.{re.escape(name)} is deprecated: "
                                                    f"use {expect[name]}"):
            return call()

    pt = old_name("add_point", lambda: old.add_point(signal(toy_model_l8), normalization="formula"))
    pt.set_integral_function(gauss_integral, gauss_integral_gradient)
    pt.add_data({"x": x})
    old.migrad()
    m, lk = old.minuit, old.likelihood
    assert old_name("parameters", lambda: old.parameters) is lk.parameters
    assert old_name("points", lambda: old.points) is lk.points
    assert old_name("point(index)", lambda: old.point(0)) is lk.points[0]
    assert old_name("precision", lambda: old.precision) == "float64"
    assert old_name("vector_length", lambda: old.vector_length) == lk.vector_length
    assert old_name("threads", lambda: old.threads) == 1
    assert old_name("extended", lambda: old.extended) is False
    assert old_name("n_calls", lambda: old.n_calls) == lk.n_calls
    assert old_name("has_gradient", lambda: old.has_gradient) is True
    assert old_name("parameter_index", lambda: old.parameter_index("sigma")) == 1
    v = old_name("values", lambda: old.values)
    np.testing.assert_array_equal(v, np.array(m.values))
    np.testing.assert_array_equal(old_name("errors", lambda: old.errors), errors(m))
    np.testing.assert_array_equal(old_name("covariance", lambda: old.covariance(["sigma"])),
                                  covariance_matrix(m, ["sigma"]))
    assert old_name("evaluate", lambda: old.evaluate(v))[0] == lk.evaluate(v)[0]
    old_name("add_prior", lambda: old.add_prior("mu", 0.5, 0.1))
    old_name("set_prior_function", lambda: old.set_prior_function(lambda p: 0.0))
    assert len(lk.priors) == 1 and lk.user_prior is not None
    with pytest.warns(DeprecationWarning, match="Likelihood.free_parameters is deprecated"):
        lk.free_parameters = ["mu"]
    old.write_results(text=tmp_path / "r.txt")
    assert "sigma" in (tmp_path / "r.txt").read_text()


def test_a_dropped_fitter_is_freed_with_its_events(toy_model_l8):
    """A Fitter no longer referenced is freed, with its likelihood and event
    buffers.  Minuit keeps the cost function in a C++ object that the garbage
    collector cannot look into, so a cost that refers back to the fitter made
    fitter, Minuit and cost a cycle that was never freed (a pull study grew by
    20 MB a fit until the system stopped it).  The Minuit object of a dropped
    fitter still fits, with every parameter free to move."""
    import gc
    import weakref

    rng = np.random.default_rng(5)
    x = sample_gauss(2000, rng)
    xg, wg = np.polynomial.legendre.leggauss(64)

    def one_fit():
        f = Fitter(Likelihood(params()), seed=1, verbose=False)
        pt = f.likelihood.add_point(signal(toy_model_l8), normalization="grid")
        pt.add_data({"x": x})
        pt.add_normalization_events({"x": (xg + 1) / 2}, wg / 2)
        fit(f, ["mu"])
        return weakref.ref(f), weakref.ref(f.likelihood), f.minuit

    refs = [one_fit()[:2] for _ in range(3)]
    # Two passes: Minuit's C++ part lets go of the cost only when the first
    # pass frees the Minuit object; what the cost held goes in the second.
    gc.collect()
    gc.collect()
    assert [r[0]() for r in refs] == [None] * 3, "fitters not freed"
    assert [r[1]() for r in refs] == [None] * 3, "likelihoods not freed"
    fitter, likelihood, m = one_fit()
    gc.collect()
    gc.collect()
    assert fitter() is None and likelihood() is not None
    m.fixed["sigma"] = False
    m.migrad()
    assert m.valid
    assert abs(m.values["mu"] - TRUE_MU) < 3 * m.errors["mu"]
    assert abs(m.values["sigma"] - TRUE_SIGMA) < 3 * m.errors["sigma"]
