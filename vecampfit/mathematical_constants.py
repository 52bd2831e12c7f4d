r"""Mathematical constants, computed by vecampfit itself during the build.

The paper's ``VECAMPFIT_MATHEMATICAL_CONSTANTS``: the build runs
``tools/generate_constants.py``, which computes each constant with
:mod:`vecampfit.arbitrary_precision` at 384 bits and rounds it once, to
nearest, to three real types:

``REAL32``
    ``numpy.float32`` (C ``float``).
``REAL64``
    ``numpy.float64`` (C ``double``).
``REAL128``
    ``numpy.longdouble`` (C ``long double``).  On x86-64 this is the x87
    80-bit extended format with a 64-bit significand, not IEEE binary128
    (numpy has no native quadruple type there); :data:`LONG_DOUBLE_FORMAT`
    names the format.  ``NAME_REAL128_EXACT`` is its exact value as a
    :class:`fractions.Fraction`.

Constants (each with ``_REAL32``, ``_REAL64``, ``_REAL128`` and
``_REAL128_EXACT``):

================================  ================================
``SQRT_2``                        :math:`\sqrt{2}`
``LN_2``                          :math:`\ln 2`
``E``                             :math:`e`
``PI``                            :math:`\pi`
``SQRT_PI_2``                     :math:`\sqrt{\pi/2}`
``SQRT_PI``                       :math:`\sqrt{\pi}`
``SQRT_2PI``                      :math:`\sqrt{2\pi}`
``DEGREE_IN_RADIANS``             :math:`\pi/180` (rad per degree)
``RADIAN_IN_DEGREES``             :math:`180/\pi` (degrees per rad)
``INV_LN_2``                      :math:`1/\ln 2 = \log_2 e`
================================  ================================

For the vectorized exponential and logarithm (REAL32 and REAL64 only):
``LN_2_HI``, ``LN_2_LO`` (Cody-Waite split of :math:`\ln 2`: the high part
has 16 (float32) or 42 (float64) significant bits, so that ``k * LN_2_HI``
is exact for :math:`|k| < 2^8` or :math:`2^{11}`; the low part is
:math:`\ln 2 -` ``LN_2_HI`` rounded to nearest), ``EXP_COEFFICIENTS``
(:math:`1/k!`) and ``LOG_COEFFICIENTS`` (:math:`2/(2k+1)`) for
:math:`k = 0, \dots, 24`, as read-only numpy arrays.

The same values are available to Cython code through
``vecampfit/mathematical_constants.pxd`` (names without the module, e.g.
``from vecampfit.mathematical_constants cimport PI_REAL64``) and to C through
the header ``vecampfit/mathematical_constants.h`` (``VECAMPFIT_PI_REAL64``);
:func:`vecampfit.get_include_dirs` gives its directories.
"""

from fractions import Fraction as _Fraction

import numpy as _np

from . import _mathematical_constants_data as _data

#: Format of ``REAL128`` (numpy.longdouble, C long double) on this platform:
#: ``"x87_extended"``, ``"binary128"`` or ``"float64"``.
LONG_DOUBLE_FORMAT = _data.LONG_DOUBLE_FORMAT


def _real32(bits):
    return _np.array(bits, dtype=_np.uint32).view(_np.float32)[()]


def _real64(bits):
    return _np.array(bits, dtype=_np.uint64).view(_np.float64)[()]


def _real128(bits):
    dt = _np.dtype(_np.longdouble)
    data = bits.to_bytes(dt.itemsize, "little" if _np.little_endian else "big")
    return _np.frombuffer(data, dtype=_np.longdouble)[0]


def _array(bits, kind):
    a = _np.array([_real32(b) if kind == "REAL32" else _real64(b) for b in bits],
                  dtype=_np.float32 if kind == "REAL32" else _np.float64)
    a.flags.writeable = False
    return a


#: sqrt(2), correctly rounded to REAL32
SQRT_2_REAL32 = _real32(_data.BITS["SQRT_2"]["REAL32"])
#: sqrt(2), correctly rounded to REAL64
SQRT_2_REAL64 = _real64(_data.BITS["SQRT_2"]["REAL64"])
#: sqrt(2), correctly rounded to REAL128
SQRT_2_REAL128 = _real128(_data.BITS["SQRT_2"]["REAL128"])
#: sqrt(2): exact value of ``SQRT_2_REAL128``
SQRT_2_REAL128_EXACT = _Fraction(*_data.REAL128_EXACT["SQRT_2"])

#: ln 2, correctly rounded to REAL32
LN_2_REAL32 = _real32(_data.BITS["LN_2"]["REAL32"])
#: ln 2, correctly rounded to REAL64
LN_2_REAL64 = _real64(_data.BITS["LN_2"]["REAL64"])
#: ln 2, correctly rounded to REAL128
LN_2_REAL128 = _real128(_data.BITS["LN_2"]["REAL128"])
#: ln 2: exact value of ``LN_2_REAL128``
LN_2_REAL128_EXACT = _Fraction(*_data.REAL128_EXACT["LN_2"])

