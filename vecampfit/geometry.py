"""Geometry: the difference of two azimuthal angles (the paper's ``VECAMPFIT_GEOMETRY_VECTOR_#LENGTH#``).

The block routine ``azimuthal_angle_difference`` is declared in
``vecampfit/geometry.pxd`` for users' Cython code
(``cimport vecampfit.geometry as geo``); the functions here apply it to
numpy arrays of any shape (float32 or float64).
"""

import numbers

import numpy as np

from . import _geometry as _k
from ._arguments import real_arrays as _arrays

__all__ = ["azimuthal_angle_difference", "azimuthal_angle_difference_scalar"]


def azimuthal_angle_difference(phi1, phi2):
    """Difference of two azimuthal angles, :math:`\\phi_1 - \\phi_2` reduced to :math:`[-\\pi, \\pi)`.

    .. math::

        \\Delta\\phi = \\phi_1 - \\phi_2 - 2\\pi k, \\quad
        k \\text{ the integer with } -\\pi \\le \\Delta\\phi < \\pi.

    The interval is that of the floating-point :math:`\\pi` of the precision
    (``numpy.pi`` for float64, ``numpy.float32(numpy.pi)`` for float32): a
    result that rounds to it is returned as its negative, so no result equals
    :math:`+\\pi`.  The difference ``phi1 - phi2`` is carried exactly (as
    the rounded difference plus its rounding error) and reduced with a
    three-part (Cody-Waite) :math:`2\\pi`, exactly for
    :math:`|\\phi_1 - \\phi_2| < 2^{26} \\cdot 2\\pi \\approx 4.2 \\cdot 10^8`,
    so the result is within 1 ulp of the correctly rounded reduction of the
    exact difference, also when the angles differ much in magnitude.
    float32 is reduced in float64 and rounded once
    (``numpy.float32(numpy.pi)`` is above :math:`\\pi`, so a difference
    equal to it gives :math:`\\mathrm{PI} - 2\\pi`, about -3.1415925).
    inf, NaN, or a difference of :math:`4.2 \\cdot 10^8` or more (where the
    reduction would not be exact) give NaN.

    Parameters
    ----------
    phi1, phi2 : array_like
        Angles (radians); broadcast together.

    Returns
    -------
    numpy.ndarray
        :math:`\\Delta\\phi` in radians.

    Raises
    ------
    TypeError
        If an argument is not real or the arrays mix float32 and float64.
    ValueError
        If the shapes do not broadcast.
    """
    (a, b), shape, dtype = _arrays(phi1=phi1, phi2=phi2)
    out = np.empty_like(a)
    _k.azimuthal_angle_difference_kernel(a, b, out)
    return out.reshape(shape)


def azimuthal_angle_difference_scalar(phi1, phi2):
    """:func:`azimuthal_angle_difference` of one pair of angles.

    Parameters
    ----------
    phi1, phi2 : float or numpy.float32
        Angles (radians); two ``numpy.float32`` for float32.

    Returns
    -------
    float or numpy.float32
        :math:`\\phi_1 - \\phi_2` reduced to :math:`[-\\pi, \\pi)`.

    Raises
    ------
    TypeError
        If an argument is not a real number or the precisions are mixed.
    """
    for name, a in (("phi1", phi1), ("phi2", phi2)):
        if isinstance(a, bool) or not isinstance(a, numbers.Real):
            raise TypeError(f"{name} must be a real number, got {a!r}")
    if isinstance(phi1, np.float32) or isinstance(phi2, np.float32):
        if not (isinstance(phi1, np.float32) and isinstance(phi2, np.float32)):
            raise TypeError("mixed precisions: give both angles as numpy.float32 or neither")
        return np.float32(_k.scalar32(phi1, phi2))
    return _k.scalar64(float(phi1), float(phi2))
