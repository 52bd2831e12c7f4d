"""Particles, isobars, the initial state and the vertices of a cascade of two-body decays.

Spins and helicities are kept doubled (``two_spin = 2 j``) as integers;
they are given as numbers (``1``, ``0.5``, ``Fraction(3, 2)``) or strings
(``"3/2"``).  Masses and widths are in GeV, radii in GeV^-1.

A vertex :math:`X \\to a\\,b` (spin :math:`J` of :math:`X`, spins
:math:`s_a, s_b`) contributes :math:`H_{\\lambda_a \\lambda_b} = \\sum_t g_t
h_t(\\lambda_a, \\lambda_b)`, a sum of couplings :math:`g_t` times known
recoupling factors :math:`h_t`:

* :class:`LS`: a coupling per orbital angular momentum :math:`L` and total
  spin :math:`S` (Jacob and Wick, Ann. Phys. 7 (1959) 404, eq. (B5)),

  .. math::

      h_{LS}(\\lambda_a, \\lambda_b) = \\sqrt{\\frac{2L+1}{2J+1}}\\,
      \\langle L\\, 0; S\\, \\lambda | J\\, \\lambda\\rangle
      \\langle s_a \\lambda_a; s_b\\, {-\\lambda_b} | S\\, \\lambda\\rangle,
      \\qquad \\lambda = \\lambda_a - \\lambda_b

  (:class:`vecampfit.dpd.vertices.LSVertex`);
* :class:`Helicity`: a coupling per pair of helicities,
  :math:`h_{\\mu\\nu}(\\lambda_a, \\lambda_b) = \\delta_{\\lambda_a\\mu}
  \\delta_{\\lambda_b\\nu}`.

A coupling is a name (the complex parameter ``<name>_RE + i <name>_IM``:
vertices that name the same coupling share it), a number (a fixed
coupling, complex allowed) or a :class:`~vecampfit.expressions.ComplexExpr`
of parameters and constants.
"""

import numbers

from ..dpd.vertices import LSVertex
from ..expressions.nodes import ComplexExpr, Expr, as_complex, parameter
from ..expressions.spin import doubled_spin

__all__ = ["Particle", "Isobar", "VirtualPhoton", "LS", "Helicity"]


def _parity(value, name):
    if value is None:
        return None
    if value not in (1, -1) or isinstance(value, bool):
        raise ValueError(f"{name}: a parity is +1, -1 or None, got {value!r}")
    return int(value)


class Particle:
    """A final-state particle, or the decaying particle at the top of a cascade.

    Parameters
    ----------
    name : str
        Unique within the cascade.
    spin : int, float, Fraction or str
        Spin :math:`j` (a multiple of 1/2).
    parity : {1, -1, None}
        Intrinsic parity (None: unknown, not checked).
    mass : float or Expr, optional
        Mass (GeV): the breakup momenta of the lineshapes use it.
    massless : bool
        A massless particle of spin :math:`j` has the helicities
        :math:`\\pm j` only.
    """

    def __init__(self, name, spin=0, parity=None, mass=None, massless=False):
        if not isinstance(name, str) or not name:
            raise ValueError(f"a particle's name is a non-empty string, got {name!r}")
        self.name = name
        self.two_spin = doubled_spin(spin, f"particle {name!r}: spin", allow_negative=False)
        self.parity = _parity(parity, f"particle {name!r}")
        self.mass = mass
        self.massless = bool(massless)

    @property
    def spin(self):
        """:math:`j` (float)."""
        return self.two_spin / 2

    def helicities(self):
        """Doubled helicities :math:`2\\lambda`, lowest first."""
        if self.massless and self.two_spin:
            return (-self.two_spin, self.two_spin)
        return tuple(range(-self.two_spin, self.two_spin + 1, 2))

    def __repr__(self):
        return f"{type(self).__name__}({self.name!r}, spin={self.two_spin}/2)"


class Isobar(Particle):
    """An intermediate state of a cascade, with its lineshape.

    Parameters
    ----------
    name, spin, parity, mass :
        As for :class:`Particle`; ``mass`` (GeV) is the mass the breakup
        momenta of a parent's lineshape use for this isobar (default: the
        event's invariant mass of the isobar).
    lineshape : callable, optional
        ``lineshape(s, m_a, m_b) -> ComplexExpr``: the isobar's amplitude as
        a function of its squared invariant mass :math:`s` (GeV^2, an event
        expression) and the masses of its two decay products (GeV; numbers
        or expressions), built from :mod:`vecampfit.expressions.physics`
        (see :mod:`vecampfit.cascades.lineshapes`).  Default: 1.
    """

    def __init__(self, name, spin=0, parity=None, lineshape=None, mass=None):
        super().__init__(name, spin, parity, mass)
        if lineshape is not None and not callable(lineshape):
            raise TypeError(f"isobar {name!r}: the lineshape must be callable "
                            f"lineshape(s, m_a, m_b), got {lineshape!r}")
        self.lineshape = lineshape


class VirtualPhoton(Particle):
    """The virtual photon of :math:`e^+e^-` annihilation (:math:`J^{PC} = 1^{--}`).

    With unpolarized beams along the z axis, and neglecting the electron
    mass, its helicity along the beam is :math:`\\lambda_\\gamma = \\pm 1`,
    the two summed incoherently: :math:`S = \\sum_{\\lambda_\\gamma = \\pm 1}
    |A_{\\lambda_\\gamma}|^2`.  The z axis of the lab frame (the frame of the
    four-momenta) is the beam axis; the sign of its direction does not
    matter for unpolarized beams.
    """

    def __init__(self, name="gamma*"):
        super().__init__(name, 1, -1)

    def helicities(self):
        return (-2, 2)


