"""The D0 -> K- pi+ pi0 example's programs end to end, and the hand-written
density of the benchmarks (benchmarks/dz_handwritten) against its numpy twin
(tests/dz_reference.py): values, and the gradient against finite differences."""

import os

import numpy as np
import pytest

import common
import dz_reference as model
import handwritten
from vecampfit.fitter import Density
from vecampfit.fitter.results import errors, values
from vecampfit.isobar import fit_fractions

EXAMPLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples",
                       "dz_kmpippiz")
# D0 and final-state masses (GeV) from vecampfit.particle_data (PDG 2024).
MASSES = model.MASSES


def dalitz_points(n, seed):
    rng = np.random.default_rng(seed)
    md, mk, mpi, mpi0 = MASSES["md"], MASSES["km"], MASSES["pip"], MASSES["piz"]
    out = []
    while sum(len(o[0]) for o in out) < n:
        s1 = rng.uniform((mk + mpi) ** 2, (md - mpi0) ** 2, 4 * n)
        s2 = rng.uniform((mk + mpi0) ** 2, (md - mpi) ** 2, 4 * n)
        with np.errstate(invalid="ignore"):
            fields = model.event_buffer_fields(s1, s2, MASSES)
        ok = np.all([np.isfinite(v) for v in fields.values()], axis=0)
        out.append((s1[ok], s2[ok]))
    s1 = np.concatenate([o[0] for o in out])[:n]
    s2 = np.concatenate([o[1] for o in out])[:n]
    return model.event_buffer_fields(s1, s2, MASSES)


@pytest.fixture(scope="module")
def compiled(model_cache):
    mods = handwritten.compile_signal((1, 4, 8), build_dir=model_cache)
    return {(length, precision): Density.from_model(mod, precision,
                                                    constants=handwritten.CONSTANTS)
            for length, mod in mods.items() for precision in ("float64", "float32")}


def cleo_parameters():
    defaults = model.default_parameters()
    return np.array([defaults[n] for n in model.parameter_names()])


def perturbed_parameters(seed):
    rng = np.random.default_rng(seed)
    p = cleo_parameters()
    names = model.parameter_names()
    for i, n in enumerate(names):
        if n.endswith("_P"):
            p[i] += rng.uniform(-30, 30)
        elif n.endswith("_A"):
            p[i] *= rng.uniform(0.7, 1.3)
        elif n.endswith(("_M", "_G", "_R")):
            p[i] *= rng.uniform(0.97, 1.03)
    return p


def test_the_module_describes_the_python_model(compiled):
    d = compiled[4, "float64"]
    assert d.event_fields == model.EVENT_FIELDS
    assert d.parameters == tuple(model.parameter_names())
    assert d.constants == handwritten.CONSTANTS


@pytest.mark.parametrize("seed", [1, 2])
def test_cython_density_equals_numpy(compiled, seed):
    fields = dalitz_points(203, seed)
    params = cleo_parameters() if seed == 1 else perturbed_parameters(seed)
    ref = model.signal_density(fields, params, MASSES)
    worst = 0.0
    for length in (1, 4, 8):
        d64, d32 = compiled[length, "float64"], compiled[length, "float32"]
        values = d64.evaluate(fields, params)
        err = np.max(np.abs(values - ref) / ref)
        worst = max(worst, err)
        assert err < 1e-12, (length, err)
        values32 = d32.evaluate(fields, params)
        assert values32.dtype == np.float32
        assert np.max(np.abs(values32 - ref) / ref) < 1e-3
        v, g = d64.evaluate(fields, params, True)
        # The gradient path groups operations differently: equal to rounding.
        np.testing.assert_allclose(v, values, rtol=1e-13)
    print(f"largest relative difference Cython vs numpy (float64): {worst:.2e}")


def test_gradient_against_finite_differences(compiled):
    fields = dalitz_points(64, 5)
    params = perturbed_parameters(5)
    dens = compiled[4, "float64"]
    blocks = dens.event_buffer(fields)
    _, grad = dens.evaluate(blocks, params, True)
    names = model.parameter_names()
    worst = 0.0
    for k, name in enumerate(names):
        h = 1e-6 * max(1.0, abs(params[k]))
        pp, pm = params.copy(), params.copy()
        pp[k] += h
        pm[k] -= h
        fd = (dens.evaluate(blocks, pp) - dens.evaluate(blocks, pm)) / (2 * h)
        scale = np.max(np.abs(fd)) + 1e-300
        err = np.max(np.abs(grad[k] - fd)) / scale
        worst = max(worst, err)
        assert err < 1e-6, (name, err)
    print(f"largest gradient difference from central finite differences: {worst:.2e} (relative to max |dS/dp|)")


