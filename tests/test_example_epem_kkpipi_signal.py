"""The e+e- -> K K-bar pi pi example: the simultaneous signal fit (paper 8.5).

Small pseudo-data samples (K+ K- pi+ pi- at 1800 and 2000 MeV, KS KS pi+ pi-
at 2000 MeV) generated from the numpy reference amplitudes (model_kkpipi.py)
through the simulated detector, with the simulation's background polynomial
as the fixed background, fitted with the declared model (declared_model.py).
Checked: the simultaneous likelihood (and its gradient) is the sum of the
single-point likelihoods; it equals the likelihood of the hand-written
density (value and gradient) and of the numpy form; the fit-fraction
Jacobian equals finite differences; the fit recovers the generated
amplitudes within their errors; a pull study over a few pseudoexperiments
(slow).
"""

import dataclasses
import os

import numpy as np
import pytest


EXAMPLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples",
                       "epem_kkpipi")
import background  # noqa: E402
import common_kkpipi as common  # noqa: E402
import config  # noqa: E402
import fit_signal_kkpipi as fit_signal  # noqa: E402
import generate_kkpipi as generate  # noqa: E402
import model_kkpipi as model  # noqa: E402
from vecampfit.fitter import results as fit_results  # noqa: E402
from vecampfit.fitter.parameters import write_parameter_file  # noqa: E402

L = 4
POINT_NAMES = ("kpkmpippim_1800_mev", "kpkmpippim_2000_mev", "kskspippim_2000_mev")


@pytest.fixture(scope="module")
def compiled(model_cache):
    """The declared signal models of the test's points and the compiled background."""
    points = [config.POINTS[n] for n in POINT_NAMES]
    return (common.compile_signal_models(points, (L,), build_dir=model_cache),
            background.compile_density((L,), build_dir=model_cache))


@pytest.fixture(scope="module")
def handwritten(model_cache):
    return common.compile_signal_density((L,), build_dir=model_cache)


def make_samples(directory, seed, data_events=1500, mc_events=30000, names=POINT_NAMES):
    """Generate the points' data and MC and write the simulation's background
    coefficients as their background-fit parameter files."""
    points = [dataclasses.replace(config.POINTS[n], data_events=data_events,
                                  mc_events=mc_events, background_events=0) for n in names]
    for p in points:
        generate.generate_point(p, str(directory), seed)
        write_parameter_file(os.path.join(str(directory), f"parameters_background_{p.name}.dat"),
                             background.initial_parameters(), background.truth())
    return fit_signal.simultaneous_fit_points(points, str(directory))


@pytest.fixture(scope="module")
def samples(tmp_path_factory):
    return make_samples(tmp_path_factory.mktemp("epem_signal"), 5)


def truth(fitter, declarations):
    values = {}
    for d in declarations:
        values.update(model.default_parameters(d.point.energy_mev))
        values[d.background_fraction] = d.point.background_fraction
    return np.array([values[n] for n in fitter.likelihood.parameters.names])


def test_declarations_follow_the_points(tmp_path):
    points = config.select(["kskspippim"], [1850, 1950])
    decl = fit_signal.simultaneous_fit_points(points, str(tmp_path))
    assert [d.name for d in decl] == ["kskspippim_1850_mev", "kskspippim_1950_mev"]
    assert decl[0].data_file == os.path.join(str(tmp_path), "data_kskspippim_1850_mev.root")
    assert decl[1].background_fraction == "BKG_FRACTION_kskspippim_1950_mev"
    table = fit_signal.initial_parameters(decl)
    # production waves of both energies, the decay waves once, one fraction per point
    assert len(table) == 2 * 8 + 16 + 2
    assert table["K1_1270_E1850_S_RE"].step == 0 and table["K1_1270_KSTPI_S_IM"].step == 0
    assert table["K1_1400_E1950_D_IM"].step > 0 and table["K1_1270_RHOK_D_RE"].step > 0
    with pytest.raises(FileNotFoundError, match="fit_background_kkpipi.py"):
        decl[0].background_parameters()


def test_simultaneous_likelihood_is_the_sum_of_the_points(samples, compiled):
    signal, bkg = compiled
    table = fit_signal.initial_parameters(samples)
    sim = fit_signal.build(samples, signal, bkg, parameters=table, vector_length=L,
                           randomize=False, verbose=False)
    x = truth(sim, samples) + np.random.default_rng(7).normal(0, 0.05, len(table))
    f_sim, g_sim = sim.likelihood.evaluate(x, gradient=True)
    f_sum, g_sum, singles = 0.0, np.zeros(len(table)), []
    for d in samples:
        single = fit_signal.build([d], signal, bkg, parameters=table, vector_length=L,
                                  randomize=False, unused_parameters="ignore", verbose=False)
        f, g = single.likelihood.evaluate(x, gradient=True)
        f_sum += f
        g_sum += g
        singles.append(f)
    print(f"F simultaneous {f_sim!r}, sum of points {f_sum!r}, relative difference "
          f"{abs(f_sim - f_sum) / abs(f_sum):.2e}")
    assert abs(f_sim - f_sum) <= 1e-12 * abs(f_sum)
    # every point contributes, and differently (its own data, constants and energy)
    assert len(set(singles)) == len(samples) and all(f != 0 for f in singles)
    np.testing.assert_allclose(g_sim, g_sum, rtol=1e-10, atol=1e-9 * np.max(np.abs(g_sum)))


