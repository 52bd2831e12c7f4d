# A user's model outside the package that cimports vecampfit.mathematical_constants:
# returns the compiled-in values, REAL128 (long double) as its raw bytes.
from libc.string cimport memcpy

cimport vecampfit.mathematical_constants as mc
from vecampfit.block cimport VECTOR_LENGTH

NAMES = ["SQRT_2", "LN_2", "E", "PI", "SQRT_PI_2", "SQRT_PI", "SQRT_2PI",
         "DEGREE_IN_RADIANS", "RADIAN_IN_DEGREES", "INV_LN_2"]


cdef bytes ld_bytes(long double v):
    cdef char buf[16]
    memcpy(buf, &v, sizeof(long double))
    return buf[:sizeof(long double)]


def vector_length():
    return VECTOR_LENGTH


def scalars():
    """name -> (float value of the float constant, double constant, long double bytes)."""
    cdef float f[10]
    cdef double d[10]
    cdef long double q[10]
    f[:] = [mc.SQRT_2_REAL32, mc.LN_2_REAL32, mc.E_REAL32, mc.PI_REAL32, mc.SQRT_PI_2_REAL32,
            mc.SQRT_PI_REAL32, mc.SQRT_2PI_REAL32, mc.DEGREE_IN_RADIANS_REAL32,
            mc.RADIAN_IN_DEGREES_REAL32, mc.INV_LN_2_REAL32]
    d[:] = [mc.SQRT_2_REAL64, mc.LN_2_REAL64, mc.E_REAL64, mc.PI_REAL64, mc.SQRT_PI_2_REAL64,
            mc.SQRT_PI_REAL64, mc.SQRT_2PI_REAL64, mc.DEGREE_IN_RADIANS_REAL64,
            mc.RADIAN_IN_DEGREES_REAL64, mc.INV_LN_2_REAL64]
    q[0] = mc.SQRT_2_REAL128
    q[1] = mc.LN_2_REAL128
    q[2] = mc.E_REAL128
    q[3] = mc.PI_REAL128
    q[4] = mc.SQRT_PI_2_REAL128
    q[5] = mc.SQRT_PI_REAL128
    q[6] = mc.SQRT_2PI_REAL128
    q[7] = mc.DEGREE_IN_RADIANS_REAL128
    q[8] = mc.RADIAN_IN_DEGREES_REAL128
    q[9] = mc.INV_LN_2_REAL128
    return {NAMES[i]: (f[i], d[i], ld_bytes(q[i])) for i in range(10)}


def cody_waite():
    return {"LN_2_HI_REAL32": mc.LN_2_HI_REAL32, "LN_2_LO_REAL32": mc.LN_2_LO_REAL32,
            "LN_2_HI_REAL64": mc.LN_2_HI_REAL64, "LN_2_LO_REAL64": mc.LN_2_LO_REAL64}


def coefficients():
    cdef int k
    return {
        "EXP_COEFFICIENTS_REAL32": [mc.EXP_COEFFICIENTS_REAL32[k] for k in range(mc.N_EXP_COEFFICIENTS)],
        "EXP_COEFFICIENTS_REAL64": [mc.EXP_COEFFICIENTS_REAL64[k] for k in range(mc.N_EXP_COEFFICIENTS)],
        "LOG_COEFFICIENTS_REAL32": [mc.LOG_COEFFICIENTS_REAL32[k] for k in range(mc.N_LOG_COEFFICIENTS)],
        "LOG_COEFFICIENTS_REAL64": [mc.LOG_COEFFICIENTS_REAL64[k] for k in range(mc.N_LOG_COEFFICIENTS)],
    }


def exp_series(double x):
    """exp(x) for small |x| by the series with the build-time coefficients (Horner)."""
    cdef double s = 0
    cdef int k
    for k in range(mc.N_EXP_COEFFICIENTS - 1, -1, -1):
        s = s * x + mc.EXP_COEFFICIENTS_REAL64[k]
    return s
