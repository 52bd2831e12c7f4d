# Block routines of vecampfit.mathematical_functions (the paper's
# VECAMPFIT_MATHEMATICAL_FUNCTIONS_VECTOR_#LENGTH# and, for the *_scalar
# routines, VECAMPFIT_MATHEMATICAL_FUNCTIONS): vectorizable exp, log, floor
# and power, Gaussians with and without tails, Chebyshev polynomials, the
# Kallen lambda function and the logistic function.
#
# Usage from a user's model:
#     cimport vecampfit.mathematical_functions as mf
#     cdef double v[VECTOR_LENGTH]
#     mf.exp(v, v)                 # in place is allowed everywhere
#     y = mf.log_scalar(2.0)
#
# Every block routine works on the L = VECTOR_LENGTH lanes of a block; real
# vectors are ``floating`` arrays (float or double) of length L, parameters
# are scalars.  Nothing here raises or reads or writes errno.
#
# exp, log and power are our own: the lane loops of the C library's exp and
# log are not vectorized by gcc without -ffast-math.  Range reduction uses
# integer arithmetic on the bit patterns (unions), the series use the
# coefficients that the build computes in arbitrary precision
# (vecampfit.mathematical_constants: EXP_COEFFICIENTS = 1/k!,
# LOG_COEFFICIENTS = 2/(2k+1), Cody-Waite ln 2 = LN_2_HI + LN_2_LO), and
# every special case is a select, never a branch.  The only integer
# operations on 64-bit lanes are additions, subtractions, logical shifts and
# bit masks (all available with SSE2/AVX2); integers never go through
# int <-> floating conversions (the "magic number" 1.5 * 2^52 does that).
# gcc 12 vectorizes all lane loops with AVX (as compile_model's -march=native
# does here); for float64 it needs SSE4.2 at least (a 64-bit select mask), so
# a portable x86-64 (SSE2) build keeps the float64 lanes scalar, branch-free.
#
# Accuracy (measured by tests/test_mathematical_functions.py against mpmath):
#   exp, log, power: error below 1 ulp of the exact value, so the result is
#   the correctly rounded value or a neighbour (also for float32).
#   Subnormal results of exp and power: the scaled result is rounded once
#   more, error below 1 ulp of the subnormal spacing.

cimport cython
from cython cimport floating
from libc.math cimport NAN, INFINITY, fabs, fabsf, copysign, copysignf, erf, sqrt, sqrtf
from libc.math cimport expm1 as _libm_expm1, log1p as _libm_log1p, exp as _libm_exp
from libc.stdint cimport uint32_t, uint64_t

from vecampfit._libm cimport _sqrt
from vecampfit.block cimport VECTOR_LENGTH
from vecampfit.mathematical_constants cimport (
    EXP_COEFFICIENTS_REAL32, EXP_COEFFICIENTS_REAL64, LOG_COEFFICIENTS_REAL32,
    LOG_COEFFICIENTS_REAL64, LN_2_HI_REAL32, LN_2_HI_REAL64, LN_2_LO_REAL32, LN_2_LO_REAL64,
    INV_LN_2_REAL32, INV_LN_2_REAL64, SQRT_2PI_REAL32, SQRT_2PI_REAL64, SQRT_PI_2_REAL64, SQRT_2_REAL64,
)


# ---------------------------------------------------------------------------
# Bit patterns
# ---------------------------------------------------------------------------

cdef union _bits64:
    double f
    uint64_t i

cdef union _bits32:
    float f
    uint32_t i


cdef inline uint64_t _as_uint64(double x) noexcept nogil:
    cdef _bits64 u
    u.f = x
    return u.i


cdef inline double _as_double(uint64_t i) noexcept nogil:
    cdef _bits64 u
    u.i = i
    return u.f


cdef inline uint32_t _as_uint32(float x) noexcept nogil:
    cdef _bits32 u
    u.f = x
    return u.i


cdef inline float _as_float(uint32_t i) noexcept nogil:
    cdef _bits32 u
    u.i = i
    return u.f


# Selects as bit masks: gcc sinks a computation that feeds only one arm of a
# ?: into a branch and then, with -ftrapping-math (the default), refuses to
# if-convert the trapping floating-point operation there, so the lane loop
# would not vectorize.  A mask select has no branch to sink into.

cdef inline double _select64(bint c, double a, double b) noexcept nogil:
    """c ? a : b without a branch."""
    cdef uint64_t m = 0ULL - <uint64_t>c
    return _as_double((_as_uint64(a) & m) | (_as_uint64(b) & ~m))


