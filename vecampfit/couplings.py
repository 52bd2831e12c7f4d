"""Couplings: the canonical form of the complex couplings of an amplitude.

An amplitude :math:`A = \\sum_k c_k A_k` is a sum of components :math:`A_k`
with complex couplings :math:`c_k = a_k e^{i \\varphi_k}`.  The same
coupling has many polar forms,

.. math::

    a\\, e^{i \\varphi} = (-a)\\, e^{i (\\varphi + 180^\\circ)}
    = a\\, e^{i (\\varphi + 360^\\circ)},

so a likelihood written in magnitudes and phases has a mirror minimum for
every sign of a magnitude, and a fit's phases can drift past
:math:`\\pm 180^\\circ`.  A density normalized over the phase space,
:math:`|A|^2 / \\int |A|^2`, does not change either when every coupling is
multiplied by the same complex number, so only the ratios
:math:`c_k / c_{\\mathrm{ref}}` to a reference component's coupling are
measured.  The canonical form used here makes minima comparable:

* magnitude :math:`a \\ge 0`;
* phase in :math:`[-180^\\circ, 180^\\circ)` (or :math:`[-\\pi, \\pi)` in
  radians);
* optionally, couplings taken relative to a reference component,
  :math:`c_k / c_{\\mathrm{ref}}` (the reference becomes :math:`1 e^{i 0}`).

Units: phases in degrees by default (as the polar couplings of
:mod:`vecampfit.isobar`), in radians with ``degrees=False``; magnitudes
carry the units of the couplings.
"""

import math
from collections.abc import Mapping

import numpy as np

__all__ = [
    "wrap_phase",
    "canonical_polar",
    "canonical_couplings",
]


def _period(degrees):
    if not isinstance(degrees, (bool, np.bool_)):
        raise TypeError(f"degrees must be a bool, got {degrees!r}")
    return 360.0 if degrees else 2 * math.pi


def wrap_phase(phase, degrees=True):
    """Phases mapped into :math:`[-180^\\circ, 180^\\circ)` (or :math:`[-\\pi, \\pi)`).

    .. math::

        \\varphi \\mapsto \\varphi - 360^\\circ \\left\\lfloor
        \\frac{\\varphi + 180^\\circ}{360^\\circ} \\right\\rfloor

    (:math:`2\\pi` and :math:`\\pi` in radians).  Phases already in the
    interval are returned unchanged, bit for bit; the others are shifted by
    a multiple of the period (one rounding).

    Parameters
    ----------
    phase : array_like
        Phases (degrees, or radians with ``degrees=False``), real and finite.
    degrees : bool, optional
        Whether phases are in degrees (default) or radians.

    Returns
    -------
    numpy.ndarray or numpy.float64
        The wrapped phases, float64, of the shape of ``phase`` (a numpy
        scalar for a scalar).

    Raises
    ------
    ValueError
        A phase that is not finite.

    Examples
    --------
    >>> from vecampfit.couplings import wrap_phase
    >>> wrap_phase([180.0, -190.0, 725.0, 10.0]).tolist()
    [-180.0, 170.0, 5.0, 10.0]
    """
    period = _period(degrees)
    half = period / 2
    x = np.asarray(phase, dtype=np.float64)
    if not np.all(np.isfinite(x)):
        raise ValueError(f"phase: phases must be finite, got {phase!r}")
    inside = (x >= -half) & (x < half)
    y = np.where(inside, x, np.mod(x + half, period) - half)
    # The remainder may round up to the period itself.
    y = np.where(y >= half, y - period, y)
    return y[()]


