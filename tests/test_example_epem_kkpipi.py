"""The e+e- -> K K-bar pi pi example: the amplitude (numpy reference).

Isospin factors against sympy's Clebsch-Gordan coefficients, Jacob-Wick
eq. (B5) against a projection of the LS-coupled state onto helicity states
(spherical harmonics from scipy, spin rotations from matrix exponentials), the angular
distribution of a single helicity amplitude, parity, charge conjugation and
the symmetries of the KS KS pi+ pi- amplitude, and the seven phase-space
variables against a direct evaluation.
"""

import os

import numpy as np
import pytest


EXAMPLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples",
                       "epem_kkpipi")
import model_kkpipi as model  # noqa: E402
from vecampfit import generation, kinematics  # noqa: E402

NAMES = ("K1", "K2", "pi1", "pi2")


def phase_space_momenta(process, n, seed, sqrt_s=2.0):
    m = model.masses(process)
    ps = generation.phase_space(sqrt_s, [m[k] for k in NAMES], n, seed=seed)
    return dict(zip(NAMES, ps.momenta))


def fields_of(momenta, process):
    c = model.constants(process)
    return model.signal_event_fields(momenta, c["M_K"], c["M_PI"])


# ---------------------------------------------------------------------------
# Clebsch-Gordan and Jacob-Wick
# ---------------------------------------------------------------------------

def test_isospin_factors_against_sympy():
    """The isospin factors of the module description, from sympy's CG (the
    coefficients themselves are tested with vecampfit.quantum_mechanics)."""
    from sympy import S
    from sympy.physics.quantum.cg import CG
    c = model.isospin_coefficients("kpkmpippim")
    assert c["a"] == pytest.approx(float(CG(S(1) / 2, -S(1) / 2, 1, 1, S(1) / 2, S(1) / 2).doit()
                                         * CG(S(1) / 2, S(1) / 2, 1, -1, S(1) / 2, -S(1) / 2).doit()))
    assert c["c"] == pytest.approx(float(CG(1, 0, S(1) / 2, S(1) / 2, S(1) / 2, S(1) / 2).doit()
                                         * CG(1, 1, 1, -1, 1, 0).doit()))
    assert c["b"] == 0
    c0 = model.isospin_coefficients("kskspippim")
    assert c0["b"] == pytest.approx(float(CG(S(1) / 2, S(1) / 2, 1, -1, S(1) / 2, -S(1) / 2).doit()
                                          * CG(S(1) / 2, -S(1) / 2, 1, 1, S(1) / 2, S(1) / 2).doit()))
    assert c0["a"] == -c0["b"]
    assert c0["c"] == pytest.approx(2 * float(CG(1, 0, S(1) / 2, -S(1) / 2, S(1) / 2, -S(1) / 2).doit()
                                              * CG(1, 1, 1, -1, 1, 0).doit()))


def _spin_matrices(s):
    """J_y and J_z for spin s in the basis m = s, s-1, ..., -s."""
    ms = np.arange(s, -s - 1, -1, dtype=float)
    jp = np.zeros((len(ms), len(ms)))
    for k in range(1, len(ms)):
        m = ms[k]
        jp[k - 1, k] = np.sqrt(s * (s + 1) - m * (m + 1))
    jy = (jp - jp.T) / 2j
    return ms, jy, np.diag(ms)


def _wigner_D(s, alpha, beta, gamma):
    """D^s_{m m'}(alpha, beta, gamma) = <s m| e^{-i alpha J_z} e^{-i beta J_y} e^{-i gamma J_z} |s m'>."""
    from scipy.linalg import expm
    ms, jy, jz = _spin_matrices(s)
    d = expm(-1j * alpha * jz) @ expm(-1j * beta * jy) @ expm(-1j * gamma * jz)
    return {(int(ms[i]), int(ms[k])): d[i, k] for i in range(len(ms)) for k in range(len(ms))}


def _ylm(l, m, theta, phi):
    import scipy.special as sp
    if hasattr(sp, "sph_harm_y"):
        return sp.sph_harm_y(l, m, theta, phi)
    return sp.sph_harm(m, l, phi, theta)


@pytest.mark.parametrize("j,s1,l", [(1, 1, 0), (1, 1, 2), (1, 0, 1), (2, 1, 1), (2, 1, 3),
                                    (1, 1, 1), (0, 1, 1)])
