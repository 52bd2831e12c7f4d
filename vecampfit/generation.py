"""Monte Carlo generation: two-body decays, n-body phase space, accept-reject.

The paper's ``VECAMPFIT_GENERATION``.  Events are generated for many events
at once with numpy; four-momenta are arrays of shape ``(n_events, 4)`` with
columns ``(px, py, pz, E)`` in GeV.

Random numbers come from a :class:`numpy.random.Generator`; every function
takes ``seed``, which is either such a generator (used and advanced) or
anything :func:`numpy.random.default_rng` accepts (an integer seed gives a
reproducible run, ``None`` a fresh one).  For a given seed and arguments the
output is the same on every run and platform with the same numpy version.

Phase space
-----------
The n-body phase-space element used for the weights is

.. math::

    d\\Phi_n = \\delta^4\\Big(P - \\sum_i p_i\\Big) \\prod_{i=1}^n \\frac{d^3 p_i}{2 E_i},

without factors of :math:`2\\pi` (multiply by :math:`(2\\pi)^{4 - 3n}` for
the PDG convention).  The volume of two-body phase space is
:math:`R_2 = \\pi q / M` with the breakup momentum ``q``; for massless
particles :math:`R_n = (\\pi/2)^{n-1} M^{2n-4} / ((n-1)!\\,(n-2)!)`.

The n-body generator is F. James's GENBOD (CERN 68-15, "Monte Carlo phase
space"): sorted uniform numbers :math:`0 < r_1 < \\dots < r_{n-2} < 1` give the
invariant masses of the subsystems of the first ``k`` particles,
:math:`M_k = \\sum_{i \\le k} m_i + r_{k-1} T` with :math:`T = M - \\sum m_i`;
each subsystem decays isotropically in its rest frame into the previous
subsystem and particle ``k``, and the event weight is

.. math::

    w = \\frac{2^{n-2} \\pi^{n-1} T^{n-2}}{M (n-2)!} \\prod_{k=2}^{n} q(M_k; M_{k-1}, m_k),

normalized so that the mean weight is the phase-space volume :math:`R_n`
(so a weighted sample's density is :math:`d\\Phi_n`).

Narrow resonances
-----------------
Accept-reject from a uniform proposal accepts few events when the density
has a narrow peak.  :class:`BandProposal` proposes points in two variables
(the squared masses of a Dalitz plot) with Breit-Wigner bands where the
resonance is, and :func:`accept_reject` draws points distributed as any
density from such a proposal.
"""

import math
import numbers
import sys
import time
import warnings
from typing import NamedTuple

import numpy as np

__all__ = [
    "PhaseSpaceSample",
    "two_body_decay",
    "phase_space",
    "phase_space_volume_massless",
    "generate_events",
    "random_generator",
    "BandProposal",
    "accept_reject",
]


def random_generator(seed=None):
    """The :class:`numpy.random.Generator` for ``seed``.

    Parameters
    ----------
    seed : numpy.random.Generator, int, sequence of int, numpy.random.SeedSequence or None
        A generator is returned as is; anything else seeds
        :func:`numpy.random.default_rng` (``None``: unpredictable seed).

    Returns
    -------
    numpy.random.Generator
    """
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(seed)