def canonical_polar(magnitude, phase, degrees=True):
    """Polar couplings brought to magnitude :math:`\\ge 0` and phase in :math:`[-180^\\circ, 180^\\circ)`.

    .. math::

        (a, \\varphi) \\mapsto
        \\begin{cases}
        (a, \\operatorname{wrap}(\\varphi)) & a \\ge 0 \\\\
        (-a, \\operatorname{wrap}(\\varphi + 180^\\circ)) & a < 0
        \\end{cases}

    with :func:`wrap_phase`; the coupling :math:`a e^{i\\varphi}` is
    unchanged.

    Parameters
    ----------
    magnitude : array_like
        Magnitudes :math:`a` (any sign; units of the couplings).
    phase : array_like
        Phases :math:`\\varphi` (degrees, or radians with ``degrees=False``),
        broadcast against ``magnitude``.
    degrees : bool, optional
        Whether phases are in degrees (default) or radians.

    Returns
    -------
    magnitude : numpy.ndarray or numpy.float64
        :math:`|a|`.
    phase : numpy.ndarray or numpy.float64
        The phase of the same coupling, in :math:`[-180^\\circ, 180^\\circ)`
        (:math:`[-\\pi, \\pi)`).

    Raises
    ------
    ValueError
        Magnitudes or phases that are not finite.

    Examples
    --------
    >>> from vecampfit.couplings import canonical_polar
    >>> a, phi = canonical_polar(-0.5, 30.0)
    >>> float(a), float(phi)
    (0.5, -150.0)
    """
    half = _period(degrees) / 2
    a, phi = np.broadcast_arrays(np.asarray(magnitude, dtype=np.float64),
                                 np.asarray(phase, dtype=np.float64))
    if not np.all(np.isfinite(a)):
        raise ValueError(f"magnitude: magnitudes must be finite, got {magnitude!r}")
    flip = a < 0
    return np.where(flip, -a, a)[()], wrap_phase(np.where(flip, phi + half, phi), degrees)


def canonical_couplings(couplings, reference=None, degrees=True):
    """Complex couplings as magnitudes :math:`\\ge 0` and phases in :math:`[-180^\\circ, 180^\\circ)`.

    With a reference component, the couplings are taken relative to its
    coupling,

    .. math::

        r_k = \\frac{c_k}{c_{\\mathrm{ref}}}, \\qquad
        (|r_k|,\\ \\operatorname{wrap}(\\arg r_k)),

    so that a common complex factor of all couplings (to which a normalized
    density is blind) drops out; without one, :math:`r_k = c_k`.
    :math:`\\arg` is ``numpy.angle`` (in :math:`(-180^\\circ, 180^\\circ]`),
    wrapped by :func:`wrap_phase`.

    Parameters
    ----------
    couplings : array_like of complex, or mapping
        The couplings :math:`c_k` (any shape), or a mapping from component
        names to complex couplings.
    reference : int, tuple of int or key, optional
        Index (or, for a mapping, key) of the reference component; ``None``
        (default) for no reference.
    degrees : bool, optional
        Phases in degrees (default) or radians.

    Returns
    -------
    magnitude, phase : numpy.ndarray
        :math:`|r_k|` and the wrapped phases, each of the shape of
        ``couplings``; for a mapping, a dict ``{name: (magnitude, phase)}``
        of floats instead.

    Raises
    ------
    ValueError
        Couplings that are not finite, or a reference coupling that is zero.
    KeyError, IndexError
        An unknown reference.

    Examples
    --------
    >>> from vecampfit.couplings import canonical_couplings
    >>> mag, phase = canonical_couplings([2j, -1.0, 1 - 1j], reference=0)
    >>> mag.tolist(), phase.tolist()
    ([1.0, 0.5, 0.7071067811865476], [0.0, 90.0, -135.0])
    >>> canonical_couplings({"RHO": 1.0, "KST": -0.3 + 0j}, reference="RHO")["KST"]
    (0.3, -180.0)
    """
    if isinstance(couplings, Mapping):
        names = list(couplings)
        ref = None
        if reference is not None:
            if reference not in couplings:
                raise KeyError(f"reference {reference!r} is not one of the components {names}")
            if couplings[reference] == 0:
                raise ValueError(f"the reference coupling {reference} is zero: couplings relative "
                                 "to it are undefined")
            ref = names.index(reference)
        mag, phase = canonical_couplings([complex(couplings[n]) for n in names], ref, degrees)
        return {n: (float(m), float(p)) for n, m, p in zip(names, mag, phase)}
    _period(degrees)
    c = np.asarray(couplings, dtype=np.complex128)
    if not np.all(np.isfinite(c)):
        raise ValueError(f"couplings must be finite, got {couplings!r}")
    if reference is not None:
        r = c[reference]
        if np.ndim(r) != 0:
            raise IndexError(f"reference {reference!r} must select one coupling")
        if r == 0:
            raise ValueError(f"the reference coupling {reference} is zero: couplings relative "
                             "to it are undefined")
        c = c / r
        c[reference] = 1  # exactly (z / z may round to 1 + i 1e-17)
    angle = np.angle(c)
    return np.abs(c), wrap_phase(np.degrees(angle) if degrees else angle, degrees)
