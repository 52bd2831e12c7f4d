"""The e+e- -> K K-bar pi pi example: configuration, simulated detector and generation.

The track efficiency and the data/MC ratio against the paper's formulas
written out here, the smearing widths recovered from smeared tracks, the
reconstructed fraction against the mean efficiency, accept-reject signal
events against phase-space events weighted with the density, and the ROOT
files of generate_kkpipi.py (documented branches, weights, counts).
"""

import math
import os

import numpy as np
import pytest


EXAMPLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples",
                       "epem_kkpipi")
import common_kkpipi as common  # noqa: E402
import config  # noqa: E402
import detector  # noqa: E402
from vecampfit import generation  # noqa: E402


def test_points():
    assert len(config.POINTS) == 10
    for p in config.POINTS.values():
        assert p.efficiency_order == (4 if p.process == "kpkmpippim" else 8)
        assert p.efficiency_correction_order == 1 and p.background_order == 2
        assert p.file("mc") == f"mc_{p.process}_{p.energy_mev}_mev.root"
    sel = config.select(["kskspippim"], [1850, 2000], data_events=5)
    assert [p.name for p in sel] == ["kskspippim_1850_mev", "kskspippim_2000_mev"]
    assert all(p.data_events == 5 for p in sel)
    with pytest.raises(ValueError, match="no energy point"):
        config.select(None, [1700])
    with pytest.raises(ValueError, match="unknown process"):
        config.select(["pippim"])
    with pytest.raises(ValueError, match="unknown sample"):
        sel[0].file("signal")


def _track(pt, cos_theta, phi=0.3, mass=0.139):
    pz = pt * cos_theta / math.sqrt(1 - cos_theta ** 2)
    p = np.array([[pt * math.cos(phi), pt * math.sin(phi), pz, 0.0]])
    p[0, 3] = math.sqrt(pt * pt + pz * pz + mass * mass)
    return p


@pytest.mark.parametrize("pt,cos_theta", [(0.5, 0.0), (0.2, 0.7), (0.1, -0.3), (0.8, 0.8),
                                          (0.3, -0.85), (0.05, 0.1)])
def test_track_efficiency_formula(pt, cos_theta):
    def t(x, x0, k):
        return 1 / (1 + math.exp(-k * (x - x0)))
    ref = (0.92 * (1 - 0.2 * math.exp(-5 * pt)) * t(cos_theta, -0.8, 200)
           * t(-cos_theta, -0.8, 200) * t(pt, 0.1, 200))
    p = _track(pt, cos_theta)
    assert detector.track_efficiency(p)[0] == pytest.approx(ref, rel=1e-12, abs=1e-300)
    assert detector.data_mc_ratio(p)[0] == pytest.approx(0.99 - 0.02 * math.exp(-pt), rel=1e-14)


def test_acceptance_shape():
    """Full efficiency in the barrel above the p_t threshold, none outside."""
    assert detector.track_efficiency(_track(1.0, 0.0))[0] == pytest.approx(
        0.92 * (1 - 0.2 * math.exp(-5)), rel=1e-6)
    assert detector.track_efficiency(_track(1.0, 0.9))[0] < 1e-8
    assert detector.track_efficiency(_track(0.05, 0.0))[0] < 1e-4


def test_smearing_widths():
    rng = np.random.default_rng(4)
    mass = 0.493677
    p = np.repeat(_track(0.6, 0.4, 1.0, mass), 40000, axis=0)
    rec = detector.smear(p, mass, rng)
    sp, sc, sf = (w[0] for w in detector.resolution_widths(p[:1]))

    def polar(q):
        pm = np.linalg.norm(q[:, :3], axis=1)
        return pm, q[:, 2] / pm, np.arctan2(q[:, 1], q[:, 0])

    pm0, c0, f0 = polar(p)
    pm1, c1, f1 = polar(rec)
    for x, w in (((pm1 - pm0) / pm0, sp), (c1 - c0, sc), (f1 - f0, sf)):
        assert abs(np.mean(x)) < 4 * w / np.sqrt(len(x))
        assert np.std(x) == pytest.approx(w, rel=0.02)
    np.testing.assert_allclose(rec[:, 3] ** 2 - np.sum(rec[:, :3] ** 2, 1), mass ** 2, rtol=1e-9)


def test_reconstructed_fraction_and_weights():
    point = config.POINTS["kpkmpippim_1900_mev"]
    m = point.masses()
    rng = np.random.default_rng(5)
    gen = generation.generate_events(None, point.sqrt_s, [m[k] for k in common.PARTICLES],
                                     20000, names=common.PARTICLES, seed=rng)
    for data in (False, True):
        ok, rec, w = detector.simulate(gen, m, rng, data=data)
        eff = detector.event_efficiency(gen, data=data)
        sigma = math.sqrt(np.sum(eff * (1 - eff))) / len(eff)
        assert abs(ok.mean() - eff.mean()) < 4 * sigma
    ref = np.prod([0.99 - 0.02 * np.exp(-np.hypot(gen[k][:, 0], gen[k][:, 1]))
                   for k in common.PARTICLES], axis=0)
    np.testing.assert_allclose(w, ref, rtol=1e-14)
    assert 0.1 < ok.mean() < 0.5