def _two_sum(a, b):
    """(s, e) with s = fl(a + b) and a + b = s + e exactly (Knuth)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _breakup_momentum(m, m1, m2):
    """q = sqrt((m^2 - (m1 + m2)^2)(m^2 - (m1 - m2)^2)) / (2 m), 0 below threshold.

    m1 +- m2 are carried exactly (two-sum), so that m - m1 - m2 keeps its
    relative accuracy near threshold (as in vecampfit.kinematics.decay_momentum).
    """
    sp, spl = _two_sum(m1, m2)
    dm, dml = _two_sum(m1, -m2)
    h = 1 / (2 * m)
    q2 = (((m - sp) - spl) * ((m + sp) + spl) * h) * (((m - dm) - dml) * ((m + dm) + dml) * h)
    return np.sqrt(np.maximum(q2, 0.0))


def _boost_from_rest(p, q, mq):
    """Boost four-momenta p (..., 4) from the rest frame of a system with
    four-momentum q (..., 4) and mass mq to the frame where it has momentum q.

    E' = (q_E E + q.p) / M,  p' = p + q [ q.p / (M (q_E + M)) + E / M ].
    """
    qv = q[..., :3]
    qe = q[..., 3]
    e = p[..., 3]
    qp = np.sum(qv * p[..., :3], axis=-1)
    out = np.empty(np.broadcast_shapes(p.shape, q.shape))
    out[..., 3] = (qe * e + qp) / mq
    coef = qp / (mq * (qe + mq)) + e / mq
    out[..., :3] = p[..., :3] + qv * coef[..., None]
    return out


def _isotropic_directions(rng, n, cos_theta=None, phi=None):
    c = rng.uniform(-1.0, 1.0, n) if cos_theta is None else np.broadcast_to(
        np.asarray(cos_theta, dtype=np.float64), (n,))
    f = rng.uniform(0.0, 2 * np.pi, n) if phi is None else np.broadcast_to(
        np.asarray(phi, dtype=np.float64), (n,))
    s = np.sqrt(np.maximum(1 - c * c, 0.0))
    return np.stack([s * np.cos(f), s * np.sin(f), c], axis=-1)


def _check_masses(masses, name="masses"):
    try:
        m = np.asarray(masses, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name}: expected real numbers, got {masses!r}") from exc
    if m.ndim != 1:
        raise ValueError(f"{name}: expected a sequence of masses, got shape {m.shape}")
    if not np.all(np.isfinite(m)) or np.any(m < 0):
        raise ValueError(f"{name}: masses must be finite and non-negative, got {m.tolist()}")
    return m


def _parent(parent, n_events):
    """Parent mass array (n,) and four-momentum (n, 4) or None (at rest)."""
    if isinstance(parent, numbers.Real) and not isinstance(parent, bool):
        if not (np.isfinite(parent) and parent > 0):
            raise ValueError(f"parent: the mass must be positive and finite, got {parent!r}")
        return np.full(n_events, float(parent)), None
    p = np.asarray(parent, dtype=np.float64)
    if p.shape == (4,):
        p = np.broadcast_to(p, (n_events, 4))
    if p.shape != (n_events, 4):
        raise ValueError(f"parent: expected a mass, a four-momentum (4,) or an array ({n_events}, 4), "
                         f"got shape {p.shape}")
    m2 = p[:, 3] ** 2 - np.sum(p[:, :3] ** 2, axis=1)
    if not np.all(np.isfinite(m2)) or np.any(m2 <= 0) or np.any(p[:, 3] <= 0):
        raise ValueError("parent: four-momenta must be time-like with positive energy")
    return np.sqrt(m2), p


def _n_events(n_events):
    if isinstance(n_events, bool) or not isinstance(n_events, numbers.Integral) or n_events < 0:
        raise ValueError(f"n_events must be a non-negative integer, got {n_events!r}")
    return int(n_events)


def two_body_decay(parent, m1, m2, n_events=None, seed=None, cos_theta=None, phi=None):
    """Two-body decays 0 -> 1 + 2, isotropic in the parent rest frame.

    In the parent rest frame particle 1 has momentum
    :math:`q \\hat u` with :math:`\\hat u = (\\sin\\theta\\cos\\varphi,
    \\sin\\theta\\sin\\varphi, \\cos\\theta)`, particle 2 has :math:`-q \\hat u`,
    :math:`q = \\sqrt{(M^2 - (m_1+m_2)^2)(M^2 - (m_1-m_2)^2)} / (2M)`; both are
    then boosted with the parent.

    Parameters
    ----------
    parent : float or array_like
        Parent mass (GeV; decay at rest), or its four-momenta, shape (4,) or
        (n_events, 4), columns (px, py, pz, E) in GeV.
    m1, m2 : float
        Daughter masses (GeV), non-negative.
    n_events : int, optional
        Number of decays; default: the number of parent four-momenta (or 1).
    seed : numpy.random.Generator, int or None, optional
        Random source (see :func:`random_generator`).
    cos_theta, phi : array_like, optional
        Fixed decay angles of particle 1 in the parent rest frame (axes of
        the frame in which ``parent`` is given); random if omitted.

    Returns
    -------
    p1, p2 : numpy.ndarray
        Four-momenta (n_events, 4) in GeV.

    Raises
    ------
    ValueError
        Negative masses, or a parent lighter than m1 + m2.
    """
    m = _check_masses([m1, m2], "m1, m2")
    if n_events is None:
        p = np.asarray(parent, dtype=np.float64) if not isinstance(parent, numbers.Real) else None
        n_events = p.shape[0] if p is not None and p.ndim == 2 else 1
    n = _n_events(n_events)
    mp, pp = _parent(parent, n)
    if np.any(mp < m[0] + m[1]):
        raise ValueError(f"parent mass below the threshold m1 + m2 = {m[0] + m[1]!r} GeV")
    rng = random_generator(seed)
    q = _breakup_momentum(mp, m[0], m[1])
    u = _isotropic_directions(rng, n, cos_theta, phi) * q[:, None]
    p1 = np.empty((n, 4))
    p2 = np.empty((n, 4))
    p1[:, :3] = u
    p2[:, :3] = -u
    p1[:, 3] = np.sqrt(q * q + m[0] ** 2)
    p2[:, 3] = np.sqrt(q * q + m[1] ** 2)
    if pp is not None:
        p1 = _boost_from_rest(p1, pp, mp)
        p2 = _boost_from_rest(p2, pp, mp)
    return p1, p2


class PhaseSpaceSample(NamedTuple):
    """Weighted phase-space events.

    Attributes
    ----------
    momenta : list of numpy.ndarray
        Four-momenta of the final-state particles, each (n_events, 4),
        columns (px, py, pz, E) in GeV, in the order of ``masses``.
    weights : numpy.ndarray
        Event weights (n_events,), GeV^(2n-4); their mean is the phase-space
        volume :math:`R_n` (see the module documentation).
    max_weight : float
        Upper bound of the weight over the whole phase space (James's bound,
        as ROOT's ``TGenPhaseSpace::GetWtMax``, normalized like ``weights``);
        for a parent of varying mass, the largest bound over the events.
    """

    momenta: list
    weights: np.ndarray
    max_weight: float


def phase_space(parent, masses, n_events=None, seed=None):
    """Weighted n-body phase-space events (GENBOD, F. James CERN 68-15).

    Parameters
    ----------
    parent : float or array_like
        Parent mass M (GeV; decay at rest), or its four-momenta, shape (4,)
        or (n_events, 4) in (px, py, pz, E) GeV (events are boosted with it;
        the mass may vary between events).
    masses : sequence of float
        Final-state masses (GeV), at least two, non-negative.
    n_events : int, optional
        Number of events; default: the number of parent four-momenta.
    seed : numpy.random.Generator, int or None, optional
        Random source (see :func:`random_generator`).

    Returns
    -------
    PhaseSpaceSample
        ``momenta``, ``weights`` and ``max_weight``.  For two bodies all
        weights equal :math:`\\pi q / M`.

    Raises
    ------
    ValueError
        Fewer than two masses, negative masses, or a parent below the
        threshold :math:`\\sum m_i`.
    """
    m = _check_masses(masses)
    k = m.size
    if k < 2:
        raise ValueError(f"masses: at least two final-state particles are needed, got {k}")
    if n_events is None:
        p = None if isinstance(parent, numbers.Real) else np.asarray(parent, dtype=np.float64)
        if p is None or p.ndim != 2:
            raise ValueError("n_events is required unless parent is an array (n_events, 4)")
        n_events = p.shape[0]
    n = _n_events(n_events)
    mp, pp = _parent(parent, n)
    total = float(np.sum(m))
    t = mp - total
    if np.any(t < 0):
        raise ValueError(f"parent mass below the threshold sum(masses) = {total!r} GeV")
    rng = random_generator(seed)
    # Subsystem masses M_1 = m_1, ..., M_k = M.
    r = np.sort(rng.random((n, k - 2)), axis=1) if k > 2 else np.empty((n, 0))
    cum = np.cumsum(m)
    big = np.empty((n, k))
    big[:, 0] = m[0]
    for j in range(1, k - 1):
        big[:, j] = cum[j] + r[:, j - 1] * t
    big[:, k - 1] = mp
    q = [_breakup_momentum(big[:, j], big[:, j - 1], m[j]) for j in range(1, k)]
    norm = 2.0 ** (k - 2) * np.pi ** (k - 1) * t ** (k - 2) / (mp * math.factorial(k - 2))
    weights = norm * np.prod(np.stack(q, axis=0), axis=0)
    # James's upper bound of prod q.
    emmax = t + m[0]
    emmin = np.zeros(n)
    wtmax = np.ones(n)
    for j in range(1, k):
        emmin = emmin + m[j - 1]
        emmax = emmax + m[j]
        wtmax = wtmax * _breakup_momentum(emmax, emmin, m[j])
    max_weight = float(np.max(norm * wtmax)) if n else 0.0
    # Build the momenta: particles 1 and 2 in the M_2 rest frame, then each
    # subsystem recoils against particle j in the M_j rest frame.
    momenta = []
    for j in range(1, k):
        qj = q[j - 1]
        u = _isotropic_directions(rng, n) * qj[:, None]
        sub = np.empty((n, 4))
        sub[:, :3] = -u
        sub[:, 3] = np.sqrt(qj * qj + big[:, j - 1] ** 2)
        if j == 1:
            momenta = [sub]
        else:
            momenta = [_boost_from_rest(p, sub, big[:, j - 1]) for p in momenta]
        pj = np.empty((n, 4))
        pj[:, :3] = u
        pj[:, 3] = np.sqrt(qj * qj + m[j] ** 2)
        momenta.append(pj)
    if pp is not None:
        momenta = [_boost_from_rest(p, pp, mp) for p in momenta]
    return PhaseSpaceSample(momenta, weights, max_weight)


def phase_space_volume_massless(m, n):
    """Volume of n-body phase space for massless particles.

    .. math::

        R_n(M) = \\frac{(\\pi/2)^{n-1} M^{2n-4}}{(n-1)!\\,(n-2)!}

    in the normalization of the module documentation.

    Parameters
    ----------
    m : float
        Parent mass M (GeV), positive.
    n : int
        Number of particles, at least 2.

    Returns
    -------
    float
        :math:`R_n` (GeV^(2n-4)).
    """
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 2:
        raise ValueError(f"n must be an integer >= 2, got {n!r}")
    if not (isinstance(m, numbers.Real) and np.isfinite(m) and m > 0):
        raise ValueError(f"m must be a positive finite number, got {m!r}")
    return (np.pi / 2) ** (n - 1) * float(m) ** (2 * n - 4) / (math.factorial(n - 1) * math.factorial(n - 2))


class _Progress:
    """A one-line text progress bar on stderr."""

    def __init__(self, total, enabled, stream=None, interval=0.5):
        self.total = total
        self.enabled = enabled
        self.stream = sys.stderr if stream is None else stream
        self.interval = interval
        self.last = 0.0

    def update(self, done, trials, force=False):
        if not self.enabled:
            return
        now = time.monotonic()
        if not force and now - self.last < self.interval:
            return
        self.last = now
        frac = done / self.total if self.total else 1.0
        width = 30
        filled = int(round(width * frac))
        eff = f", efficiency {done / trials:.3g}" if trials else ""
        self.stream.write(f"\rgenerating [{'#' * filled}{'.' * (width - filled)}] "
                          f"{done}/{self.total} events{eff}")
        self.stream.flush()

    def close(self, done, trials):
        if self.enabled:
            self.update(done, trials, force=True)
            self.stream.write("\n")
            self.stream.flush()


def generate_events(density, parent, masses, n_events, params=None, *, names=None,
                    variables=None, maximum=None, seed=None, batch_size=100_000,
                    progress=False, max_trials=None, stream=None, restarts=0):
    """Unweighted events distributed as ``density`` times phase space (accept-reject).

    Phase-space events are generated in batches with :func:`phase_space`; an
    event with phase-space weight ``w`` and density ``f`` is accepted with
    probability :math:`f w / (f_{max} w_{max})` (:math:`w_{max}` is
    James's bound of the weight, :math:`f_{max}` the assumed maximum of the
    density), so the accepted events have the
    density :math:`f\\, d\\Phi_n`.

    Parameters
    ----------
    density : callable or None
        ``density(events, params) -> ndarray`` (the Python form of a density,
        see DESIGN) when ``params`` is given, else ``density(events)``;
        ``events`` is the dict described under ``variables``.  Values must be
        finite and non-negative.  ``None``: uniform in phase space.
    parent : float or array_like (4,)
        Parent mass (GeV) or one four-momentum (px, py, pz, E).
    masses : sequence of float
        Final-state masses (GeV).
    n_events : int
        Number of events to return.
    params : array_like, optional
        Passed to ``density``.
    names : sequence of str, optional
        Keys of the particles' four-momenta in ``events`` (default ``'p1'``,
        ``'p2'``, ...).
    variables : callable, optional
        ``variables(momenta) -> dict`` maps the dict of four-momenta to the
        fields the density reads (for example squared invariant masses);
        default: the four-momenta themselves.
    maximum : float, optional
        Assumed maximum of the density :math:`f` over phase space.
        Default: 1.2 times the largest value in the first batch.
    seed : numpy.random.Generator, int or None, optional
        Random source (see :func:`random_generator`).
    batch_size : int, optional
        Phase-space events per batch.
    progress : bool, optional
        Draw a text progress bar on stderr (or ``stream``).
    max_trials : int, optional
        Give up (RuntimeError) after this many phase-space events.
    stream : file, optional
        Where the progress bar goes (default ``sys.stderr``).
    restarts : int, optional
        When the density exceeds the assumed maximum, discard the events
        accepted so far and start again with twice the maximum, up to this
        many times, each with a
        :class:`RuntimeWarning`; starting again keeps the sample unbiased.
        Default 0: raise instead.

    Returns
    -------
    dict of str to numpy.ndarray
        Four-momenta (n_events, 4) per particle name, GeV.

    Raises
    ------
    ValueError
        The density exceeds the assumed maximum (the message gives the value
        found; pass a larger ``maximum``), or returns negative or non-finite
        values, or of the wrong shape; bad masses.
    RuntimeError
        ``max_trials`` exceeded.
    """
    n_total = _n_events(n_events)
    m = _check_masses(masses)
    if names is None:
        names = [f"p{i + 1}" for i in range(m.size)]
    names = list(names)
    if len(names) != m.size or len(set(names)) != len(names):
        raise ValueError(f"names: expected {m.size} distinct names, got {names!r}")
    if isinstance(batch_size, bool) or not isinstance(batch_size, numbers.Integral) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
    if maximum is not None and not (isinstance(maximum, numbers.Real) and np.isfinite(maximum) and maximum > 0):
        raise ValueError(f"maximum must be a positive finite number, got {maximum!r}")
    if not (isinstance(parent, numbers.Real) or np.shape(parent) == (4,)):
        raise ValueError("parent: expected a mass or one four-momentum (4,)")
    if isinstance(restarts, bool) or not isinstance(restarts, numbers.Integral) or restarts < 0:
        raise ValueError(f"restarts must be a non-negative integer, got {restarts!r}")
    rng = random_generator(seed)
    bar = _Progress(n_total, progress, stream)
    accepted = {name: [] for name in names}
    done = 0
    trials = 0
    while done < n_total:
        if max_trials is not None and trials >= max_trials:
            bar.close(done, trials)
            raise RuntimeError(f"accept-reject: only {done} of {n_total} events after {trials} trials")
        sample = phase_space(parent, m, batch_size, rng)
        trials += batch_size
        events = dict(zip(names, sample.momenta))
        if density is None:
            f = np.ones(batch_size)
        else:
            fields = events if variables is None else variables(events)
            f = density(fields, params) if params is not None else density(fields)
            f = np.asarray(f, dtype=np.float64)
            if f.shape != (batch_size,):
                raise ValueError(f"density returned shape {f.shape}, expected ({batch_size},)")
            if not np.all(np.isfinite(f)):
                raise ValueError("density returned non-finite values")
            if np.any(f < 0):
                raise ValueError(f"density returned negative values (smallest {f.min()!r})")
        if maximum is None:
            maximum = 1.2 * float(f.max()) if f.max() > 0 else None
            if maximum is None:
                raise ValueError("density is zero on the whole first batch; pass maximum")
        largest = float(f.max())
        if largest > maximum:
            if restarts > 0:
                restarts -= 1
                new = 2.0 * maximum
                warnings.warn(f"accept-reject: the density reaches {largest!r}, above the "
                              f"assumed maximum {maximum!r}; starting again with {new!r}",
                              RuntimeWarning, stacklevel=2)
                maximum = new
                accepted = {name: [] for name in names}
                done = 0
                continue
            bar.close(done, trials)
            raise ValueError(f"density reaches {largest!r}, above the assumed maximum {maximum!r}; "
                             f"pass a larger maximum")
        keep = rng.random(batch_size) * (maximum * sample.max_weight) < f * sample.weights
        take = min(int(np.count_nonzero(keep)), n_total - done)
        idx = np.flatnonzero(keep)[:take]
        for name in names:
            accepted[name].append(events[name][idx])
        done += take
        bar.update(done, trials)
    bar.close(done, trials)
    return {name: (np.concatenate(v) if v else np.empty((0, 4))) for name, v in accepted.items()}


class BandProposal:
    """A proposal density over a square with Breit-Wigner bands in both coordinates.

    For points :math:`(x, y) \\in [a, b]^2` (two squared masses of a Dalitz
    plot with identical particles, GeV^2, say) and a resonance of mass
    :math:`m_0` and width :math:`\\Gamma_0`: with probability
    :math:`1 - 2\\beta` uniform, with probability :math:`\\beta` each a
    Cauchy band in :math:`x` or in :math:`y` centred at :math:`s_0 = m_0^2`
    with half-width :math:`\\gamma = m_0 \\Gamma_0` (the Breit-Wigner shape
    in the squared mass) truncated to :math:`[a, b]`, the other coordinate
    uniform:

    .. math::

        g(x, y) = \\frac{1 - 2\\beta}{L^2} + \\frac{\\beta}{L} [c(x) + c(y)],
        \\qquad c(s) = \\frac{1}{\\gamma\\,(1 + u^2)\\,(\\arctan u_b - \\arctan u_a)},

    with :math:`L = b - a`, :math:`u = (s - s_0)/\\gamma`, :math:`u_a`,
    :math:`u_b` the values of :math:`u` at the ends; :math:`g` integrates to 1.

    Parameters
    ----------
    lower, upper : float
        :math:`a < b`.
    mass, width : float
        :math:`m_0 > 0`, :math:`\\Gamma_0 > 0` (square roots of the coordinates' unit).
    band : float
        :math:`\\beta` in :math:`[0, 0.5)`.
    """

    def __init__(self, lower, upper, mass, width, band=0.25):
        if not (upper > lower and mass > 0 and width > 0 and 0 <= band < 0.5):
            raise ValueError(f"BandProposal: expected lower < upper, positive mass and width and "
                             f"band in [0, 0.5), got {lower!r}, {upper!r}, {mass!r}, {width!r}, "
                             f"{band!r}")
        self.lower, self.upper, self.band = float(lower), float(upper), float(band)
        self.center, self.half_width = mass * mass, mass * width
        self._ends = np.arctan((np.array([lower, upper]) - self.center) / self.half_width)

    def density(self, x, y):
        """:math:`g(x, y)` (inverse square of the coordinates' unit)."""
        length = self.upper - self.lower

        def cauchy(s):
            u = (np.asarray(s, dtype=np.float64) - self.center) / self.half_width
            return 1 / (self.half_width * (1 + u * u) * (self._ends[1] - self._ends[0]))
        return (1 - 2 * self.band) / length ** 2 + self.band * (cauchy(x) + cauchy(y)) / length

    def sample(self, n, seed=None):
        """``n`` points ``(x, y)`` drawn from :math:`g`."""
        rng = random_generator(seed)
        x, y = (rng.uniform(self.lower, self.upper, n) for _ in range(2))
        kind = rng.random(n)
        bw = self.center + self.half_width * np.tan(rng.uniform(*self._ends, n))
        return (np.where(kind < self.band, bw, x),
                np.where((kind >= self.band) & (kind < 2 * self.band), bw, y))


def accept_reject(density, proposal, n, *, bound, inside=None, seed=None, batch_size=50_000):
    """Points distributed as ``density`` by accept-reject from a proposal.

    A point :math:`z` drawn from the proposal :math:`g` (where ``inside`` is
    true) is accepted with probability :math:`f(z) / (k\\,g(z))`, so that the
    accepted points have the density :math:`f / \\int f` over the region.

    Parameters
    ----------
    density : callable
        ``density(x, y) -> ndarray``, :math:`f \\ge 0`.
    proposal : BandProposal
        Or any object with ``sample(n, seed) -> (x, y)`` and ``density(x, y)``.
    n : int
        Number of points.
    bound : float
        :math:`k \\ge \\max f/g`.
    inside : callable, optional
        ``inside(x, y) -> bool array``: the region (a Dalitz plot); default everywhere.
    seed : int, numpy.random.Generator or None
    batch_size : int
        Points proposed at once.

    Returns
    -------
    x, y : numpy.ndarray
        The first ``n`` accepted points, in the order drawn.

    Raises
    ------
    ValueError
        If :math:`f / g` exceeds ``bound`` at a proposed point (the sample
        would be biased), or ``n`` or ``bound`` is not positive.
    """
    n = _n_events(n)
    if not bound > 0:
        raise ValueError(f"bound must be positive, got {bound!r}")
    rng = random_generator(seed)
    xs, ys, done = [np.empty(0)], [np.empty(0)], 0
    while done < n:
        x, y = proposal.sample(batch_size, rng)
        ok = np.flatnonzero(inside(x, y)) if inside is not None else np.arange(len(x))
        ratio = np.asarray(density(x[ok], y[ok]), dtype=np.float64) / (
            bound * proposal.density(x[ok], y[ok]))
        if ratio.size and ratio.max() > 1:
            raise ValueError(f"density / proposal reaches {ratio.max() * bound!r}, above the "
                             f"bound {bound!r}")
        keep = ok[rng.random(ok.size) < ratio]
        xs.append(x[keep])
        ys.append(y[keep])
        done += keep.size
    return np.concatenate(xs)[:n], np.concatenate(ys)[:n]