def coupling_expr(value, suffixes=("_RE", "_IM")):
    """A coupling as ``(key, ComplexExpr)``.

    ``key`` is None for a number (a fixed coupling, folded into the event
    factors) and hashable otherwise (two vertices with the same key share
    the coupling).
    """
    if isinstance(value, str):
        if not value:
            raise ValueError("a coupling name must be a non-empty string")
        expr = ComplexExpr(parameter(value + suffixes[0]), parameter(value + suffixes[1]))
        return ("name", value), expr
    if isinstance(value, numbers.Number) and not isinstance(value, bool):
        return None, complex(value)
    if isinstance(value, (Expr, ComplexExpr)):
        expr = as_complex(value)
        if any("event" in part.kinds for part in expr.parts()):
            raise ValueError(f"a coupling may not depend on the event: {expr!r}")
        return ("expr", expr), expr
    raise TypeError(f"a coupling is a name, a number or a ComplexExpr of parameters, "
                    f"got {value!r}")


class _Vertex:
    def __init__(self, couplings, kind):
        if not isinstance(couplings, dict) or not couplings:
            raise ValueError(f"{kind} vertex: give a non-empty dict of couplings")
        self.couplings = dict(couplings)

    def terms(self, parent, a, b, suffixes=("_RE", "_IM"), where="vertex"):
        """The vertex as ``[(key, coupling, h)]`` with ``h(two_la, two_lb) -> float``."""
        raise NotImplementedError


class LS(_Vertex):
    """A vertex with couplings in the LS basis (Jacob-Wick eq. (B5)).

    Parameters
    ----------
    couplings : dict
        ``{(L, S): coupling}``; ``L`` a non-negative integer, ``S`` a multiple
        of 1/2.
    parity_conserving : bool
        Check :math:`P_X = P_a P_b (-1)^L` for every wave where the three
        parities are known (False for weak decays).
    """

    def __init__(self, couplings, parity_conserving=True):
        super().__init__(couplings, "LS")
        self.parity_conserving = bool(parity_conserving)
        self.waves = {}
        for key, value in self.couplings.items():
            if not isinstance(key, tuple) or len(key) != 2:
                raise ValueError(f"LS vertex: a key is (L, S), got {key!r}")
            two_l = doubled_spin(key[0], "L", allow_negative=False)
            two_s = doubled_spin(key[1], "S", allow_negative=False)
            if two_l % 2:
                raise ValueError(f"LS vertex: L must be an integer, got {key[0]!r}")
            self.waves[(two_l, two_s)] = value

    def terms(self, parent, a, b, suffixes=("_RE", "_IM"), where="vertex"):
        out = []
        for (two_l, two_s), value in self.waves.items():
            j, ja, jb = parent.two_spin, a.two_spin, b.two_spin
            if not (abs(ja - jb) <= two_s <= ja + jb and (ja + jb - two_s) % 2 == 0):
                raise ValueError(f"{where}: S = {two_s}/2 cannot couple the spins {ja}/2 and "
                                 f"{jb}/2 of {a.name!r} and {b.name!r}")
            if not (abs(two_l - two_s) <= j <= two_l + two_s and (two_l + two_s - j) % 2 == 0):
                raise ValueError(f"{where}: L = {two_l // 2}, S = {two_s}/2 cannot give the "
                                 f"spin {j}/2 of {parent.name!r}")
            if self.parity_conserving and None not in (parent.parity, a.parity, b.parity):
                if parent.parity != a.parity * b.parity * (-1) ** (two_l // 2):
                    raise ValueError(f"{where}: L = {two_l // 2} violates parity in "
                                     f"{parent.name!r} -> {a.name!r} {b.name!r} (give "
                                     "parity_conserving=False for a weak decay)")
            key, expr = coupling_expr(value, suffixes)
            vertex = LSVertex(two_l, two_s)
            out.append((key, expr,
                        lambda la, lb, v=vertex, j=j, ja=ja, jb=jb: v.factor(la, lb, j, ja, jb)))
        return out


class Helicity(_Vertex):
    """A vertex with a coupling per pair of helicities of its decay products.

    Parameters
    ----------
    couplings : dict
        ``{(lambda_a, lambda_b): coupling}``, helicities as numbers or strings
        (not doubled: ``(1, 0)``, ``("1/2", "-1/2")``).
    """

    def __init__(self, couplings):
        super().__init__(couplings, "helicity")
        self.pairs = {}
        for key, value in self.couplings.items():
            if not isinstance(key, tuple) or len(key) != 2:
                raise ValueError(f"helicity vertex: a key is (lambda_a, lambda_b), got {key!r}")
            self.pairs[(doubled_spin(key[0], "lambda_a"), doubled_spin(key[1], "lambda_b"))] = value

    def terms(self, parent, a, b, suffixes=("_RE", "_IM"), where="vertex"):
        out = []
        for (la0, lb0), value in self.pairs.items():
            if la0 not in a.helicities() or lb0 not in b.helicities():
                raise ValueError(f"{where}: the helicities ({la0}/2, {lb0}/2) are not those of "
                                 f"{a.name!r} and {b.name!r}")
            if abs(la0 - lb0) > parent.two_spin:
                raise ValueError(f"{where}: |lambda_a - lambda_b| = {abs(la0 - lb0)}/2 exceeds "
                                 f"the spin of {parent.name!r}")
            key, expr = coupling_expr(value, suffixes)
            out.append((key, expr,
                        lambda la, lb, p=(la0, lb0): 1.0 if (la, lb) == p else 0.0))
        return out
