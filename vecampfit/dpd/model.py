"""Three-body decay amplitudes by the Dalitz-plot decomposition, as expressions.

The amplitude of :math:`0 \\to 1\\,2\\,3` for the helicities
:math:`\\lambda_0` of the parent and :math:`\\lambda_1, \\lambda_2,
\\lambda_3` of the daughters (M. Mikhasenko et al., Phys. Rev. D 101 (2020)
034033), with the overall orientation of the decay plane left out (it
cancels in the unpolarized intensity), is a sum over decay chains
:math:`c`, each in the pair :math:`(ij)` of its spectator :math:`k`
(:mod:`~vecampfit.dpd.kinematics`):

.. math::

    A_{\\lambda_0 \\lambda_1 \\lambda_2 \\lambda_3} = \\sum_c w_c
    \\sum_{\\lambda'} d^{j_0}_{\\lambda_0 \\lambda_0'}(\\zeta^0_{k(r_0)})\\,
    F^c_{\\lambda_0' \\lambda_1' \\lambda_2' \\lambda_3'}\\,
    \\prod_{l=1}^{3} d^{j_l}_{\\lambda_l' \\lambda_l}(\\zeta^l_{k(r_l)}),

where :math:`r_l` is the chain whose helicity frame defines the helicity
of particle :math:`l` (the same reference chain for all in the common
case), and the chain's amplitude in its own helicity frames is

.. math::

    F^c_{\\lambda_0 \\lambda_i \\lambda_j \\lambda_k} = \\sqrt{2 j_c + 1}\\;
    X_c(\\sigma_k)\\, f^{\\mathrm{prod}}_c(p^2)\\, f^{\\mathrm{dec}}_c(q^2)\\;
    H^{0 \\to c k}_{\\tau, \\lambda_k} (-1)^{j_k - \\lambda_k}\\;
    d^{j_c}_{\\tau, \\lambda_i - \\lambda_j}(\\theta_{ij})\\;
    H^{c \\to i j}_{\\lambda_i, \\lambda_j} (-1)^{j_j - \\lambda_j},
    \\qquad \\tau = \\lambda_0 + \\lambda_k,

with :math:`X_c` the lineshape of the isobar (spin :math:`j_c`) in
:math:`\\sigma_k`, :math:`f` the form factors of the production vertex
(:math:`p` the momentum of :math:`k` in the parent's rest frame) and of the
decay vertex (:math:`q` the momentum of :math:`i` in the isobar's rest
frame), :math:`H` the recoupling factors of the vertices
(:mod:`~vecampfit.dpd.vertices`) and :math:`(-1)^{j - \\lambda}` the phase of
the second particle of each two-body decay (its helicity state is that of
the first particle turned by :math:`R_y(-\\pi)`; the tests compare the
intensity with the helicity formalism in explicit Lorentz transformations
for parents and daughters of integer and half-integer spin).  A massless daughter of spin
:math:`j` has the helicities :math:`\\pm j` only.

The unpolarized intensity is :math:`I = \\sum_{\\lambda_0 \\lambda_1
\\lambda_2 \\lambda_3} |A_{\\lambda_0 \\lambda_1 \\lambda_2 \\lambda_3}|^2`.
Everything is an expression of the event quantities ``sigma1``,
``sigma2``, ``sigma3`` (:math:`\\sigma_1 = m_{23}^2` ... in GeV^2) and of
the parameters in the weights and lineshapes.
"""

import itertools

import numpy as np

from ..expressions.nodes import (ComplexExpr, add, as_complex, as_expr, cos, event, mul,
                                 parameter, sin)
from ..expressions.physics import breakup_momentum_squared
from ..expressions.spin import wigner_small_d_cos
from . import kinematics

__all__ = ["DecayChain", "ThreeBodyDecay"]


def _h(two):
    return ("m" if two < 0 else "") + str(abs(two))


