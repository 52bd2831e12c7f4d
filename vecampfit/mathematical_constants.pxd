"""Mathematical constants for users' Cython code (cimport vecampfit.mathematical_constants).

The values come from the C header ``vecampfit/mathematical_constants.h``,
generated during the build by ``tools/generate_constants.py`` with
:mod:`vecampfit.arbitrary_precision`: each is the exact value correctly
rounded (to nearest) to ``float`` (REAL32), ``double`` (REAL64) and ``long
double`` (REAL128; x87 80-bit extended on x86-64).  They are C macros and
``static const`` arrays, so the compiler sees the exact values.

Example::

    from vecampfit.mathematical_constants cimport PI_REAL64, EXP_COEFFICIENTS_REAL64
"""

cdef extern from "vecampfit/mathematical_constants.h" nogil:
    # sqrt(2)
    const float SQRT_2_REAL32 "VECAMPFIT_SQRT_2_REAL32"
    const double SQRT_2_REAL64 "VECAMPFIT_SQRT_2_REAL64"
    const long double SQRT_2_REAL128 "VECAMPFIT_SQRT_2_REAL128"
    # ln 2
    const float LN_2_REAL32 "VECAMPFIT_LN_2_REAL32"
    const double LN_2_REAL64 "VECAMPFIT_LN_2_REAL64"
    const long double LN_2_REAL128 "VECAMPFIT_LN_2_REAL128"
    # e = exp(1)
    const float E_REAL32 "VECAMPFIT_E_REAL32"
    const double E_REAL64 "VECAMPFIT_E_REAL64"
    const long double E_REAL128 "VECAMPFIT_E_REAL128"
    # pi
    const float PI_REAL32 "VECAMPFIT_PI_REAL32"
    const double PI_REAL64 "VECAMPFIT_PI_REAL64"
    const long double PI_REAL128 "VECAMPFIT_PI_REAL128"
    # sqrt(pi / 2)
    const float SQRT_PI_2_REAL32 "VECAMPFIT_SQRT_PI_2_REAL32"
    const double SQRT_PI_2_REAL64 "VECAMPFIT_SQRT_PI_2_REAL64"
    const long double SQRT_PI_2_REAL128 "VECAMPFIT_SQRT_PI_2_REAL128"
    # sqrt(pi)
    const float SQRT_PI_REAL32 "VECAMPFIT_SQRT_PI_REAL32"
    const double SQRT_PI_REAL64 "VECAMPFIT_SQRT_PI_REAL64"
    const long double SQRT_PI_REAL128 "VECAMPFIT_SQRT_PI_REAL128"
    # sqrt(2 pi)
    const float SQRT_2PI_REAL32 "VECAMPFIT_SQRT_2PI_REAL32"
    const double SQRT_2PI_REAL64 "VECAMPFIT_SQRT_2PI_REAL64"
    const long double SQRT_2PI_REAL128 "VECAMPFIT_SQRT_2PI_REAL128"
    # pi / 180, one degree in radians
    const float DEGREE_IN_RADIANS_REAL32 "VECAMPFIT_DEGREE_IN_RADIANS_REAL32"
    const double DEGREE_IN_RADIANS_REAL64 "VECAMPFIT_DEGREE_IN_RADIANS_REAL64"
    const long double DEGREE_IN_RADIANS_REAL128 "VECAMPFIT_DEGREE_IN_RADIANS_REAL128"
    # 180 / pi, one radian in degrees
    const float RADIAN_IN_DEGREES_REAL32 "VECAMPFIT_RADIAN_IN_DEGREES_REAL32"
    const double RADIAN_IN_DEGREES_REAL64 "VECAMPFIT_RADIAN_IN_DEGREES_REAL64"
    const long double RADIAN_IN_DEGREES_REAL128 "VECAMPFIT_RADIAN_IN_DEGREES_REAL128"
    # 1 / ln 2 = log2(e)
    const float INV_LN_2_REAL32 "VECAMPFIT_INV_LN_2_REAL32"
    const double INV_LN_2_REAL64 "VECAMPFIT_INV_LN_2_REAL64"
    const long double INV_LN_2_REAL128 "VECAMPFIT_INV_LN_2_REAL128"

    # Cody-Waite split of ln 2: LN_2_HI has its low mantissa bits zero (16 of
    # 24 bits set for float, 42 of 53 for double), so that k * LN_2_HI is exact
    # for |k| < 2**8 (REAL32), |k| < 2**11 (REAL64); LN_2_LO = ln 2 - LN_2_HI
    # rounded to nearest.
    const float LN_2_HI_REAL32 "VECAMPFIT_LN_2_HI_REAL32"
    const float LN_2_LO_REAL32 "VECAMPFIT_LN_2_LO_REAL32"
    const double LN_2_HI_REAL64 "VECAMPFIT_LN_2_HI_REAL64"
    const double LN_2_LO_REAL64 "VECAMPFIT_LN_2_LO_REAL64"

    # Number of series coefficients (25).
    enum: N_EXP_COEFFICIENTS "VECAMPFIT_N_EXP_COEFFICIENTS"
    enum: N_LOG_COEFFICIENTS "VECAMPFIT_N_LOG_COEFFICIENTS"
    # EXP_COEFFICIENTS[k] = 1 / k!, LOG_COEFFICIENTS[k] = 2 / (2k + 1), k = 0..24.
    const float EXP_COEFFICIENTS_REAL32 "VECAMPFIT_EXP_COEFFICIENTS_REAL32"[25]
    const double EXP_COEFFICIENTS_REAL64 "VECAMPFIT_EXP_COEFFICIENTS_REAL64"[25]
    const float LOG_COEFFICIENTS_REAL32 "VECAMPFIT_LOG_COEFFICIENTS_REAL32"[25]
    const double LOG_COEFFICIENTS_REAL64 "VECAMPFIT_LOG_COEFFICIENTS_REAL64"[25]