def test_jacob_wick_b5_against_projection(j, s1, l):
    """<(theta, phi), lambda | J M; L S> of the LS-coupled state
    sum <L mL s1 m1|J M> Y_L^mL |s1 m1> with particle 1 in the helicity state
    R(phi, theta, 0)|s1 lambda> (particle 2 spinless) equals
    sqrt((2J+1)/4pi) D^{J*}_{M lambda}(phi, theta, 0) H_lambda with H from eq. (B5)."""
    from sympy.physics.quantum.cg import CG
    rng = np.random.default_rng(3 + j + 10 * l)
    h = model.helicity_amplitudes(j, s1, 0, {(l, s1): 1.0})
    for _ in range(4):
        theta, phi = rng.uniform(0.1, 3.0), rng.uniform(-3, 3)
        d1 = _wigner_D(s1, phi, theta, 0)
        dj = _wigner_D(j, phi, theta, 0)
        for big_m in range(-j, j + 1):
            for lam in range(-s1, s1 + 1):
                lhs = 0
                for ml in range(-l, l + 1):
                    m1 = big_m - ml
                    if abs(m1) > s1:
                        continue
                    cg = float(CG(l, ml, s1, m1, j, big_m).doit())
                    lhs += cg * _ylm(l, ml, theta, phi) * np.conj(d1[(m1, lam)])
                hl = h.get((lam, 0), 0.0) if abs(lam) <= j else 0.0
                rhs = np.sqrt((2 * j + 1) / (4 * np.pi)) * np.conj(dj[(big_m, lam)]) * hl \
                    if abs(lam) <= j else 0.0
                assert abs(lhs - rhs) < 1e-12, (j, s1, l, big_m, lam, lhs, rhs)


def test_jacob_wick_known_values():
    """1 -> 1 + 0: S wave gives H_lambda = 1/sqrt(3) for every lambda, the
    D wave H_0 = -sqrt(2/3), H_+-1 = sqrt(1/6) (the ratio -2 of the
    Cartesian form eps . (3 k k - 1) . eps*)."""
    hs = model.helicity_amplitudes(1, 1, 0, {(0, 1): 1.0})
    hd = model.helicity_amplitudes(1, 1, 0, {(2, 1): 1.0})
    for lam in (-1, 0, 1):
        assert hs[(lam, 0)] == pytest.approx(1 / np.sqrt(3), rel=1e-15)
    assert hd[(0, 0)] == pytest.approx(-np.sqrt(2 / 3), rel=1e-15)
    assert hd[(1, 0)] == pytest.approx(np.sqrt(1 / 6), rel=1e-15)
    assert hd[(-1, 0)] == pytest.approx(np.sqrt(1 / 6), rel=1e-15)


# ---------------------------------------------------------------------------
# Angular distributions of single helicity amplitudes
# ---------------------------------------------------------------------------

def _single_helicity_parameters(energy):
    """Production and K* pi decay of K1(1270) in helicity 0 only: D = -sqrt(2) S
    makes H_{+-1} = 0 (test_jacob_wick_known_values)."""
    v = dict.fromkeys(model.parameter_names(energy), 0.0)
    v[f"K1_1270_E{energy}_S_RE"] = 1.0
    v[f"K1_1270_E{energy}_D_RE"] = -np.sqrt(2)
    v["K1_1270_KSTPI_S_RE"] = 0.7
    v["K1_1270_KSTPI_D_RE"] = -0.7 * np.sqrt(2)
    v["K1_1270_KSTPI_D_IM"] = 0.0
    return model.parameter_vector(energy, v)