def test_programs_generate_fit_and_plot(tmp_path, model_cache):
    """The example's programs end to end on a small sample: the fit recovers
    the generated magnitudes, phases and background fraction within errors."""
    import fit_background
    import fit_signal
    import generate
    import plot
    from vecampfit.fitter import read_parameter_file

    d = str(tmp_path)
    generate.main(["--directory", d, "--events", "6000", "--mc-events", "60000",
                   "--background-events", "6000", "--background-fraction", "0.1", "--seed", "5"])
    opts = ["--directory", d, "--model-cache", model_cache, "--seed", "2"]
    fit_background.main(opts)
    fitter = fit_signal.main(opts)
    assert fitter.minuit.valid
    truth = read_parameter_file(os.path.join(EXAMPLE, "parameters_signal_mc.dat"))
    v, e = values(fitter.minuit), errors(fitter.minuit)
    pulls = {}
    for k, name in enumerate(fitter.likelihood.parameters.names):
        if e[k] > 0:
            t = truth[name].value
            d_v = v[k] - t
            if name.endswith("_P"):
                d_v = (d_v + 180) % 360 - 180
            pulls[name] = d_v / e[k]
    # Couplings are reported with magnitudes >= 0 (fit_signal.canonical_couplings).
    for k, name in enumerate(fitter.likelihood.parameters.names):
        if name.endswith("_A") and e[k] > 0:
            assert v[k] > 0, name
    print("pulls:", {k: round(p, 2) for k, p in pulls.items()})
    assert len(pulls) == 15
    assert max(abs(p) for p in pulls.values()) < 4
    for name in ("parameters_signal_result.dat", "results.txt", "signal_result.root",
                 "signal_density.root", "parameters_background_result.dat"):
        assert os.path.exists(os.path.join(d, name)), name
    check_fit_fractions(fitter, d, opts, truth)
    hist = plot.main(["--directory", d, "--bins", "30"])
    # The fit describes the data: chi2 per bin of each projection (bins with
    # at least 10 expected events) near 1, where phase space alone (the
    # normalization events unweighted, same total) is far off.
    import uproot
    with uproot.open(os.path.join(d, "signal_density.root")) as f:
        norm = f["normalization_0"].arrays(library="np")
    for field, h in hist.items():
        flat = np.histogram(norm[field], h.edges)[0] * (h.data.sum() / len(norm[field]))
        use = h.fit >= 10
        chi2_fit = np.sum((h.data[use] - h.fit[use]) ** 2 / h.fit[use]) / use.sum()
        chi2_flat = np.sum((h.data[use] - flat[use]) ** 2 / np.maximum(flat[use], 1)) / use.sum()
        print(f"{field}: chi2 per bin {chi2_fit:.2f} (fit), {chi2_flat:.1f} (phase space)")
        assert chi2_fit < 2.0, field
        assert chi2_flat > 5.0, field
        # The three largest resonances and the background, each below the fit.
        assert len(h.components) == 4 and "background" in h.components, list(h.components)
        assert set(h.components) - {"background"} <= {r[0] for r in model.RESONANCES} | {"NR"}
        for name, c in h.components.items():
            assert 0 < c.sum() < h.fit.sum(), (field, name)
    from matplotlib.image import imread
    for name, (height, width) in (("projections.png", (600, 1800)),
                                  ("dalitz_plot.png", (660, 720))):
        image = imread(os.path.join(d, name))
        assert image.shape[:2] == (height, width), name
        assert np.ptp(image[..., :3]) > 0.5, name
    assert open(os.path.join(d, "projections.pdf"), "rb").read(4) == b"%PDF"

    # Grid normalization: no MC needed, and the same answer within the MC precision.
    grid = fit_signal.main(opts + ["--grid-integration", "200", "--no-density-file"])
    assert grid.minuit.valid
    for name in ("KSTM1_A", "KSTZ1_A", "BACKGROUND_FRACTION"):
        k = fitter.likelihood.parameter_index(name)
        assert abs(values(grid.minuit)[k] - v[k]) < 1.5 * e[k], name

    # Without background (the data's 10 % background is then fitted as signal),
    # with the density vecampfit.isobar generates and with the hand-written
    # one of the benchmarks: the background fraction is no parameter of these
    # fits, and both densities reach the same minimum from the same start.
    fits = [fit_signal.main(opts + ["--no-background", "--no-density-file"])]
    args = fit_signal.parse(opts + ["--no-background", "--quiet"])
    hand = handwritten.signal_density(handwritten.compile_signal([8], model_cache), 8, "float64")
    fits.append(fit_signal.build(args, signal=hand))
    fit_signal.run_sequence(fits[-1], args)
    for f in fits:
        assert f.minuit.valid
        assert "BACKGROUND_FRACTION" not in f.likelihood.parameters.names
    free = errors(fits[0].minuit) > 0
    assert free.sum() == 14
    x0, x1 = values(fits[0].minuit), values(fits[1].minuit)
    diff = np.max(np.abs(x1 - x0)[free] / errors(fits[0].minuit)[free])
    print(f"hand-written against generated density: values within {diff:.1e} errors")
    assert diff < 1e-3
    # Couplings in real and imaginary parts (IsobarModel.cartesian): the same
    # minimum (to MIGRAD's tolerance, EDM < 2e-4), re + i im = a exp(i phi)
    # within a small fraction of the errors.
    cart = fit_signal.main(opts + ["--no-background", "--no-density-file", "--cartesian",
                                   "--fixed-seed"])
    assert cart.minuit.valid
    print(f"F: polar {fits[0].minuit.fval:.6f}, Cartesian {cart.minuit.fval:.6f}")
    assert cart.minuit.fval == pytest.approx(fits[0].minuit.fval, abs=2e-3)
    polar = dict(zip(fits[0].likelihood.parameters.names, values(fits[0].minuit)))
    worst = 0.0
    for key in [n[:-2] for n in fit_signal.names("A")]:
        c = polar[f"{key}_A"] * np.exp(1j * np.radians(polar[f"{key}_P"]))
        for part, v in (("RE", c.real), ("IM", c.imag)):
            k = cart.likelihood.parameter_index(f"{key}_{part}")
            assert errors(cart.minuit)[k] > 0
            worst = max(worst, abs(values(cart.minuit)[k] - v) / errors(cart.minuit)[k])
    print(f"Cartesian against polar couplings: within {worst:.1e} errors")
    assert worst < 0.05


