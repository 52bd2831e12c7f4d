r"""The e+e- -> K K-bar pi pi signal amplitude (paper section 8.1) in plain numpy.

Final states ``K1 K2 pi1 pi2``: ``K+ K- pi+ pi-`` (process ``kpkmpippim``)
and ``KS KS pi+ pi-`` (``kskspippim``; the first KS is ``K1``).  Units: GeV,
radians.

Chains
------
Chain 1 is :math:`\gamma^* \to K_1 \bar K` with the three-body resonance
:math:`K_1 \to K_1 \pi_1 \pi_2` recoiling against :math:`K_2`,
:math:`K_1 = K_1(1270), K_1(1400)`, and three two-body paths of the
:math:`K_1` decay:

* ``a``: :math:`K_1 \to K^*[K_1 \pi_2]\, \pi_1`;
* ``b``: :math:`K_1 \to K^*[K_1 \pi_1]\, \pi_2`;
* ``c``: :math:`K_1 \to \rho[\pi_1 \pi_2]\, K_1`.

Chain 2 is chain 1 with :math:`K_1 \leftrightarrow K_2` and
:math:`\pi_1 \leftrightarrow \pi_2` (the charge-conjugate chain, the same
partial-wave amplitudes).  With :math:`\lambda_\gamma` the photon helicity
along the beam axis (z, the e+ direction does not matter for an unpolarized
beam), the chain-1 amplitude is

.. math::

    A^{(1)}_{\lambda_\gamma} = \sum_{K_1} B^{(m)}_{K_1}(M_{K_1\pi_1\pi_2})
      \sum_{\lambda} e^{i \lambda_\gamma \varphi_{K_1}} d^1_{\lambda_\gamma \lambda}(\theta_{K_1})
      H^{(\gamma^* \to K_1 \bar K)}_{\lambda 0}
      \sum_{p = a, b, c} c_p Y^{(p)}_{\lambda},

    Y^{(p)}_{\lambda} = \sum_{\mu} e^{i \lambda \varphi_{R}} d^1_{\lambda \mu}(\theta_{R})
      H^{(K_1 \to R\, X)}_{\mu 0}\,
      e^{i \mu \varphi_{x}} d^1_{\mu 0}(\theta_{x}) H^{(R \to x y)}_{00} B_R(M_{xy}),

with :math:`(\theta, \varphi)` the helicity angles of the first child of each
two-body decay in its parent's helicity frame (frames of
:func:`vecampfit.kinematics.momenta_to_helicity`: the Jacob-Wick rotation
:math:`R(\varphi, \theta, 0)`, so that the amplitude of
:math:`J, M \to (\theta, \varphi), \lambda` is
:math:`D^{J*}_{M\lambda}(\varphi, \theta, 0) H = e^{i M \varphi} d^J_{M\lambda}(\theta) H`),
:math:`B^{(m)}` the constant-width Breit-Wigner amplitude with the mass in
the imaginary part, :math:`B_R` the Breit-Wigner amplitude with
:math:`(q/q_0)^L F_L(q)/F_L(q_0)` (``vecampfit.high_energy_physics``),
:math:`H` helicity amplitudes from the partial-wave amplitudes by Jacob and
Wick's eq. (B5) (:func:`helicity_amplitudes`) and :math:`c_p` the isospin
factors of the process (:func:`isospin_coefficients`).

The top-level factor :math:`e^{i\lambda_\gamma \varphi_{K_1}}` is printed
without in the paper's eq. (amplitude_chain_1); it is a common phase of a
single chain but not of the two chains, whose :math:`K_1` flies in
different directions, so it is kept here (it is the Jacob-Wick
:math:`D^{1*}_{\lambda_\gamma\lambda}(\varphi, \theta, 0)`).

Signal density, unpolarized beam (the photon of :math:`e^+e^-` annihilation
has :math:`\lambda_\gamma = \pm 1` along the beam):

.. math::

    S = \sum_{\lambda_\gamma = \pm 1}
        |A^{(1)}_{\lambda_\gamma}(\Phi) - A^{(1)}_{\lambda_\gamma}(\Phi^{C})|^2,

:math:`\Phi^C` the event with :math:`K_1 \leftrightarrow K_2,\ \pi_1 \leftrightarrow \pi_2`.

Relative sign of the two chains
-------------------------------
Charge conjugation maps :math:`K^+(a) K^-(b) \pi^+(c) \pi^-(d)` onto
:math:`K^-(a) K^+(b) \pi^-(c) \pi^+(d)` with the product of the
C phases of a particle-antiparticle pair, which is 1 whatever their
convention; the virtual photon has :math:`C = -1`, so the amplitude obeys
:math:`A(a, b, c, d) = -A(b, a, d, c)`.  The chain of
:math:`\gamma^* \to K_1^- K^+` is the C image of that of
:math:`K_1^+ K^-`, hence :math:`A = A^{(1)}(\Phi) - A^{(1)}(\Phi^C)`.  The
same holds for the neutral kaons (below).

Isospin
-------
Final-state particles are the isospin states :math:`|I, I_3\rangle` with
no extra phases (:math:`\pi^+ = |1, 1\rangle`, :math:`K^+ = |1/2, 1/2\rangle`,
:math:`K^0 = |1/2, -1/2\rangle`); phases of final-state particles are common
to every term of a process and drop out.  A decay :math:`A \to B C` with the
isospin-invariant (reduced) partial-wave amplitude :math:`a` has the charge
amplitude :math:`\langle I_B m_B; I_C m_C | I_A m_A\rangle a`, B the first
child of the helicity amplitude.

* ``kpkmpippim``: :math:`K_1^+ \to K^{*0}\pi^+, K^{*0}\to K^+\pi^-`
  (path a) and :math:`K_1^+ \to \rho^0 K^+, \rho^0 \to \pi^+\pi^-` (path c);
  path b would need :math:`K^+\pi^+` (exotic): :math:`c_b = 0`.
* ``kskspippim``: with :math:`K_S = (K^0 \pm \bar K^0)/\sqrt 2`,
  :math:`A(K_S(a) K_S(b) \pi^+(c) \pi^-(d)) \propto F(a,b,c,d) + F(b,a,c,d)`
  (Bose symmetry; :math:`F` the amplitude of :math:`K^0(a) \bar K^0(b)`,
  a global factor :math:`\pm 1/2` dropped), and by C,
  :math:`F(b,a,c,d) = -F(a,b,d,c)`.  With :math:`G(a,b,c,d)` the
  :math:`\gamma^* \to K_1^0 \bar K^0(b)`, :math:`K_1^0 \to K^0(a)\pi^+(c)\pi^-(d)`
  chain, :math:`F = G(a,b,c,d) - G(b,a,d,c)`, and the terms whose three-body
  system contains :math:`K_1` add up to
  :math:`G(a,b,c,d) - G(a,b,d,c)`: the :math:`K^{*+}[K^0 \pi^+]\pi^-` path
  enters as path b with :math:`+g` and as path a with :math:`-g`,
  :math:`g = \langle\tfrac12 \tfrac12; 1\,{-1}|\tfrac12\,{-\tfrac12}\rangle
  \langle\tfrac12\,{-\tfrac12}; 1\, 1|\tfrac12 \tfrac12\rangle`, and the
  :math:`\rho^0 K^0` path twice, since exchanging the pions of a P-wave
  :math:`\rho \to \pi\pi` changes its sign
  (:math:`d^1_{\mu0}(\pi-\theta)e^{i\mu(\varphi+\pi)} = -d^1_{\mu0}(\theta)e^{i\mu\varphi}`).
  The other terms form the same expression on :math:`\Phi^C`, so again
  :math:`A = A^{(1)}(\Phi) - A^{(1)}(\Phi^C)`.  The amplitude is then
  symmetric under :math:`K_S(a) \leftrightarrow K_S(b)` and antisymmetric
  under :math:`\pi^+ \leftrightarrow \pi^-` (the pion pair is C-odd).

The production amplitudes :math:`\gamma^* \to K_1 \bar K` are taken the same
for :math:`K_1^+ K^-` and :math:`K_1^0 \bar K^0` (as in the paper's
simplified example; a real analysis would have isospin-0 and isospin-1
production amplitudes).

Parameters
----------
Complex partial-wave amplitudes, each as ``<NAME>_RE`` and ``<NAME>_IM``:
decays (common to every energy point) ``K1_1270_KSTPI_S``,
``K1_1270_KSTPI_D``, ``K1_1270_RHOK_S``, ``K1_1270_RHOK_D`` and the same for
``K1_1400``; production at energy point E (MeV) ``K1_1270_E1800_S``,
``K1_1270_E1800_D``, ``K1_1400_E1800_S``, ``K1_1400_E1800_D``.  The
normalization and the global phase are fixed by
``K1_<m>_KSTPI_S = 1`` and ``K1_1270_E<E>_S = 1``.
"""