def test_single_helicity_amplitude_gives_the_d_function_distribution():
    """With only lambda(K1) = 0 and lambda(K*) = 0, the chain-1 amplitude of path a
    at fixed masses is e^{i lg phi_g} d^1_{lg 0}(theta_g) d^1_{00}(theta_K1)
    d^1_{00}(theta_K*) times a constant, for events built from the helicity
    variables by vecampfit.kinematics.helicity_to_momenta."""
    from vecampfit.quantum_mechanics import d_function
    process, energy = "kpkmpippim", 2000
    c = model.constants(process)
    m = model.masses(process)
    params = _single_helicity_parameters(energy)
    rng = np.random.default_rng(11)
    n = 50
    angles = {name: (rng.uniform(-0.98, 0.98, n), rng.uniform(-np.pi, np.pi, n))
              for name in ("gamma*", "K1R", "KST")}
    masses = {"gamma*": 2.0, "K1R": 1.3, "KST": 0.9, "K1": m["K1"], "K2": m["K2"],
              "pi1": m["pi1"], "pi2": m["pi2"]}
    mom = kinematics.helicity_to_momenta(model.TREES["a"], masses, angles)
    fields = model.signal_event_fields({k: mom[k] for k in NAMES}, c["M_K"], c["M_PI"])
    for lg in (-1, 1):
        a = model.chain_amplitude(fields, params, energy, c, lg, 1, paths=("a",),
                                  resonances=("K1_1270",))
        th = {k: np.arccos(v[0]) for k, v in angles.items()}
        expected = (np.exp(1j * lg * angles["gamma*"][1]) * d_function(1, lg, 0, th["gamma*"])
                    * d_function(1, 0, 0, th["K1R"]) * d_function(1, 0, 0, th["KST"]))
        ratio = a / expected
        np.testing.assert_allclose(ratio, ratio[0], rtol=1e-9)
        assert abs(ratio[0]) > 0
    # Summed over the photon helicities: sin^2(theta_g) / 2 + sin^2(theta_g) / 2.
    s = sum(abs(model.chain_amplitude(fields, params, energy, c, lg, 1, paths=("a",),
                                      resonances=("K1_1270",))) ** 2 for lg in (-1, 1))
    shape = (1 - angles["gamma*"][0] ** 2) * angles["K1R"][0] ** 2 * angles["KST"][0] ** 2
    np.testing.assert_allclose(s / shape, (s / shape)[0], rtol=1e-9)


def test_helicity_one_production_gives_1_plus_cos2():
    """With only lambda(K1) = +-1 in production (D = S / sqrt(2) makes H_0 = 0),
    the theta_gamma distribution of the chain-1 amplitude integrated over the
    azimuth of the K1 decay is (1 + cos^2 theta_g): checked by averaging
    |A|^2 over phi of the K1 decay plane at fixed other variables."""
    process, energy = "kpkmpippim", 1900
    c = model.constants(process)
    m = model.masses(process)
    v = dict.fromkeys(model.parameter_names(energy), 0.0)
    v[f"K1_1270_E{energy}_S_RE"] = 1.0
    v[f"K1_1270_E{energy}_D_RE"] = 1 / np.sqrt(2)
    v["K1_1270_KSTPI_S_RE"] = 1.0
    params = model.parameter_vector(energy, v)
    cos_g = np.linspace(-0.95, 0.95, 7)
    n_phi = 64
    phis = (np.arange(n_phi) + 0.5) * 2 * np.pi / n_phi
    cg = np.repeat(cos_g, n_phi)
    ph = np.tile(phis, len(cos_g))
    angles = {"gamma*": (cg, 0.3), "K1R": (0.4, ph), "KST": (-0.2, 1.1)}
    masses = {"gamma*": 2.0, "K1R": 1.3, "KST": 0.9, "K1": m["K1"], "K2": m["K2"],
              "pi1": m["pi1"], "pi2": m["pi2"]}
    mom = kinematics.helicity_to_momenta(model.TREES["a"], masses, angles)
    fields = model.signal_event_fields({k: mom[k] for k in NAMES}, c["M_K"], c["M_PI"])
    s = sum(abs(model.chain_amplitude(fields, params, energy, c, lg, 1, paths=("a",),
                                      resonances=("K1_1270",))) ** 2 for lg in (-1, 1))
    avg = s.reshape(len(cos_g), n_phi).mean(axis=1)
    ratio = avg / (1 + cos_g ** 2)
    np.testing.assert_allclose(ratio, ratio[0], rtol=1e-9)