def check_fit_fractions(fitter, d, opts, truth):
    """results.txt holds the fit fractions of the isobar layer at the fitted
    values with errors from the error matrix; they agree with the fractions
    of the generated values (same layer, same MC) within their errors."""
    import fit_signal
    from vecampfit.fitter.results import covariance_matrix
    model = common.signal_model()
    names = model.parameter_names()
    sample = fit_signal.normalization_sample(fit_signal.parse(opts))
    ff = fit_fractions(model, *sample, params={p: fitter.minuit.values[p] for p in names},
                       covariance=covariance_matrix(fitter.minuit, names), covariance_names=names)
    lines = open(os.path.join(d, "results.txt")).read().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Fit fractions"))
    table = {}
    for line in lines[start + 2:]:
        parts = line.split()
        if parts and parts[0] in ff.components:
            table[parts[0]] = [float(v) for v in parts[-3:]]
    assert list(table) == list(ff.components)
    true_ff = fit_fractions(model, *sample, params={p: truth[p].value for p in names})
    for k, c in enumerate(ff.components):
        value, error, mc_error = table[c]
        assert value == pytest.approx(100 * ff.matrix[k, k], abs=6e-4)
        assert error == pytest.approx(100 * ff.errors[k, k], abs=6e-4)
        assert mc_error == pytest.approx(100 * ff.normalization_errors[k, k], abs=6e-4)
        assert error > 0, c
        pull = (ff.matrix[k, k] - true_ff.matrix[k, k]) / ff.errors[k, k]
        print(f"{c}: fit fraction {value:.3f} +- {error:.3f} %, generated "
              f"{100 * true_ff.matrix[k, k]:.3f} % ({pull:+.2f} sigma)")
        assert abs(pull) < 4, c
    # The errors come from the error matrix: with a zero matrix they vanish.
    none = fit_fractions(model, *sample, params={p: fitter.minuit.values[p] for p in names},
                         covariance=np.zeros((len(names), len(names))), covariance_names=names)
    assert np.all(np.diag(none.errors) == 0)