cdef inline float _select32(bint c, float a, float b) noexcept nogil:
    """c ? a : b without a branch."""
    cdef uint32_t m = 0U - <uint32_t>c
    return _as_float((_as_uint32(a) & m) | (_as_uint32(b) & ~m))


cdef inline floating _select(bint c, floating a, floating b) noexcept nogil:
    """c ? a : b without a branch, either precision."""
    if floating is float:
        return _select32(c, a, b)
    else:
        return _select64(c, a, b)


# 1.5 * 2^52 (bits 0x4338000000000000) and 1.5 * 2^23 (bits 0x4b400000):
# adding and subtracting them rounds to an integer, whose two's complement
# sits in the low bits of the sum's bit pattern.


# ---------------------------------------------------------------------------
# Double-double helpers (float64): exact up to about 2^-105 relative, also
# when the compiler contracts a * b + c into fused multiply-adds, because the
# splitting is a bit mask and all partial products but the last are exact.
# ---------------------------------------------------------------------------

cdef inline (double, double) _two_product64(double a, double b) noexcept nogil:
    """(p, e) with p = fl(a b) and a b = p + e (up to 2^-105 |a b|)."""
    cdef double p = a * b
    cdef double ah = _as_double(_as_uint64(a) & 0xFFFFFFFFF8000000ULL)
    cdef double bh = _as_double(_as_uint64(b) & 0xFFFFFFFFF8000000ULL)
    cdef double al = a - ah
    cdef double bl = b - bh
    return p, (((ah * bh - p) + ah * bl) + al * bh) + al * bl


cdef inline (double, double) _two_sum64(double a, double b) noexcept nogil:
    """(s, e) with s = fl(a + b) and a + b = s + e exactly (Knuth)."""
    cdef double s = a + b
    cdef double bb = s - a
    return s, (a - (s - bb)) + (b - bb)


cdef inline double _odd_coefficient_low64(double c, double n) noexcept nogil:
    """2/n - c for c = fl(2/n): the low part of a LOG_COEFFICIENTS_REAL64 entry."""
    cdef double p, e
    p, e = _two_product64(n, c)
    return ((2.0 - p) - e) / n


# ---------------------------------------------------------------------------
# exp
# ---------------------------------------------------------------------------

cdef inline double _exp_reduced64(double r, double rl) noexcept nogil:
    """exp(r + rl) for |r| <= 0.35 (ln 2 / 2 and a little), |rl| <= 2^-50 |r|.

    exp(r) = 1 + r + r^2 P(r), P(r) = sum_{k=2}^{14} r^(k-2) / k! (Taylor; the
    first omitted term is below 2^-57); 1 + r is split exactly so that only
    the last addition rounds at the scale of the result.
    """
    cdef const double *c = EXP_COEFFICIENTS_REAL64
    cdef double p = c[14]
    p = p * r + c[13]
    p = p * r + c[12]
    p = p * r + c[11]
    p = p * r + c[10]
    p = p * r + c[9]
    p = p * r + c[8]
    p = p * r + c[7]
    p = p * r + c[6]
    p = p * r + c[5]
    p = p * r + c[4]
    p = p * r + c[3]
    p = p * r + c[2]
    cdef double t = (r * r) * p + rl * (1.0 + r)
    cdef double s = 1.0 + r
    cdef double e = (1.0 - s) + r
    return s + (e + t)


cdef inline double _scale64(double p, uint64_t k) noexcept nogil:
    """p 2^k for |k| <= 2020 as two exact power-of-two factors (overflow to inf,
    gradual underflow with one rounding)."""
    cdef uint64_t k1 = ((k + 2048ULL) >> 1) - 1024ULL
    return (p * _as_double((k1 + 1023ULL) << 52)) * _as_double((k - k1 + 1023ULL) << 52)


cdef inline double _exp_double_double64(double zh, double zl) noexcept nogil:
    """exp(zh + zl); zl is a small correction (|zl| <= 2^-50 |zh|)."""
    cdef double xc = zh
    xc = _select64(xc > 1400.0, 1400.0, xc)      # NaN passes both clamps
    xc = _select64(xc < -1400.0, -1400.0, xc)
    zl = _select64(xc == zh, zl, 0.0)
    cdef double t = xc * INV_LN_2_REAL64 + 6755399441055744.0
    cdef double kf = t - 6755399441055744.0
    cdef uint64_t k = _as_uint64(t) - 0x4338000000000000ULL
    cdef double rh = xc - kf * LN_2_HI_REAL64          # exact (Cody-Waite)
    cdef double tl = zl - kf * LN_2_LO_REAL64
    cdef double r = rh + tl
    cdef double rl = (rh - r) + tl
    return _scale64(_exp_reduced64(r, rl), k)