def test_declared_likelihood_equals_the_handwritten_and_the_numpy_form(samples, compiled,
                                                                     handwritten):
    """The fit with the declared model against the same fit with the hand-written Cython
    density (value and gradient, 1e-12) and with the numpy reference (value)."""
    signal, bkg = compiled
    table = fit_signal.initial_parameters(samples)
    fast = fit_signal.build(samples, signal, bkg, parameters=table, vector_length=L,
                            randomize=False, verbose=False)
    hand = fit_signal.build(samples, handwritten, bkg, parameters=table, vector_length=L,
                            randomize=False, verbose=False)
    slow = fit_signal.build(samples, None, None, parameters=table, randomize=False,
                            verbose=False)
    assert not slow.use_gradient and fast.use_gradient
    x = truth(fast, samples) + np.random.default_rng(8).normal(0, 0.05, len(table))
    (f_fast, g_fast), (f_hand, g_hand) = (fast.likelihood.evaluate(x, gradient=True),
                                          hand.likelihood.evaluate(x, gradient=True))
    f_slow = slow.likelihood.evaluate(x)[0]
    worst = np.max(np.abs(g_fast - g_hand)) / np.max(np.abs(g_hand))
    print(f"F declared {f_fast!r}, hand-written {f_hand!r}, numpy {f_slow!r}; gradient "
          f"{worst:.1e} of its largest component")
    assert f_fast == pytest.approx(f_hand, rel=1e-12)
    assert f_fast == pytest.approx(f_slow, rel=1e-11)
    assert worst < 1e-10


def test_cached_likelihood_equals_the_full_path(samples, compiled):
    """With only the amplitudes and background fractions free (the fit's sequence), the
    likelihood of the declared models evaluates from their cached components (products of
    production and decay couplings, two photon helicities): F and the gradient of the free
    parameters equal the full path's."""
    signal, bkg = compiled
    table = fit_signal.initial_parameters(samples)
    fitter = fit_signal.build(samples, signal, bkg, parameters=table, vector_length=L,
                              randomize=False, verbose=False)
    free = fit_signal.free_parameter_names(fitter, samples)
    lk = fitter.likelihood
    assert all(p.signal.components is not None and p.signal.components.channels == 2
               for p in lk.points)
    x = truth(fitter, samples) + np.random.default_rng(9).normal(0, 0.05, len(table))
    f_cached, g_cached = lk.evaluate(x, True, free=free)
    assert lk._cached, "the cached evaluation was not used"
    f_full, g_full = lk.evaluate(x * 1.0, True)
    idx = [lk.parameter_index(n) for n in free]
    err = np.max(np.abs(g_cached[idx] - g_full[idx])) / np.max(np.abs(g_full[idx]))
    print(f"cached F {f_cached!r}, full {f_full!r}; gradient {err:.1e}")
    assert f_cached == pytest.approx(f_full, rel=1e-12) and err < 1e-10


def test_fraction_jacobian_equals_finite_differences(samples, compiled):
    signal, bkg = compiled
    d = samples[2]
    fitter = fit_signal.build([d], signal, bkg, vector_length=L, randomize=False,
                              verbose=False, unused_parameters="ignore",
                              parameters=fit_signal.initial_parameters(samples))
    dens = fitter.likelihood.points[0].signal
    fields = fit_signal.fraction_events(d, dens, 3000)
    names = fitter.likelihood.parameters.names
    x = truth(fitter, samples)
    cov = np.eye(len(x))
    ref = fit_signal.fit_fractions(dens, 2000, fields, names, x, cov)
    assert 0 < ref["K1 -> K* pi"][0] < 1 and 0 < ref["K1 -> rho K"][0] < 1
    h = 1e-6
    for comp, _ in fit_signal.FRACTION_COMPONENTS:
        num = np.zeros(len(x))
        for k, n in enumerate(names):
            if n not in dens.parameters:
                continue
            up, down = x.copy(), x.copy()
            up[k] += h
            down[k] -= h
            num[k] = (fit_signal.fit_fractions(dens, 2000, fields, names, up, cov)[comp][0]
                      - fit_signal.fit_fractions(dens, 2000, fields, names, down, cov)[comp][0]
                      ) / (2 * h)
        jac = ref["Jacobian"][comp]
        np.testing.assert_allclose(jac, num, atol=1e-7 * max(1.0, np.max(np.abs(num))),
                                   err_msg=comp)
        # with the unit covariance the error is the norm of the Jacobian
        assert ref[comp][1] == pytest.approx(np.linalg.norm(jac), rel=1e-12)