import math
from fractions import Fraction

import numpy as np

from vecampfit import high_energy_physics as hep
from vecampfit import kinematics, particle_data
from vecampfit import quantum_mechanics as qm

#: Processes and their final states (K1, K2, pi1, pi2).
PROCESSES = {
    "kpkmpippim": ("K+", "K-", "pi+", "pi-"),
    "kskspippim": ("KS", "KS", "pi+", "pi-"),
}
#: Energy points (MeV).
ENERGIES_MEV = (1800, 1850, 1900, 1950, 2000)
#: Three-body resonances: name, PDG 2024 mass and width (GeV).  Not in
#: vecampfit.particle_data; values of the PDG 2024 listings.
K1_RESONANCES = (("K1_1270", 1.253, 0.090), ("K1_1400", 1.403, 0.174))
#: Radius of the two-body Blatt-Weisskopf factors (GeV^-1).
RADIUS = 1.5
#: Two-body paths of the K1 decay.
PATHS = ("a", "b", "c")
#: Decay trees of chain 1 per path (names for vecampfit.kinematics).
TREES = {
    "a": ("gamma*", ("K1R", ("KST", "K1", "pi2"), "pi1"), "K2"),
    "b": ("gamma*", ("K1R", ("KST", "K1", "pi1"), "pi2"), "K2"),
    "c": ("gamma*", ("K1R", ("RHO", "pi1", "pi2"), "K1"), "K2"),
}
#: The phi f chain (chain 5 of the paper), whose variables are Phi.
PHI_F_TREE = ("gamma*", ("phi", "K1", "K2"), ("f", "pi1", "pi2"))
#: Names of the seven phase-space variables Phi (paper section 8.1).
PHI_NAMES = ("theta_gamma", "m_k1k2", "theta_phi", "phi_k1", "m_pi1pi2", "theta_f", "phi_pi1")


