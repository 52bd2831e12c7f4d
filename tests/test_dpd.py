"""The Dalitz-plot decomposition: kinematics against explicit Lorentz boosts, rotation
signs, vertices, and properties of the amplitude."""

import itertools
import math

import numpy as np
import pytest

from vecampfit.dpd import (DecayChain, HelicityVertex, LSVertex, ParityVertex, ThreeBodyDecay,
                           cos_theta, cos_zeta, cyclic_pair, sigmas_from_mass_angle, zeta_sign)
from vecampfit.expressions.physics import breit_wigner_format, blatt_weisskopf_unnormalized
from vecampfit.expressions import evaluate

# Lambda_c+ -> p pi+ K- masses (GeV): all different, so that index mix-ups show
MASSES = (2.28646, 0.938272046, 0.13957018, 0.493677)


def _boost_to_rest(p, q):
    """Four-vector p (E, px, py, pz) in the rest frame of q."""
    b = q[1:] / q[0]
    g = 1 / math.sqrt(1 - b @ b)
    bp = b @ p[1:]
    return np.r_[g * (p[0] - bp), p[1:] + ((g - 1) * bp / (b @ b) - g * p[0]) * b]


def _momenta(sigmas, masses):
    """Four-momenta of 1, 2, 3 in the parent's rest frame (decay plane x-z)."""
    m0 = masses[0]
    e = [None] + [(m0 ** 2 + masses[a] ** 2 - sigmas[a - 1]) / (2 * m0) for a in (1, 2, 3)]
    p = [None] + [math.sqrt(e[a] ** 2 - masses[a] ** 2) for a in (1, 2, 3)]
    c12 = (e[1] * e[2] - (sigmas[2] - masses[1] ** 2 - masses[2] ** 2) / 2) / (p[1] * p[2])
    p1 = np.array([0.0, 0.0, p[1]])
    p2 = p[2] * np.array([math.sqrt(1 - c12 ** 2), 0.0, c12])
    return {1: np.r_[e[1], p1], 2: np.r_[e[2], p2], 3: np.r_[e[3], -p1 - p2]}


def _cos(a, b):
    return a @ b / np.linalg.norm(a) / np.linalg.norm(b)


POINTS = [(2, 1.91, -0.23), (1, 0.89, 0.7), (3, 1.3, 0.05), (2, 1.6, 0.95), (1, 1.2, -0.8)]


@pytest.mark.parametrize("k, m, c", POINTS)
def test_helicity_angles_against_boosts(k, m, c):
    sig = sigmas_from_mass_angle(k, m, c, MASSES)
    assert sum(sig) == pytest.approx(sum(x * x for x in MASSES), rel=1e-14)
    p = _momenta(sig, MASSES)
    for kk in (1, 2, 3):
        i, j = cyclic_pair(kk)
        r = p[i] + p[j]
        ref = _cos(_boost_to_rest(p[i], r)[1:], -_boost_to_rest(p[kk], r)[1:])
        assert float(cos_theta(kk, sig, MASSES)) == pytest.approx(ref, abs=1e-13)
    assert float(cos_theta(k, sig, MASSES)) == pytest.approx(c, abs=1e-14)


@pytest.mark.parametrize("k, m, c", POINTS)
def test_wigner_rotation_angles_against_boosts(k, m, c):
    sig = sigmas_from_mass_angle(k, m, c, MASSES)
    p = _momenta(sig, MASSES)
    total = p[1] + p[2] + p[3]
    for kk, r in itertools.permutations((1, 2, 3), 2):
        assert float(cos_zeta(0, kk, r, sig, MASSES)) == pytest.approx(
            _cos(p[kk][1:], p[r][1:]), abs=1e-13)
        for cc in (1, 2, 3):
            if cc not in (kk, r):
                a, b = [x for x in (1, 2, 3) if x != cc]
                ref = _cos(_boost_to_rest(p[a], p[cc])[1:], _boost_to_rest(p[b], p[cc])[1:])
            else:
                t = ({1, 2, 3} - {kk, r}).pop()
                ref = _cos(_boost_to_rest(total, p[cc])[1:], _boost_to_rest(p[t], p[cc])[1:])
            assert float(cos_zeta(cc, kk, r, sig, MASSES)) == pytest.approx(ref, abs=1e-13)
        assert cos_zeta(0, kk, kk, sig, MASSES) is None


def _signed_zeta(c, k, r, sig):
    if k == r:
        return 0.0
    return zeta_sign(c, k, r) * math.acos(max(-1.0, min(1.0, float(cos_zeta(c, k, r, sig, MASSES)))))


@pytest.mark.parametrize("k, m, c", POINTS)
def test_rotation_signs_compose(k, m, c):
    """Rotations about the one normal add: zeta(k->r) = zeta(k->m) + zeta(m->r) modulo 2 pi,
    for the parent and every daughter; with a wrong sign the sum fails."""
    sig = sigmas_from_mass_angle(k, m, c, MASSES)
    for particle in (0, 1, 2, 3):
        for a, b, d in itertools.product((1, 2, 3), repeat=3):
            lhs = _signed_zeta(particle, a, d, sig)
            rhs = _signed_zeta(particle, a, b, sig) + _signed_zeta(particle, b, d, sig)
            diff = (lhs - rhs) % (2 * math.pi)
            assert min(diff, 2 * math.pi - diff) < 1e-7, (particle, a, b, d)
    # the test can fail: flip one sign rule
    bad = -_signed_zeta(0, 1, 2, sig)
    diff = (_signed_zeta(0, 1, 3, sig) - bad - _signed_zeta(0, 2, 3, sig)) % (2 * math.pi)
    assert min(diff, 2 * math.pi - diff) > 1e-3