def test_random_start_scan_reports_fit_fractions_per_solution(tmp_path, model_cache, capsys):
    """run.py on a small sample with a scan of two random starts: every solution
    line has its fit fractions with errors, equal to the layer's at that
    solution's minimum."""
    import fit_signal
    import run
    d = str(tmp_path)
    fitter = run.main(["--directory", d, "--events", "4000", "--mc-events", "40000",
                       "--seed", "3", "--starts", "2", "--model-cache", model_cache])
    out = capsys.readouterr().out
    assert "Fit fractions (vecampfit.isobar" in out
    lines = out.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith("== scan of 2 random starts"))
    solution_lines = [k for k in range(i, len(lines)) if lines[k].startswith("  F = ")]
    assert solution_lines
    for k in solution_lines:
        assert lines[k + 1].startswith("    fit fractions: RHOP1 ")
        assert lines[k + 1].count("+-") == 8     # the 8 components
    opts = ["--directory", d, "--model-cache", model_cache, "--no-density-file"]
    solutions = fit_signal.scan(opts, 2, 3 + 1000)
    assert sum(s["count"] for s in solutions) == 2
    best = solutions[0]["fit_fractions"]
    assert np.all(np.diag(best.errors) > 0)
    if abs(solutions[0]["fval"] - fitter.minuit.fval) < 0.5:
        # The scan's best minimum is the fit's: the same fit fractions.
        ref = fit_signal.fitted_fractions(fitter, common.signal_model(),
                                          fit_signal.normalization_sample(fit_signal.parse(opts)))
        np.testing.assert_allclose(np.diag(best.matrix), np.diag(ref.matrix), atol=1e-3)
    with pytest.raises(ValueError, match="starts"):
        fit_signal.scan(opts, 0, 1)


def test_pull_study_with_cartesian_couplings_on_a_grid(tmp_path, model_cache):
    """pseudoexperiments.py --cartesian --grid-integration --background-shape
    generation: every fit valid, the pulls of <name>_RE, <name>_IM against
    A cos P, A sin P of the generated values, the generation's background."""
    import pseudoexperiments
    from vecampfit.fitter import read_parameter_file

    d = str(tmp_path)
    table, summary = pseudoexperiments.main(
        ["--directory", d, "--experiments", "6", "--events", "2000", "--mc-events", "1000",
         "--seed", "3", "--cartesian", "--background-shape", "generation",
         "--grid-integration", "120", "--model-cache", model_cache])
    assert len(table.ok) == 6 and all(r["valid"] for r in table.ok)
    truth = read_parameter_file(os.path.join(EXAMPLE, "parameters_signal_mc.dat"))
    t = pseudoexperiments.true_values(cartesian=True)
    z = truth["KSTM2_A"].value * np.exp(1j * np.radians(truth["KSTM2_P"].value))
    assert (t["KSTM2_RE"], t["KSTM2_IM"]) == pytest.approx((z.real, z.imag), rel=1e-14)
    assert sorted(summary) == sorted([f"{k}_{p}" for k in ("KSTM1", "KSTZ1", "KST0M", "KST0Z",
                                                            "RHOP2", "KSTM2", "NR")
                                      for p in ("RE", "IM")] + ["BACKGROUND_FRACTION"])
    for name, s in summary.items():
        print(f"{name:20s} pull mean {s['mean']:+.2f} +- {s['mean_error']:.2f}, "
              f"width {s['width']:.2f}")
        # The mean of 6 unit-Gaussian pulls has sigma 0.41; their sample width
        # lies in 0.2-2.0 with probability 0.998.
        assert abs(s["mean"]) < 4 / np.sqrt(6), name
        assert 0.15 < s["width"] < 2.2, name
    assert open(os.path.join(d, "parameters_background_result.dat")).read() == \
        open(os.path.join(EXAMPLE, "parameters_background.dat")).read()


