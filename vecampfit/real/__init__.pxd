# Block routines on the representation of real numbers (the paper's
# vecampfit-real: VECAMPFIT_REAL_NUMBER_VECTOR_#LENGTH#,
# VECAMPFIT_TYPE_CONVERSION_VECTOR_#LENGTH# and VECAMPFIT_TRANSFER).
#
# Usage from a user's model:
#     cimport vecampfit.real as vr
#     cdef double x[VECTOR_LENGTH], m[VECTOR_LENGTH]
#     cdef int32_t e[VECTOR_LENGTH]
#     vr.frexp(m, e, x)
#
# Real vectors are arrays of L = VECTOR_LENGTH float or double (fused type
# ``floating``); integer vectors are int32_t, int64_t or uint32_t arrays of
# the same length.  Routines read the IEEE 754 bits (binary32: 1 sign bit, 8
# exponent bits, 23 fraction bits, bias 127; binary64: 1, 11, 52, bias 1023)
# and never raise; special values (signed zeros, subnormals, infinities, NaN)
# behave as documented per routine, matching numpy and C99.  Out may alias
# an input of the same type.  REAL128 (C long double: x87 80-bit extended
# on x86-64, in 16 bytes) has scalar transfer routines only.

from cython cimport floating
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t, INT64_MAX, INT64_MIN
from libc.string cimport memcpy, memset

from vecampfit.block cimport VECTOR_LENGTH

cdef extern from "float.h":
    # Significand bits of C long double: 64 for x87 extended, 113 for binary128.
    enum: LONG_DOUBLE_MANT_DIG "LDBL_MANT_DIG"

# Number kinds returned by classify.
cdef enum:
    REAL_FINITE = 0
    REAL_INFINITE = 1
    REAL_NAN = 2


# ---------------------------------------------------------------------------
# Bits
# ---------------------------------------------------------------------------

cdef inline void to_bits(int64_t *out, const floating *x) noexcept nogil:
    """out = the bit pattern of x (binary32: 0 <= out < 2**32; binary64: as int64, numpy's view)."""
    cdef int i
    cdef uint32_t b32[VECTOR_LENGTH]
    cdef int64_t b64[VECTOR_LENGTH]
    if floating is float:
        memcpy(b32, x, VECTOR_LENGTH * sizeof(uint32_t))
        for i in range(VECTOR_LENGTH):
            out[i] = b32[i]
    else:
        memcpy(b64, x, VECTOR_LENGTH * sizeof(int64_t))
        for i in range(VECTOR_LENGTH):
            out[i] = b64[i]


cdef inline void from_bits(floating *out, const int64_t *bits) noexcept nogil:
    """out = the real number with bit pattern bits (binary32: the low 32 bits)."""
    cdef int i
    cdef uint32_t b32[VECTOR_LENGTH]
    if floating is float:
        for i in range(VECTOR_LENGTH):
            b32[i] = <uint32_t>bits[i]
        memcpy(out, b32, VECTOR_LENGTH * sizeof(uint32_t))
    else:
        memcpy(out, bits, VECTOR_LENGTH * sizeof(int64_t))


cdef inline uint32_t _bits32(float x) noexcept nogil:
    cdef uint32_t b
    memcpy(&b, &x, 4)
    return b


cdef inline uint64_t _bits64(double x) noexcept nogil:
    cdef uint64_t b
    memcpy(&b, &x, 8)
    return b


cdef inline float _float32(uint32_t b) noexcept nogil:
    cdef float x
    memcpy(&x, &b, 4)
    return x


cdef inline double _float64(uint64_t b) noexcept nogil:
    cdef double x
    memcpy(&x, &b, 8)
    return x


# ---------------------------------------------------------------------------
# Classification
# ---------------------------------------------------------------------------

cdef inline void classify(int32_t *out, const floating *x) noexcept nogil:
    """out = REAL_FINITE (0), REAL_INFINITE (1) or REAL_NAN (2) for each lane."""
    cdef int i
    cdef uint32_t b
    cdef uint64_t c
    for i in range(VECTOR_LENGTH):
        if floating is float:
            b = _bits32(x[i]) & 0x7FFFFFFFu
            out[i] = REAL_FINITE if b < 0x7F800000u else (REAL_INFINITE if b == 0x7F800000u else REAL_NAN)
        else:
            c = _bits64(x[i]) & 0x7FFFFFFFFFFFFFFFull
            out[i] = (REAL_FINITE if c < 0x7FF0000000000000ull else
                      (REAL_INFINITE if c == 0x7FF0000000000000ull else REAL_NAN))