def test_fit_recovers_the_generated_amplitudes(samples, compiled):
    signal, bkg = compiled
    fitter = fit_signal.build(samples, signal, bkg, vector_length=L, seed=11, verbose=False)
    fit_signal.run_sequence(fitter, samples)
    m = fitter.minuit
    assert m.valid and m.accurate
    free = fit_signal.free_parameter_names(fitter, samples)
    idx = [fitter.likelihood.parameter_index(n) for n in free]
    x, err = fit_results.values(m), fit_results.errors(m)
    pulls = (x[idx] - truth(fitter, samples)[idx]) / err[idx]
    print(f"{len(free)} free parameters, {fitter.likelihood.n_calls} calls, "
          f"{fitter.wall_time:.1f} s; "
          f"largest |pull| {np.max(np.abs(pulls)):.2f}, mean {np.mean(pulls):.2f}, "
          f"rms {np.sqrt(np.mean(pulls ** 2)):.2f}")
    assert np.max(np.abs(pulls)) < 3.5, dict(zip(free, np.round(pulls, 2)))
    # sum of squared pulls: chi2 with len(free) degrees of freedom (correlations ignored)
    assert np.sum(pulls ** 2) < len(free) + 4 * np.sqrt(2 * len(free))
    fractions = fit_signal.fractions_of_fit(fitter, samples, 5000)
    for d in samples:
        ff = fractions[d.name]
        for comp in ("K1 -> K* pi", "K1 -> rho K"):
            assert 0 < ff[comp][0] < 1 and 0 < ff[comp][1] < 0.2, (d.name, comp, ff[comp])
    # projections of the fitted model on the normalization MC describe the data
    for k, d in enumerate(samples):
        proj = fit_signal.projections(fitter, d, k)
        for key, h in proj.items():
            assert h["chi2"] / h["ndf"] < 2.0, (d.name, key, h["chi2"], h["ndf"])
            n_data = fitter.likelihood.points[k].data_events.n_events
            assert np.sum(h["fit"]) == pytest.approx(n_data)
            assert 0 < np.sum(h["background"]) < np.sum(h["fit"])


@pytest.mark.slow
def test_pull_study(tmp_path, compiled, model_cache):
    """A few small pseudoexperiments through vecampfit.studies: every fit
    valid, the pooled pulls of all free parameters centred at 0 with a width
    near 1 (per-parameter pulls need the program's 20 or more experiments)."""
    import functools

    import pull_study
    from vecampfit.studies import run_study
    run = functools.partial(pull_study.experiment, point_names=("kpkmpippim_2000_mev",),
                            data_events=1500, mc_events=40000, vector_length=L,
                            model_cache=model_cache)
    table = run_study(run, 5, seed=3, results=str(tmp_path / "pulls.jsonl"), progress=False)
    assert not table.failed, table.failed
    assert all(r["valid"] for r in table.rows)
    out, pooled, n_valid = pull_study.summary(table)
    assert n_valid == 5 and set(out) == set(table.rows[0]["names"])
    print(pull_study.summary_text(out, pooled, n_valid, len(table)))
    assert abs(np.mean(pooled)) < 3 / np.sqrt(pooled.size) * 1.5
    assert 0.7 < np.std(pooled, ddof=1) < 1.4
    # the study resumes from its results file without running experiments again
    again = run_study(lambda i, s: 1 / 0, 5, seed=3, results=str(tmp_path / "pulls.jsonl"),
                      progress=False)
    assert [r["values"] for r in again.rows] == [r["values"] for r in table.rows]


def test_program_writes_the_result_files(samples, compiled, model_cache, capsys):
    directory = os.path.dirname(samples[0].data_file)
    with pytest.raises(SystemExit):
        fit_signal.main(["--directory", directory, "--process", "kskspippim", "--energy", "1800"])
    assert "data_kskspippim_1800_mev.root" in capsys.readouterr().err
    fitter, decl, fractions = fit_signal.main(
        ["--directory", directory, "--process", "kpkmpippim", "--energy", "2000",
         "--vector-length", str(L), "--model-cache", model_cache, "--seed", "4",
         "--fraction-events", "2000", "--quiet"])
    assert [d.name for d in decl] == ["kpkmpippim_2000_mev"] and fitter.minuit.valid
    assert "Random seed: 4" in capsys.readouterr().out
    for name in ("parameters_signal_result.dat", "results_signal.txt", "signal_result.root",
                 "signal_density.root", "fit_fractions.txt", "signal_projections.txt",
                 "signal_projections_kpkmpippim_2000_mev.png"):
        assert os.path.getsize(os.path.join(directory, name)) > 0, name
    lines = open(os.path.join(directory, "fit_fractions.txt")).read().splitlines()
    assert len(lines) == 1 + len(fit_signal.FRACTION_COMPONENTS)
    assert lines[1].startswith("kpkmpippim_2000_mev K1->K*pi ")