@pytest.mark.slow
def test_pulls_over_pseudoexperiments(tmp_path, model_cache):
    """20 pseudoexperiments of 2,000 events (10 % background) generated with
    the CLEO values and fitted by the example's sequence from the generated
    values: the pulls of the magnitudes, phases and background fraction have
    mean 0 and width 1 within their uncertainties."""
    import fit_background
    import fit_signal
    import generate
    from vecampfit.fitter import read_parameter_file

    n_exp = 20
    d = str(tmp_path)
    generate.main(["--directory", d, "--events", "2000", "--mc-events", "100000",
                   "--background-events", "20000", "--pseudoexperiments", str(n_exp),
                   "--seed", "11"])
    opts = ["--directory", d, "--model-cache", model_cache, "--fixed-seed"]
    fit_background.main(opts)
    truth = read_parameter_file(os.path.join(EXAMPLE, "parameters_signal_mc.dat"))
    pulls = {}
    for k in range(n_exp):
        fitter = fit_signal.main(opts + ["--pseudoexperiment", str(k), "--no-density-file"])
        assert fitter.minuit.valid, k
        for i, name in enumerate(fitter.likelihood.parameters.names):
            if errors(fitter.minuit)[i] > 0:
                delta = values(fitter.minuit)[i] - truth[name].value
                if name.endswith("_P"):
                    delta = (delta + 180) % 360 - 180
                pulls.setdefault(name, []).append(delta / errors(fitter.minuit)[i])
    pulls = {name: np.array(p) for name, p in pulls.items()}
    assert len(pulls) == 15 and all(len(p) == n_exp for p in pulls.values())
    for name, p in pulls.items():
        print(f"{name:20s} pull mean {p.mean():+.2f} +- {1 / np.sqrt(n_exp):.2f}, "
              f"width {p.std(ddof=1):.2f}")
    every = np.concatenate(list(pulls.values()))
    mean, width = every.mean(), every.std(ddof=1)
    print(f"all {every.size} pulls: mean {mean:+.3f}, width {width:.3f}")
    # Per parameter: the mean of 20 unit-Gaussian pulls has sigma 0.22.
    for name, p in pulls.items():
        assert abs(p.mean()) < 4 / np.sqrt(n_exp), name
        assert 0.5 < p.std(ddof=1) < 1.6, name
    # All together (correlated within an experiment, hence the margins).
    assert abs(mean) < 0.25
    assert 0.85 < width < 1.15


def test_cached_likelihood_equals_the_full_one(tmp_path, model_cache):
    """The CLEO model's components: with only magnitudes, phases and the
    background fraction free, the cached likelihood and its gradient equal
    the full path's (1e-10), and the signal fit ends at the same values (1e-4
    of the errors)."""
    import fit_signal
    import generate
    d = str(tmp_path)
    generate.main(["--directory", d, "--events", "3000", "--mc-events", "30000",
                   "--background-events", "0", "--seed", "8"])
    results = {}
    args = fit_signal.parse(["--directory", d, "--model-cache", model_cache, "--seed", "4",
                             "--quiet"])
    for cache in ("never", "auto"):
        f = fit_signal.build(args)
        f.likelihood.cache = cache
        free = fit_signal.names("A") + fit_signal.names("P") + [common.BACKGROUND_FRACTION]
        x = f.initial_values.copy()
        results[cache, "F"] = f.likelihood.evaluate(x, gradient=True, free=free)
        # Converged well below the errors, so that the two minima can be compared at 1e-4.
        f.minuit.tol = 1e-6
        fit_signal.run_sequence(f, args)
        assert f.minuit.valid
        results[cache] = (values(f.minuit), errors(f.minuit))
        idx = [f.likelihood.parameter_index(n) for n in free]
    (v0, g0), (v1, g1) = results["never", "F"], results["auto", "F"]
    grel = np.max(np.abs(g1[idx] - g0[idx])) / np.max(np.abs(g0[idx]))
    print(f"F {v0:.12g}: cached relative difference {abs(v1 / v0 - 1):.1e}, gradient {grel:.1e}")
    assert abs(v1 / v0 - 1) < 1e-10 and grel < 1e-8
    (x0, e0), (x1, e1) = results["never"], results["auto"]
    ok = e0 > 0
    print(f"largest difference of fitted values: {np.max(np.abs(x1 - x0)[ok] / e0[ok]):.1e} errors")
    assert np.all(np.abs(x1 - x0)[ok] < 1e-4 * e0[ok])