# ---------------------------------------------------------------------------
# Parity and charge conjugation
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("process", sorted(model.PROCESSES))
def test_parity(process):
    """Reflection y -> -y (parity times a rotation by pi about y) maps photon
    helicity +1 onto -1: A_{+1}(Phi) = eta_gamma (-1)^{1-1} A_{-1}(Phi_mirror)
    = -A_{-1}(Phi_mirror) (four pseudoscalars, eta_gamma = -1), for each chain
    and for the sum."""
    energy = 1850
    c = model.constants(process)
    mom = phase_space_momenta(process, 40, 5, 1.85)
    mirror = {k: v * np.array([1, -1, 1, 1]) for k, v in mom.items()}
    f, fm = fields_of(mom, process), fields_of(mirror, process)
    p = model.parameter_vector(energy)
    p = p + np.random.default_rng(1).normal(0, 0.3, p.size)
    for chain in (1, 2):
        a = model.chain_amplitude(f, p, energy, c, 1, chain)
        b = model.chain_amplitude(fm, p, energy, c, -1, chain)
        np.testing.assert_allclose(a, -b, rtol=1e-10, atol=1e-12 * np.max(abs(a)))
    a, b = model.amplitude(f, p, energy, c, 1), model.amplitude(fm, p, energy, c, -1)
    np.testing.assert_allclose(a, -b, rtol=1e-10, atol=1e-12 * np.max(abs(a)))


def test_parity_test_can_fail():
    """A parity-violating P wave in gamma* -> K1 K-bar breaks the relation above."""
    process, energy = "kpkmpippim", 1850
    c = model.constants(process)
    mom = phase_space_momenta(process, 10, 6, 1.85)
    mirror = {k: v * np.array([1, -1, 1, 1]) for k, v in mom.items()}
    f, fm = fields_of(mom, process), fields_of(mirror, process)
    p = model.parameter_vector(energy)
    orig = model.helicity_amplitudes

    def with_p_wave(j, s1, s2, waves):
        waves = dict(waves)
        if (0, 1) in waves and j == 1:
            waves[(1, 1)] = 0.5 * waves[(0, 1)]
        return orig(j, s1, s2, waves)

    model.helicity_amplitudes = with_p_wave
    try:
        a = model.amplitude(f, p, energy, c, 1)
        b = model.amplitude(fm, p, energy, c, -1)
    finally:
        model.helicity_amplitudes = orig
    assert np.max(abs(a + b)) > 1e-3 * np.max(abs(a))


@pytest.mark.parametrize("process", sorted(model.PROCESSES))
def test_charge_conjugation(process):
    """C = -1 of the virtual photon: A(K1 <-> K2, pi1 <-> pi2) = -A, and the
    chain-2 fields are the chain-1 fields of the relabelled event."""
    energy = 1950
    c = model.constants(process)
    mom = phase_space_momenta(process, 30, 7, 1.95)
    swapped = {"K1": mom["K2"], "K2": mom["K1"], "pi1": mom["pi2"], "pi2": mom["pi1"]}
    f, fs = fields_of(mom, process), fields_of(swapped, process)
    for name in model.CHAIN_FIELDS:
        np.testing.assert_allclose(f[f"c2_{name}"], fs[f"c1_{name}"], rtol=1e-12, atol=1e-14)
    p = model.parameter_vector(energy)
    for lg in (-1, 1):
        a, b = model.amplitude(f, p, energy, c, lg), model.amplitude(fs, p, energy, c, lg)
        np.testing.assert_allclose(b, -a, rtol=1e-12, atol=1e-14 * np.max(abs(a)))
        # The chains alone are not C eigenstates: the sign is a property of the sum.
        a1 = model.chain_amplitude(f, p, energy, c, lg, 1)
        assert np.max(abs(model.chain_amplitude(fs, p, energy, c, lg, 1) + a1)) > 1e-3 * np.max(abs(a1))


def test_ks_ks_symmetries():
    """KS KS pi+ pi-: symmetric under KS(a) <-> KS(b) (Bose), antisymmetric under
    pi+ <-> pi- momenta (C-odd pion pair); K+ K- pi+ pi- has neither symmetry."""
    energy = 2000
    p = model.parameter_vector(energy)
    for process, sym in (("kskspippim", True), ("kpkmpippim", False)):
        c = model.constants(process)
        mom = phase_space_momenta(process, 30, 8)
        f = fields_of(mom, process)
        fk = fields_of({**mom, "K1": mom["K2"], "K2": mom["K1"]}, process)
        fp = fields_of({**mom, "pi1": mom["pi2"], "pi2": mom["pi1"]}, process)
        for lg in (-1, 1):
            a = model.amplitude(f, p, energy, c, lg)
            ak = model.amplitude(fk, p, energy, c, lg)
            ap = model.amplitude(fp, p, energy, c, lg)
            tol = 1e-12 * np.max(abs(a))
            if sym:
                np.testing.assert_allclose(ak, a, rtol=1e-11, atol=tol)
                np.testing.assert_allclose(ap, -a, rtol=1e-11, atol=tol)
            else:
                assert np.max(abs(ak - a)) > 1e-3 * np.max(abs(a))
                assert np.max(abs(ap + a)) > 1e-3 * np.max(abs(a))


