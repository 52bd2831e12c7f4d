"""Two-body vertices :math:`X \\to a\\,b` of a decay chain: the helicity recoupling factors.

A vertex gives a real factor :math:`H(\\lambda_a, \\lambda_b)` for each pair
of helicities of its decay products.  Three kinds:

* :class:`HelicityVertex`: :math:`H = \\delta_{\\lambda_a \\lambda_a^0}\\delta_{\\lambda_b \\lambda_b^0}`;
* :class:`ParityVertex`: :math:`H = 1` for the selected pair
  :math:`(\\lambda_a^0, \\lambda_b^0)`, :math:`H = f = \\pm 1` for the
  opposite pair :math:`(-\\lambda_a^0, -\\lambda_b^0)` and zero otherwise;
  when the two pairs coincide (:math:`\\lambda_a^0 = \\lambda_b^0 = 0`) the
  factor is 1 (not :math:`1 + f`), as the format's published values require;
* :class:`LSVertex`: the coupling of orbital angular momentum :math:`l` and
  total spin :math:`s`,

  .. math::

      H(\\lambda_a, \\lambda_b) = \\sqrt{\\frac{2l + 1}{2j + 1}}\\,
      \\langle j_a \\lambda_a; j_b, -\\lambda_b | s, \\lambda_a - \\lambda_b\\rangle
      \\langle l, 0; s, \\lambda_a - \\lambda_b | j, \\lambda_a - \\lambda_b\\rangle,

  Clebsch-Gordan coefficients from :func:`vecampfit.quantum_mechanics.clebsch_gordan`.

Spins and helicities are kept doubled (``two_j = 2 j``) as integers.
"""

from fractions import Fraction

from ..quantum_mechanics import clebsch_gordan

__all__ = ["HelicityVertex", "ParityVertex", "LSVertex"]


def _half(two):
    return Fraction(two, 2)


class HelicityVertex:
    """A vertex with one pair of helicities (no recoupling).

    Parameters
    ----------
    two_lambda_a, two_lambda_b : int
        Twice the selected helicities of the decay products.
    """

    kind = "helicity"

    def __init__(self, two_lambda_a, two_lambda_b):
        self.two_lambda_a, self.two_lambda_b = int(two_lambda_a), int(two_lambda_b)

    def factor(self, two_la, two_lb, two_j, two_ja, two_jb):
        """:math:`H(\\lambda_a, \\lambda_b)` (the spins are not used)."""
        return 1.0 if (two_la, two_lb) == (self.two_lambda_a, self.two_lambda_b) else 0.0

    def __eq__(self, other):
        return type(other) is type(self) and vars(other) == vars(self)

    def __repr__(self):
        return f"HelicityVertex({self.two_lambda_a}/2, {self.two_lambda_b}/2)"


class ParityVertex(HelicityVertex):
    """A vertex with a pair of helicities and its parity partner.

    Parameters
    ----------
    two_lambda_a, two_lambda_b : int
        Twice the selected helicities.
    parity_factor : {1, -1}
        :math:`f`, the factor of the opposite helicities.
    """

    kind = "parity"

    def __init__(self, two_lambda_a, two_lambda_b, parity_factor):
        super().__init__(two_lambda_a, two_lambda_b)
        if parity_factor not in (1, -1):
            raise ValueError(f"a parity factor is +1 or -1, got {parity_factor!r}")
        self.parity_factor = int(parity_factor)

    def factor(self, two_la, two_lb, two_j, two_ja, two_jb):
        """:math:`H(\\lambda_a, \\lambda_b)` (the spins are not used)."""
        if (two_la, two_lb) == (self.two_lambda_a, self.two_lambda_b):
            return 1.0
        if (two_la, two_lb) == (-self.two_lambda_a, -self.two_lambda_b):
            return float(self.parity_factor)
        return 0.0

    def __repr__(self):
        return (f"ParityVertex({self.two_lambda_a}/2, {self.two_lambda_b}/2, "
                f"{'+' if self.parity_factor > 0 else '-'})")


class LSVertex:
    """A vertex in the LS basis.

    Parameters
    ----------
    two_l : int
        Twice the orbital angular momentum (even).
    two_s : int
        Twice the total spin of the decay products.
    """

    kind = "ls"

    def __init__(self, two_l, two_s):
        if two_l % 2 or two_l < 0:
            raise ValueError(f"l must be a non-negative integer, got {two_l}/2")
        if two_s < 0:
            raise ValueError(f"s must be non-negative, got {two_s}/2")
        self.two_l, self.two_s = int(two_l), int(two_s)

    def factor(self, two_la, two_lb, two_j, two_ja, two_jb):
        """:math:`H(\\lambda_a, \\lambda_b)` of a decay of spin ``two_j/2`` into the spins
        ``two_ja/2`` and ``two_jb/2``."""
        two_m = two_la - two_lb
        if abs(two_m) > self.two_s or abs(two_m) > two_j:
            return 0.0
        h = _half
        cg1 = clebsch_gordan(h(two_ja), h(two_la), h(two_jb), h(-two_lb), h(self.two_s), h(two_m))
        if cg1 == 0:
            return 0.0
        cg2 = clebsch_gordan(h(self.two_l), 0, h(self.two_s), h(two_m), h(two_j), h(two_m))
        return float(((self.two_l + 1) / (two_j + 1)) ** 0.5 * cg1 * cg2)

    def __eq__(self, other):
        return type(other) is type(self) and vars(other) == vars(self)

    def __repr__(self):
        return f"LSVertex(l={self.two_l}/2, s={self.two_s}/2)"