#: e = exp(1), correctly rounded to REAL32
E_REAL32 = _real32(_data.BITS["E"]["REAL32"])
#: e = exp(1), correctly rounded to REAL64
E_REAL64 = _real64(_data.BITS["E"]["REAL64"])
#: e = exp(1), correctly rounded to REAL128
E_REAL128 = _real128(_data.BITS["E"]["REAL128"])
#: e = exp(1): exact value of ``E_REAL128``
E_REAL128_EXACT = _Fraction(*_data.REAL128_EXACT["E"])

#: pi, correctly rounded to REAL32
PI_REAL32 = _real32(_data.BITS["PI"]["REAL32"])
#: pi, correctly rounded to REAL64
PI_REAL64 = _real64(_data.BITS["PI"]["REAL64"])
#: pi, correctly rounded to REAL128
PI_REAL128 = _real128(_data.BITS["PI"]["REAL128"])
#: pi: exact value of ``PI_REAL128``
PI_REAL128_EXACT = _Fraction(*_data.REAL128_EXACT["PI"])

#: sqrt(pi / 2), correctly rounded to REAL32
SQRT_PI_2_REAL32 = _real32(_data.BITS["SQRT_PI_2"]["REAL32"])
#: sqrt(pi / 2), correctly rounded to REAL64
SQRT_PI_2_REAL64 = _real64(_data.BITS["SQRT_PI_2"]["REAL64"])
#: sqrt(pi / 2), correctly rounded to REAL128
SQRT_PI_2_REAL128 = _real128(_data.BITS["SQRT_PI_2"]["REAL128"])
#: sqrt(pi / 2): exact value of ``SQRT_PI_2_REAL128``
SQRT_PI_2_REAL128_EXACT = _Fraction(*_data.REAL128_EXACT["SQRT_PI_2"])

#: sqrt(pi), correctly rounded to REAL32
SQRT_PI_REAL32 = _real32(_data.BITS["SQRT_PI"]["REAL32"])
#: sqrt(pi), correctly rounded to REAL64
SQRT_PI_REAL64 = _real64(_data.BITS["SQRT_PI"]["REAL64"])
#: sqrt(pi), correctly rounded to REAL128
SQRT_PI_REAL128 = _real128(_data.BITS["SQRT_PI"]["REAL128"])
#: sqrt(pi): exact value of ``SQRT_PI_REAL128``
SQRT_PI_REAL128_EXACT = _Fraction(*_data.REAL128_EXACT["SQRT_PI"])

#: sqrt(2 pi), correctly rounded to REAL32
SQRT_2PI_REAL32 = _real32(_data.BITS["SQRT_2PI"]["REAL32"])
#: sqrt(2 pi), correctly rounded to REAL64
SQRT_2PI_REAL64 = _real64(_data.BITS["SQRT_2PI"]["REAL64"])
#: sqrt(2 pi), correctly rounded to REAL128
SQRT_2PI_REAL128 = _real128(_data.BITS["SQRT_2PI"]["REAL128"])
#: sqrt(2 pi): exact value of ``SQRT_2PI_REAL128``
SQRT_2PI_REAL128_EXACT = _Fraction(*_data.REAL128_EXACT["SQRT_2PI"])

#: pi / 180, one degree in radians, correctly rounded to REAL32
DEGREE_IN_RADIANS_REAL32 = _real32(_data.BITS["DEGREE_IN_RADIANS"]["REAL32"])
#: pi / 180, one degree in radians, correctly rounded to REAL64
DEGREE_IN_RADIANS_REAL64 = _real64(_data.BITS["DEGREE_IN_RADIANS"]["REAL64"])
#: pi / 180, one degree in radians, correctly rounded to REAL128
DEGREE_IN_RADIANS_REAL128 = _real128(_data.BITS["DEGREE_IN_RADIANS"]["REAL128"])
#: pi / 180, one degree in radians: exact value of ``DEGREE_IN_RADIANS_REAL128``
DEGREE_IN_RADIANS_REAL128_EXACT = _Fraction(*_data.REAL128_EXACT["DEGREE_IN_RADIANS"])

#: 180 / pi, one radian in degrees, correctly rounded to REAL32
RADIAN_IN_DEGREES_REAL32 = _real32(_data.BITS["RADIAN_IN_DEGREES"]["REAL32"])
#: 180 / pi, one radian in degrees, correctly rounded to REAL64
RADIAN_IN_DEGREES_REAL64 = _real64(_data.BITS["RADIAN_IN_DEGREES"]["REAL64"])
#: 180 / pi, one radian in degrees, correctly rounded to REAL128
RADIAN_IN_DEGREES_REAL128 = _real128(_data.BITS["RADIAN_IN_DEGREES"]["REAL128"])
#: 180 / pi, one radian in degrees: exact value of ``RADIAN_IN_DEGREES_REAL128``
RADIAN_IN_DEGREES_REAL128_EXACT = _Fraction(*_data.REAL128_EXACT["RADIAN_IN_DEGREES"])