def test_vertices():
    h = HelicityVertex(1, 0)
    assert h.factor(1, 0, 1, 1, 0) == 1.0 and h.factor(-1, 0, 1, 1, 0) == 0.0
    p = ParityVertex(0, 1, -1)
    assert p.factor(0, 1, 1, 0, 1) == 1.0 and p.factor(0, -1, 1, 0, 1) == -1.0
    assert p.factor(0, 0, 1, 0, 1) == 0.0
    # the pair (0, 0) is its own parity partner: the factor is 1
    assert ParityVertex(0, 0, 1).factor(0, 0, 2, 0, 0) == 1.0
    # LS: 1/2+ -> 1/2+ 0, l = 0, s = 1/2: H = sqrt(1/2) <1/2 l; 0 0|1/2 l><0 0; 1/2 l|1/2 l>
    ls = LSVertex(0, 1)
    assert ls.factor(1, 0, 1, 1, 0) == pytest.approx(math.sqrt(0.5), rel=1e-15)
    assert ls.factor(-1, 0, 1, 1, 0) == pytest.approx(math.sqrt(0.5), rel=1e-15)
    # rho -> pi pi, l = 1, s = 0: H = sqrt(3/3) <0 0;0 0|0 0><1 0;0 0|1 0> = 1
    assert LSVertex(2, 0).factor(0, 0, 2, 0, 0) == pytest.approx(1.0, rel=1e-15)
    # P-wave 1/2 -> 1/2 0 in l = 1: sqrt(3/2) <1/2 1/2;0 0|1/2 1/2><1 0;1/2 1/2|1/2 1/2> = -sqrt(1/2)
    assert LSVertex(2, 1).factor(1, 0, 1, 1, 0) == pytest.approx(-math.sqrt(0.5), rel=1e-14)
    assert LSVertex(2, 1).factor(-1, 0, 1, 1, 0) == pytest.approx(math.sqrt(0.5), rel=1e-14)
    with pytest.raises(ValueError):
        LSVertex(1, 0)


def _spinless_chain(k, two_j, mass, width, weight):
    i, j = cyclic_pair(k)
    return DecayChain(k, two_j, lambda s: breit_wigner_format(s, mass, width, MASSES_PI[i], MASSES_PI[j],
                                                              two_j // 2, 1.5),
                      LSVertex(two_j, two_j), LSVertex(two_j, 0), weight=weight,
                      decay_form_factor=lambda q2: blatt_weisskopf_unnormalized(q2, 1.5, two_j // 2))


MASSES_PI = (1.8, 0.13957, 0.13957, 0.493677)


def _values(model, k, m, c):
    return model.values(sigmas_from_mass_angle(k, m, c, model.masses))


def test_integer_spin_intensity_does_not_depend_on_the_reference():
    chains = [_spinless_chain(1, 2, 0.89, 0.05, 1.0 + 0.5j), _spinless_chain(2, 2, 0.89, 0.05, -0.3 + 1j),
              _spinless_chain(3, 0, 0.98, 0.1, 0.7)]
    for two_j0 in (2, 4):
        values = [float(evaluate(ThreeBodyDecay(MASSES_PI, (two_j0, 0, 0, 0), chains, reference=r)
                                 .unpolarized_intensity(), _values(ThreeBodyDecay(
                                     MASSES_PI, (two_j0, 0, 0, 0), chains), 3, 1.0, 0.3)))
                  for r in (1, 2, 3)]
        assert values[1] == pytest.approx(values[0], rel=1e-13)
        assert values[2] == pytest.approx(values[0], rel=1e-13)


def test_a_spinless_chain_factorizes():
    """One chain of a spin-0 parent: |weight X f|^2 (2j+1) d^j_{00}(theta)^2 summed."""
    chain = _spinless_chain(1, 2, 0.89, 0.05, 0.4 - 0.2j)
    model = ThreeBodyDecay(MASSES_PI, (0, 0, 0, 0), [chain], reference=2)
    vals = _values(model, 1, 0.9, 0.35)
    total = float(evaluate(model.unpolarized_intensity(), vals))
    s1 = vals["sigma1"]
    x = complex(evaluate(breit_wigner_format(s1, 0.89, 0.05, MASSES_PI[2], MASSES_PI[3], 1, 1.5), {}))
    q2 = ((s1 - (MASSES_PI[2] + MASSES_PI[3]) ** 2) * (s1 - (MASSES_PI[2] - MASSES_PI[3]) ** 2)
          / (4 * s1))
    z2 = q2 * 1.5 ** 2
    ff2 = z2 / (1 + z2)
    ls = LSVertex(2, 2).factor(0, 0, 0, 2, 0) * LSVertex(2, 0).factor(0, 0, 2, 0, 0)
    expected = abs(0.4 - 0.2j) ** 2 * abs(x) ** 2 * ff2 * 3 * ls ** 2 * 0.35 ** 2
    assert total == pytest.approx(expected, rel=1e-12)


def test_massless_daughter_helicities():
    chain = DecayChain(3, 1, lambda s: 1.0, LSVertex(2, 3), LSVertex(0, 1))
    masses = (5.62, 0.938, 0.493, 0.0)
    two_spins = (1, 1, 0, 2)
    transverse = ThreeBodyDecay(masses, two_spins, [chain], reference=3)
    every = ThreeBodyDecay(masses, two_spins, [chain], reference=3, massless_transverse=False)
    assert transverse.helicities(3) == [-2, 2] and every.helicities(3) == [-2, 0, 2]
    vals = transverse.values(sigmas_from_mass_angle(3, 2.0, 0.3, masses))
    a = float(evaluate(transverse.unpolarized_intensity(), vals))
    b = float(evaluate(every.unpolarized_intensity(), vals))
    assert 0 < a < b


@pytest.mark.parametrize("k, m, c", POINTS)
def test_conversions_between_format_variables_dalitz_variables_and_four_momenta(k, m, c):
    from vecampfit.dpd.kinematics import (four_momenta, mass_angle_from_sigmas,
                                          sigmas_from_four_momenta)
    sig = sigmas_from_mass_angle(k, m, c, MASSES)
    p = four_momenta(sig, MASSES)
    for a in (1, 2, 3):
        mass2 = p[a - 1][3] ** 2 - p[a - 1][:3] @ p[a - 1][:3]
        assert mass2 == pytest.approx(MASSES[a] ** 2, abs=1e-12)
    assert np.allclose(p.sum(axis=0), [0, 0, 0, MASSES[0]], atol=1e-14)
    back = sigmas_from_four_momenta(*p)
    assert np.allclose(back, sig, rtol=1e-13)
    # boost the event: invariants do not change
    q = np.array([_boost_to_rest(np.r_[x[3], x[:3]], np.array([3.0, 0.4, -1.1, 1.7])) for x in p])
    q = q[:, [1, 2, 3, 0]]
    assert np.allclose(sigmas_from_four_momenta(*q), sig, rtol=1e-12)
    mm, cc = mass_angle_from_sigmas(k, back, MASSES)
    assert mm == pytest.approx(m, rel=1e-13) and cc == pytest.approx(c, abs=1e-12)


# -- the amplitude against the helicity formalism with explicit Lorentz transformations --------

def _rot(a, b, g):
    """4x4 rotation R_z(a) R_y(b) R_z(g) on (E, px, py, pz)."""
    def rz(x):
        c, s = math.cos(x), math.sin(x)
        return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])

    def ry(x):
        c, s = math.cos(x), math.sin(x)
        return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])
    out = np.eye(4)
    out[1:, 1:] = rz(a) @ ry(b) @ rz(g)
    return out