# ---------------------------------------------------------------------------
# Jacob-Wick helicity amplitudes (Clebsch-Gordan coefficients from
# vecampfit.quantum_mechanics)
# ---------------------------------------------------------------------------

def _half(x, name):
    f = Fraction(x).limit_denominator(2)
    if f != Fraction(x) or f.denominator not in (1, 2):
        raise ValueError(f"{name}: expected an integer or half-integer, got {x!r}")
    return f


def helicity_amplitudes(j, s1, s2, partial_waves):
    r"""Helicity amplitudes of :math:`J \to 1\,2` from partial-wave amplitudes.

    Jacob and Wick, Ann. Phys. 7 (1959) 404, eq. (B5):

    .. math::

        H_{\lambda_1 \lambda_2} = \sum_{L, S} a_{LS}
          \sqrt{\frac{2L+1}{2J+1}}
          \langle L\, 0; S\, \lambda | J\, \lambda\rangle
          \langle s_1 \lambda_1; s_2\, {-\lambda_2} | S\, \lambda\rangle,
        \quad \lambda = \lambda_1 - \lambda_2.

    Parameters
    ----------
    j, s1, s2 : int or half-integer
        Spins of the parent and of the two children (particle 1 is the one
        whose helicity angles describe the decay).
    partial_waves : dict
        ``{(L, S): a_LS}`` (complex or arrays of complex).

    Returns
    -------
    dict
        ``{(lambda1, lambda2): H}`` for every helicity pair with
        :math:`|\lambda_1 - \lambda_2| \le J` (zero where no wave contributes).
    """
    j, s1, s2 = _half(j, "j"), _half(s1, "s1"), _half(s2, "s2")
    out = {}
    l1 = -s1
    while l1 <= s1:
        l2 = -s2
        while l2 <= s2:
            lam = l1 - l2
            if abs(lam) <= j:
                h = 0
                for (big_l, big_s), a in partial_waves.items():
                    c = (math.sqrt((2 * big_l + 1) / (2 * j + 1))
                         * qm.clebsch_gordan(big_l, 0, big_s, lam, j, lam)
                         * qm.clebsch_gordan(s1, l1, s2, -l2, big_s, lam))
                    h = h + c * a
                out[(_num(l1), _num(l2))] = h
            l2 += 1
        l1 += 1
    return out


def _num(f):
    return int(f) if f.denominator == 1 else float(f)