cdef inline double _exp64(double x) noexcept nogil:
    return _exp_double_double64(x, 0.0)


cdef inline float _exp_reduced32(float r, float rl) noexcept nogil:
    """exp(r + rl) for |r| <= 0.35: Taylor series to r^8 (first omitted term < 2^-28)."""
    cdef const float *c = EXP_COEFFICIENTS_REAL32
    cdef float p = c[8]
    p = p * r + c[7]
    p = p * r + c[6]
    p = p * r + c[5]
    p = p * r + c[4]
    p = p * r + c[3]
    p = p * r + c[2]
    cdef float t = (r * r) * p + rl * (<float>1.0 + r)
    cdef float s = <float>1.0 + r
    cdef float e = (<float>1.0 - s) + r
    return s + (e + t)


cdef inline float _exp32(float x) noexcept nogil:
    cdef float xc = x
    xc = _select32(xc > <float>170.0, <float>170.0, xc)
    xc = _select32(xc < <float>-170.0, <float>-170.0, xc)
    cdef float t = xc * INV_LN_2_REAL32 + <float>12582912.0
    cdef float kf = t - <float>12582912.0
    cdef uint32_t k = _as_uint32(t) - 0x4b400000U
    cdef float rh = xc - kf * LN_2_HI_REAL32
    cdef float tl = -(kf * LN_2_LO_REAL32)
    cdef float r = rh + tl
    cdef float rl = (rh - r) + tl
    cdef float p = _exp_reduced32(r, rl)
    cdef uint32_t k1 = ((k + 256U) >> 1) - 128U
    return (p * _as_float((k1 + 127U) << 23)) * _as_float((k - k1 + 127U) << 23)


# ---------------------------------------------------------------------------
# log
# ---------------------------------------------------------------------------

cdef inline double _log64(double x) noexcept nogil:
    """log x: x = 2^e m, m in [sqrt(2)/2, sqrt(2)), f = m - 1 (exact),
    s = f / (2 + f), log m = 2 atanh s = f - (f^2/2 - s (f^2/2 + R)),
    R = sum_{k=1}^{11} 2/(2k+1) s^(2k) (first omitted term < 2^-60 relative)."""
    cdef bint sub = x < 2.2250738585072014e-308
    # Every select below chooses between values computed unconditionally:
    # gcc does not if-convert floating-point operations that may trap.
    cdef double xscaled = x * 18014398509481984.0                # 2^54
    cdef double xs = _select64(sub, xscaled, x)
    cdef double eadj = _select64(sub, -54.0, 0.0)
    cdef uint64_t ix = _as_uint64(xs) + (0x3ff0000000000000ULL - 0x3fe6a09e00000000ULL)
    cdef double e = (_as_double((ix >> 52) | 0x4330000000000000ULL) - 4503599627371519.0) + eadj
    cdef double m = _as_double((ix & 0x000fffffffffffffULL) + 0x3fe6a09e00000000ULL)
    cdef double f = m - 1.0
    cdef double s = f / (2.0 + f)
    cdef double z = s * s
    cdef const double *c = LOG_COEFFICIENTS_REAL64
    cdef double w = c[11]
    w = w * z + c[10]
    w = w * z + c[9]
    w = w * z + c[8]
    w = w * z + c[7]
    w = w * z + c[6]
    w = w * z + c[5]
    w = w * z + c[4]
    w = w * z + c[3]
    w = w * z + c[2]
    w = w * z + c[1]
    cdef double big_r = z * w
    cdef double hfsq = 0.5 * f * f
    cdef double r = e * LN_2_HI_REAL64 - ((hfsq - (s * (hfsq + big_r) + e * LN_2_LO_REAL64)) - f)
    r = _select64(x == 0.0, -INFINITY, r)
    r = _select64(x < 0.0, NAN, r)
    r = _select64(x == INFINITY, x, r)
    return _select64(x != x, x, r)