def _boost_z(p, m):
    """Boost along z taking a particle of mass m at rest to momentum p along z."""
    e = math.hypot(p, m)
    out = np.eye(4)
    out[0, 0] = out[3, 3] = e / m
    out[0, 3] = out[3, 0] = p / m
    return out


def _angles(v):
    """(phi, theta) of the 3-vector of a four-vector."""
    return math.atan2(v[2], v[1]), math.acos(v[3] / np.linalg.norm(v[1:]))


def _pure_boost(p, m):
    phi, theta = _angles(p)
    r = _rot(phi, theta, 0.0)
    return r @ _boost_z(np.linalg.norm(p[1:]), m) @ r.T


def _euler_zyz(r):
    """(alpha, beta, gamma) with r = R_z(alpha) R_y(beta) R_z(gamma)."""
    beta = math.acos(max(-1.0, min(1.0, r[2, 2])))
    if abs(math.sin(beta)) < 1e-12:
        return math.atan2(r[1, 0], r[0, 0]), beta, 0.0
    return math.atan2(r[1, 2], r[0, 2]), beta, math.atan2(r[2, 1], -r[2, 0])


_D_CACHE = {}


def _wigner_D(two_j, two_m1, two_m2, alpha, beta, gamma):
    """sympy's D^j_{m1 m2}(alpha, beta, gamma) = exp(-i m1 alpha) d(beta) exp(-i m2 gamma)."""
    sympy = pytest.importorskip("sympy")
    from sympy.physics.quantum.spin import Rotation
    key = (two_j, two_m1, two_m2)
    if key not in _D_CACHE:
        a, b, g = sympy.symbols("a b g", real=True)
        half = sympy.Rational(1, 2)
        expr = Rotation.D(two_j * half, two_m1 * half, two_m2 * half, a, b, g).doit()
        _D_CACHE[key] = sympy.lambdify((a, b, g), expr, "numpy")
    return complex(_D_CACHE[key](alpha, beta, gamma))


def _explicit_intensity(model, momenta):
    """sum |A|^2 of :func:`_explicit_amplitudes`."""
    return sum(abs(a) ** 2 for a in _explicit_amplitudes(model, momenta).values())