# ---------------------------------------------------------------------------
# Isospin
# ---------------------------------------------------------------------------

def isospin_coefficients(process):
    r"""Isospin factors :math:`(c_a, c_b, c_c)` of the three paths of chain 1.

    Products of the Clebsch-Gordan coefficients of :math:`K_1 \to R X` and
    :math:`R \to x y` (first child first); see the module description for
    the derivation.

    * ``kpkmpippim``: :math:`c_a = \langle\tfrac12{-\tfrac12};1 1|\tfrac12\tfrac12\rangle
      \langle\tfrac12\tfrac12;1{-1}|\tfrac12{-\tfrac12}\rangle` (:math:`K^{*0}\pi^+`),
      :math:`c_b = 0`, :math:`c_c = \langle 1 0;\tfrac12\tfrac12|\tfrac12\tfrac12\rangle
      \langle 1 1; 1{-1}|1 0\rangle` (:math:`\rho^0 K^+`).
    * ``kskspippim``: :math:`c_b = -c_a = \langle\tfrac12\tfrac12;1{-1}|\tfrac12{-\tfrac12}\rangle
      \langle\tfrac12{-\tfrac12};1 1|\tfrac12\tfrac12\rangle` (:math:`K^{*+}\pi^-`),
      :math:`c_c = 2\langle 1 0;\tfrac12{-\tfrac12}|\tfrac12{-\tfrac12}\rangle
      \langle 1 1; 1{-1}|1 0\rangle` (:math:`\rho^0 K^0`).

    Returns
    -------
    dict
        ``{"a": c_a, "b": c_b, "c": c_c}``.
    """
    h = Fraction(1, 2)
    cg = qm.clebsch_gordan
    rho_pipi = cg(1, 1, 1, -1, 1, 0)
    if process == "kpkmpippim":
        kst = cg(h, -h, 1, 1, h, h) * cg(h, h, 1, -1, h, -h)
        rho = cg(1, 0, h, h, h, h) * rho_pipi
        return {"a": kst, "b": 0.0, "c": rho}
    if process == "kskspippim":
        kst = cg(h, h, 1, -1, h, -h) * cg(h, -h, 1, 1, h, h)
        rho = 2 * cg(1, 0, h, -h, h, -h) * rho_pipi
        return {"a": -kst, "b": kst, "c": rho}
    raise ValueError(f"unknown process {process!r}; expected one of {sorted(PROCESSES)}")


# ---------------------------------------------------------------------------
# Masses, constants and parameters
# ---------------------------------------------------------------------------

def masses(process, edition=2024):
    """Final-state masses (GeV) ``{"K1", "K2", "pi1", "pi2"}`` of a process
    (vecampfit.particle_data)."""
    if process not in PROCESSES:
        raise ValueError(f"unknown process {process!r}; expected one of {sorted(PROCESSES)}")
    return dict(zip(("K1", "K2", "pi1", "pi2"),
                    (particle_data.mass(n, edition) for n in PROCESSES[process])))


#: Names of the model constants, in the order of the Cython model's constants[].
CONSTANT_NAMES = ("M_K", "M_PI", "K1_1270_M", "K1_1270_G", "K1_1400_M", "K1_1400_G",
                  "KST_M", "KST_G", "RHO_M", "RHO_G", "RADIUS", "C_A", "C_B", "C_C")


def constants(process, edition=2024):
    r"""Model constants of a process (dict name -> float; GeV, GeV^-1).

    ``M_K``, ``M_PI``: final-state masses; ``K1_<m>_M``, ``K1_<m>_G``: the
    :math:`K_1` masses and widths; ``KST_M``, ``KST_G``: :math:`K^*(892)^0`
    for ``kpkmpippim``, :math:`K^*(892)^+` for ``kskspippim`` (the charge
    state of the process); ``RHO_M``, ``RHO_G``: :math:`\rho(770)^0`;
    ``RADIUS``: the Blatt-Weisskopf radius; ``C_A``, ``C_B``, ``C_C``: the
    isospin factors of :func:`isospin_coefficients`.
    """
    m = masses(process, edition)
    kst = "K*(892)0" if process == "kpkmpippim" else "K*(892)+"
    out = {"M_K": m["K1"], "M_PI": m["pi1"]}
    for name, m0, g0 in K1_RESONANCES:
        out[f"{name}_M"], out[f"{name}_G"] = m0, g0
    out["KST_M"], out["KST_G"] = particle_data.mass(kst, edition), particle_data.width(kst, edition)
    out["RHO_M"] = particle_data.mass("rho(770)0", edition)
    out["RHO_G"] = particle_data.width("rho(770)0", edition)
    out["RADIUS"] = RADIUS
    c = isospin_coefficients(process)
    out["C_A"], out["C_B"], out["C_C"] = c["a"], c["b"], c["c"]
    return out