cdef inline void is_finite(int32_t *out, const floating *x) noexcept nogil:
    """out = 1 where x is finite (zero, subnormal or normal), else 0 (numpy.isfinite)."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        if floating is float:
            out[i] = (_bits32(x[i]) & 0x7FFFFFFFu) < 0x7F800000u
        else:
            out[i] = (_bits64(x[i]) & 0x7FFFFFFFFFFFFFFFull) < 0x7FF0000000000000ull


cdef inline void is_infinite(int32_t *out, const floating *x) noexcept nogil:
    """out = 1 where x is +inf or -inf, else 0 (numpy.isinf)."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        if floating is float:
            out[i] = (_bits32(x[i]) & 0x7FFFFFFFu) == 0x7F800000u
        else:
            out[i] = (_bits64(x[i]) & 0x7FFFFFFFFFFFFFFFull) == 0x7FF0000000000000ull


cdef inline void is_nan(int32_t *out, const floating *x) noexcept nogil:
    """out = 1 where x is NaN, else 0 (numpy.isnan)."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        if floating is float:
            out[i] = (_bits32(x[i]) & 0x7FFFFFFFu) > 0x7F800000u
        else:
            out[i] = (_bits64(x[i]) & 0x7FFFFFFFFFFFFFFFull) > 0x7FF0000000000000ull


# ---------------------------------------------------------------------------
# Sign bit
# ---------------------------------------------------------------------------

cdef inline void sign_bit(int32_t *out, const floating *x) noexcept nogil:
    """out = the sign bit of x (1 for -0.0, negative numbers, -inf and NaNs with the bit set)."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        if floating is float:
            out[i] = <int32_t>(_bits32(x[i]) >> 31)
        else:
            out[i] = <int32_t>(_bits64(x[i]) >> 63)


cdef inline void set_sign_bit(floating *out, const floating *x, const int32_t *sign) noexcept nogil:
    """out = x with its sign bit set to 1 where sign != 0, to 0 elsewhere (|x| or -|x|, NaN too)."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        if floating is float:
            out[i] = _float32((_bits32(x[i]) & 0x7FFFFFFFu) | ((sign[i] != 0) * 0x80000000u))
        else:
            out[i] = _float64((_bits64(x[i]) & 0x7FFFFFFFFFFFFFFFull) |
                              (<uint64_t>(sign[i] != 0) << 63))


# ---------------------------------------------------------------------------
# Exponent and mantissa: raw fields
# ---------------------------------------------------------------------------

cdef inline void exponent_field(int32_t *out, const floating *x) noexcept nogil:
    """out = the biased exponent field (binary32: 0..255, binary64: 0..2047; 0 for zeros and subnormals)."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        if floating is float:
            out[i] = <int32_t>((_bits32(x[i]) >> 23) & 0xFFu)
        else:
            out[i] = <int32_t>((_bits64(x[i]) >> 52) & 0x7FFull)


cdef inline void mantissa_field(int64_t *out, const floating *x) noexcept nogil:
    """out = the fraction field (binary32: 23 bits, binary64: 52 bits; without the hidden bit)."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        if floating is float:
            out[i] = _bits32(x[i]) & 0x7FFFFFu
        else:
            out[i] = <int64_t>(_bits64(x[i]) & 0xFFFFFFFFFFFFFull)


cdef inline void set_exponent_field(floating *out, const floating *x, const int32_t *e) noexcept nogil:
    """out = x with its biased exponent field replaced by the low 8 (11) bits of e."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        if floating is float:
            out[i] = _float32((_bits32(x[i]) & 0x807FFFFFu) | ((<uint32_t>e[i] & 0xFFu) << 23))
        else:
            out[i] = _float64((_bits64(x[i]) & 0x800FFFFFFFFFFFFFull) |
                              ((<uint64_t>e[i] & 0x7FFull) << 52))