cdef inline (double, double) _log_double_double64(double x) noexcept nogil:
    """log x = lh + ll for finite x > 0, with |error| < 2^-66 |log x|.

    The same reduction as _log64, in double-double arithmetic:
    s = f / (2 + f) = sh + sl, u = s^2 = uh + ul,
    log m = s (2 + Q(u)), Q = u (c1 + u (c2 + u R3(u))), where c1 = 2/3 and
    c2 = 2/5 carry their low parts; R3 in double."""
    cdef bint sub = x < 2.2250738585072014e-308
    cdef double xscaled = x * 18014398509481984.0
    cdef double xs = _select64(sub, xscaled, x)
    cdef double eadj = _select64(sub, -54.0, 0.0)
    cdef uint64_t ix = _as_uint64(xs) + (0x3ff0000000000000ULL - 0x3fe6a09e00000000ULL)
    cdef double e = (_as_double((ix >> 52) | 0x4330000000000000ULL) - 4503599627371519.0) + eadj
    cdef double m = _as_double((ix & 0x000fffffffffffffULL) + 0x3fe6a09e00000000ULL)
    cdef double f = m - 1.0
    cdef const double *c = LOG_COEFFICIENTS_REAL64
    cdef double c1l = _odd_coefficient_low64(c[1], 3.0)
    cdef double c2l = _odd_coefficient_low64(c[2], 5.0)
    cdef double dh, dl, sh, sl, ph, pl, uh, ul, w, vh, vl, gh, gl, hh, hl, qh, ql, bh, bl
    cdef double mh, ml, lh, lt
    # s = f / (2 + f) in double-double.
    dh = 2.0 + f
    dl = (2.0 - dh) + f
    sh = f / dh
    ph, pl = _two_product64(sh, dh)
    sl = (((f - ph) - pl) - sh * dl) / dh
    # u = s^2.
    uh, ul = _two_product64(sh, sh)
    ul = ul + 2.0 * sh * sl
    # R3 = c3 + c4 u + ... + c12 u^9 in double.
    w = c[12]
    w = w * uh + c[11]
    w = w * uh + c[10]
    w = w * uh + c[9]
    w = w * uh + c[8]
    w = w * uh + c[7]
    w = w * uh + c[6]
    w = w * uh + c[5]
    w = w * uh + c[4]
    w = w * uh + c[3]
    w = w * uh
    # v = c2 + u R3.
    vh = c[2] + w
    vl = ((c[2] - vh) + w) + c2l
    # g = u v; h = c1 + g.
    gh, gl = _two_product64(uh, vh)
    gl = gl + (uh * vl + ul * vh)
    hh = c[1] + gh
    hl = (((c[1] - hh) + gh) + gl) + c1l
    # Q = u h.
    qh, ql = _two_product64(uh, hh)
    ql = ql + (uh * hl + ul * hh)
    # log m = 2 s + s Q.
    bh, bl = _two_product64(sh, qh)
    bl = bl + (sh * ql + sl * qh)
    mh = 2.0 * sh + bh
    ml = ((2.0 * sh - mh) + bh) + (2.0 * sl + bl)
    # log x = e ln 2 + log m; e LN_2_HI is exact.
    lh, lt = _two_sum64(e * LN_2_HI_REAL64, mh)
    lt = lt + (ml + e * LN_2_LO_REAL64)
    mh = lh + lt
    return mh, (lh - mh) + lt


cdef inline float _log32(float x) noexcept nogil:
    """log x in float32: as _log64 with R = sum_{k=1}^{5} 2/(2k+1) s^(2k)."""
    cdef bint sub = x < <float>1.17549435e-38
    cdef float xscaled = x * <float>33554432.0                  # 2^25
    cdef float xs = _select32(sub, xscaled, x)
    cdef float eadj = _select32(sub, <float>-25.0, <float>0.0)
    cdef uint32_t ix = _as_uint32(xs) + (0x3f800000U - 0x3f3504f3U)
    cdef float e = (_as_float((ix >> 23) | 0x4b000000U) - <float>8388735.0) + eadj
    cdef float m = _as_float((ix & 0x007fffffU) + 0x3f3504f3U)
    cdef float f = m - <float>1.0
    cdef float s = f / (<float>2.0 + f)
    cdef float z = s * s
    cdef const float *c = LOG_COEFFICIENTS_REAL32
    cdef float w = c[5]
    w = w * z + c[4]
    w = w * z + c[3]
    w = w * z + c[2]
    w = w * z + c[1]
    cdef float big_r = z * w
    cdef float hfsq = <float>0.5 * f * f
    cdef float r = e * LN_2_HI_REAL32 - ((hfsq - (s * (hfsq + big_r) + e * LN_2_LO_REAL32)) - f)
    r = _select32(x == 0, -<float>INFINITY, r)
    r = _select32(x < 0, <float>NAN, r)
    r = _select32(x == <float>INFINITY, x, r)
    return _select32(x != x, x, r)


# ---------------------------------------------------------------------------
# power
# ---------------------------------------------------------------------------