def _second_particle_phase(two_j, two_lambda):
    return -1.0 if ((two_j - two_lambda) // 2) % 2 else 1.0


class DecayChain:
    """One decay chain :math:`0 \\to (ij)\\,k`, :math:`(ij) \\to i\\,j`.

    Parameters
    ----------
    k : int
        The spectator (1, 2 or 3); the isobar is the pair
        :func:`~vecampfit.dpd.kinematics.cyclic_pair` ``(k)``.
    two_j : int
        Twice the isobar's spin.
    lineshape : callable
        ``lineshape(sigma)``: the isobar's lineshape (:class:`ComplexExpr`
        or :class:`Expr`) as a function of :math:`\\sigma_k` (an expression, GeV^2).
    production, decay : vertex
        :mod:`~vecampfit.dpd.vertices` objects of :math:`0 \\to (ij)\\,k` and :math:`(ij) \\to i\\,j`.
    weight : complex, ComplexExpr
        The chain's complex coupling :math:`w_c`.
    production_form_factor, decay_form_factor : callable, optional
        ``f(p2)`` of the squared breakup momentum (GeV^2) of the vertex, a real expression.
    name : str
        A label.
    """

    def __init__(self, k, two_j, lineshape, production, decay, weight=1.0,
                 production_form_factor=None, decay_form_factor=None, name=""):
        kinematics.cyclic_pair(k)
        if two_j < 0:
            raise ValueError(f"the isobar spin must be non-negative, got {two_j}/2")
        self.k, self.two_j = int(k), int(two_j)
        self.lineshape = lineshape
        self.production, self.decay = production, decay
        self.weight = weight
        self.production_form_factor = production_form_factor
        self.decay_form_factor = decay_form_factor
        self.name = name

    def __repr__(self):
        return f"DecayChain({self.name!r}, k={self.k}, j={self.two_j}/2)"


class ThreeBodyDecay:
    """A three-body decay model: particles and decay chains.

    Parameters
    ----------
    masses : sequence of 4 floats
        :math:`(m_0, m_1, m_2, m_3)` in GeV (a daughter may be massless).
    two_spins : sequence of 4 ints
        Twice the spins :math:`(j_0, j_1, j_2, j_3)`.
    chains : list of DecayChain
    reference : int or sequence of 4 ints
        The chain (spectator index) whose helicity frames define the
        helicities of all particles, or one chain per particle
        ``(r_0, r_1, r_2, r_3)``.
    sigma_names : sequence of 3 str
        Names of the event quantities :math:`\\sigma_1, \\sigma_2, \\sigma_3`.
    massless_transverse : bool
        True (default): a massless daughter of spin :math:`j > 0` has the
        helicities :math:`\\pm j` only (a photon); False: all :math:`2j + 1`
        projections are summed, as the exchange format's published values
        for a photon assume.
    """

    def __init__(self, masses, two_spins, chains, reference=1,
                 sigma_names=("sigma1", "sigma2", "sigma3"), massless_transverse=True):
        if len(masses) != 4 or len(two_spins) != 4:
            raise ValueError("a three-body decay has four masses and four spins (parent first)")
        self.masses = tuple(float(m) for m in masses)
        self.two_spins = tuple(int(j) for j in two_spins)
        if self.masses[0] <= sum(self.masses[1:]):
            raise ValueError(f"the parent mass {self.masses[0]} is below the threshold "
                             f"{sum(self.masses[1:])}")
        self.chains = list(chains)
        refs = (reference,) * 4 if isinstance(reference, int) else tuple(reference)
        for r in refs:
            kinematics.cyclic_pair(r)
        self.references = refs
        self.sigma_names = tuple(sigma_names)
        self.sigmas = tuple(event(n) for n in self.sigma_names)
        self.massless_transverse = bool(massless_transverse)

    def helicities(self, particle):
        """Twice the helicities of a particle (0 = parent): :math:`-j..j`, or :math:`\\pm j` if
        massless (with ``massless_transverse``)."""
        two_j = self.two_spins[particle]
        if (self.massless_transverse and particle > 0 and self.masses[particle] == 0.0
                and two_j > 0):
            return [-two_j, two_j]
        return list(range(-two_j, two_j + 1, 2))

    def helicity_combinations(self):
        """All :math:`(2\\lambda_0, 2\\lambda_1, 2\\lambda_2, 2\\lambda_3)`."""
        return list(itertools.product(*[self.helicities(p) for p in range(4)]))

    # -- pieces of one chain ----------------------------------------------------------
    def chain_factor(self, chain):
        """:math:`\\sqrt{2j_c+1}\\,X_c f^{\\mathrm{prod}}_c f^{\\mathrm{dec}}_c` of a chain (ComplexExpr)."""
        k = chain.k
        i, j = kinematics.cyclic_pair(k)
        sk = self.sigmas[k - 1]
        m = self.masses
        out = as_complex(chain.lineshape(sk))
        real = [float(chain.two_j + 1) ** 0.5]
        if chain.production_form_factor is not None:
            p2 = breakup_momentum_squared(m[0] ** 2, sk ** 0.5, m[k])
            real.append(as_expr(chain.production_form_factor(p2)))
        if chain.decay_form_factor is not None:
            q2 = breakup_momentum_squared(sk, m[i], m[j])
            real.append(as_expr(chain.decay_form_factor(q2)))
        return out * mul(*real)

    def aligned_amplitudes(self, chain):
        """:math:`F^c / (\\sqrt{2j_c+1} X_c f f)`: the angular and recoupling part in the chain's frames.

        Returns
        -------
        dict
            ``(2λ0, 2λ1, 2λ2, 2λ3) -> Expr`` for the non-zero entries.
        """
        k = chain.k
        i, j = kinematics.cyclic_pair(k)
        js = self.two_spins
        cos_t = kinematics.cos_theta(k, self.sigmas, self.masses)
        out = {}
        for hel in self.helicity_combinations():
            l0, li, lj, lk = hel[0], hel[i], hel[j], hel[k]
            tau, m = l0 + lk, li - lj
            if abs(tau) > chain.two_j or abs(m) > chain.two_j:
                continue
            h_prod = chain.production.factor(tau, lk, js[0], chain.two_j, js[k])
            if h_prod == 0:
                continue
            h_dec = chain.decay.factor(li, lj, chain.two_j, js[i], js[j])
            if h_dec == 0:
                continue
            c = (h_prod * _second_particle_phase(js[k], lk) * h_dec
                 * _second_particle_phase(js[j], lj))
            out[hel] = mul(c, wigner_small_d_cos(chain.two_j / 2, tau / 2, m / 2, cos_t))
        return out

    def rotation(self, particle, k):
        """The alignment rotation of a particle from chain ``k`` to its reference chain.

        Returns
        -------
        dict or None
            ``(2λ_row, 2λ_col) -> Expr`` of :math:`d^{j}(\\pm\\zeta)`, or None for the identity.
            For the parent the row is the reference helicity, for a
            daughter the row is the chain's helicity.
        """
        r = self.references[particle]
        two_j = self.two_spins[particle]
        if two_j == 0:
            return None
        cz = kinematics.cos_zeta(particle, k, r, self.sigmas, self.masses)
        if cz is None:
            return None
        sign = kinematics.zeta_sign(particle, k, r)
        hs = self.helicities(particle)
        return {(a, b): wigner_small_d_cos(two_j / 2, a / 2, b / 2, cz, sign)
                for a in hs for b in hs}

    # -- the model ----------------------------------------------------------------------
    def chain_amplitudes(self, chain):
        """Real angular parts :math:`R^c_\\lambda` of a chain, in the reference helicities:
        :math:`A^c_\\lambda = w_c\\,\\sqrt{2j_c+1} X_c f f\\, R^c_\\lambda`.

        Returns
        -------
        dict
            ``(2λ0, 2λ1, 2λ2, 2λ3) -> Expr`` in the reference helicities.
        """
        aligned = self.aligned_amplitudes(chain)
        rot = [self.rotation(p, chain.k) for p in range(4)]
        terms = {}
        for hel in self.helicity_combinations():
            for primed, f in aligned.items():
                factors = [f]
                for p in range(4):
                    if rot[p] is None:
                        if primed[p] != hel[p]:
                            break
                        continue
                    key = (hel[p], primed[p]) if p == 0 else (primed[p], hel[p])
                    factors.append(rot[p][key])
                else:
                    terms.setdefault(hel, []).append(mul(*factors))
        return {hel: add(*ts) for hel, ts in terms.items()}

    def amplitudes(self):
        """:math:`A_{\\lambda_0 \\lambda_1 \\lambda_2 \\lambda_3}` for every helicity combination.

        Returns
        -------
        dict
            ``(2λ0, 2λ1, 2λ2, 2λ3) -> ComplexExpr``.
        """
        re = {h: [] for h in self.helicity_combinations()}
        im = {h: [] for h in self.helicity_combinations()}
        for chain in self.chains:
            factor = as_complex(chain.weight) * self.chain_factor(chain)
            for hel, r in self.chain_amplitudes(chain).items():
                re[hel].append(mul(factor.re, r))
                im[hel].append(mul(factor.im, r))
        return {h: ComplexExpr(add(*re[h]) if re[h] else 0.0, add(*im[h]) if im[h] else 0.0)
                for h in re}

    def unpolarized_intensity(self):
        """:math:`I = \\sum_\\lambda |A_\\lambda|^2` (Expr)."""
        return add(*[a.abs2() for a in self.amplitudes().values()])

    def polarization_parameters(self):
        """Names of the parent's polarization parameters: ``Px``, ``Py``, ``Pz`` for spin 1/2
        (the polarization vector), otherwise the Hermitian density matrix's
        ``rho_<a>_<b>_re`` / ``_im`` in doubled helicities (``m`` for minus), with
        ``rho_<a>_<a>_re`` on the diagonal."""
        two_j = self.two_spins[0]
        if two_j == 1:
            return ["Px", "Py", "Pz"]
        hs = list(range(two_j, -two_j - 1, -2))
        out = []
        for n, a in enumerate(hs):
            for b in hs[n:]:
                out.append(f"rho_{_h(a)}_{_h(b)}_re")
                if a != b:
                    out.append(f"rho_{_h(a)}_{_h(b)}_im")
        return out

    def density_matrix(self):
        """The parent's spin-density matrix :math:`\\rho_{\\lambda \\lambda'}` in the
        helicities along the fixed :math:`z` axis, of :meth:`polarization_parameters`.

        For spin 1/2, :math:`\\rho = (1 + \\vec P \\cdot \\vec\\sigma)/2`; otherwise the
        parameters are the entries (the overall normalization of the
        intensity is free, so the trace is not constrained).

        Returns
        -------
        dict
            ``(2λ, 2λ') -> ComplexExpr``.
        """
        two_j = self.two_spins[0]
        if two_j == 0:
            raise ValueError("a spinless parent has no polarization")
        if two_j == 1:
            px, py, pz = (parameter(n) for n in ("Px", "Py", "Pz"))
            return {(1, 1): ComplexExpr(mul(0.5, add(1.0, pz))),
                    (-1, -1): ComplexExpr(mul(0.5, add(1.0, mul(-1.0, pz)))),
                    (1, -1): ComplexExpr(mul(0.5, px), mul(-0.5, py)),
                    (-1, 1): ComplexExpr(mul(0.5, px), mul(0.5, py))}
        hs = list(range(two_j, -two_j - 1, -2))
        out = {}
        for n, a in enumerate(hs):
            for b in hs[n:]:
                re = parameter(f"rho_{_h(a)}_{_h(b)}_re")
                im = parameter(f"rho_{_h(a)}_{_h(b)}_im") if a != b else 0.0
                out[(a, b)] = ComplexExpr(re, im)
                out[(b, a)] = ComplexExpr(re, mul(-1.0, im))
        return out

    def rotated_density_matrix(self, angles=("alpha", "cos_beta", "gamma")):
        """The density matrix in the aligned helicities of the parent,
        :math:`\\rho'_{\\nu \\nu'} = \\sum_{\\lambda \\lambda'} \\rho_{\\lambda \\lambda'}
        \\overline{D^{j_0}_{\\lambda \\nu}(R)}\\, D^{j_0}_{\\lambda' \\nu'}(R)`, with
        :math:`R = R_z(\\alpha) R_y(\\beta) R_z(\\gamma)` the orientation of the event
        (:func:`~vecampfit.dpd.kinematics.orientation` of the parent's reference chain)
        and :math:`D^j_{\\lambda\\nu} = e^{-i\\lambda\\alpha} d^j_{\\lambda\\nu}(\\beta)
        e^{-i\\nu\\gamma}`: the polarized intensity is
        :math:`\\sum \\rho'_{\\nu\\nu'} A_\\nu \\bar A_{\\nu'}` with the amplitudes of
        :meth:`amplitudes`.

        Parameters
        ----------
        angles : 3 str
            Names of the event variables :math:`\\alpha` (rad), :math:`\\cos\\beta`,
            :math:`\\gamma` (rad).

        Returns
        -------
        dict
            ``(2ν, 2ν') -> ComplexExpr``.
        """
        alpha, cos_beta, gamma = (event(n) for n in angles)
        rho = self.density_matrix()
        two_j = self.two_spins[0]
        hs = self.helicities(0)
        out = {}
        for nu in hs:
            for nu2 in hs:
                terms = []
                for (lam, lam2), r in rho.items():
                    d = mul(wigner_small_d_cos(two_j / 2, lam / 2, nu / 2, cos_beta),
                            wigner_small_d_cos(two_j / 2, lam2 / 2, nu2 / 2, cos_beta))
                    phase = add(mul((lam - lam2) / 2, alpha), mul((nu - nu2) / 2, gamma))
                    rot = ComplexExpr(cos(phase), sin(phase)) if phase != as_expr(0.0) \
                        else ComplexExpr(1.0)
                    terms.append(r * rot * ComplexExpr(d))
                total = terms[0]
                for t in terms[1:]:
                    total = total + t
                out[(nu, nu2)] = total
        return out

    def orientation_transform(self, angles=("alpha", "cos_beta", "gamma")):
        """The complex conjugate of the parent's Wigner D matrix of the event's
        orientation, :math:`U_{\\lambda\\nu} = \\overline{D^{j_0}_{\\lambda\\nu}(R)}
        = e^{i\\lambda\\alpha} d^{j_0}_{\\lambda\\nu}(\\beta) e^{i\\nu\\gamma}`: with it
        :meth:`rotated_density_matrix` is
        :math:`\\rho' = U^T \\rho\\, \\bar U`, so that the polarized intensity
        is :math:`\\sum \\rho_{\\lambda\\lambda'} \\tilde A_\\lambda \\bar{\\tilde A}_{\\lambda'}`
        with :math:`\\tilde A_\\lambda = \\sum_\\nu U_{\\lambda\\nu} A_\\nu`
        (the ``factors`` of
        :meth:`vecampfit.amplitudes.AmplitudeModel.set_density_matrix`).

        Parameters
        ----------
        angles : 3 str
            Names of the event variables :math:`\\alpha` (rad),
            :math:`\\cos\\beta`, :math:`\\gamma` (rad).

        Returns
        -------
        dict
            ``(2λ, 2ν) -> ComplexExpr``.
        """
        alpha, cos_beta, gamma = (event(n) for n in angles)
        two_j = self.two_spins[0]
        hs = self.helicities(0)
        out = {}
        for lam in hs:
            for nu in hs:
                d = wigner_small_d_cos(two_j / 2, lam / 2, nu / 2, cos_beta)
                phase = add(mul(lam / 2, alpha), mul(nu / 2, gamma))
                out[(lam, nu)] = ComplexExpr(mul(d, cos(phase)), mul(d, sin(phase)))
        return out

    def amplitude_model(self, parameters, name="three-body decay", constants=None,
                        polarized=False, angles=("alpha", "cos_beta", "gamma")):
        """The model as a :class:`~vecampfit.amplitudes.AmplitudeModel` (which compiles).

        One group per pair (the chains with the same spectator share their
        helicity frames and Wigner rotations), one component per chain: the
        coupling :math:`w_c`, the factor :math:`\\sqrt{2j_c+1}\\,X_c f f` and the
        angular vector :meth:`aligned_amplitudes`; the rotations of
        :meth:`rotation`, one per particle with spin.

        Parameters
        ----------
        parameters : dict or sequence of ModelParameter
            The parameters the weights and lineshapes use (name -> starting value).
        name : str
        constants : dict, optional
        polarized : bool
            The intensity of a polarized parent: :meth:`rotated_density_matrix`,
            with the event variables ``angles`` beside the Dalitz variables
            and the parameters :meth:`polarization_parameters` (added at 0,
            free, where ``parameters`` does not give them).
        angles : 3 str
            Names of the orientation's event variables.

        Returns
        -------
        AmplitudeModel
        """
        from ..amplitudes import AmplitudeModel, ModelParameter
        if isinstance(parameters, dict):
            parameters = [ModelParameter(n, v) for n, v in parameters.items()]
        parameters = list(parameters)
        events = tuple(self.sigma_names)
        if polarized:
            have = {p.name for p in parameters}
            first = True
            for n in self.polarization_parameters():
                diagonal = n.endswith("_re") and n.split("_")[1] == n.split("_")[2]
                if n not in have:
                    # The first diagonal entry fixes the normalization.
                    parameters.append(ModelParameter(n, 1.0 if diagonal else 0.0, step=0.05,
                                                     fixed=diagonal and first))
                first = first and not diagonal
            events += tuple(angles)
        model = AmplitudeModel(name, self.helicity_combinations(), parameters,
                               constants=constants, events=events)
        if polarized:
            model.set_density_matrix(0, self.rotated_density_matrix(angles),
                                     factors=(self.density_matrix(),
                                              self.orientation_transform(angles)))
        used = set()
        for k in (1, 2, 3):
            chains = [c for c in self.chains if c.k == k]
            if not chains:
                continue
            rotations = []
            for p in range(4):
                rot = self.rotation(p, k)
                if rot is None:
                    continue
                # (reference, frame) keys: the parent's rows are the reference
                # helicity, a daughter's the chain's.
                rotations.append((p, rot if p == 0 else {(b, a): v for (a, b), v in rot.items()}))
            group = f"pair{k}"
            model.add_group(group, rotations)
            for n, chain in enumerate(chains):
                label = base = chain.name or f"chain{k}_{n}"
                count = 1
                while label in used:
                    count += 1
                    label = f"{base}_{count}"
                used.add(label)
                model.add_component(label, group, chain.weight,
                                    self.chain_factor(chain), self.aligned_amplitudes(chain))
        return model

    def event_records(self, p1, p2, p3, angles=("alpha", "cos_beta", "gamma")):
        """The event variables of :meth:`amplitude_model` from four-momenta.

        Parameters
        ----------
        p1, p2, p3 : array_like
            Four-momenta :math:`(p_x, p_y, p_z, E)` of the daughters in the
            parent's rest frame (GeV), shape ``(n, 4)``.
        angles : 3 str
            Names of the orientation's variables (for a polarized model).

        Returns
        -------
        dict
            The Dalitz variables (GeV^2) under :attr:`sigma_names` and the
            Euler angles of the event's orientation relative to the aligned
            configuration of the parent's reference chain
            (:func:`~vecampfit.dpd.kinematics.orientation`): :math:`\\alpha`,
            :math:`\\cos\\beta`, :math:`\\gamma`.
        """
        p = [np.asarray(x, dtype=np.float64) for x in (p1, p2, p3)]
        sig = kinematics.sigmas_from_four_momenta(*p)
        alpha, cos_beta, gamma = kinematics.orientation(*p, reference=self.references[0])
        out = dict(zip(self.sigma_names, sig))
        out.update(zip(angles, (alpha, cos_beta, gamma)))
        return out

    def values(self, sigmas):
        """Event values ``{sigma_name: value}`` for :func:`~vecampfit.expressions.evaluate`."""
        return dict(zip(self.sigma_names, sigmas))

