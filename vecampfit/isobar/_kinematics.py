"""Three-body kinematics in numpy: the event-buffer fields of isobar models.

Everything here depends on the event and the model's constants only (never
on fit parameters): it is computed once per event when the event buffer is
filled.  Daughters are indexed 0, 1, 2; ``s[(i, j)]`` (``i < j``) is the
squared invariant mass of the pair (GeV^2).  Values just outside the
kinematic region (rounding of float32 momenta) are clipped to its edge so
that such events stay usable.
"""

import numpy as np


def breakup_momentum_squared(m, ma, mb):
    """Squared breakup momentum of m -> a b (GeV^2), negative below threshold:
    :math:`q^2 = (m^2 - (m_a + m_b)^2)(m^2 - (m_a - m_b)^2) / (4 m^2)`."""
    return (m * m - (ma + mb) ** 2) * (m * m - (ma - mb) ** 2) / (4 * m * m)


def third(i, j):
    """Index of the daughter that is neither i nor j."""
    return 3 - i - j


def key(i, j):
    return (i, j) if i < j else (j, i)


class DalitzKinematics:
    """Pair masses, momenta and angles of three-body events.

    Parameters
    ----------
    s : dict
        ``(i, j) -> m_ij^2`` for the three pairs, ``i < j`` (GeV^2).
    parent_mass : float
        Mass of the decaying particle (GeV).
    masses : sequence of 3 float
        Daughter masses (GeV).
    """

    def __init__(self, s, parent_mass, masses):
        self.s = {key(*k): np.asarray(v, dtype=np.float64) for k, v in s.items()}
        self.M = float(parent_mass)
        self.masses = tuple(float(x) for x in masses)
        self._cache = {}

    def _memo(self, name, fn):
        if name not in self._cache:
            self._cache[name] = fn()
        return self._cache[name]

    def m(self, i, j):
        """Invariant mass of the pair (GeV), at least its threshold."""
        i, j = key(i, j)
        lo = (self.masses[i] + self.masses[j]) ** 2
        return self._memo(("m", i, j), lambda: np.sqrt(np.maximum(self.s[(i, j)], lo)))

    def s_pair(self, i, j):
        """Squared invariant mass of the pair (GeV^2), at least its threshold."""
        i, j = key(i, j)
        lo = (self.masses[i] + self.masses[j]) ** 2
        return self._memo(("s", i, j), lambda: np.maximum(self.s[(i, j)], lo))

    def q(self, i, j):
        """Breakup momentum of the pair in its rest frame (GeV)."""
        i, j = key(i, j)
        return self._memo(("q", i, j), lambda: np.sqrt(np.maximum(
            breakup_momentum_squared(self.m(i, j), self.masses[i], self.masses[j]), 0)))

    def q_squared(self, i, j, ma, mb):
        """Squared breakup momentum of m_ij -> (ma, mb) (negative below threshold)."""
        return breakup_momentum_squared(self.m(i, j), ma, mb)

    def p(self, i, j):
        """Breakup momentum of parent -> (ij) + k in the parent frame (GeV)."""
        i, j = key(i, j)
        mc = self.masses[third(i, j)]

        def compute():
            mm = np.minimum(self.m(i, j), self.M - mc)
            return np.sqrt(np.maximum(breakup_momentum_squared(self.M, mm, mc), 0))
        return self._memo(("p", i, j), compute)

    def covariant_factor(self, i, j):
        """:math:`f = (M^2 + m_{ij}^2 - m_k^2) / (2 M m_{ij})` (paper eq. covariant_factor)."""
        i, j = key(i, j)
        mc = self.masses[third(i, j)]
        m = self.m(i, j)
        return self._memo(("f", i, j), lambda: (self.M ** 2 + m * m - mc * mc) / (2 * self.M * m))

    def outside(self, tolerance=1e-6):
        """Indices of the events outside the Dalitz plot by more than
        ``tolerance`` times :math:`M^2`, or with a squared mass that is not
        finite.

        An event is outside when a pair's squared mass lies beyond its range
        (threshold to :math:`(M - m_k)^2`), or when :math:`m_{bc}^2` lies
        beyond the range its :math:`m_{ab}^2` allows and :math:`m_{ab}^2`
        beyond the range its :math:`m_{bc}^2` allows (the helicity angles'
        cosines beyond :math:`\\pm 1`): both excesses are at least the
        event's distance from the boundary, while one alone can be large for
        an event next to it, where the boundary runs parallel to that axis
        (near a threshold).  The default tolerance admits events on the
        boundary whose squared masses were computed from single-precision
        four-momenta (a ROOT file's float32 branches put them up to about
        :math:`10^{-7} M^2` beyond it).

        Returns
        -------
        numpy.ndarray of int
        """
        ma, mb, mc = self.masses
        s_ab, s_bc, s_ac = self.s[(0, 1)], self.s[(1, 2)], self.s[(0, 2)]
        eps = tolerance * self.M ** 2
        bad = ~(np.isfinite(s_ab) & np.isfinite(s_bc) & np.isfinite(s_ac))
        with np.errstate(invalid="ignore", divide="ignore"):
            for s_pair, m1, m2, m3 in ((s_ab, ma, mb, mc), (s_bc, mb, mc, ma)):
                bad |= (s_pair < (m1 + m2) ** 2 - eps) | (s_pair > (self.M - m3) ** 2 + eps)
            # b is shared by the pairs (ab) and (bc)
            beyond = self._excess(s_ab, s_bc, mb, ma, mc) > eps
            beyond &= self._excess(s_bc, s_ab, mb, mc, ma) > eps
        return np.flatnonzero(bad | beyond)

    def _excess(self, s_ref, s_other, m_shared, m_ref, m_third):
        """How far the squared mass of the pair (shared, third) lies beyond the
        range that the pair (ref, shared) of squared mass ``s_ref`` allows:
        :math:`|s - (m_s^2 + m_t^2 + 2 E_s E_t)| - 2 p_s p_t` with the energies
        and momenta in the rest frame of the reference pair (GeV^2; negative
        inside)."""
        lo = (m_ref + m_shared) ** 2
        m = np.sqrt(np.maximum(s_ref, lo))
        e_s = (m * m + m_shared ** 2 - m_ref ** 2) / (2 * m)
        e_t = (self.M ** 2 - m * m - m_third ** 2) / (2 * m)
        p_s = np.sqrt(np.maximum(e_s * e_s - m_shared ** 2, 0))
        p_t = np.sqrt(np.maximum(e_t * e_t - m_third ** 2, 0))
        return np.abs(s_other - (m_shared ** 2 + m_third ** 2 + 2 * e_s * e_t)) - 2 * p_s * p_t

    def cos_helicity(self, a, b):
        """Cosine of the helicity angle of daughter ``a`` in the (ab) frame.

        The angle between ``a`` in the (ab) rest frame and the flight direction
        of (ab) in the parent frame (minus the direction of the third daughter
        ``c`` there), as :func:`vecampfit.kinematics.dalitz_cos_helicity_angle`
        with particles (a, b, c):
        :math:`\\cos\\theta = (m_b^2 + m_c^2 + 2 E_b^* E_c^* - m_{bc}^2) / (2 p^* p_c^*)`,
        clipped to [-1, 1].
        """
        c = third(a, b)

        def compute():
            ma, mb, mc = self.masses[a], self.masses[b], self.masses[c]
            m = self.m(a, b)
            eb = (m * m + mb * mb - ma * ma) / (2 * m)
            ec = (self.M ** 2 - m * m - mc * mc) / (2 * m)
            pb = np.sqrt(np.maximum(eb * eb - mb * mb, 0))
            pc = np.sqrt(np.maximum(ec * ec - mc * mc, 0))
            den = 2 * pb * pc
            with np.errstate(invalid="ignore", divide="ignore"):
                cos = (mb * mb + mc * mc + 2 * eb * ec - self.s[key(b, c)]) / den
            return np.clip(np.where(den > 0, cos, 1.0), -1.0, 1.0)
        return self._memo(("cos", a, b), compute)