cdef inline double _power_special64(double r, double x, double y) noexcept nogil:
    """The values of x^y outside finite x > 0 and finite y, as selects."""
    r = _select64(x < 0.0, NAN, r)
    r = _select64(x == 0.0, _select64(y > 0.0, 0.0, INFINITY), r)
    r = _select64(x == INFINITY, _select64(y > 0.0, INFINITY, 0.0), r)
    cdef double nan = x + y
    r = _select64(((x != x) | (y != y)), nan, r)
    return _select64(((y == 0.0) | (x == 1.0)), 1.0, r)


cdef inline double _power64(double x, double y) noexcept nogil:
    """x^y = exp(y log x), log x in double-double (2^-66), y log x as a
    double-double product, exp of a double-double."""
    cdef double lh, ll, zh, zl
    lh, ll = _log_double_double64(x)
    zh, zl = _two_product64(y, lh)
    zl = zl + y * ll
    return _power_special64(_exp_double_double64(zh, zl), x, y)


cdef inline float _power32(float x, float y) noexcept nogil:
    """x^y in float32 through the float64 exp and log (|y log x| < 104 in
    the float32 range, so the float64 error is far below a float32 ulp)."""
    cdef double r = _exp64(<double>y * _log64(<double>x))
    return <float>_power_special64(r, <double>x, <double>y)


# ---------------------------------------------------------------------------
# floor
# ---------------------------------------------------------------------------

cdef inline double _floor64(double x) noexcept nogil:
    cdef double ax = fabs(x)
    cdef double t = copysign((ax + 4503599627370496.0) - 4503599627370496.0, x)   # 2^52
    cdef double t1 = t - 1.0
    t = _select64(t > x, t1, t)
    return _select64(ax < 4503599627370496.0, t, x)


cdef inline float _floor32(float x) noexcept nogil:
    cdef float ax = fabsf(x)
    cdef float t = copysignf((ax + <float>8388608.0) - <float>8388608.0, x)        # 2^23
    cdef float t1 = t - <float>1.0
    t = _select32(t > x, t1, t)
    return _select32(ax < <float>8388608.0, t, x)


# ---------------------------------------------------------------------------
# Scalar versions (one value; the same code as one lane of a block)
# ---------------------------------------------------------------------------

cdef inline floating exp_scalar(floating x) noexcept nogil:
    """exp(x); overflow gives inf, underflow 0, exp(NaN) = NaN."""
    if floating is float:
        return _exp32(x)
    else:
        return _exp64(x)


cdef inline floating log_scalar(floating x) noexcept nogil:
    """log(x) for x > 0; log(0) = -inf, log(x < 0) = NaN, log(inf) = inf."""
    if floating is float:
        return _log32(x)
    else:
        return _log64(x)


cdef inline floating power_scalar(floating x, floating y) noexcept nogil:
    """x^y for x > 0 (x < 0 gives NaN; see vecampfit.mathematical_functions.power)."""
    if floating is float:
        return _power32(x, y)
    else:
        return _power64(x, y)


cdef inline floating floor_scalar(floating x) noexcept nogil:
    """The largest integer not above x (floor(-0.0) = -0.0; inf and NaN unchanged)."""
    if floating is float:
        return _floor32(x)
    else:
        return _floor64(x)


cdef inline floating logistic_scalar(floating x) noexcept nogil:
    """1 / (1 + exp(-x)), as exp(x) / (1 + exp(x)) for x < 0 (no overflow)."""
    cdef floating mx = -x
    cdef floating ax = _select(x >= 0, x, mx)
    cdef floating e = exp_scalar(-ax)
    cdef floating r = 1 / (1 + e)
    cdef floating er = e * r
    r = _select(x >= 0, r, er)
    return _select(x != x, x, r)


cdef inline floating kallen_lambda_scalar(floating x, floating y, floating z) noexcept nogil:
    """x^2 + y^2 + z^2 - 2xy - 2xz - 2yz, evaluated as (x - y - z)^2 - 4yz."""
    cdef floating d = x - y - z
    return d * d - 4 * y * z


# ---------------------------------------------------------------------------
# Block versions of the elementary functions
# ---------------------------------------------------------------------------

cdef inline void exp(floating *out, const floating *x) noexcept nogil:
    """out = exp(x), lane by lane."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        out[i] = exp_scalar(x[i])


cdef inline void log(floating *out, const floating *x) noexcept nogil:
    """out = log(x), lane by lane."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        out[i] = log_scalar(x[i])


cdef inline void power(floating *out, const floating *x, const floating *y) noexcept nogil:
    """out = x^y, lane by lane (x > 0)."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        out[i] = power_scalar(x[i], y[i])


cdef inline void power_constant_exponent(floating *out, const floating *x, floating y) noexcept nogil:
    """out = x^y with one exponent y for every lane (x > 0)."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        out[i] = power_scalar(x[i], y)