def test_density_is_invariant_under_rotations_about_the_beam():
    process, energy = "kskspippim", 1800
    c = model.constants(process)
    mom = phase_space_momenta(process, 30, 9, 1.8)
    alpha = 0.77
    rot = np.array([[np.cos(alpha), -np.sin(alpha), 0, 0], [np.sin(alpha), np.cos(alpha), 0, 0],
                    [0, 0, 1, 0], [0, 0, 0, 1]])
    p = model.parameter_vector(energy)
    s = model.signal_density(fields_of(mom, process), p, energy, c)
    sr = model.signal_density(fields_of({k: v @ rot.T for k, v in mom.items()}, process), p,
                              energy, c)
    np.testing.assert_allclose(sr, s, rtol=1e-11)
    assert np.all(s > 0)


# ---------------------------------------------------------------------------
# Phase-space variables
# ---------------------------------------------------------------------------

def _boost_to(p, frame):
    """Boost four-vectors p (n, 4) into the rest frame of frame (n, 4)."""
    m = np.sqrt(frame[:, 3] ** 2 - np.sum(frame[:, :3] ** 2, axis=1))
    b = frame[:, :3] / frame[:, 3:4]
    b2 = np.sum(b * b, axis=1)
    g = frame[:, 3] / m
    bp = np.sum(b * p[:, :3], axis=1)
    out = np.empty_like(p)
    out[:, 3] = g * (p[:, 3] - bp)
    coef = (g - 1) * bp / b2 - g * p[:, 3]
    out[:, :3] = p[:, :3] + coef[:, None] * b
    return out


def test_phase_space_variables_against_a_direct_evaluation():
    mom = phase_space_momenta("kpkmpippim", 200, 10)
    phi = model.phase_space_variables(mom)
    kk = mom["K1"] + mom["K2"]
    pp = mom["pi1"] + mom["pi2"]
    np.testing.assert_allclose(phi["m_k1k2"], np.sqrt(kk[:, 3] ** 2 - np.sum(kk[:, :3] ** 2, 1)),
                               rtol=1e-12)
    np.testing.assert_allclose(phi["m_pi1pi2"], np.sqrt(pp[:, 3] ** 2 - np.sum(pp[:, :3] ** 2, 1)),
                               rtol=1e-12)
    z = np.array([0.0, 0.0, 1.0])
    for parent, child, th, ph in ((kk, mom["K1"], "theta_phi", "phi_k1"),
                                  (pp, mom["pi1"], "theta_f", "phi_pi1")):
        u = parent[:, :3] / np.linalg.norm(parent[:, :3], axis=1)[:, None]
        if parent is kk:
            np.testing.assert_allclose(np.cos(phi["theta_gamma"]), u[:, 2], rtol=1e-10, atol=1e-12)
        y = np.cross(z, u)
        y /= np.linalg.norm(y, axis=1)[:, None]
        x = np.cross(y, u)
        c = _boost_to(child, parent)[:, :3]
        c /= np.linalg.norm(c, axis=1)[:, None]
        np.testing.assert_allclose(np.cos(phi[th]), np.sum(c * u, 1), rtol=1e-9, atol=1e-10)
        d = np.angle(np.exp(1j * (np.arctan2(np.sum(c * y, 1), np.sum(c * x, 1)) - phi[ph])))
        assert np.max(abs(d)) < 1e-9
    for name in ("theta_gamma", "theta_phi", "theta_f"):
        assert np.all((phi[name] >= 0) & (phi[name] <= np.pi))


def _direction(p):
    return p[:, :3] / np.linalg.norm(p[:, :3], axis=1)[:, None]


def _tensor(s_wave, d_wave, k):
    """Spin-1 to spin-1 (+ spin 0) coupling in Cartesian form:
    a_S / sqrt(3) delta_ij - sqrt(3/2) a_D (k_i k_j - delta_ij / 3), which
    has the helicity amplitudes of eq. (B5) (test_jacob_wick_known_values)."""
    eye = np.eye(3)[None]
    kk = k[:, :, None] * k[:, None, :]
    return s_wave / np.sqrt(3) * eye - np.sqrt(1.5) * d_wave * (kk - eye / 3)