def _explicit_amplitudes(model, momenta):
    """A(hel) from the helicity formalism: every chain in explicit helicity frames (the
    second particle of each two-body decay turned by R_y(pi), phase (-1)^(j - lambda)), its
    daughters' helicity states turned into canonical states (pure boosts from the parent's
    rest frame) by the Wigner rotations B(p)^-1 L computed from the 4x4 matrices."""
    m, js = model.masses, model.two_spins
    p = {c: momenta[c - 1][[3, 0, 1, 2]] for c in (1, 2, 3)}      # (E, px, py, pz)
    total = {}
    for chain in model.chains:
        angles, frames = _chain_frames(p, m, chain, _rot, _boost_z, _rot(0.0, math.pi, 0.0),
                                       np.linalg.solve)
        wigner = {}
        for c in (1, 2, 3):
            w = np.linalg.solve(_pure_boost(p[c], m[c]), frames[c])
            assert np.allclose(w[0], [1, 0, 0, 0], atol=1e-9)      # a rotation
            wigner[c] = _euler_zyz(w[1:, 1:])

        def daughter_factor(c, hel, lam):
            return _wigner_D(js[c], hel, lam, *wigner[c]) if js[c] else 1.0
        _add_chain_amplitudes(total, model, chain, angles, daughter_factor)
    return total


def _chain_frames(p, m, chain, rot, boost_z, flip, to_rest):
    """The explicit helicity frames of a chain's three final-state particles, as matrices
    of one representation of the Lorentz group: rot(a, b, g) = R_z(a) R_y(b) R_z(g),
    boost_z(p, m) the boost to momentum p along z, flip = R_y(+-pi), to_rest(l, v) the
    four-vector v (E, px, py, pz) seen in the frame l.  p: four-momenta (E, px, py, pz)
    by particle 1..3, m: the masses (GeV).  Returns ((phi_r, theta_r, phi_i, theta_i),
    {particle: frame}), the angles (rad) of the isobar in the parent's rest frame and of
    its first daughter in the isobar's helicity frame."""
    k = chain.k
    i, j = cyclic_pair(k)
    pr = p[i] + p[j]
    mr = math.sqrt(pr[0] ** 2 - pr[1:] @ pr[1:])
    phi_r, theta_r = _angles(pr)
    l_r = rot(phi_r, theta_r, 0.0) @ boost_z(np.linalg.norm(pr[1:]), mr)
    pi_r = to_rest(l_r, p[i])
    phi_i, theta_i = _angles(pi_r)
    q = np.linalg.norm(pi_r[1:])
    frames = {
        i: l_r @ rot(phi_i, theta_i, 0.0) @ boost_z(q, m[i]),
        j: l_r @ rot(phi_i, theta_i, 0.0) @ flip @ boost_z(q, m[j]),
        k: rot(phi_r, theta_r, 0.0) @ flip @ boost_z(np.linalg.norm(pr[1:]), m[k]),
    }
    return (phi_r, theta_r, phi_i, theta_i), frames