#: Decay partial waves per K1 resonance: (final state R X, L); S = 1.
DECAY_WAVES = (("KSTPI", 0), ("KSTPI", 2), ("RHOK", 0), ("RHOK", 2))
#: Production partial waves gamma* -> K1 K-bar: L; S = 1.
PRODUCTION_WAVES = (0, 2)
_L_NAME = {0: "S", 2: "D"}


def decay_wave_names():
    """Complex decay partial waves, e.g. ``K1_1270_KSTPI_S`` (no _RE/_IM)."""
    return [f"{k}_{r}_{_L_NAME[l]}" for k, *_ in K1_RESONANCES for r, l in DECAY_WAVES]


def production_wave_names(energy_mev):
    """Complex production partial waves at an energy point, e.g. ``K1_1270_E1800_S``."""
    return [f"{k}_E{int(energy_mev)}_{_L_NAME[l]}" for k, *_ in K1_RESONANCES
            for l in PRODUCTION_WAVES]


def parameter_names(energy_mev):
    """Real parameters of the density at one energy point, in order:
    the production waves, then the decay waves, each ``_RE``, ``_IM``."""
    names = []
    for w in production_wave_names(energy_mev) + decay_wave_names():
        names += [f"{w}_RE", f"{w}_IM"]
    return names


def fixed_parameter_names(energy_mev):
    """Parameters fixed by convention (normalization and global phase): the real and
    imaginary parts of ``K1_1270_E<E>_S`` and of each ``K1_<m>_KSTPI_S`` (value 1 + 0i)."""
    out = [f"K1_1270_E{int(energy_mev)}_S_RE", f"K1_1270_E{int(energy_mev)}_S_IM"]
    for k, *_ in K1_RESONANCES:
        out += [f"{k}_KSTPI_S_RE", f"{k}_KSTPI_S_IM"]
    return out


#: Generation values of the decay waves (magnitude, phase in degrees).
_DECAY_TRUTH = {
    "K1_1270_KSTPI_S": (1.0, 0.0), "K1_1270_KSTPI_D": (0.4, 60.0),
    "K1_1270_RHOK_S": (2.2, 20.0), "K1_1270_RHOK_D": (0.5, -70.0),
    "K1_1400_KSTPI_S": (1.0, 0.0), "K1_1400_KSTPI_D": (0.3, -30.0),
    "K1_1400_RHOK_S": (0.3, 110.0), "K1_1400_RHOK_D": (0.1, 45.0),
}


def default_parameters(energy_mev):
    """Generation values (dict name -> float) at an energy point.

    Decay waves: the values of ``_DECAY_TRUTH`` (K1(1270) mostly rho K,
    K1(1400) mostly K* pi); production: K1(1270) S wave 1, D wave
    0.3 exp(i 30 deg), K1(1400) S wave growing with energy,
    :math:`(0.6 + 0.6 x) e^{i(80 - 40 x)^\\circ}`, D wave
    :math:`0.2 e^{-i 50^\\circ}`, :math:`x = (\\sqrt s - 1800\\ \\mathrm{MeV})/200\\ \\mathrm{MeV}`.
    """
    x = (energy_mev - 1800.0) / 200.0
    e = int(energy_mev)
    waves = dict(_DECAY_TRUTH)
    waves.update({f"K1_1270_E{e}_S": (1.0, 0.0), f"K1_1270_E{e}_D": (0.3, 30.0),
                  f"K1_1400_E{e}_S": (0.6 + 0.6 * x, 80.0 - 40.0 * x),
                  f"K1_1400_E{e}_D": (0.2, -50.0)})
    out = {}
    for w, (a, ph) in waves.items():
        z = a * np.exp(1j * np.deg2rad(ph))
        out[f"{w}_RE"], out[f"{w}_IM"] = float(z.real), float(z.imag)
    return {n: out[n] for n in parameter_names(energy_mev)}