def dalitz_from_records(records, variables, momenta, parent_mass, masses):
    """The three squared pair masses from event records.

    Parameters
    ----------
    records : dict of array_like
        Either the branches named in ``variables`` (squared masses of two
        pairs) or those named in ``momenta`` (four-momenta (n, 4) as
        (px, py, pz, E), from which the squared masses of the two pairs of
        ``variables`` are computed).  The third squared mass follows from
        the sum rule.
    variables : dict
        Branch name -> (i, j) pair of daughter indices (two pairs).
    momenta : sequence of str or None
        Branch names of the daughters' four-momenta.

    Returns
    -------
    dict
        ``(i, j) -> m_ij^2`` for the three pairs.
    """
    if all(name in records for name in variables):
        s = {key(*pair): np.asarray(records[name], dtype=np.float64)
             for name, pair in variables.items()}
    elif momenta is not None and all(name in records for name in momenta):
        p = [np.asarray(records[name], dtype=np.float64) for name in momenta]
        for name, x in zip(momenta, p):
            if x.ndim != 2 or x.shape[1] != 4:
                raise ValueError(f"branch {name!r} must hold four-momenta (n, 4), got shape "
                                 f"{x.shape}")
        # The two pairs of ``variables`` from the momenta, the third from
        # m12^2 + m13^2 + m23^2 = M^2 + m1^2 + m2^2 + m3^2 (below).
        s = {}
        for i, j in variables.values():
            t = p[i] + p[j]
            s[key(i, j)] = t[:, 3] ** 2 - t[:, 0] ** 2 - t[:, 1] ** 2 - t[:, 2] ** 2
    else:
        want = sorted(variables) + ([f"or {sorted(momenta)}"] if momenta else [])
        raise KeyError(f"event records need the branches {want} (have {sorted(records)})")
    total = parent_mass ** 2 + sum(m * m for m in masses)
    missing = [k for k in ((0, 1), (0, 2), (1, 2)) if k not in s]
    if len(s) != 2 or len(missing) != 1:
        raise ValueError(f"variables must name two different pairs, got {variables}")
    s[missing[0]] = total - sum(s.values())
    return s
