"""vecampfit.cascades against an independent helicity-formalism evaluation.

The reference below is written from scratch in the test: the helicity
frames by explicit rotations and Lorentz boosts of four-momenta (each
child's frame reached by rotating the parent's axes by
R(phi, theta, 0) onto the child's direction and boosting along it), the
Wigner D functions from sympy, the LS recoupling from sympy's
Clebsch-Gordan coefficients, the Breit-Wigner lineshape in numpy, and the
sum over every assignment of intermediate helicities.  Cases:

* a1(1260)+ -> rho0 pi+, rho0 -> pi+ pi- (three levels, the two pi+
  symmetrized);
* D0 -> rho0 anti-K*0 in S, P and D waves (both children decay; also
  against Jacob and Wick's convention for the second particle);
* D0 -> a1+ pi-, a1+ -> rho0 pi+, rho0 -> pi+ pi- (four levels, both pairs
  of identical pions symmetrized);
* e+e- -> gamma* -> a1+ pi-, a1+ -> rho0 pi+, rho0 -> pi+ pi-
  (photon helicities +-1);
* B0 -> J/psi K+ pi- through K*0 and Z- (the J/psi in two topologies) and
  Lambda_c+ -> p K- pi+ through Lambda*, anti-K*0 and Delta++ (the proton in
  three topologies, its frames as SL(2, C) elements in Jacob and Wick's
  convention);

and the invariances (rotations of the whole event, Bose symmetry), the
compiled values and analytic gradients against central differences, and
the errors of what the builder does not do.
"""

import functools
import itertools

import numpy as np
import pytest
import sympy as sp
from scipy.spatial.transform import Rotation as ScipyRotation
from sympy.physics.quantum.cg import CG
from sympy.physics.quantum.spin import Rotation

from vecampfit import generation
from vecampfit.cascades import (LS, CascadeModel, Helicity, Isobar, Particle, VirtualPhoton,
                                lineshapes)

from numeric_checks import relative_gradient_errors

M_PI, M_K = 0.13957039, 0.493677
M_D, M_A1 = 1.86484, 1.23
RHO = (0.77526, 0.1491)
KST = (0.89555, 0.0473)
A1 = (1.23, 0.42)
R = 1.5


# ---------------------------------------------------------------------------
# Independent reference
# ---------------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def _wigner_d(two_j, two_m, two_mp):
    a, b = sp.symbols("a b", real=True)
    expr = Rotation.D(sp.Rational(two_j, 2), sp.Rational(two_m, 2), sp.Rational(two_mp, 2),
                      a, b, 0).doit()
    f = sp.lambdify((a, b), expr, "numpy")
    return lambda alpha, beta: np.asarray(f(alpha, beta), dtype=complex) * np.ones_like(alpha)


def d_conj(two_j, two_m, two_mp, phi, theta):
    """conj(D^j_{m m'}(phi, theta, 0)) from sympy."""
    return np.conj(_wigner_d(two_j, two_m, two_mp)(phi, theta))


@functools.lru_cache(maxsize=None)
def _cg(j1, m1, j2, m2, j, m):
    r = sp.Rational
    return float(CG(r(j1, 2), r(m1, 2), r(j2, 2), r(m2, 2), r(j, 2), r(m, 2)).doit())


def ls_helicity(two_j, two_ja, two_jb, waves):
    """{(2la, 2lb): H} from {(L, 2S): g} (Jacob-Wick (B5), sympy CG)."""
    out = {}
    for la in range(-two_ja, two_ja + 1, 2):
        for lb in range(-two_jb, two_jb + 1, 2):
            lam = la - lb
            if abs(lam) > two_j:
                continue
            h = 0
            for (big_l, two_s), g in waves.items():
                if abs(lam) > two_s:
                    continue
                h += g * np.sqrt((2 * big_l + 1) / (two_j + 1)) * _cg(
                    2 * big_l, 0, two_s, lam, two_j, lam) * _cg(two_ja, la, two_jb, -lb, two_s, lam)
            out[(la, lb)] = h
    return out


def rot_z(a):
    c, s = np.cos(a), np.sin(a)
    z, o = np.zeros_like(a), np.ones_like(a)
    return np.stack([np.stack([c, -s, z], -1), np.stack([s, c, z], -1), np.stack([z, z, o], -1)], -2)


def rot_y(b):
    c, s = np.cos(b), np.sin(b)
    z, o = np.zeros_like(b), np.ones_like(b)
    return np.stack([np.stack([c, z, s], -1), np.stack([z, o, z], -1), np.stack([-s, z, c], -1)], -2)


def boost_matrix(p):
    """4x4 (px, py, pz, E) Lorentz matrices into the rest frame of p (n, 4)."""
    n = len(p)
    m = np.sqrt(p[:, 3] ** 2 - np.sum(p[:, :3] ** 2, axis=1))
    b = p[:, :3] / p[:, 3:4]
    g = p[:, 3] / m
    b2 = np.sum(b * b, axis=1)
    lam = np.zeros((n, 4, 4))
    lam[:, 3, 3] = g
    lam[:, 3, :3] = -g[:, None] * b
    lam[:, :3, 3] = -g[:, None] * b
    k = np.where(b2 > 0, (g - 1) / np.where(b2 > 0, b2, 1), 0)
    lam[:, :3, :3] = np.eye(3) + k[:, None, None] * b[:, :, None] * b[:, None, :]
    return lam


def rotation4(rot3):
    out = np.zeros((len(rot3), 4, 4))
    out[:, :3, :3] = rot3
    out[:, 3, 3] = 1
    return out


def polar(p):
    return np.arccos(p[:, 2] / np.linalg.norm(p[:, :3], axis=1)), np.arctan2(p[:, 1], p[:, 0])


def _leaves(t):
    return [t] if isinstance(t, str) else _leaves(t[1]) + _leaves(t[2])