def parameter_vector(energy_mev, values=None):
    """The parameter vector (float64) in the order of :func:`parameter_names`."""
    values = default_parameters(energy_mev) if values is None else values
    return np.array([values[n] for n in parameter_names(energy_mev)], dtype=np.float64)


def _complex_waves(params, energy_mev):
    names = parameter_names(energy_mev)
    p = np.asarray(params, dtype=np.float64)
    if p.shape != (len(names),):
        raise ValueError(f"expected {len(names)} parameters ({names[0]}, ...), got shape {p.shape}")
    return {names[2 * i][:-3]: complex(p[2 * i], p[2 * i + 1]) for i in range(len(names) // 2)}


def coupling_helicity_amplitudes(params, energy_mev):
    r"""Helicity amplitudes of the production and of the :math:`K_1` decays.

    Returns
    -------
    dict
        ``{(K1, "prod"): {lambda: H}, (K1, "KSTPI"): {mu: H}, (K1, "RHOK"): {mu: H}}``
        from :func:`helicity_amplitudes` with :math:`J = 1` (photon,
        :math:`K_1`), :math:`s_1 = 1` (:math:`K_1`, :math:`K^*`, :math:`\rho`),
        :math:`s_2 = 0`, :math:`S = 1`.
    """
    w = _complex_waves(params, energy_mev)
    e = int(energy_mev)
    out = {}
    for k, *_ in K1_RESONANCES:
        prod = {(l, 1): w[f"{k}_E{e}_{_L_NAME[l]}"] for l in PRODUCTION_WAVES}
        out[(k, "prod")] = {lam: h for (lam, _), h in helicity_amplitudes(1, 1, 0, prod).items()}
        for r in ("KSTPI", "RHOK"):
            waves = {(l, 1): w[f"{k}_{r}_{_L_NAME[l]}"] for rr, l in DECAY_WAVES if rr == r}
            out[(k, r)] = {mu: h for (mu, _), h in helicity_amplitudes(1, 1, 0, waves).items()}
    return out


# ---------------------------------------------------------------------------
# Event variables
# ---------------------------------------------------------------------------

def _swap(momenta):
    """The charge-conjugate labelling: K1 <-> K2, pi1 <-> pi2."""
    return {"K1": momenta["K2"], "K2": momenta["K1"], "pi1": momenta["pi2"], "pi2": momenta["pi1"]}


def _angle_fields(prefix, cos_theta, phi):
    """cos(theta/2), sin(theta/2), cos(phi), sin(phi) of a helicity angle."""
    c = np.clip(cos_theta, -1.0, 1.0)
    return {f"{prefix}_ch": np.sqrt(0.5 * (1 + c)), f"{prefix}_sh": np.sqrt(0.5 * (1 - c)),
            f"{prefix}_cp": np.cos(phi), f"{prefix}_sp": np.sin(phi)}


def _chain_fields(momenta, m_k, m_pi):
    fields = {}
    for path, tree in TREES.items():
        masses_, angles = kinematics.momenta_to_helicity(tree, momenta)
        if path == "a":
            fields.update(_angle_fields("top", *angles["gamma*"]))
            fields["m3"] = masses_["K1R"]
        sub = "KST" if path in "ab" else "RHO"
        fields.update(_angle_fields(f"{path}1", *angles["K1R"]))
        fields.update(_angle_fields(f"{path}2", *angles[sub]))
        m = masses_[sub]
        ma, mb = (m_k, m_pi) if path in "ab" else (m_pi, m_pi)
        q2 = (m * m - (ma + mb) ** 2) * (m * m - (ma - mb) ** 2) / (4 * m * m)
        fields[f"{path}_m"] = m
        fields[f"{path}_q"] = np.sqrt(np.maximum(q2, 0.0))
    return fields


#: Per-chain event fields (prefix c1_ or c2_): top-level angle, the three-body
#: mass, per path the angles of the K1 decay (<p>1) and of the two-body
#: resonance decay (<p>2), the two-body mass and breakup momentum.
CHAIN_FIELDS = (("top_ch", "top_sh", "top_cp", "top_sp", "m3")
                + tuple(f"{p}{n}_{x}" for p in PATHS for n in (1, 2) for x in ("ch", "sh", "cp", "sp"))
                + tuple(f"{p}_{x}" for p in PATHS for x in ("m", "q")))
#: Event-buffer fields of the signal density, in the order of the Cython
#: model's event block.
EVENT_FIELDS = tuple(f"c{c}_{f}" for c in (1, 2) for f in CHAIN_FIELDS)


def signal_event_fields(momenta, m_k, m_pi):
    r"""Signal event-buffer fields from final-state four-momenta.

    Parameters
    ----------
    momenta : dict
        Four-momenta (n, 4) (px, py, pz, E; GeV) of ``K1``, ``K2``, ``pi1``,
        ``pi2`` in the centre-of-mass frame (the lab frame here).
    m_k, m_pi : float
        Kaon and pion masses (GeV) for the breakup momenta.

    Returns
    -------
    dict of numpy.ndarray
        :data:`EVENT_FIELDS`: for chain 1 (``c1_``) and chain 2 (``c2_``,
        the event with :math:`K_1 \leftrightarrow K_2`,
        :math:`\pi_1 \leftrightarrow \pi_2`) the half-angle cosines and
        sines of the helicity angles :math:`\theta` and the cosines and
        sines of the azimuths :math:`\varphi` (from
        :func:`vecampfit.kinematics.momenta_to_helicity`), the
        :math:`K\pi\pi` mass ``m3`` and per path the two-body mass and its
        breakup momentum (GeV).
    """
    mom = {k: np.atleast_2d(np.asarray(momenta[k], dtype=np.float64))
           for k in ("K1", "K2", "pi1", "pi2")}
    out = {}
    for c, mm in ((1, mom), (2, _swap(mom))):
        for name, v in _chain_fields(mm, m_k, m_pi).items():
            out[f"c{c}_{name}"] = np.ascontiguousarray(v)
    return out


def phase_space_variables(momenta):
    r"""The seven variables :math:`\Phi` of the :math:`\phi f` chain (paper 8.1).

    :math:`\Phi = (\theta_{\gamma^*}, M_{K_1K_2}, \theta_\phi, \varphi_{K_1},
    M_{\pi_1\pi_2}, \theta_f, \varphi_{\pi_1})` of the tree
    :math:`\gamma^* \to \phi[K_1 K_2] f[\pi_1 \pi_2]`: polar angle of
    :math:`\phi` to the beam axis, helicity and azimuthal angles of
    :math:`K_1` in the :math:`\phi` frame and of :math:`\pi_1` in the
    :math:`f` frame (radians, :math:`\theta \in [0, \pi]`,
    :math:`\varphi \in (-\pi, \pi]`), invariant masses (GeV).

    Returns
    -------
    dict of numpy.ndarray
        Keyed by :data:`PHI_NAMES`.
    """
    mom = {k: np.atleast_2d(np.asarray(momenta[k], dtype=np.float64))
           for k in ("K1", "K2", "pi1", "pi2")}
    m, a = kinematics.momenta_to_helicity(PHI_F_TREE, mom)

    def theta(c):
        return np.arccos(np.clip(c, -1.0, 1.0))

    return {"theta_gamma": theta(a["gamma*"][0]), "m_k1k2": m["phi"],
            "theta_phi": theta(a["phi"][0]), "phi_k1": a["phi"][1],
            "m_pi1pi2": m["f"], "theta_f": theta(a["f"][0]), "phi_pi1": a["f"][1]}


# ---------------------------------------------------------------------------
# Amplitude and density
# ---------------------------------------------------------------------------

def _angles(fields, prefix):
    theta = 2 * np.arctan2(fields[f"{prefix}_sh"], fields[f"{prefix}_ch"])
    phi = np.arctan2(fields[f"{prefix}_sp"], fields[f"{prefix}_cp"])
    return theta, phi


def chain_amplitudes(fields, params, energy_mev, const, chain=1, paths=PATHS, resonances=None):
    r"""Chain amplitudes :math:`A^{(c)}_{\lambda_\gamma}` for both photon helicities.

    Parameters
    ----------
    fields : dict of numpy.ndarray
        Event fields (:func:`signal_event_fields`).
    params : array_like
        Parameters in the order of :func:`parameter_names` (``energy_mev``).
    energy_mev : int
        Energy point (selects the production waves).
    const : dict
        Model constants (:func:`constants`).
    chain : {1, 2}
        Chain 2 is chain 1 of the charge-conjugate labelling.
    paths : sequence of str, optional
        Paths of the :math:`K_1` decay to include (tests).
    resonances : sequence of str, optional
        :math:`K_1` resonances to include (default all; tests).

    Returns
    -------
    dict
        ``{-1: A, +1: A}``, arrays of complex128.
    """
    f = {k[3:]: v for k, v in fields.items() if k.startswith(f"c{chain}_")}
    h = coupling_helicity_amplitudes(params, energy_mev)
    th_g, ph_g = _angles(f, "top")
    m_k, m_pi, r = const["M_K"], const["M_PI"], const["RADIUS"]
    coef = {"a": const["C_A"], "b": const["C_B"], "c": const["C_C"]}
    paths = [p for p in paths if coef[p] != 0]
    # Per path p and K1 helicity lam: sum_mu e^{i lam phi_R} d^1_{lam mu}(theta_R) [H_mu]
    # e^{i mu phi_x} d^1_{mu 0}(theta_x) B_R(M_xy), with the decay helicity amplitude H
    # of each K1 applied below (dmat[p][lam][mu] holds the rest).
    dmat = {}
    for p in paths:
        if p in "ab":
            m0, g0, ma, mb = const["KST_M"], const["KST_G"], m_k, m_pi
        else:
            m0, g0, ma, mb = const["RHO_M"], const["RHO_G"], m_pi, m_pi
        q0 = float(kinematics.decay_momentum(m0, ma, mb))
        bw = hep.breit_wigner_q_f(f[f"{p}_m"], f[f"{p}_q"], q0, m0, g0, r, 1)
        th2, ph2 = _angles(f, f"{p}2")
        th1, ph1 = _angles(f, f"{p}1")
        two = {mu: np.exp(1j * mu * ph2) * qm.d_function(1, mu, 0, th2) * bw for mu in (-1, 0, 1)}
        dmat[p] = {lam: {mu: np.exp(1j * lam * ph1) * qm.d_function(1, lam, mu, th1) * two[mu]
                         for mu in (-1, 0, 1)} for lam in (-1, 0, 1)}
    top = {(lg, lam): np.exp(1j * lg * ph_g) * qm.d_function(1, lg, lam, th_g)
           for lg in (-1, 1) for lam in (-1, 0, 1)}
    out = {-1: 0, 1: 0}
    for k, m0, g0 in K1_RESONANCES:
        if resonances is not None and k not in resonances:
            continue
        bw3 = hep.breit_wigner_constant_width_m(f["m3"], const[f"{k}_M"], const[f"{k}_G"])
        for lam in (-1, 0, 1):
            hp = h[(k, "prod")][lam]
            if hp == 0:
                continue
            decay = 0
            for p in paths:
                hd = h[(k, "KSTPI" if p in "ab" else "RHOK")]
                y = 0
                for mu in (-1, 0, 1):
                    y = y + hd[mu] * dmat[p][lam][mu]
                decay = decay + coef[p] * y
            for lg in (-1, 1):
                out[lg] = out[lg] + top[(lg, lam)] * hp * bw3 * decay
    shape = f["m3"].shape
    return {lg: out[lg] * np.ones(shape) for lg in (-1, 1)}


def chain_amplitude(fields, params, energy_mev, const, photon_helicity, chain=1,
                    paths=PATHS, resonances=None):
    r"""Chain amplitude :math:`A^{(c)}_{\lambda_\gamma}` at each event (one photon
    helicity of :func:`chain_amplitudes`, same parameters)."""
    if photon_helicity not in (-1, 1):
        raise ValueError(f"photon_helicity must be -1 or 1, got {photon_helicity!r}")
    return chain_amplitudes(fields, params, energy_mev, const, chain, paths,
                            resonances)[photon_helicity]


def amplitude(fields, params, energy_mev, const, photon_helicity):
    r""":math:`A_{\lambda_\gamma} = A^{(1)}_{\lambda_\gamma}(\Phi) - A^{(1)}_{\lambda_\gamma}(\Phi^C)`."""
    return (chain_amplitude(fields, params, energy_mev, const, photon_helicity, 1)
            - chain_amplitude(fields, params, energy_mev, const, photon_helicity, 2))


def signal_density(fields, params, energy_mev, const):
    r"""Signal density :math:`S = \sum_{\lambda_\gamma=\pm1} |A_{\lambda_\gamma}|^2`
    (GeV^-8 up to the units of the partial-wave amplitudes)."""
    a1 = chain_amplitudes(fields, params, energy_mev, const, 1)
    a2 = chain_amplitudes(fields, params, energy_mev, const, 2)
    s = 0
    for lg in (-1, 1):
        a = a1[lg] - a2[lg]
        s = s + a.real ** 2 + a.imag ** 2
    return s