@pytest.mark.slow
@pytest.mark.parametrize("with_detector", [False, True])
def test_accept_reject_follows_the_density(with_detector):
    """Histogram of M(K1 pi1 pi2) of accept-reject signal events against
    phase-space events weighted with the density (times the data efficiency
    for reconstructed events, generate.reconstructed_sample): chi2 per bin."""
    import generate_kkpipi as generate
    point = config.POINTS["kskspippim_2000_mev"]
    rng = np.random.default_rng(6)

    def dens(mom):
        return common.signal_density_of_momenta(mom, point)

    if with_detector:
        sig, _ = generate.reconstructed_sample(dens, point, 1500, rng, data=True, batch=20000)
    else:
        top = generate.density_maximum(dens, point, rng, n=50000)
        sig = generate.generate_momenta(dens, point, 1500, rng, maximum=top)
    m = point.masses()
    ps = generation.phase_space(point.sqrt_s, [m[k] for k in common.PARTICLES], 60000, seed=rng)
    mom = dict(zip(common.PARTICLES, ps.momenta))
    w = ps.weights * dens(mom)
    if with_detector:
        w = w * detector.event_efficiency(mom, data=True)

    def m3(q):
        s = q["K1"] + q["pi1"] + q["pi2"]
        return np.sqrt(s[:, 3] ** 2 - np.sum(s[:, :3] ** 2, 1))

    bins = np.linspace(1.0, 1.75, 11)
    h, _ = np.histogram(m3(sig), bins)
    hw, _ = np.histogram(m3(mom), bins, weights=w)
    hw2, _ = np.histogram(m3(mom), bins, weights=w * w)
    expected = hw / hw.sum() * h.sum()
    var = expected + hw2 / hw.sum() ** 2 * h.sum() ** 2
    keep = expected > 5
    chi2 = np.sum((h[keep] - expected[keep]) ** 2 / var[keep])
    assert chi2 / keep.sum() < 2.5, chi2 / keep.sum()
    # and it is not phase space
    hp, _ = np.histogram(m3(mom), bins, weights=ps.weights)
    flat = hp / hp.sum() * h.sum()
    assert np.sum((h[keep] - flat[keep]) ** 2 / flat[keep]) / keep.sum() > 10


def test_generate_program_writes_the_documented_files(tmp_path):
    import generate_kkpipi as generate
    from vecampfit.root_io import read_events
    d = str(tmp_path)
    generate.main(["--directory", d, "--process", "kpkmpippim", "--energy", "1800",
                   "--data-events", "300", "--mc-events", "3000", "--background-events", "200",
                   "--seed", "3"])
    point = config.POINTS["kpkmpippim_1800_mev"]
    mc, _ = read_events(os.path.join(d, point.file("mc")))
    gen_branches = [common.GEN_BRANCH[k] for k in common.PARTICLES]
    rec_branches = [common.BRANCH[k] for k in common.PARTICLES]
    for b in gen_branches + rec_branches + ["reconstructed", "weight"]:
        assert b in mc, b
    assert len(mc["weight"]) == 3000
    gen = common.momenta_of(mc, generator_level=True)
    np.testing.assert_allclose(mc["weight"], detector.event_weight(gen), rtol=1e-14)
    # generator-level four-momenta add up to (0, 0, 0, sqrt(s))
    total = sum(gen.values())
    np.testing.assert_allclose(total, np.tile([0, 0, 0, 1.8], (3000, 1)), atol=1e-12)
    data, _ = read_events(os.path.join(d, point.file("data")))
    assert len(data["signal"]) == 300 and np.all(data["reconstructed"])
    assert 10 < np.sum(~data["signal"].astype(bool)) < 60
    bkg, _ = read_events(os.path.join(d, point.file("background")))
    assert len(bkg["weight"]) == 200
    # the data efficiency applied: every data event has a non-zero efficiency
    assert np.all(detector.event_efficiency(common.momenta_of(data, True), data=True) > 0)


@pytest.mark.parametrize("program", ["generate_kkpipi", "fit_efficiency", "fit_resolution",
                                     "fit_background_kkpipi", "run_kkpipi"])
def test_programs_have_help(program, capsys):
    import importlib
    mod = importlib.import_module(program)
    with pytest.raises(SystemExit) as exc:
        mod.main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "--directory" in out and "--process" in out and "--energy" in out


def test_bad_options_are_refused(capsys):
    import generate_kkpipi as generate
    with pytest.raises(SystemExit) as exc:
        generate.main(["--energy", "1700"])
    assert exc.value.code == 2
    assert "1700" in capsys.readouterr().err