cdef inline void floor(floating *out, const floating *x) noexcept nogil:
    """out = floor(x), lane by lane."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        out[i] = floor_scalar(x[i])


cdef inline void logistic(floating *out, const floating *x) noexcept nogil:
    """out = 1 / (1 + exp(-x)), lane by lane."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        out[i] = logistic_scalar(x[i])


cdef inline void kallen_lambda(floating *out, const floating *x, const floating *y,
                               const floating *z) noexcept nogil:
    """out = lambda(x, y, z) = (x - y - z)^2 - 4 y z, lane by lane."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        out[i] = kallen_lambda_scalar(x[i], y[i], z[i])


cdef inline floating _log1p_scalar(floating t) noexcept nogil:
    """log(1 + t) for t > -1, accurate also where 1 + t rounds: with w = fl(1 + t),
    log(1 + t) = log w + log(1 + c / w), c = t - (w - 1) the rounding error of w,
    and log(1 + c/w) = c/w to far below an ulp (|c/w| < 2^-53, 2^-24 in float32)."""
    cdef floating w = 1 + t
    cdef floating c = (t - (w - 1)) / w
    # w = inf gives c = NaN: the correction is 0 there.
    return log_scalar(w) + _select(c == c, c, <floating>0)


# ---------------------------------------------------------------------------
# Gaussians
# ---------------------------------------------------------------------------

cdef inline floating gaussian_scalar(floating x, floating mean, floating sigma) noexcept nogil:
    """exp(-(x - mean)^2 / (2 sigma^2)) / (sqrt(2 pi) sigma)."""
    cdef floating t = (x - mean) / sigma
    if floating is float:
        return exp_scalar(<float>-0.5 * t * t) / (SQRT_2PI_REAL32 * sigma)
    else:
        return exp_scalar(-0.5 * t * t) / (SQRT_2PI_REAL64 * sigma)


cdef inline void gaussian_unnormalized(floating *out, const floating *x, floating mean,
                                       floating sigma) noexcept nogil:
    """out = exp(-(x - mean)^2 / (2 sigma^2)) (peak value 1)."""
    cdef floating a = -1 / (2 * sigma * sigma)
    cdef floating d
    cdef int i
    for i in range(VECTOR_LENGTH):
        d = x[i] - mean
        out[i] = exp_scalar(a * d * d)


cdef inline void gaussian(floating *out, const floating *x, floating mean, floating sigma) noexcept nogil:
    """out = exp(-(x - mean)^2 / (2 sigma^2)) / (sqrt(2 pi) sigma) (unit integral)."""
    cdef floating norm
    if floating is float:
        norm = 1 / (SQRT_2PI_REAL32 * sigma)
    else:
        norm = 1 / (SQRT_2PI_REAL64 * sigma)
    cdef int i
    gaussian_unnormalized(out, x, mean, sigma)
    for i in range(VECTOR_LENGTH):
        out[i] = out[i] * norm


# Asymmetric Gaussians, with tails.  For x < mean the left parameters are
# used and u = (mean - x) / sigma_left, else the right ones and
# u = (x - mean) / sigma_right; the shape is exp(g(u)) with
#   kind 0 (no tail):     g = -u^2/2
#   kind 1 (exponential): g = -u^2/2 (u <= a), a^2/2 - a u (u > a)
#   kind 2 (power law):   g = -u^2/2 (u <= a), -a^2/2 - n log(1 + a (u - a)/n) (u > a)
#   kind 3 (exponential, then power law from b > a):
#       -u^2/2 (u <= a), a^2/2 - a u (a < u <= b),
#       a^2/2 - a b - n log(1 + a (u - b)/n) (u > b)
#   kind 4 (power law, then exponential from b > a):
#       -u^2/2 (u <= a), -a^2/2 - n log(w(u)) (a < u <= b),
#       -a^2/2 - n log(w(b)) - (a / w(b)) (u - b) (u > b), w(u) = 1 + a (u - a)/n
# Each piece continues the value and the first derivative of the previous
# one.  The peak value is 1 (at x = mean).  The logarithms are taken as
# log(1 + t) of t = a (u - a)/n (_log1p_scalar): n log(fl(1 + t)) would carry
# an error of n/2 ulps of the exponent.

cdef inline floating _tail_exponent(floating u, floating a, floating b, floating n,
                                    floating log_wb, int kind) noexcept nogil:
    cdef floating g = -u * u / 2
    cdef floating ex, pw, wb
    if kind == 0:
        return g
    elif kind == 1:
        ex = a * (a / 2 - u)
        return _select(u <= a, g, ex)
    elif kind == 2:
        pw = -a * a / 2 - n * _log1p_scalar(a * (u - a) / n)
        return _select(u <= a, g, pw)
    elif kind == 3:
        ex = a * (a / 2 - u)
        pw = a * (a / 2 - b) - n * _log1p_scalar(a * (u - b) / n)
        return _select(u <= a, g, _select(u <= b, ex, pw))
    else:
        wb = 1 + a * (b - a) / n
        pw = -a * a / 2 - n * _log1p_scalar(a * (u - a) / n)
        ex = -a * a / 2 - n * log_wb - (a / wb) * (u - b)
        return _select(u <= a, g, _select(u <= b, pw, ex))


cdef inline void _asymmetric_gaussian_kind(
        floating *out, const floating *x, floating mean, floating sigma_left, floating sigma_right,
        floating alpha_left, floating alpha_right, floating beta_left, floating beta_right,
        floating n_left, floating n_right, int kind) noexcept nogil:
    cdef floating il = -1 / sigma_left
    cdef floating ir = 1 / sigma_right
    cdef floating lwl = 0, lwr = 0
    cdef floating d, u, a, b, n, lw
    cdef bint right
    cdef int i
    if kind == 4:
        lwl = _log1p_scalar(alpha_left * (beta_left - alpha_left) / n_left)
        lwr = _log1p_scalar(alpha_right * (beta_right - alpha_right) / n_right)
    for i in range(VECTOR_LENGTH):
        d = x[i] - mean
        right = d >= 0
        u = d * _select(right, ir, il)
        a = _select(right, alpha_right, alpha_left)
        b = _select(right, beta_right, beta_left)
        n = _select(right, n_right, n_left)
        lw = _select(right, lwr, lwl)
        out[i] = exp_scalar(_tail_exponent(u, a, b, n, lw, kind))


cdef inline void asymmetric_gaussian_unnormalized(
        floating *out, const floating *x, floating mean, floating sigma_left,
        floating sigma_right) noexcept nogil:
    """out = exp(-(x - mean)^2 / (2 sigma^2)), sigma = sigma_left for x < mean, else sigma_right."""
    _asymmetric_gaussian_kind(out, x, mean, sigma_left, sigma_right, 0, 0, 0, 0, 1, 1, 0)


cdef inline void asymmetric_gaussian(floating *out, const floating *x, floating mean,
                                     floating sigma_left, floating sigma_right) noexcept nogil:
    """The asymmetric Gaussian with unit integral: the unnormalized shape times
    2 / (sqrt(2 pi) (sigma_left + sigma_right))."""
    cdef floating norm
    if floating is float:
        norm = 2 / (SQRT_2PI_REAL32 * (sigma_left + sigma_right))
    else:
        norm = 2 / (SQRT_2PI_REAL64 * (sigma_left + sigma_right))
    cdef int i
    asymmetric_gaussian_unnormalized(out, x, mean, sigma_left, sigma_right)
    for i in range(VECTOR_LENGTH):
        out[i] = out[i] * norm


cdef inline void asymmetric_gaussian_exponential_tail(
        floating *out, const floating *x, floating mean, floating sigma_left, floating sigma_right,
        floating alpha_left, floating alpha_right) noexcept nogil:
    """Unnormalized asymmetric Gaussian with exponential tails beyond alpha sigma (kind 1 above)."""
    _asymmetric_gaussian_kind(out, x, mean, sigma_left, sigma_right, alpha_left, alpha_right,
                              0, 0, 1, 1, 1)


cdef inline void asymmetric_gaussian_power_law_tail(
        floating *out, const floating *x, floating mean, floating sigma_left, floating sigma_right,
        floating alpha_left, floating alpha_right, floating n_left, floating n_right) noexcept nogil:
    """Unnormalized asymmetric Gaussian with power-law tails (u^-n) beyond alpha sigma (kind 2)."""
    _asymmetric_gaussian_kind(out, x, mean, sigma_left, sigma_right, alpha_left, alpha_right,
                              0, 0, n_left, n_right, 2)


cdef inline void asymmetric_gaussian_exponential_power_law_tail(
        floating *out, const floating *x, floating mean, floating sigma_left, floating sigma_right,
        floating alpha_left, floating alpha_right, floating beta_left, floating beta_right,
        floating n_left, floating n_right) noexcept nogil:
    """Unnormalized asymmetric Gaussian, exponential tails from alpha sigma and
    power-law tails from beta sigma (kind 3)."""
    _asymmetric_gaussian_kind(out, x, mean, sigma_left, sigma_right, alpha_left, alpha_right,
                              beta_left, beta_right, n_left, n_right, 3)


cdef inline void asymmetric_gaussian_power_law_exponential_tail(
        floating *out, const floating *x, floating mean, floating sigma_left, floating sigma_right,
        floating alpha_left, floating alpha_right, floating beta_left, floating beta_right,
        floating n_left, floating n_right) noexcept nogil:
    """Unnormalized asymmetric Gaussian, power-law tails from alpha sigma turning
    into exponential tails from beta sigma (kind 4)."""
    _asymmetric_gaussian_kind(out, x, mean, sigma_left, sigma_right, alpha_left, alpha_right,
                              beta_left, beta_right, n_left, n_right, 4)


cdef inline double _gaussian_side_integral(double sigma, double a, double b, double n,
                                           int kind) noexcept nogil:
    """Integral over one side (u from 0 to infinity, times sigma) of the shapes above."""
    cdef double core, ea, w, lw, t, r
    core = SQRT_PI_2_REAL64
    if kind != 0:
        core = SQRT_PI_2_REAL64 * erf(a / SQRT_2_REAL64)
    ea = _exp64(-a * a / 2)
    if kind == 0:
        return sigma * core
    elif kind == 1:
        return sigma * (core + ea / a)
    elif kind == 2:
        return sigma * (core + ea * n / (a * (n - 1)))
    elif kind == 3:
        w = _exp64(a * (a / 2 - b))
        return sigma * (core + (ea - w) / a + w * n / (a * (n - 1)))
    else:
        # w = 1 + a (b - a)/n, lw = log w, t = (1 - n) lw:
        # n/(n - 1) (1 - w^(1-n)) = n lw expm1(t)/t (also for n = 1, where it is n lw:
        # no cancellation as n -> 1), and w^-n w = w^(1-n) = e^t.
        lw = _libm_log1p(a * (b - a) / n)
        t = (1 - n) * lw
        r = 1.0 if t == 0 else _libm_expm1(t) / t
        return sigma * (core + ea * n * lw * r / a + ea * _libm_exp(t) / a)


cdef inline double asymmetric_gaussian_tail_integral(
        double sigma_left, double sigma_right, double alpha_left, double alpha_right,
        double beta_left, double beta_right, double n_left, double n_right, int kind) noexcept nogil:
    """Integral over the real line of the unnormalized shape of the given kind
    (0: no tail, 1: exponential, 2: power law, 3: exponential and power law,
    4: power law and exponential); divide by it to normalize.  Power-law
    tails need n > 1."""
    return (_gaussian_side_integral(sigma_left, alpha_left, beta_left, n_left, kind)
            + _gaussian_side_integral(sigma_right, alpha_right, beta_right, n_right, kind))


# ---------------------------------------------------------------------------
# Chebyshev polynomials
# ---------------------------------------------------------------------------

cdef inline void chebyshev_basis(floating *out, const floating *x, int n) noexcept nogil:
    """out[k L + i] = T_k(x[i]) for k = 0..n (out holds (n + 1) L values),
    by T_{k+1} = 2 x T_k - T_{k-1}."""
    cdef int i, k
    for i in range(VECTOR_LENGTH):
        out[i] = 1
    if n < 1:
        return
    for i in range(VECTOR_LENGTH):
        out[VECTOR_LENGTH + i] = x[i]
    for k in range(2, n + 1):
        for i in range(VECTOR_LENGTH):
            out[k * VECTOR_LENGTH + i] = (2 * x[i] * out[(k - 1) * VECTOR_LENGTH + i]
                                          - out[(k - 2) * VECTOR_LENGTH + i])


cdef inline void chebyshev_series(floating *out, const floating *x, const floating *c, int n) noexcept nogil:
    """out = sum_{k=0}^{n} c[k] T_k(x) by Clenshaw's recurrence
    b_k = c_k + 2 x b_{k+1} - b_{k+2}, out = c_0 + x b_1 - b_2."""
    cdef floating b1[VECTOR_LENGTH]
    cdef floating b2[VECTOR_LENGTH]
    cdef floating t
    cdef int i, k
    for i in range(VECTOR_LENGTH):
        b1[i] = 0
        b2[i] = 0
    for k in range(n, 0, -1):
        for i in range(VECTOR_LENGTH):
            t = c[k] + 2 * x[i] * b1[i] - b2[i]
            b2[i] = b1[i]
            b1[i] = t
    for i in range(VECTOR_LENGTH):
        out[i] = c[0] + x[i] * b1[i] - b2[i]