cdef inline void set_mantissa_field(floating *out, const floating *x, const int64_t *m) noexcept nogil:
    """out = x with its fraction field replaced by the low 23 (52) bits of m."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        if floating is float:
            out[i] = _float32((_bits32(x[i]) & 0xFF800000u) | (<uint32_t>m[i] & 0x7FFFFFu))
        else:
            out[i] = _float64((_bits64(x[i]) & 0xFFF0000000000000ull) |
                              (<uint64_t>m[i] & 0xFFFFFFFFFFFFFull))


# ---------------------------------------------------------------------------
# Exponent and mantissa: values (frexp, ldexp)
# ---------------------------------------------------------------------------

cdef inline void frexp(floating *mantissa, int32_t *exponent, const floating *x) noexcept nogil:
    """x = mantissa * 2**exponent with 0.5 <= |mantissa| < 1 (C frexp, numpy.frexp).

    Subnormals are normalized; for zeros, infinities and NaN the mantissa is
    x and the exponent 0.
    """
    cdef int i
    cdef uint32_t b
    cdef uint64_t c
    cdef int32_t shift, f
    cdef float xf
    cdef double xd
    for i in range(VECTOR_LENGTH):
        if floating is float:
            xf = x[i]
            b = _bits32(xf)
            f = <int32_t>((b >> 23) & 0xFFu)
            shift = 0
            if f == 0 and (b & 0x7FFFFFFFu) != 0:       # subnormal: scale by 2**32 exactly
                xf = xf * 4294967296.0
                b = _bits32(xf)
                f = <int32_t>((b >> 23) & 0xFFu)
                shift = 32
            if f == 0 or f == 0xFF:
                mantissa[i] = x[i]
                exponent[i] = 0
            else:
                mantissa[i] = _float32((b & 0x807FFFFFu) | (126u << 23))
                exponent[i] = f - 126 - shift
        else:
            xd = x[i]
            c = _bits64(xd)
            f = <int32_t>((c >> 52) & 0x7FFull)
            shift = 0
            if f == 0 and (c & 0x7FFFFFFFFFFFFFFFull) != 0:
                xd = xd * 18446744073709551616.0        # 2**64
                c = _bits64(xd)
                f = <int32_t>((c >> 52) & 0x7FFull)
                shift = 64
            if f == 0 or f == 0x7FF:
                mantissa[i] = x[i]
                exponent[i] = 0
            else:
                mantissa[i] = _float64((c & 0x800FFFFFFFFFFFFFull) | (<uint64_t>1022 << 52))
                exponent[i] = f - 1022 - shift


cdef inline void get_exponent(int32_t *out, const floating *x) noexcept nogil:
    """out = the exponent of frexp: x = m * 2**out with 0.5 <= |m| < 1 (0 for 0, inf, NaN)."""
    cdef floating m[VECTOR_LENGTH]
    frexp(m, out, x)


cdef inline void get_mantissa(floating *out, const floating *x) noexcept nogil:
    """out = the mantissa of frexp, 0.5 <= |out| < 1 with the sign of x (x itself for 0, inf, NaN)."""
    cdef int32_t e[VECTOR_LENGTH]
    frexp(out, e, x)


cdef inline float _pow2f(int32_t n) noexcept nogil:
    # 2**n for -126 <= n <= 127
    return _float32(<uint32_t>(127 + n) << 23)


cdef inline double _pow2d(int32_t n) noexcept nogil:
    # 2**n for -1022 <= n <= 1023
    return _float64(<uint64_t>(1023 + n) << 52)


cdef inline void ldexp(floating *out, const floating *x, const int32_t *n) noexcept nogil:
    """out = x * 2**n, correctly rounded (to nearest) as C ldexp and numpy.ldexp.

    Results below the normal range are rounded once to the subnormal grid
    (or to a signed zero), results above it overflow to a signed infinity;
    zeros, infinities and NaN are returned unchanged.
    """
    cdef int i
    cdef int32_t k
    cdef float yf
    cdef double yd
    for i in range(VECTOR_LENGTH):
        k = n[i]
        if floating is float:
            yf = x[i]
            if k > 127:
                yf = yf * 1.7014118346046923e38             # 2**127
                k = k - 127
                if k > 127:
                    yf = yf * 1.7014118346046923e38
                    k = k - 127
                    if k > 127:
                        k = 127
            elif k < -126:
                # 2**-126 * 2**24: keep the last step below -24 so the subnormal
                # result is rounded only once.
                yf = yf * 1.9721522630525295e-31             # 2**-102
                k = k + 102
                if k < -126:
                    yf = yf * 1.9721522630525295e-31
                    k = k + 102
                    if k < -126:
                        k = -126
            out[i] = yf * _pow2f(k)
        else:
            yd = x[i]
            if k > 1023:
                yd = yd * 8.98846567431158e307               # 2**1023
                k = k - 1023
                if k > 1023:
                    yd = yd * 8.98846567431158e307
                    k = k - 1023
                    if k > 1023:
                        k = 1023
            elif k < -1022:
                yd = yd * 2.004168360008973e-292             # 2**-969 = 2**-1022 * 2**53
                k = k + 969
                if k < -1022:
                    yd = yd * 2.004168360008973e-292
                    k = k + 969
                    if k < -1022:
                        k = -1022
            out[i] = yd * _pow2d(k)


cdef inline void set_exponent(floating *out, const floating *x, const int32_t *e) noexcept nogil:
    """out = m * 2**e where m is the frexp mantissa of x (ldexp rounding; 0, inf, NaN unchanged)."""
    cdef int32_t unused[VECTOR_LENGTH]
    frexp(out, unused, x)
    ldexp(out, out, e)


# ---------------------------------------------------------------------------
# Conversion between integer and real numbers
# ---------------------------------------------------------------------------

cdef inline void int64_to_real(floating *out, const int64_t *n) noexcept nogil:
    """out = n rounded to nearest (C conversion, numpy astype)."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        out[i] = <floating>n[i]