def reference_angles(tree, momenta, convention="builder", return_frames=False):
    """(theta, phi) of the first child of every decaying node, and each node's
    invariant mass, by explicit rotations and boosts.  ``convention``:
    "builder" (every child's frame by R(phi_c, theta_c, 0) onto its own
    direction) or "jw" (the second child's frame R(phi_1, theta_1, 0) R_y(pi)
    from the first child's direction); with ``return_frames`` also the 4x4
    matrices from the lab to every final-state particle's helicity frame."""
    angles, masses, frames = {}, {}, {}

    def total(t, vecs):
        return sum(vecs[x] for x in _leaves(t))

    def visit(t, vecs, cumulative):
        p1 = total(t[1], vecs)
        th1, ph1 = polar(p1)
        angles[t[0]] = (th1, ph1)
        for k, child in enumerate(t[1:]):
            pc = total(child, vecs)
            if k == 0 or convention == "builder":
                th, ph = polar(pc)
                rot = rot_z(ph) @ rot_y(th)
            else:
                rot = rot_z(ph1) @ rot_y(th1) @ rot_y(np.full_like(th1, np.pi))
            tr = rotation4(np.transpose(rot, (0, 2, 1)))      # components in the new axes
            lam = boost_matrix(np.einsum("nij,nj->ni", tr, pc)) @ tr
            if isinstance(child, str):
                frames[child] = lam @ cumulative
                continue
            masses[child[0]] = np.sqrt(pc[:, 3] ** 2 - np.sum(pc[:, :3] ** 2, axis=1))
            visit(child, {x: np.einsum("nij,nj->ni", lam, vecs[x]) for x in _leaves(child)},
                  lam @ cumulative)

    top = sum(momenta.values())
    lam = boost_matrix(top)
    visit(tree, {x: np.einsum("nij,nj->ni", lam, momenta[x]) for x in _leaves(tree)}, lam)
    if return_frames:
        return angles, masses, frames
    return angles, masses


def bw(m, m0, g0, ma, mb, l=1):
    """Relativistic Breit-Wigner with (q/q0)^l F/F0, F_1 = 1/sqrt(1 + (qr)^2)."""
    def q(x):
        return np.sqrt((x * x - (ma + mb) ** 2) * (x * x - (ma - mb) ** 2)) / (2 * x)

    def f(x):
        return 1 / np.sqrt(1 + (x * R) ** 2) if l == 1 else 1.0
    qq, q0 = q(m), q(m0)
    width = g0 * (qq / q0) ** (2 * l + 1) * m0 / m * (f(qq) / f(q0)) ** 2
    return (qq / q0) ** l * f(qq) / f(q0) / (m0 ** 2 - m ** 2 - 1j * m0 * width)