def _add_chain_amplitudes(total, model, chain, angles, daughter_factor):
    """Add the chain's A(hel) to total (dict hel -> A): the helicity sum over the isobar's
    helicity tau and the daughters' helicities lam of the explicit formalism, with the
    angles of :func:`_chain_frames` and daughter_factor(c, hel_c, lam_c) the matrix
    element of the rotation of daughter c's helicity state into its canonical state."""
    js = model.two_spins
    k = chain.k
    i, j = cyclic_pair(k)
    phi_r, theta_r, phi_i, theta_i = angles
    weight = complex(chain.weight) * complex(chain.lineshape(None))
    for hel in model.helicity_combinations():
        amp = 0.0
        for lam in model.helicity_combinations():
            if lam[0] != hel[0]:
                continue
            l0, li, lj, lk = lam[0], lam[i], lam[j], lam[k]
            a = 0.0
            for tau in range(-chain.two_j, chain.two_j + 1, 2):
                if abs(tau - lk) > js[0] or abs(li - lj) > chain.two_j:
                    continue
                h = (chain.production.factor(tau, lk, js[0], chain.two_j, js[k])
                     * chain.decay.factor(li, lj, chain.two_j, js[i], js[j]))
                if h == 0:
                    continue
                a += (_wigner_D(js[0], l0, tau - lk, phi_r, theta_r, 0.0).conjugate() * h
                      * _wigner_D(chain.two_j, tau, li - lj, phi_i, theta_i, 0.0).conjugate()
                      * (-1) ** ((js[k] - lk) // 2) * (-1) ** ((js[j] - lj) // 2))
            for c in (1, 2, 3):
                a *= daughter_factor(c, hel[c], lam[c])
            amp += a
        total[hel] = total.get(hel, 0.0) + weight * math.sqrt(chain.two_j + 1) * amp


def _vector_model(reference):
    # 0 (spin 1) -> 1 (spin 1, massive) 2 (spin 0) 3 (spin 0), chains in all three pairs
    masses = (2.5, 0.78, 0.14, 0.494)
    chains = [
        DecayChain(1, 2, lambda s: 1.0 - 0.3j, LSVertex(0, 2), LSVertex(2, 0), weight=1.0),
        DecayChain(1, 2, lambda s: 0.4 + 0.2j, LSVertex(2, 0), LSVertex(2, 0), weight=0.5),
        DecayChain(2, 2, lambda s: 0.8 + 0.5j, LSVertex(0, 2), LSVertex(0, 2), weight=-0.7 + 0.2j),
        DecayChain(2, 2, lambda s: 0.3, LSVertex(2, 2), LSVertex(2, 2), weight=0.9j),
        DecayChain(3, 4, lambda s: -0.5 + 0.9j, LSVertex(2, 4), LSVertex(2, 2), weight=0.6 - 0.4j),
        DecayChain(3, 0, lambda s: 0.7, LSVertex(2, 0), LSVertex(0, 2), weight=0.3 + 0.3j),
    ]
    return ThreeBodyDecay(masses, (2, 2, 0, 0), chains, reference=reference)


@pytest.mark.parametrize("k, m, c", [(2, 1.6, -0.3), (1, 0.9, 0.6), (3, 1.2, 0.85)])
def test_amplitude_against_explicit_lorentz_transformations(k, m, c):
    """Parent and daughter of spin 1, chains in the three pairs: the DPD intensity equals the
    helicity formalism's with explicit boosts, for every choice of the reference chain and any
    orientation of the event."""
    _assert_dpd_equals_explicit_in_any_orientation(_vector_model, _explicit_intensity, k, m, c,
                                                   np.random.default_rng(3))


def _assert_dpd_equals_explicit_in_any_orientation(model_with_reference, explicit_intensity,
                                                   k, m, c, rng):
    """At the event of pair k's invariant mass m (GeV) and cosine c, turned by two rotations
    drawn from rng: the DPD intensity of model_with_reference(reference) for every reference
    chain (1, 2, 3) equals explicit_intensity(model, four-momenta) to 1e-12."""
    from vecampfit.dpd.kinematics import four_momenta
    model = model_with_reference(1)
    sig = sigmas_from_mass_angle(k, m, c, model.masses)
    momenta = four_momenta(sig, model.masses)
    for _ in range(2):
        r = _rot(*rng.uniform(-math.pi, math.pi, 3))[1:, 1:]
        rotated = np.array([np.r_[r @ x[:3], x[3]] for x in momenta])
        explicit = explicit_intensity(model, rotated)
        for reference in (1, 2, 3):
            dpd = float(evaluate(model_with_reference(reference).unpolarized_intensity(),
                                 model.values(sig)))
            assert dpd == pytest.approx(explicit, rel=1e-12), reference


def test_the_explicit_comparison_fails_with_wrong_conventions(monkeypatch):
    import vecampfit.dpd.model as dpd_model
    from vecampfit.dpd import kinematics
    from vecampfit.dpd.kinematics import four_momenta
    model = _vector_model(1)
    sig = sigmas_from_mass_angle(2, 1.6, -0.3, model.masses)
    explicit = _explicit_intensity(model, four_momenta(sig, model.masses))
    right = zeta_sign

    def intensity(reference):
        return float(evaluate(_vector_model(reference).unpolarized_intensity(), model.values(sig)))
    monkeypatch.setattr(kinematics, "zeta_sign",
                        lambda c, k, r: right(c, k, r) if c == 0 else -right(c, k, r))
    assert abs(intensity(1) / explicit - 1) > 1e-2
    monkeypatch.setattr(kinematics, "zeta_sign", right)
    monkeypatch.setattr(dpd_model, "_second_particle_phase", lambda two_j, two_lambda: 1.0)
    assert abs(intensity(1) / explicit - 1) > 1e-2


# -- half-integer daughters: the same comparison in SL(2, C) --------------------------------------

_PAULI = [np.eye(2), np.array([[0, 1], [1, 0]]), np.array([[0, -1j], [1j, 0]]), np.diag([1.0, -1.0])]


def _su2(a, b, g):
    """SU(2) element of R_z(a) R_y(b) R_z(g) (the one with these Euler angles)."""
    def rz(x):
        return np.diag([np.exp(-0.5j * x), np.exp(0.5j * x)])
    c, s = math.cos(b / 2), math.sin(b / 2)
    return rz(a) @ np.array([[c, -s], [s, c]]) @ rz(g)


def _sl2_boost_z(p, m):
    eta = math.asinh(p / m)
    return np.diag([math.exp(eta / 2), math.exp(-eta / 2)]).astype(complex)


def _act(a, p):
    """The Lorentz transformation of the SL(2, C) element a on a four-vector (E, px, py, pz)."""
    x = sum(c * s for c, s in zip(p, _PAULI))
    y = a @ x @ a.conj().T
    return np.array([y[0, 0] + y[1, 1], y[0, 1] + y[1, 0], 1j * (y[0, 1] - y[1, 0]),
                     y[0, 0] - y[1, 1]]).real / np.array([2, 2, 2, 2])


def _explicit_intensity_sl2(model, momenta):
    """sum |A|^2 of :func:`_explicit_amplitudes_sl2`."""
    return sum(abs(a) ** 2 for a in _explicit_amplitudes_sl2(model, momenta).values())


def _explicit_amplitudes_sl2(model, momenta):
    """As :func:`_explicit_amplitudes`, with every frame an SL(2, C) element, so that the
    Wigner rotation of a spin-1/2 daughter is an SU(2) matrix, D^(1/2)(W) = W, with its sign.
    The second particle of a two-body decay is the first one turned by R_y(-pi) (for a
    half-integer spin R_y(+pi) is minus that: a convention, which the DPD formula fixes)."""
    m, js = model.masses, model.two_spins
    p = {c: momenta[c - 1][[3, 0, 1, 2]] for c in (1, 2, 3)}
    total = {}
    flip = _su2(0.0, -math.pi, 0.0)
    for chain in model.chains:
        angles, frames = _chain_frames(p, m, chain, _su2, _sl2_boost_z, flip,
                                       lambda l_r, v: _act(np.linalg.inv(l_r), v))
        wigner = {}
        for c in (1, 2, 3):
            ph, th = _angles(p[c])
            rot = _su2(ph, th, 0.0)
            boost = rot @ _sl2_boost_z(np.linalg.norm(p[c][1:]), m[c]) @ rot.conj().T
            w = np.linalg.solve(boost, frames[c])
            assert np.allclose(w @ w.conj().T, np.eye(2), atol=1e-9)      # a rotation
            wigner[c] = w

        def daughter_factor(c, hel, lam):
            if js[c] == 1:
                return wigner[c][(1 - hel) // 2, (1 - lam) // 2]
            if js[c]:
                raise NotImplementedError("spin-1/2 or spin-0 daughters here")
            return 1.0
        _add_chain_amplitudes(total, model, chain, angles, daughter_factor)
    return total


def _two_fermion_model(reference):
    # 0 (spin 1) -> p (1/2) pbar (1/2) pi (0), chains in all three pairs
    masses = (3.0, 0.938, 0.938, 0.14)
    chains = [
        DecayChain(1, 1, lambda s: 1.0 - 0.3j, LSVertex(0, 2), LSVertex(0, 1), weight=1.0),
        DecayChain(2, 3, lambda s: 0.8 + 0.5j, LSVertex(0, 2), LSVertex(2, 1), weight=-0.7 + 0.2j),
        DecayChain(3, 2, lambda s: -0.5 + 0.9j, LSVertex(2, 2), LSVertex(0, 2), weight=0.6 - 0.4j),
        DecayChain(3, 2, lambda s: 0.4, LSVertex(2, 2), LSVertex(4, 2), weight=0.3 + 0.3j),
    ]
    return ThreeBodyDecay(masses, (2, 1, 1, 0), chains, reference=reference)


@pytest.mark.parametrize("k, m, c", [(2, 1.6, -0.3), (1, 1.3, 0.6), (3, 2.2, 0.85)])
def test_half_integer_daughters_against_explicit_lorentz_transformations(k, m, c):
    """Spin-1 parent, proton and antiproton daughters, half-integer isobars in two pairs: the
    DPD intensity, for every reference chain, equals the explicit SL(2, C) evaluation."""
    _assert_dpd_equals_explicit_in_any_orientation(_two_fermion_model, _explicit_intensity_sl2,
                                                   k, m, c, np.random.default_rng(5))


@pytest.mark.parametrize("k, m, c", [(2, 1.91, -0.23), (1, 0.74, -0.14), (3, 1.21, -0.89)])
def test_half_integer_parent_against_explicit_lorentz_transformations(k, m, c):
    """The Lambda_c+ -> p K- pi+ chains of the published model (helicity and parity couplings,
    all three pairs; constant lineshapes): with the parent's helicity aligned to the chain of
    the reference topology (2), the DPD intensity equals the explicit SL(2, C) evaluation; aligned
    to chain 1, as the published values of that model need, it does not (the 2 pi of the parent's
    rotations changes the relative sign of the chains in the other pairs)."""
    from pathlib import Path

    from vecampfit.dpd.kinematics import four_momenta
    from vecampfit.model_format import read_model
    path = Path(__file__).parent / "data" / "amplitude_serialization" / "lc2ppik-lhcb-2683025.json"
    dist = read_model(path).distributions["default_model"]
    rng = np.random.default_rng(11)
    shapes = [complex(*rng.normal(size=2)) for _ in dist.model.chains]

    def model(parent_reference):
        chains = [DecayChain(ch.k, ch.two_j, (lambda v: (lambda s: v))(shape), ch.production,
                             ch.decay, weight=complex(dist.parameters[label + "_re"],
                                                      dist.parameters[label + "_im"]))
                  for ch, label, shape in zip(dist.model.chains, dist.weight_names, shapes)]
        return ThreeBodyDecay(dist.model.masses, dist.model.two_spins, chains,
                              reference=(parent_reference, 2, 2, 2))
    reference = model(2)
    sig = sigmas_from_mass_angle(k, m, c, reference.masses)
    explicit = _explicit_intensity_sl2(reference, four_momenta(sig, reference.masses))
    aligned_to_2 = float(evaluate(reference.unpolarized_intensity(), reference.values(sig)))
    aligned_to_1 = float(evaluate(model(1).unpolarized_intensity(), reference.values(sig)))
    assert aligned_to_2 == pytest.approx(explicit, rel=1e-12)
    assert abs(aligned_to_1 / explicit - 1) > 1e-2


def _polarized_explicit(amplitudes, rho):
    """sum over the daughters' helicities of sum_{l l'} rho_{l l'} A_l conj(A_l')."""
    total = 0.0
    for hel, a in amplitudes.items():
        for hel2, b in amplitudes.items():
            if hel[1:] == hel2[1:]:
                total += rho[(hel[0], hel2[0])] * a * np.conj(b)
    assert abs(total.imag) < 1e-12 * abs(total)
    return total.real


def _rotated_event(model, sig, seed):
    from vecampfit.dpd.kinematics import four_momenta, orientation, rotate
    rng = np.random.default_rng(seed)
    angles = (rng.uniform(-math.pi, math.pi), rng.uniform(-1, 1), rng.uniform(-math.pi, math.pi))
    momenta = rotate(four_momenta(sig, model.masses), *angles)
    alpha, cos_beta, gamma = orientation(*momenta, reference=model.references[0])
    records = {"sigma1": np.array([sig[0]]), "sigma2": np.array([sig[1]]),
               "sigma3": np.array([sig[2]]), "alpha": np.array([alpha]),
               "cos_beta": np.array([cos_beta]), "gamma": np.array([gamma])}
    return momenta, records


@pytest.mark.parametrize("k, m, c", [(2, 1.6, -0.3), (3, 1.2, 0.85)])
def test_polarized_spin_one_parent_against_explicit_lorentz_transformations(k, m, c):
    """A spin-1 parent with a general spin-density matrix (along the fixed z axis), the
    event turned at random: the model's polarized intensity (the density matrix rotated
    into the aligned helicities by the event's orientation) equals sum rho A A* of the
    explicit helicity amplitudes, for every choice of the parent's reference chain."""
    rng = np.random.default_rng(7)
    for reference in (1, 2, 3):
        model = _vector_model(reference)
        names = model.polarization_parameters()
        values = {n: rng.normal() for n in names}
        rho = {key: complex(evaluate(z.re, values)) + 1j * complex(evaluate(z.im, values))
               for key, z in model.density_matrix().items()}
        sig = sigmas_from_mass_angle(k, m, c, model.masses)
        momenta, records = _rotated_event(model, sig, reference)
        explicit = _polarized_explicit(_explicit_amplitudes(model, momenta), rho)
        am = model.amplitude_model(values, polarized=True)
        got = float(am.intensity(records)[0])
        print(f"reference {reference}: {got / explicit - 1:.1e}")
        assert got == pytest.approx(explicit, rel=1e-11)


@pytest.mark.parametrize("k, m, c", [(2, 1.91, -0.23), (1, 0.9, 0.6)])
def test_polarized_lambda_c_against_explicit_lorentz_transformations(k, m, c):
    """The published Lambda_c+ chains with a polarization vector P: sum rho A A* of the
    explicit SL(2, C) amplitudes, rho = (1 + P.sigma)/2, equals the model's polarized
    intensity (parent aligned to the reference topology's chain), and averaging over the
    orientation gives the unpolarized intensity / 2."""
    from vecampfit.model_format import read_model
    from pathlib import Path
    path = Path(__file__).parent / "data" / "amplitude_serialization" / "lc2ppik-lhcb-2683025.json"
    dist = read_model(path).distributions["default_model"]
    rng = np.random.default_rng(5)
    shapes = [complex(*rng.normal(size=2)) for _ in dist.model.chains]
    chains = [DecayChain(ch.k, ch.two_j, (lambda v: (lambda s: v))(shape), ch.production,
                         ch.decay, weight=complex(dist.parameters[label + "_re"],
                                                  dist.parameters[label + "_im"]))
              for ch, label, shape in zip(dist.model.chains, dist.weight_names, shapes)]
    model = ThreeBodyDecay(dist.model.masses, dist.model.two_spins, chains, reference=(2, 2, 2, 2))
    P = {"Px": 0.3, "Py": -0.5, "Pz": 0.6}
    rho = {(1, 1): (1 + P["Pz"]) / 2, (-1, -1): (1 - P["Pz"]) / 2,
           (1, -1): (P["Px"] - 1j * P["Py"]) / 2, (-1, 1): (P["Px"] + 1j * P["Py"]) / 2}
    sig = sigmas_from_mass_angle(k, m, c, model.masses)
    momenta, records = _rotated_event(model, sig, 3)
    explicit = _polarized_explicit(_explicit_amplitudes_sl2(model, momenta), rho)
    am = model.amplitude_model(P, polarized=True)
    got = float(am.intensity(records)[0])
    print(f"relative difference {got / explicit - 1:.1e}")
    assert got == pytest.approx(explicit, rel=1e-11)
    # the orientation average (Gauss-Legendre in cos beta, uniform in the angles)
    x, w = np.polynomial.legendre.leggauss(6)
    grid = np.linspace(-math.pi, math.pi, 6, endpoint=False)
    a, b, g = np.meshgrid(grid, x, grid, indexing="ij")
    wb = np.broadcast_to(w[None, :, None], a.shape).ravel()
    rec = {"sigma1": np.full(a.size, sig[0]), "sigma2": np.full(a.size, sig[1]),
           "sigma3": np.full(a.size, sig[2]), "alpha": a.ravel(), "cos_beta": b.ravel(),
           "gamma": g.ravel()}
    mean = np.sum(am.intensity(rec) * wb) / np.sum(wb)
    unpolarized = float(evaluate(model.unpolarized_intensity(), model.values(sig)))
    assert mean == pytest.approx(unpolarized / 2, rel=1e-12)


def _lambda_star_chain(decay_vertex):
    """Lambda_c+ -> Lambda*(3/2) pi+, Lambda* -> p K- (chain 3 of particles p=1, K=2, pi=3)."""
    masses = (2.28646, 0.938272, 0.493677, 0.13957)
    chain = DecayChain(3, 3, lambda s: 0.7 - 0.4j, HelicityVertex(1, 0), decay_vertex,
                       weight=1.3 + 0.2j)
    other = DecayChain(3, 3, lambda s: 0.7 - 0.4j, HelicityVertex(-1, 0), decay_vertex,
                       weight=-0.4 + 0.9j)
    return ThreeBodyDecay(masses, (1, 1, 0, 0), [chain, other], reference=3)


def _intensity_at(model, m, c):
    sig = sigmas_from_mass_angle(3, m, c, model.masses)
    return float(evaluate(model.unpolarized_intensity(), model.values(sig)))


def test_parity_conserving_decay_is_forward_backward_symmetric():
    """A strong decay Lambda* -> p K- with parity-related couplings H(-l) = eta H(l) gives a
    distribution in cos(theta) of the Lambda* frame without odd terms (I(c) = I(-c)), for
    either intrinsic parity; a decay with one helicity coupling alone does not."""
    for eta in (1, -1):
        model = _lambda_star_chain(ParityVertex(1, 0, eta))
        for c in (0.2, 0.55, 0.9):
            a, b = _intensity_at(model, 1.52, c), _intensity_at(model, 1.52, -c)
            assert a == pytest.approx(b, rel=1e-12)
    broken = _lambda_star_chain(HelicityVertex(1, 0))
    a, b = _intensity_at(broken, 1.52, 0.55), _intensity_at(broken, 1.52, -0.55)
    assert abs(a / b - 1) > 1e-2


def test_a_single_chain_integrates_to_its_lineshape_times_its_couplings():
    """Integrated over cos(theta) of its pair, a chain's intensity is
    |w X|^2 (2j+1) sum |H_prod|^2 |H_dec|^2 * 2/(2j+1) (orthogonality of the d functions)."""
    masses = (2.28646, 0.938272, 0.493677, 0.13957)
    w, x = 1.3 + 0.2j, 0.7 - 0.4j
    chain = DecayChain(3, 3, lambda s: x, ParityVertex(1, 0, -1), ParityVertex(1, 0, 1), weight=w)
    model = ThreeBodyDecay(masses, (1, 1, 0, 0), [chain], reference=3)
    nodes, weights = np.polynomial.legendre.leggauss(12)
    total = sum(wt * _intensity_at(model, 1.52, c) for c, wt in zip(nodes, weights))
    couplings = sum(chain.production.factor(tau, 0, 1, 3, 0) ** 2
                    * chain.decay.factor(lp, 0, 3, 1, 0) ** 2
                    for tau in (-1, 1) for lp in (-1, 1))
    want = abs(w * x) ** 2 * 4 * couplings * 2 / 4
    print(f"integral {total!r}, from the factors {want!r}")
    assert total == pytest.approx(want, rel=1e-12)


def test_event_records_from_four_momenta_invert_the_orientation():
    """ThreeBodyDecay.event_records: the Dalitz variables of the momenta and the Euler
    angles that rotate the aligned configuration back onto them."""
    from vecampfit.dpd.kinematics import aligned_four_momenta, rotate
    model = _vector_model((2, 2, 2, 2))
    sig = sigmas_from_mass_angle(1, 0.9, 0.6, model.masses)
    angles = (0.7, -0.35, -2.1)
    momenta = rotate(aligned_four_momenta(sig, model.masses, 2), *angles)
    rec = model.event_records(*momenta)
    assert [rec[n] for n in model.sigma_names] == pytest.approx(list(sig), rel=1e-12)
    assert (rec["alpha"], rec["cos_beta"], rec["gamma"]) == pytest.approx(angles, abs=1e-12)


@pytest.mark.parametrize("two_j", [1, 2])
def test_the_density_factors_give_the_rotated_density_matrix(two_j):
    """The factors a cached fit uses (the density matrix sigma of the parameters and the
    transform U = conj(D(R)) of the event's orientation) give the rotated density matrix
    rho' = U^T sigma conj(U) at random orientations, for a spin-1/2 and a spin-1 parent."""
    rng = np.random.default_rng(11 + two_j)
    if two_j == 2:
        model = _vector_model(1)
    else:
        chain = DecayChain(3, 1, lambda s: 1.0, LSVertex(0, 1), LSVertex(0, 1))
        model = ThreeBodyDecay((2.29, 0.938, 0.494, 0.14), (1, 1, 0, 0), [chain])
    names = model.polarization_parameters()
    values = {n: rng.normal() for n in names}
    am = model.amplitude_model(values, polarized=True)
    sigma, transform = am.density_factors()
    n = 5
    ev = {"alpha": rng.uniform(-np.pi, np.pi, n), "cos_beta": rng.uniform(-1, 1, n),
          "gamma": rng.uniform(-np.pi, np.pi, n)}
    ev.update(values)
    hs = model.helicities(0)
    s = np.array([[complex(evaluate(sigma[(a, b)], values)) for b in hs] for a in hs])
    u = np.array([[evaluate(transform[(a, b)], ev) for b in hs] for a in hs])   # (a, b, n)
    rho = am.density_matrix[1]
    worst = 0.0
    for j in range(n):
        uj = u[:, :, j]
        expected = uj.T @ s @ np.conj(uj)
        got = np.array([[complex(np.atleast_1d(evaluate(rho[(a, b)], ev))[j]) for b in hs]
                        for a in hs])
        worst = max(worst, np.max(np.abs(got - expected)))
    print(f"largest difference {worst:.1e}")
    assert worst < 1e-14