cdef inline void int32_to_real(floating *out, const int32_t *n) noexcept nogil:
    """out = n rounded to nearest (exact for float64)."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        out[i] = <floating>n[i]


cdef inline void real_to_int64(int64_t *out, const floating *x) noexcept nogil:
    """out = x truncated toward zero (C cast); saturated to [-2**63, 2**63 - 1], NaN gives 0."""
    cdef int i
    cdef floating v
    for i in range(VECTOR_LENGTH):
        v = x[i]
        if not (v == v):
            out[i] = 0
        elif v >= <floating>9.223372036854775808e18:
            out[i] = INT64_MAX
        elif v <= <floating>-9.223372036854775808e18:
            out[i] = INT64_MIN
        else:
            out[i] = <int64_t>v


cdef inline void nearest_int64(int64_t *out, const floating *x) noexcept nogil:
    """out = x rounded to the nearest integer, ties to even (numpy.rint); saturated, NaN gives 0.

    Uses (|x| + 2**p) - 2**p (p = 23 or 52), exact in the default rounding mode.
    """
    cdef int i
    cdef floating v, a, big
    if floating is float:
        big = 8388608.0
    else:
        big = 4503599627370496.0
    for i in range(VECTOR_LENGTH):
        v = x[i]
        a = -v if v < 0 else v
        if a < big:
            a = (a + big) - big
            v = -a if v < 0 else a
        if not (v == v):
            out[i] = 0
        elif v >= <floating>9.223372036854775808e18:
            out[i] = INT64_MAX
        elif v <= <floating>-9.223372036854775808e18:
            out[i] = INT64_MIN
        else:
            out[i] = <int64_t>v


# ---------------------------------------------------------------------------
# Transfer: low and high parts of int64, float64 and REAL128
# ---------------------------------------------------------------------------

cdef inline void split_int64(uint32_t *low, int32_t *high, const int64_t *n) noexcept nogil:
    """n = high * 2**32 + low with 0 <= low < 2**32 (low: the low 32 bits, high: the high 32 bits, signed)."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        low[i] = <uint32_t>(<uint64_t>n[i] & 0xFFFFFFFFull)
        high[i] = <int32_t>(<uint32_t>(<uint64_t>n[i] >> 32))


cdef inline void join_int64(int64_t *out, const uint32_t *low, const int32_t *high) noexcept nogil:
    """out = high * 2**32 + low (inverse of split_int64)."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        out[i] = <int64_t>((<uint64_t><uint32_t>high[i] << 32) | low[i])


cdef inline void split_float64(uint32_t *low, uint32_t *high, const double *x) noexcept nogil:
    """low, high = the low and high 32-bit words of the binary64 pattern of x (high holds sign and exponent)."""
    cdef int i
    cdef uint64_t b
    for i in range(VECTOR_LENGTH):
        b = _bits64(x[i])
        low[i] = <uint32_t>(b & 0xFFFFFFFFull)
        high[i] = <uint32_t>(b >> 32)


cdef inline void join_float64(double *out, const uint32_t *low, const uint32_t *high) noexcept nogil:
    """out = the double with high and low 32-bit words high and low (inverse of split_float64)."""
    cdef int i
    for i in range(VECTOR_LENGTH):
        out[i] = _float64((<uint64_t>high[i] << 32) | low[i])


cdef inline void split_real128(long double x, uint64_t *low, uint64_t *high) noexcept nogil:
    """Low and high 64-bit halves of the 16-byte storage of a C long double (REAL128).

    x87 extended (LONG_DOUBLE_MANT_DIG == 64): low = the 64-bit significand
    with its explicit integer bit, high = sign (bit 15) and 15-bit biased
    exponent; the six padding bytes are not part of the value and are
    returned as zero.  IEEE binary128: the low and high 64 bits.  A long
    double that is a double: low = its bits, high = 0.
    """
    cdef uint64_t words[2]
    words[0] = 0
    words[1] = 0
    memcpy(words, &x, sizeof(long double) if sizeof(long double) <= 16 else 16)
    low[0] = words[0]
    high[0] = words[1] & 0xFFFFull if LONG_DOUBLE_MANT_DIG == 64 else words[1]


cdef inline long double join_real128(uint64_t low, uint64_t high) noexcept nogil:
    """The long double whose storage halves are low and high (inverse of split_real128)."""
    cdef uint64_t words[2]
    cdef long double x = 0
    words[0] = low
    words[1] = high & 0xFFFFull if LONG_DOUBLE_MANT_DIG == 64 else high
    memcpy(&x, words, sizeof(long double) if sizeof(long double) <= 16 else 16)
    return x