@pytest.mark.parametrize("process", sorted(model.PROCESSES))
def test_chain_amplitude_against_cartesian_evaluation(process):
    """Chain 1 from the momenta alone: with k1 the K1 direction in the lab,
    k2 the K* (rho) direction in the K1 rest frame and v the K (pi1)
    direction in the K* (rho) rest frame, both frames reached by pure
    boosts (so that their axes are the lab axes, the helicity frames rotated
    back), the amplitude is
    sum_K1 B_K1 e_lg . T_prod(k1) . sum_p c_p B_p T_p(k2) . v,
    e_{+-1} = -+(x +- i y)/sqrt(2): no d functions, no helicity angles."""
    from vecampfit import high_energy_physics as hep
    energy = 1900
    c = model.constants(process)
    mom = phase_space_momenta(process, 25, 12, 1.9)
    fields = fields_of(mom, process)
    params = model.parameter_vector(energy) + np.random.default_rng(2).normal(0, 0.3, 24)
    w = model._complex_waves(params, energy)
    k1r = mom["K1"] + mom["pi1"] + mom["pi2"]
    k1 = _direction(k1r)
    m3 = np.sqrt(k1r[:, 3] ** 2 - np.sum(k1r[:, :3] ** 2, 1))
    # (two-body resonance, its first child) per path
    pairs = {"a": (("K1", "pi2"), "K1"), "b": (("K1", "pi1"), "K1"), "c": (("pi1", "pi2"), "pi1")}
    coef = {"a": c["C_A"], "b": c["C_B"], "c": c["C_C"]}
    for lg in (-1, 1):
        e = np.array([-lg, -1j, 0]) / np.sqrt(2)
        total = 0
        for k, *_ in model.K1_RESONANCES:
            tp = _tensor(w[f"{k}_E{energy}_S"], w[f"{k}_E{energy}_D"], k1)
            decay = 0
            for p, ((x, y), first) in pairs.items():
                r = mom[x] + mom[y]
                r1 = _boost_to(r, k1r)
                k2 = _direction(r1)
                v = _direction(_boost_to(_boost_to(mom[first], k1r), r1))
                mr = np.sqrt(r[:, 3] ** 2 - np.sum(r[:, :3] ** 2, 1))
                if p == "c":
                    m0, g0, ma, mb, wave = c["RHO_M"], c["RHO_G"], c["M_PI"], c["M_PI"], "RHOK"
                else:
                    m0, g0, ma, mb, wave = c["KST_M"], c["KST_G"], c["M_K"], c["M_PI"], "KSTPI"
                q = np.sqrt((mr**2 - (ma + mb) ** 2) * (mr**2 - (ma - mb) ** 2)) / (2 * mr)
                q0 = np.sqrt((m0**2 - (ma + mb) ** 2) * (m0**2 - (ma - mb) ** 2)) / (2 * m0)
                bw = hep.breit_wigner_q_f(mr, q, q0, m0, g0, c["RADIUS"], 1)
                td = _tensor(w[f"{k}_{wave}_S"], w[f"{k}_{wave}_D"], k2)
                decay = decay + coef[p] * bw[:, None] * np.einsum("nij,nj->ni", td, v)
            bw3 = hep.breit_wigner_constant_width_m(m3, c[f"{k}_M"], c[f"{k}_G"])
            total = total + bw3 * np.einsum("i,nij,nj->n", e, tp, decay)
        a = model.chain_amplitude(fields, params, energy, c, lg, 1)
        np.testing.assert_allclose(a, total, rtol=1e-9, atol=1e-12 * np.max(abs(total)))


def test_parameter_conventions():
    for e in model.ENERGIES_MEV:
        names = model.parameter_names(e)
        assert len(names) == 24 and len(set(names)) == 24
        values = model.default_parameters(e)
        assert list(values) == names
        for n in model.fixed_parameter_names(e):
            assert values[n] == (1.0 if n.endswith("_RE") else 0.0), n
    # decay waves are shared by the energy points, production waves are not
    a, b = set(model.parameter_names(1800)), set(model.parameter_names(2000))
    assert a & b == {f"{w}_{x}" for w in model.decay_wave_names() for x in ("RE", "IM")}