#: 1 / ln 2 = log2(e), correctly rounded to REAL32
INV_LN_2_REAL32 = _real32(_data.BITS["INV_LN_2"]["REAL32"])
#: 1 / ln 2 = log2(e), correctly rounded to REAL64
INV_LN_2_REAL64 = _real64(_data.BITS["INV_LN_2"]["REAL64"])
#: 1 / ln 2 = log2(e), correctly rounded to REAL128
INV_LN_2_REAL128 = _real128(_data.BITS["INV_LN_2"]["REAL128"])
#: 1 / ln 2 = log2(e): exact value of ``INV_LN_2_REAL128``
INV_LN_2_REAL128_EXACT = _Fraction(*_data.REAL128_EXACT["INV_LN_2"])

#: high part of the Cody-Waite split of ln 2 (REAL32)
LN_2_HI_REAL32 = _real32(_data.BITS["LN_2_HI"]["REAL32"])
#: high part of the Cody-Waite split of ln 2 (REAL64)
LN_2_HI_REAL64 = _real64(_data.BITS["LN_2_HI"]["REAL64"])
#: ln 2 - LN_2_HI, rounded to nearest (REAL32)
LN_2_LO_REAL32 = _real32(_data.BITS["LN_2_LO"]["REAL32"])
#: ln 2 - LN_2_HI, rounded to nearest (REAL64)
LN_2_LO_REAL64 = _real64(_data.BITS["LN_2_LO"]["REAL64"])

#: 1 / k! for k = 0, ..., 24, correctly rounded to REAL32 (read-only array)
EXP_COEFFICIENTS_REAL32 = _array(_data.ARRAYS["EXP_COEFFICIENTS"]["REAL32"], "REAL32")
#: 1 / k! for k = 0, ..., 24, correctly rounded to REAL64 (read-only array)
EXP_COEFFICIENTS_REAL64 = _array(_data.ARRAYS["EXP_COEFFICIENTS"]["REAL64"], "REAL64")
#: 2 / (2k + 1) for k = 0, ..., 24, correctly rounded to REAL32 (read-only array)
LOG_COEFFICIENTS_REAL32 = _array(_data.ARRAYS["LOG_COEFFICIENTS"]["REAL32"], "REAL32")
#: 2 / (2k + 1) for k = 0, ..., 24, correctly rounded to REAL64 (read-only array)
LOG_COEFFICIENTS_REAL64 = _array(_data.ARRAYS["LOG_COEFFICIENTS"]["REAL64"], "REAL64")

__all__ = [
    "LONG_DOUBLE_FORMAT",
    "SQRT_2_REAL32",
    "SQRT_2_REAL64",
    "SQRT_2_REAL128",
    "SQRT_2_REAL128_EXACT",
    "LN_2_REAL32",
    "LN_2_REAL64",
    "LN_2_REAL128",
    "LN_2_REAL128_EXACT",
    "E_REAL32",
    "E_REAL64",
    "E_REAL128",
    "E_REAL128_EXACT",
    "PI_REAL32",
    "PI_REAL64",
    "PI_REAL128",
    "PI_REAL128_EXACT",
    "SQRT_PI_2_REAL32",
    "SQRT_PI_2_REAL64",
    "SQRT_PI_2_REAL128",
    "SQRT_PI_2_REAL128_EXACT",
    "SQRT_PI_REAL32",
    "SQRT_PI_REAL64",
    "SQRT_PI_REAL128",
    "SQRT_PI_REAL128_EXACT",
    "SQRT_2PI_REAL32",
    "SQRT_2PI_REAL64",
    "SQRT_2PI_REAL128",
    "SQRT_2PI_REAL128_EXACT",
    "DEGREE_IN_RADIANS_REAL32",
    "DEGREE_IN_RADIANS_REAL64",
    "DEGREE_IN_RADIANS_REAL128",
    "DEGREE_IN_RADIANS_REAL128_EXACT",
    "RADIAN_IN_DEGREES_REAL32",
    "RADIAN_IN_DEGREES_REAL64",
    "RADIAN_IN_DEGREES_REAL128",
    "RADIAN_IN_DEGREES_REAL128_EXACT",
    "INV_LN_2_REAL32",
    "INV_LN_2_REAL64",
    "INV_LN_2_REAL128",
    "INV_LN_2_REAL128_EXACT",
    "LN_2_HI_REAL32",
    "LN_2_HI_REAL64",
    "LN_2_LO_REAL32",
    "LN_2_LO_REAL64",
    "EXP_COEFFICIENTS_REAL32",
    "EXP_COEFFICIENTS_REAL64",
    "LOG_COEFFICIENTS_REAL32",
    "LOG_COEFFICIENTS_REAL64",
]