def reference_amplitudes(tree, spins, vertices, shapes, momenta, final, top_helicities,
                         convention="builder"):
    """{(2M, 2 lambda_f...): A} by the sum over every helicity assignment.

    spins: node or particle name -> 2j; vertices: node -> {(2la, 2lb): H};
    shapes: isobar -> f(mass) (complex array)."""
    angles, masses = reference_angles(tree, momenta, convention)
    nodes = []

    def collect(t):
        if not isinstance(t, str):
            nodes.append(t)
            collect(t[1])
            collect(t[2])
    collect(tree)
    others = [t[0] for t in nodes[1:]] + list(final)
    n = len(next(iter(momenta.values())))
    out = {}
    for two_m in top_helicities:
        for hel in itertools.product(*(range(-spins[x], spins[x] + 1, 2) for x in others)):
            lam = dict(zip(others, hel))
            lam[tree[0]] = two_m
            term = np.ones(n, dtype=complex)
            for t in nodes:
                a, b = (c if isinstance(c, str) else c[0] for c in t[1:])
                la, lb = lam[a], lam[b]
                h = vertices[t[0]].get((la, lb), 0.0)
                if abs(la - lb) > spins[t[0]] or h == 0:
                    term = None
                    break
                th, ph = angles[t[0]]
                term = term * d_conj(spins[t[0]], lam[t[0]], la - lb, ph, th) * h
                if convention == "jw":
                    term = term * (-1) ** ((spins[b] - lb) // 2)
            if term is None:
                continue
            for name, f in shapes.items():
                term = term * f(masses[name])
            key = (two_m,) + tuple(lam[x] for x in final)
            out[key] = out.get(key, 0) + term
    return out


# ---------------------------------------------------------------------------
# Models
# ---------------------------------------------------------------------------

def events(parent_mass, masses, n, seed, boost=None):
    ps = generation.phase_space(parent_mass, list(masses), n, seed=seed)
    return [np.asarray(p, dtype=np.float64) for p in ps.momenta]


A1_WAVES = {"a1_S": 1.0 + 0.0j, "a1_D": 0.35 - 0.2j}


def a1_cascade(identical=True, rho_parameters=False):
    """a1(1260)+ -> rho0 pi+, rho0 -> pi+ pi-: final pi+ (a), pi+ (b), pi-."""
    final = [Particle("pia", 0, -1, M_PI), Particle("pib", 0, -1, M_PI),
             Particle("pim", 0, -1, M_PI)]
    m0, g0 = ("m_rho", "g_rho") if rho_parameters else RHO
    rho = Isobar("rho0", 1, -1, lineshapes.breit_wigner(m0, g0, 1, R))
    c = CascadeModel("a1", Particle("a1", 1, 1), final,
                     identical=[("pia", "pib")] if identical else ())
    c.add_chain((("pia", "pim"), "pib"), [rho],
                [LS({(0, 1): "a1_S", (2, 1): "a1_D"}), LS({(1, 0): 1.0})])
    for k, v in A1_WAVES.items():
        c.set_coupling(k, v)
    if rho_parameters:
        c.set_parameter("m_rho", RHO[0])
        c.set_parameter("g_rho", RHO[1])
    return c


def a1_reference(mom, identical=True):
    spins = {"a1": 2, "rho": 2, "pia": 0, "pib": 0, "pim": 0}
    vertices = {"a1": ls_helicity(2, 2, 0, {(0, 2): A1_WAVES["a1_S"], (2, 2): A1_WAVES["a1_D"]}),
                "rho": ls_helicity(2, 0, 0, {(1, 0): 1.0})}
    shapes = {"rho": lambda m: bw(m, *RHO, M_PI, M_PI)}
    total = {}
    for x, y in ((("pia", "pib"),) + ((("pib", "pia"),) if identical else ())):
        tree = ("a1", ("rho", x, "pim"), y)
        amp = reference_amplitudes(tree, spins, vertices, shapes, mom, ["pia", "pib", "pim"],
                                   (-2, 0, 2))
        for k, v in amp.items():
            total[k] = total.get(k, 0) + v
    return total


def compare(amps, ref, label):
    assert all(np.all(np.isfinite(v)) for v in list(amps.values()) + list(ref.values()))
    scale = max(np.max(np.abs(v)) for v in ref.values())
    worst = 0.0
    for k in set(amps) | set(ref):
        a = amps.get(k, 0)
        b = ref.get(k, 0)
        worst = max(worst, float(np.max(np.abs(a - b))) / scale)
    print(f"{label}: largest amplitude difference / largest amplitude {worst:.2e}")
    return worst


# ---------------------------------------------------------------------------
# Tests
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("identical", [False, True])
def test_a1_three_level_cascade_equals_reference(identical):
    c = a1_cascade(identical)
    p = events(M_A1, [M_PI] * 3, 40, 11)
    mom = dict(zip(["pia", "pib", "pim"], p))
    model = c.amplitude_model()
    amps = model.amplitudes(c.event_records(mom))
    assert compare(amps, a1_reference(mom, identical), f"a1, identical={identical}") < 1e-12


VV_WAVES = {"S": 1.0 + 0.0j, "P": 0.6 + 0.8j, "D": -0.3 + 0.45j}


def vv_cascade():
    """D0 -> rho0 anti-K*0, rho0 -> pi+ pi-, anti-K*0 -> K- pi+ in S, P and D waves."""
    final = [Particle("pip", 0, -1, M_PI), Particle("pim", 0, -1, M_PI),
             Particle("km", 0, -1, M_K), Particle("pik", 0, -1, M_PI)]
    rho = Isobar("rho0", 1, -1, lineshapes.breit_wigner(*RHO, 1, R))
    kst = Isobar("K*0bar", 1, -1, lineshapes.breit_wigner(*KST, 1, R))
    c = CascadeModel("vv", Particle("D0", 0, -1), final)
    c.add_chain((("pip", "pim"), ("km", "pik")), [rho, kst],
                [LS({(0, 0): "S", (1, 1): "P", (2, 2): "D"}, parity_conserving=False),
                 LS({(1, 0): 1.0}), LS({(1, 0): 1.0})])
    for k, v in VV_WAVES.items():
        c.set_coupling(k, v)
    return c


@pytest.mark.parametrize("convention", ["builder", "jw"])
def test_vector_vector_chain_equals_reference(convention):
    c = vv_cascade()
    p = events(M_D, [M_PI, M_PI, M_K, M_PI], 30, 5)
    mom = dict(zip(["pip", "pim", "km", "pik"], p))
    amps = c.amplitude_model().amplitudes(c.event_records(mom))
    spins = {"D0": 0, "rho": 2, "kst": 2, "pip": 0, "pim": 0, "km": 0, "pik": 0}
    vertices = {"D0": ls_helicity(0, 2, 2, {(0, 0): VV_WAVES["S"], (1, 2): VV_WAVES["P"],
                                            (2, 4): VV_WAVES["D"]}),
                "rho": ls_helicity(2, 0, 0, {(1, 0): 1.0}),
                "kst": ls_helicity(2, 0, 0, {(1, 0): 1.0})}
    shapes = {"rho": lambda m: bw(m, *RHO, M_PI, M_PI), "kst": lambda m: bw(m, *KST, M_K, M_PI)}
    tree = ("D0", ("rho", "pip", "pim"), ("kst", "km", "pik"))
    ref = reference_amplitudes(tree, spins, vertices, shapes, mom, ["pip", "pim", "km", "pik"],
                               (0,), convention)
    # Jacob-Wick's second-particle states: the builder's times (-1)^{s_b}, s_b = 1 (the K*)
    sign = -1.0 if convention == "jw" else 1.0
    assert compare(amps, {k: sign * v for k, v in ref.items()}, f"D0 -> rho K* ({convention})") < 1e-12
    # each wave alone too (an error in one wave's recoupling cannot hide behind the others)
    for wave in VV_WAVES:
        values = {f"{w}_{s}": (1.0 if w == wave else 0.0) if s == "RE" else 0.0
                  for w in VV_WAVES for s in ("RE", "IM")}
        amps = c.amplitude_model().amplitudes(c.event_records(mom), values)
        single = dict(vertices)
        single["D0"] = ls_helicity(0, 2, 2, {{"S": (0, 0), "P": (1, 2), "D": (2, 4)}[wave]: 1.0})
        ref = reference_amplitudes(tree, spins, single, shapes, mom, ["pip", "pim", "km", "pik"],
                                   (0,), convention)
        assert compare(amps, {k: sign * v for k, v in ref.items()}, f"  {wave} wave") < 1e-12


def d0_a1_cascade():
    """D0 -> a1+ pi-, a1+ -> rho0 pi+, rho0 -> pi+ pi-: pi+ pi+ pi- pi-, both pairs symmetrized."""
    final = [Particle(n, 0, -1, M_PI) for n in ("pp1", "pp2", "pm1", "pm2")]
    rho = Isobar("rho0", 1, -1, lineshapes.breit_wigner(*RHO, 1, R))
    a1 = Isobar("a1", 1, 1, lineshapes.running_constant_width(*A1))
    c = CascadeModel("d0a1", Particle("D0", 0, -1), final,
                     identical=[("pp1", "pp2"), ("pm1", "pm2")])
    c.add_chain(((("pp1", "pm1"), "pp2"), "pm2"), [a1, rho],
                [LS({(1, 1): 1.0}, parity_conserving=False),
                 LS({(0, 1): "a1_S", (2, 1): "a1_D"}), LS({(1, 0): 1.0})])
    for k, v in A1_WAVES.items():
        c.set_coupling(k, v)
    return c


def test_four_level_cascade_with_two_identical_pairs_equals_reference():
    c = d0_a1_cascade()
    p = events(M_D, [M_PI] * 4, 25, 8)
    mom = dict(zip(["pp1", "pp2", "pm1", "pm2"], p))
    amps = c.amplitude_model().amplitudes(c.event_records(mom))
    spins = {"D0": 0, "a1": 2, "rho": 2, "pp1": 0, "pp2": 0, "pm1": 0, "pm2": 0}
    vertices = {"D0": ls_helicity(0, 2, 0, {(1, 2): 1.0}),
                "a1": ls_helicity(2, 2, 0, {(0, 2): A1_WAVES["a1_S"], (2, 2): A1_WAVES["a1_D"]}),
                "rho": ls_helicity(2, 0, 0, {(1, 0): 1.0})}
    shapes = {"rho": lambda m: bw(m, *RHO, M_PI, M_PI),
              "a1": lambda m: 1 / (A1[0] ** 2 - m ** 2 - 1j * m * A1[1])}
    ref = {}
    for p1, p2 in (("pp1", "pp2"), ("pp2", "pp1")):
        for m1, m2 in (("pm1", "pm2"), ("pm2", "pm1")):
            tree = ("D0", ("a1", ("rho", p1, m1), p2), m2)
            for k, v in reference_amplitudes(tree, spins, vertices, shapes, mom,
                                             ["pp1", "pp2", "pm1", "pm2"], (0,)).items():
                ref[k] = ref.get(k, 0) + v
    assert compare(amps, ref, "D0 -> a1 pi, a1 -> rho pi, rho -> pi pi") < 1e-12
    assert len(c.topologies) == 4


def photon_cascade():
    """e+e- -> gamma* -> a1+ pi-, a1+ -> rho0 pi+, rho0 -> pi+ pi- (pp1, pp2 symmetrized)."""
    final = [Particle(n, 0, -1, M_PI) for n in ("pp1", "pp2", "pm1", "pm2")]
    rho = Isobar("rho0", 1, -1, lineshapes.breit_wigner(*RHO, 1, R))
    a1 = Isobar("a1", 1, 1, lineshapes.running_constant_width(*A1))
    c = CascadeModel("ee_a1", VirtualPhoton(), final)
    c.add_chain(((("pp1", "pm1"), "pp2"), "pm2"), [a1, rho],
                [LS({(0, 1): "prod_S", (2, 1): "prod_D"}),
                 LS({(0, 1): "a1_S", (2, 1): "a1_D"}), LS({(1, 0): 1.0})])
    for k, v in A1_WAVES.items():
        c.set_coupling(k, v)
    c.set_coupling("prod_S", 1.0)
    c.set_coupling("prod_D", 0.4 + 0.3j)
    return c


def test_virtual_photon_equals_reference():
    c = photon_cascade()
    p = events(2.0, [M_PI] * 4, 25, 9)
    mom = dict(zip(["pp1", "pp2", "pm1", "pm2"], p))
    amps = c.amplitude_model().amplitudes(c.event_records(mom))
    assert sorted({k[0] for k in amps}) == [-2, 2]
    spins = {"g": 2, "a1": 2, "rho": 2, "pp1": 0, "pp2": 0, "pm1": 0, "pm2": 0}
    vertices = {"g": ls_helicity(2, 2, 0, {(0, 2): 1.0, (2, 2): 0.4 + 0.3j}),
                "a1": ls_helicity(2, 2, 0, {(0, 2): A1_WAVES["a1_S"], (2, 2): A1_WAVES["a1_D"]}),
                "rho": ls_helicity(2, 0, 0, {(1, 0): 1.0})}
    shapes = {"rho": lambda m: bw(m, *RHO, M_PI, M_PI),
              "a1": lambda m: 1 / (A1[0] ** 2 - m ** 2 - 1j * m * A1[1])}
    tree = ("g", ("a1", ("rho", "pp1", "pm1"), "pp2"), "pm2")
    ref = reference_amplitudes(tree, spins, vertices, shapes, mom, ["pp1", "pp2", "pm1", "pm2"],
                               (-2, 2))
    assert compare(amps, ref, "gamma* -> a1 pi") < 1e-12


def _rotation(seed):
    q, _ = np.linalg.qr(np.random.default_rng(seed).normal(size=(3, 3)))
    return q * np.sign(np.linalg.det(q))


def _rotate(mom, rot):
    out = {}
    for k, v in mom.items():
        w = v.copy()
        w[:, :3] = v[:, :3] @ rot.T
        out[k] = w
    return out


@pytest.mark.parametrize("case", ["a1", "vv", "d0a1"])
def test_unpolarized_intensity_is_rotation_invariant(case):
    c, masses, parent = {"a1": (a1_cascade(), [M_PI] * 3, M_A1),
                         "vv": (vv_cascade(), [M_PI, M_PI, M_K, M_PI], M_D),
                         "d0a1": (d0_a1_cascade(), [M_PI] * 4, M_D)}[case]
    mom = dict(zip(c.names, events(parent, masses, 50, 3)))
    model = c.amplitude_model()
    s = model.intensity(c.event_records(mom))
    rot = _rotation(7)
    s_rot = model.intensity(c.event_records(_rotate(mom, rot)))
    err = float(np.max(np.abs(s_rot / s - 1)))
    print(f"{case}: largest relative change of the intensity under a rotation {err:.2e}")
    assert err < 1e-12
    if c.initial.two_spin == 0:
        return        # a spinless parent decaying into spinless particles: A itself is invariant
    # the amplitudes themselves do change (the test compares something that can differ)
    a = model.amplitudes(c.event_records(mom))
    b = model.amplitudes(c.event_records(_rotate(mom, rot)))
    assert max(float(np.max(np.abs(a[h] - b[h]))) for h in a) > 1e-3 * np.sqrt(np.max(s))


def test_photon_intensity_is_invariant_under_rotations_about_the_beam_only():
    c = photon_cascade()
    mom = dict(zip(c.names, events(2.0, [M_PI] * 4, 50, 4)))
    model = c.amplitude_model()
    s = model.intensity(c.event_records(mom))
    about_z = np.array([[np.cos(0.7), -np.sin(0.7), 0], [np.sin(0.7), np.cos(0.7), 0], [0, 0, 1]])
    err = float(np.max(np.abs(model.intensity(c.event_records(_rotate(mom, about_z))) / s - 1)))
    print(f"gamma*: largest relative change under a rotation about the beam {err:.2e}")
    assert err < 1e-12
    other = model.intensity(c.event_records(_rotate(mom, _rotation(2))))
    assert np.max(np.abs(other / s - 1)) > 1e-3


def test_bose_symmetry():
    sym, plain = a1_cascade(True), a1_cascade(False)
    mom = dict(zip(sym.names, events(M_A1, [M_PI] * 3, 50, 6)))
    swapped = {"pia": mom["pib"], "pib": mom["pia"], "pim": mom["pim"]}
    for c, symmetric in ((sym, True), (plain, False)):
        model = c.amplitude_model()
        s1 = model.intensity(c.event_records(mom))
        s2 = model.intensity(c.event_records(swapped))
        err = float(np.max(np.abs(s2 / s1 - 1)))
        if symmetric:
            print(f"a1: largest relative change under pi+ <-> pi+ {err:.2e}")
            assert err < 1e-12
        else:
            assert err > 1e-2
    # four pions: both pairs
    c = d0_a1_cascade()
    mom = dict(zip(c.names, events(M_D, [M_PI] * 4, 30, 2)))
    model = c.amplitude_model()
    s = model.intensity(c.event_records(mom))
    for a, b in (("pp1", "pp2"), ("pm1", "pm2")):
        sw = dict(mom)
        sw[a], sw[b] = mom[b], mom[a]
        assert np.max(np.abs(model.intensity(c.event_records(sw)) / s - 1)) < 1e-12


def test_compiled_values_and_gradients(model_cache):
    """The compiled density (L = 4) against the numpy intensity and its central
    differences, every parameter free (couplings, rho mass and width)."""
    c = a1_cascade(True, rho_parameters=True)
    model = c.amplitude_model()
    compiled = model.compile((4,), build_dir=model_cache)
    mom = dict(zip(c.names, events(M_A1, [M_PI] * 3, 37, 12)))
    rec = c.event_records(mom)
    values = {"a1_S_RE": 0.9, "a1_S_IM": 0.1, "a1_D_RE": 0.3, "a1_D_IM": -0.25,
              "m_rho": 0.77, "g_rho": 0.16}
    v, g = compiled.evaluate(rec, values, gradient=True)
    ref = model.intensity(rec, values)
    err_v = float(np.max(np.abs(v / ref - 1)))
    assert err_v < 1e-12
    assert set(compiled.parameters) == set(values)
    errors = relative_gradient_errors(g, compiled.parameters, lambda v: model.intensity(rec, v),
                                      values, 1e-6)
    for name, err in errors.items():
        assert err < 1e-6, (name, err)
    worst = max(errors.values())
    print(f"a1 compiled: values {err_v:.1e}, gradients vs central differences {worst:.1e}")


def test_helicity_vertex_equals_ls_recoupling():
    """A vertex given by helicity couplings equal to the LS recoupling gives the same amplitudes."""
    c = a1_cascade(False)
    hel = ls_helicity(2, 2, 0, {(0, 2): A1_WAVES["a1_S"], (2, 2): A1_WAVES["a1_D"]})
    final = c.final_state
    d = CascadeModel("a1h", Particle("a1", 1, 1), final)
    d.add_chain((("pia", "pim"), "pib"), [Isobar("rho0", 1, -1, lineshapes.breit_wigner(*RHO, 1, R))],
                [Helicity({(la / 2, 0): complex(h) for (la, _), h in hel.items()}),
                 Helicity({(0, 0): 1.0})])
    mom = dict(zip(c.names, events(M_A1, [M_PI] * 3, 20, 1)))
    a = c.amplitude_model().amplitudes(c.event_records(mom))
    b = d.amplitude_model().amplitudes(d.event_records(mom))
    assert compare(a, b, "helicity vs LS vertex") < 1e-13


def test_errors():
    pi = [Particle(n, 0, -1, M_PI) for n in ("a", "b", "c")]
    rho = Isobar("rho0", 1, -1)
    c = CascadeModel("x", Particle("a1", 1, 1), pi)
    with pytest.raises(ValueError, match="every final-state particle once"):
        c.add_chain(("a", "b"), [], [LS({(0, 1): "g"})])
    with pytest.raises(ValueError, match="no final-state particle 'd'"):
        c.add_chain((("a", "d"), "b"), [rho], [LS({(0, 1): "g"}), LS({(1, 0): 1})])
    with pytest.raises(ValueError, match="2 isobars expected|1 isobars expected"):
        c.add_chain((("a", "b"), "c"), [rho, rho], [LS({(0, 1): "g"}), LS({(1, 0): 1})])
    c.add_chain((("a", "b"), "c"), [rho], [LS({(1, 1): "g"}), LS({(1, 0): 1})])
    with pytest.raises(ValueError, match="violates parity"):
        c.amplitude_model()
    # a spinning final-state particle in two topologies needs Wigner rotations
    final = [Particle("p", 0.5, 1, 0.938), Particle("k", 0, -1, M_K), Particle("pi", 0, -1, M_PI)]
    d = CascadeModel("lc", Particle("Lc", 0.5, 1), final)
    lam = Isobar("L", 0.5, 1)
    kst = Isobar("K*", 1, -1)
    d.add_chain((("p", "k"), "pi"), [lam], [LS({(0, "1/2"): "a"}, False),
                                            LS({(0, "1/2"): "b"}, False)])
    d.amplitude_model()          # one topology: fine
    d.add_chain((("k", "pi"), "p"), [kst], [LS({(0, "1/2"): "c"}, False), LS({(1, 0): "d"})])
    d.amplitude_model()          # two topologies: the proton's helicities aligned
    # a massless final-state particle with spin in two topologies is not aligned
    final = [Particle("g", 1, -1, 0.0, massless=True), Particle("k", 0, -1, M_K),
             Particle("pi", 0, -1, M_PI)]
    e = CascadeModel("b", Particle("B", 0, -1), final)
    e.add_chain((("g", "k"), "pi"), [Isobar("K1", 1, 1)], [LS({(1, 1): "a"}, False),
                                                          LS({(0, 1): 1.0})])
    e.add_chain((("k", "pi"), "g"), [kst], [LS({(1, 1): "b"}, False), LS({(1, 0): 1.0})])
    with pytest.raises(NotImplementedError, match="massless"):
        e.amplitude_model()
    with pytest.raises(ValueError, match="no starting values"):
        e = CascadeModel("y", Particle("a1", 1, 1), pi)
        e.add_chain((("a", "b"), "c"), [Isobar("r", 1, -1, lineshapes.constant_width("m0", 0.1))],
                    [LS({(0, 1): "g"}), LS({(1, 0): 1})])
        e.amplitude_model()


# ---------------------------------------------------------------------------
# Wigner rotations of a final-state particle with spin in two topologies
# ---------------------------------------------------------------------------

M_PSI, M_B = 3.0969, 5.27966
BZ_COUPLINGS = {"S": 1.0, "P": 0.5 + 0.3j, "D": 0.2 - 0.4j, "Z": 0.8 + 0.6j, "ZD": 0.3j}
Z = (4.43, 0.18)


def bz_cascade(order=(0, 1)):
    """B0 -> J/psi K+ pi-: B0 -> J/psi K*0 (S, P, D waves), K*0 -> K+ pi-, and
    B0 -> Z- K+, Z- -> J/psi pi- (S, D waves); J/psi (spin 1) a final-state
    particle whose helicity frames differ between the two topologies.  ``order``:
    the order of the chains (the first one's topology is the reference)."""
    final = [Particle("psi", 1, -1, M_PSI), Particle("k", 0, -1, M_K),
             Particle("pi", 0, -1, M_PI)]
    c = CascadeModel("bz", Particle("B0", 0, -1), final)
    kst = Isobar("K*0", 1, -1, lineshapes.breit_wigner(*KST, 1, R))
    z = Isobar("Z-", 1, 1, lineshapes.constant_width(*Z))
    chains = [(("psi", ("k", "pi")), [kst], [LS({(0, 0): "S", (1, 1): "P", (2, 2): "D"}, False),
                                              LS({(1, 0): 1.0})]),
              ((("psi", "pi"), "k"), [z], [LS({(1, 1): "Z"}, False),
                                           LS({(0, 1): 1.0, (2, 1): "ZD"})])]
    for i in order:
        c.add_chain(*chains[i])
    for k, v in BZ_COUPLINGS.items():
        c.set_coupling(k, v)
    return c


def test_wigner_rotation_of_a_final_state_vector_equals_reference():
    """The J/psi helicities of the Z chain turned to the K* chain's frame by
    D^1(W) of the rotation W between its two rest frames (explicit Lorentz
    matrices, scipy's Euler angles, sympy's D)."""
    c = bz_cascade()
    p = events(M_B, [M_PSI, M_K, M_PI], 30, 3)
    mom = dict(zip(["psi", "k", "pi"], p))
    assert c.amplitude_model() and c.alignments == {1: [0]}
    amps = c.amplitude_model().amplitudes(c.event_records(mom))
    g = BZ_COUPLINGS
    spins = {"B0": 0, "kst": 2, "z": 2, "psi": 2, "k": 0, "pi": 0}
    t1 = ("B0", "psi", ("kst", "k", "pi"))
    t2 = ("B0", ("z", "psi", "pi"), "k")
    a1 = reference_amplitudes(t1, spins, {"B0": ls_helicity(0, 2, 2, {(0, 0): g["S"], (1, 2): g["P"],
                                                                     (2, 4): g["D"]}),
                                          "kst": ls_helicity(2, 0, 0, {(1, 0): 1.0})},
                              {"kst": lambda m: bw(m, *KST, M_K, M_PI)}, mom, ["psi", "k", "pi"], (0,))
    a2 = reference_amplitudes(t2, spins, {"B0": ls_helicity(0, 2, 0, {(1, 2): g["Z"]}),
                                          "z": ls_helicity(2, 2, 0, {(0, 2): 1.0, (2, 2): g["ZD"]})},
                              {"z": lambda m: 1 / (Z[0] ** 2 - m ** 2 - 1j * Z[0] * Z[1])},
                              mom, ["psi", "k", "pi"], (0,))
    f1 = reference_angles(t1, mom, return_frames=True)[2]["psi"]
    f2 = reference_angles(t2, mom, return_frames=True)[2]["psi"]
    w = (f1 @ np.linalg.inv(f2))[:, :3, :3]
    euler = ScipyRotation.from_matrix(w).as_euler("ZYZ")
    ref = dict(a1)
    for (m, lam, *rest), v in a2.items():
        for lam_ref in (-2, 0, 2):
            d = np.array([complex(Rotation.D(1, sp.Rational(lam_ref, 2), sp.Rational(lam, 2),
                                             *e).doit().evalf()) for e in euler])
            key = (m, lam_ref, *rest)
            ref[key] = ref.get(key, 0) + d * v
    assert compare(amps, ref, "B0 -> J/psi K pi, aligned J/psi helicities") < 1e-12


def test_wigner_rotation_makes_the_intensity_invariant():
    """Rotation of the whole event and choice of the reference topology leave the
    intensity unchanged; without the alignment the rotation does not."""
    p = events(M_B, [M_PSI, M_K, M_PI], 40, 5)
    mom = dict(zip(["psi", "k", "pi"], p))
    a, b = bz_cascade((0, 1)), bz_cascade((1, 0))
    ma, mb = a.amplitude_model(), b.amplitude_model()
    sa, sb = ma.intensity(a.event_records(mom)), mb.intensity(b.event_records(mom))
    err_ref = float(np.max(np.abs(sa / sb - 1)))
    rotated = _rotate(mom, _rotation(3))
    err_rot = float(np.max(np.abs(ma.intensity(a.event_records(rotated)) / sa - 1)))
    print(f"B0 -> J/psi K pi: reference topology {err_ref:.1e}, rotation {err_rot:.1e}")
    assert err_ref < 1e-12 and err_rot < 1e-12
    # the same model with the J/psi's helicities left in each topology's frame
    unaligned = bz_cascade()
    unaligned._alignments = lambda topologies: {}
    mu = unaligned.amplitude_model()
    su = mu.intensity(unaligned.event_records(mom))
    assert np.max(np.abs(mu.intensity(unaligned.event_records(rotated)) / su - 1)) > 1e-2


# ---------------------------------------------------------------------------
# Wigner rotations of a final-state fermion in three topologies
# ---------------------------------------------------------------------------

M_LC, M_P = 2.28646, 0.938272
LC_COUPLINGS = {"a0": 1.0, "a1": 0.4 - 0.3j, "b0": 0.6 + 0.5j, "b1": -0.3 + 0.2j,
                "b2": 0.25j, "b3": 0.5 - 0.1j, "c1": 0.7 - 0.6j, "c2": 0.2 + 0.3j}
LAMBDA_STAR, DELTA = (1.52, 0.08), (1.232, 0.117)


def lc_cascade(order=(0, 1, 2)):
    """Lambda_c+ -> p K- pi+ through Lambda*(1/2-) -> p K-, anti-K*0 -> K- pi+ and
    Delta++(3/2+) -> p pi+ (weak production vertices without parity, strong decays
    with it): the proton's helicity frames differ in all three topologies.
    ``order``: the order of the chains (the first one's topology is the reference)."""
    final = [Particle("p", "1/2", 1, M_P), Particle("k", 0, -1, M_K),
             Particle("pi", 0, -1, M_PI)]
    c = CascadeModel("lc", Particle("Lc", "1/2", 1), final)
    lam = Isobar("L*", "1/2", -1, lineshapes.constant_width(*LAMBDA_STAR))
    kst = Isobar("K*0", 1, -1, lineshapes.constant_width(*KST))
    delta = Isobar("D++", "3/2", 1, lineshapes.constant_width(*DELTA))
    chains = [((("p", "k"), "pi"), [lam], [LS({(0, "1/2"): "a0", (1, "1/2"): "a1"}, False),
                                            LS({(0, "1/2"): 1.0})]),
              ((("k", "pi"), "p"), [kst], [LS({(0, "1/2"): "b0", (1, "1/2"): "b1",
                                               (1, "3/2"): "b2", (2, "3/2"): "b3"}, False),
                                           LS({(1, 0): 1.0})]),
              ((("p", "pi"), "k"), [delta], [LS({(1, "3/2"): "c1", (2, "3/2"): "c2"}, False),
                                             LS({(1, "1/2"): 1.0})])]
    for i in order:
        c.add_chain(*chains[i])
    for k, v in LC_COUPLINGS.items():
        c.set_coupling(k, v)
    return c


def _sl2_frames(tree, momenta):
    """SL(2, C) elements from the lab to every final-state particle's helicity frame in
    Jacob and Wick's convention (as reference_angles(..., "jw")): the first child's axes
    by R(phi_1, theta_1, 0), the second child's by R(phi_1, theta_1, 0) R_y(pi), their
    inverses lifted as exp(i theta sigma_y / 2) exp(i phi sigma_z / 2), the boosts
    exp(-eta n.sigma / 2); a four-vector's components transform as X -> S X S^+."""
    sig = [np.array([[0, 1], [1, 0]]), np.array([[0, -1j], [1j, 0]]), np.array([[1, 0], [0, -1]])]

    def boost(p):
        m = np.sqrt(p[:, 3] ** 2 - np.sum(p[:, :3] ** 2, axis=1))
        eta = np.arccosh(np.maximum(p[:, 3] / m, 1.0))
        norm = np.linalg.norm(p[:, :3], axis=1)[:, None]
        n = np.divide(p[:, :3], norm, out=np.zeros_like(p[:, :3]), where=norm > 0)
        ns = sum(n[:, i, None, None] * sig[i] for i in range(3))
        return (np.cosh(eta / 2)[:, None, None] * np.eye(2)
                - np.sinh(eta / 2)[:, None, None] * ns)

    def turn(th, ph):
        ry = np.array([[np.cos(th / 2), np.sin(th / 2)], [-np.sin(th / 2), np.cos(th / 2)]])
        rz = np.array([[np.exp(0.5j * ph), 0 * ph], [0 * ph, np.exp(-0.5j * ph)]])
        return np.einsum("ijn,jkn->nik", ry, rz)

    def act(s, p):
        x = p[:, 3, None, None] * np.eye(2) + sum(p[:, i, None, None] * sig[i] for i in range(3))
        y = s @ x @ np.conj(np.transpose(s, (0, 2, 1)))
        return np.stack([y[:, 0, 1].real, y[:, 1, 0].imag, (y[:, 0, 0] - y[:, 1, 1]).real / 2,
                         (y[:, 0, 0] + y[:, 1, 1]).real / 2], axis=1)
    frames = {}

    def visit(t, cumulative):
        th1, ph1 = polar(act(cumulative, sum(momenta[x] for x in _leaves(t[1]))))
        for k, child in enumerate(t[1:]):
            pc = act(cumulative, sum(momenta[x] for x in _leaves(child)))
            tr = turn(th1 + np.pi * k, ph1)
            s = boost(act(tr, pc)) @ tr @ cumulative
            if isinstance(child, str):
                frames[child] = s
            else:
                visit(child, s)
    visit(tree, boost(sum(momenta.values())))
    return frames


def lc_reference(mom):
    """Per chain, its amplitudes by reference_amplitudes in Jacob and Wick's convention
    (the second particle's frame and its factor (-1)^(s - lambda)), the proton's
    helicities of the second and third chain turned into the first chain's frame by
    D^(1/2)(W) = W, the SU(2) element S_ref S^-1 of the explicit SL(2, C) frames (its
    sign included)."""
    g = LC_COUPLINGS
    spins = {"Lc": 1, "lam": 1, "kst": 2, "delta": 3, "p": 1, "k": 0, "pi": 0}
    final = ["p", "k", "pi"]
    chains = [
        (("Lc", ("lam", "p", "k"), "pi"),
         {"Lc": ls_helicity(1, 1, 0, {(0, 1): g["a0"], (1, 1): g["a1"]}),
          "lam": ls_helicity(1, 1, 0, {(0, 1): 1.0})},
         {"lam": lambda m: 1 / (LAMBDA_STAR[0] ** 2 - m ** 2 - 1j * LAMBDA_STAR[0] * LAMBDA_STAR[1])}),
        (("Lc", ("kst", "k", "pi"), "p"),
         {"Lc": ls_helicity(1, 2, 1, {(0, 1): g["b0"], (1, 1): g["b1"], (1, 3): g["b2"],
                                      (2, 3): g["b3"]}),
          "kst": ls_helicity(2, 0, 0, {(1, 0): 1.0})},
         {"kst": lambda m: 1 / (KST[0] ** 2 - m ** 2 - 1j * KST[0] * KST[1])}),
        (("Lc", ("delta", "p", "pi"), "k"),
         {"Lc": ls_helicity(1, 3, 0, {(1, 3): g["c1"], (2, 3): g["c2"]}),
          "delta": ls_helicity(3, 1, 0, {(1, 1): 1.0})},
         {"delta": lambda m: 1 / (DELTA[0] ** 2 - m ** 2 - 1j * DELTA[0] * DELTA[1])})]
    reference_frame = _sl2_frames(chains[0][0], mom)["p"]
    out = []
    for tree, vertices, shapes in chains:
        amp = reference_amplitudes(tree, spins, vertices, shapes, mom, final, (-1, 1),
                                   convention="jw")
        w = reference_frame @ np.linalg.inv(_sl2_frames(tree, mom)["p"])
        aligned = {}
        for (two_m, lam, *rest), v in amp.items():
            for lam_ref in (1, -1):
                key = (two_m, lam_ref, *rest)
                aligned[key] = aligned.get(key, 0) + w[:, (1 - lam_ref) // 2, (1 - lam) // 2] * v
        out.append(aligned)
    return out


def test_wigner_rotation_of_a_final_state_fermion_equals_reference():
    """Lambda_c+ -> p K- pi+ in three topologies: the amplitudes equal the explicit
    evaluation in Jacob and Wick's convention, whose proton helicities are aligned by the
    SU(2) element of the rotation between the SL(2, C) frames (the sign of a half-integer
    spin's rotation), up to one constant phase per chain (the conventions' phases of the
    second particle, which the couplings absorb)."""
    c = lc_cascade()
    p = events(M_LC, [M_P, M_K, M_PI], 40, 7)
    mom = dict(zip(["p", "k", "pi"], p))
    model = c.amplitude_model()
    assert c.alignments == {1: [0], 2: [0]}
    amps = model.amplitudes(c.event_records(mom))
    chains = lc_reference(mom)
    keys = sorted(amps)
    lhs = np.concatenate([amps[k] for k in keys])
    columns = np.stack([np.concatenate([ch.get(k, 0 * lhs[:len(p[0])]) for k in keys])
                        for ch in chains], axis=1)
    phases, *_ = np.linalg.lstsq(columns, lhs, rcond=None)
    print(f"phases of the chains against Jacob and Wick: {np.round(phases, 12)}")
    np.testing.assert_allclose(np.abs(phases), 1.0, atol=1e-12)
    ref = {k: sum(ph * ch.get(k, 0) for ph, ch in zip(phases, chains)) for k in keys}
    assert compare(amps, ref, "Lambda_c -> p K pi, aligned proton") < 1e-12


def test_fermion_alignment_makes_the_intensity_independent_of_the_reference(monkeypatch):
    """The unpolarized intensity does not depend on which of the three topologies is the
    reference, nor on a rotation of the whole event; with the Euler angles of the SO(3)
    rotation alone (alpha, gamma taken modulo 2 pi, the sign of the SU(2) element lost) it
    does."""
    from vecampfit.cascades import frames, model as cascade_model
    p = events(M_LC, [M_P, M_K, M_PI], 60, 9)
    mom = dict(zip(["p", "k", "pi"], p))

    def intensities():
        out = []
        for order in ((0, 1, 2), (1, 2, 0), (2, 0, 1)):
            c = lc_cascade(order)
            out.append(c.amplitude_model().intensity(c.event_records(mom)))
        return out
    s = intensities()
    err_ref = max(float(np.max(np.abs(x / s[0] - 1))) for x in s[1:])
    c = lc_cascade()
    m = c.amplitude_model()
    err_rot = float(np.max(np.abs(m.intensity(c.event_records(_rotate(mom, _rotation(4))))
                                  / s[0] - 1)))
    print(f"Lambda_c -> p K pi: reference topology {err_ref:.1e}, rotation {err_rot:.1e}")
    assert err_ref < 1e-12 and err_rot < 1e-12

    def so3_angles(frame, reference):
        alpha, cos_beta, gamma = frames.wigner_rotation_angles(frame, reference)
        return np.angle(np.exp(1j * alpha)), cos_beta, np.angle(np.exp(1j * gamma))
    monkeypatch.setattr(cascade_model, "wigner_rotation_angles", so3_angles)
    s = intensities()
    worst = max(float(np.max(np.abs(x / s[0] - 1))) for x in s[1:])
    print(f"with SO(3) angles: reference topology {worst:.1e}")
    assert worst > 1e-2


def test_generation_and_fit_recover_the_truth(model_cache):
    """D0 -> rho0 anti-K*0: events generated from the model (accept-reject on
    phase space), then a fit of the P and D waves (the S wave fixed) with the
    compiled density recovers them within four standard deviations."""
    from vecampfit.fitter import Fitter, Likelihood

    c = vv_cascade()
    c.set_coupling("S", VV_WAVES["S"], fixed=True)
    model = c.amplitude_model()
    compiled = model.compile((4,), build_dir=model_cache)
    names = ["pip", "pim", "km", "pik"]
    masses = [M_PI, M_PI, M_K, M_PI]

    def density(ev):
        return model.intensity(c.event_records([ev[n] for n in names]))
    data = generation.generate_events(density, M_D, masses, 3000, names=names, seed=21)
    mc = generation.generate_events(None, M_D, masses, 20000, names=names, seed=22)
    truth = model.values()
    start = {k: v + (0.15 if k not in ("S_RE", "S_IM") else 0.0) for k, v in truth.items()}
    likelihood = Likelihood(compiled.parameter_table(start), precision="float64",
                            vector_length=4)
    point = likelihood.add_point(compiled.density("float64", 4))
    point.add_data(c.event_records([data[n] for n in names]))
    point.add_normalization_events(c.event_records([mc[n] for n in names]))
    fitter = Fitter(likelihood, seed=1, randomize=False, verbose=False)
    fitter.migrad()
    fitter.hesse()
    m = fitter.minuit
    assert m.valid
    for name in compiled.parameters:
        pull = (float(m.values[name]) - truth[name]) / float(m.errors[name])
        print(f"{name}: fit {float(m.values[name]):+.4f} +- {float(m.errors[name]):.4f}, "
              f"truth {truth[name]:+.4f}, pull {pull:+.2f}")
        assert abs(pull) < 4
