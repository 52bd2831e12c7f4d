# Kernels behind vecampfit.real: the block routines of real/__init__.pxd
# applied over whole arrays, in blocks of VECTOR_LENGTH with a zero-padded
# tail block (padding lanes are computed and discarded).

from cython cimport floating
from libc.stdint cimport int32_t, int64_t, uint32_t

cimport vecampfit.real as vr
from vecampfit.block cimport VECTOR_LENGTH

# Operation codes (kept in step with real/__init__.py).
cdef enum:
    CLASSIFY = 0
    IS_FINITE = 1
    IS_INFINITE = 2
    IS_NAN = 3
    SIGN_BIT = 4
    EXPONENT_FIELD = 5
    GET_EXPONENT = 6
    MANTISSA_FIELD = 10
    TO_BITS = 11
    REAL_TO_INT64 = 12
    NEAREST_INT64 = 13
    GET_MANTISSA = 20
    SET_SIGN_BIT = 30
    SET_EXPONENT_FIELD = 31
    LDEXP = 32
    SET_EXPONENT = 33
    SET_MANTISSA_FIELD = 40
    INT64_TO_REAL = 50
    FROM_BITS = 51
    INT32_TO_REAL = 52


cdef void _unary_int32(int op, const floating[::1] x, int32_t[::1] out) noexcept nogil:
    cdef Py_ssize_t n = x.shape[0], nb, b, i, k
    cdef floating xb[VECTOR_LENGTH]
    cdef int32_t ob[VECTOR_LENGTH]
    for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
        b = nb * VECTOR_LENGTH
        k = min(<Py_ssize_t>VECTOR_LENGTH, n - b)
        for i in range(VECTOR_LENGTH):
            xb[i] = x[b + i] if i < k else 0
        if op == CLASSIFY:
            vr.classify(ob, xb)
        elif op == IS_FINITE:
            vr.is_finite(ob, xb)
        elif op == IS_INFINITE:
            vr.is_infinite(ob, xb)
        elif op == IS_NAN:
            vr.is_nan(ob, xb)
        elif op == SIGN_BIT:
            vr.sign_bit(ob, xb)
        elif op == EXPONENT_FIELD:
            vr.exponent_field(ob, xb)
        elif op == GET_EXPONENT:
            vr.get_exponent(ob, xb)
        for i in range(k):
            out[b + i] = ob[i]


def unary_int32(int op, const floating[::1] x, int32_t[::1] out):
    """Apply an int32-valued routine ``op`` to ``x`` into ``out`` (same length)."""
    with nogil:
        _unary_int32(op, x, out)


cdef void _unary_int64(int op, const floating[::1] x, int64_t[::1] out) noexcept nogil:
    cdef Py_ssize_t n = x.shape[0], nb, b, i, k
    cdef floating xb[VECTOR_LENGTH]
    cdef int64_t ob[VECTOR_LENGTH]
    for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
        b = nb * VECTOR_LENGTH
        k = min(<Py_ssize_t>VECTOR_LENGTH, n - b)
        for i in range(VECTOR_LENGTH):
            xb[i] = x[b + i] if i < k else 0
        if op == MANTISSA_FIELD:
            vr.mantissa_field(ob, xb)
        elif op == TO_BITS:
            vr.to_bits(ob, xb)
        elif op == REAL_TO_INT64:
            vr.real_to_int64(ob, xb)
        elif op == NEAREST_INT64:
            vr.nearest_int64(ob, xb)
        for i in range(k):
            out[b + i] = ob[i]


def unary_int64(int op, const floating[::1] x, int64_t[::1] out):
    """Apply an int64-valued routine ``op`` to ``x`` into ``out``."""
    with nogil:
        _unary_int64(op, x, out)


cdef void _frexp(const floating[::1] x, floating[::1] m, int32_t[::1] e) noexcept nogil:
    cdef Py_ssize_t n = x.shape[0], nb, b, i, k
    cdef floating xb[VECTOR_LENGTH]
    cdef floating mb[VECTOR_LENGTH]
    cdef int32_t eb[VECTOR_LENGTH]
    for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
        b = nb * VECTOR_LENGTH
        k = min(<Py_ssize_t>VECTOR_LENGTH, n - b)
        for i in range(VECTOR_LENGTH):
            xb[i] = x[b + i] if i < k else 0
        vr.frexp(mb, eb, xb)
        for i in range(k):
            m[b + i] = mb[i]
            e[b + i] = eb[i]


def frexp(const floating[::1] x, floating[::1] m, int32_t[::1] e):
    """Mantissa and exponent of ``x`` into ``m`` and ``e``."""
    with nogil:
        _frexp(x, m, e)


cdef void _real_int32(int op, const floating[::1] x, const int32_t[::1] v, floating[::1] out) noexcept nogil:
    cdef Py_ssize_t n = x.shape[0], nb, b, i, k
    cdef floating xb[VECTOR_LENGTH]
    cdef floating ob[VECTOR_LENGTH]
    cdef int32_t vb[VECTOR_LENGTH]
    for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
        b = nb * VECTOR_LENGTH
        k = min(<Py_ssize_t>VECTOR_LENGTH, n - b)
        for i in range(VECTOR_LENGTH):
            xb[i] = x[b + i] if i < k else 0
            vb[i] = v[b + i] if i < k else 0
        if op == SET_SIGN_BIT:
            vr.set_sign_bit(ob, xb, vb)
        elif op == SET_EXPONENT_FIELD:
            vr.set_exponent_field(ob, xb, vb)
        elif op == LDEXP:
            vr.ldexp(ob, xb, vb)
        elif op == SET_EXPONENT:
            vr.set_exponent(ob, xb, vb)
        elif op == GET_MANTISSA:
            vr.get_mantissa(ob, xb)
        for i in range(k):
            out[b + i] = ob[i]


def real_int32(int op, const floating[::1] x, const int32_t[::1] v, floating[::1] out):
    """Apply a routine ``op`` of a real and an int32 vector into ``out``."""
    with nogil:
        _real_int32(op, x, v, out)


cdef void _set_mantissa_field(const floating[::1] x, const int64_t[::1] v, floating[::1] out) noexcept nogil:
    cdef Py_ssize_t n = x.shape[0], nb, b, i, k
    cdef floating xb[VECTOR_LENGTH]
    cdef floating ob[VECTOR_LENGTH]
    cdef int64_t vb[VECTOR_LENGTH]
    for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
        b = nb * VECTOR_LENGTH
        k = min(<Py_ssize_t>VECTOR_LENGTH, n - b)
        for i in range(VECTOR_LENGTH):
            xb[i] = x[b + i] if i < k else 0
            vb[i] = v[b + i] if i < k else 0
        vr.set_mantissa_field(ob, xb, vb)
        for i in range(k):
            out[b + i] = ob[i]


def set_mantissa_field(const floating[::1] x, const int64_t[::1] v, floating[::1] out):
    """Replace the fraction fields of ``x`` by ``v`` into ``out``."""
    with nogil:
        _set_mantissa_field(x, v, out)


cdef void _from_int64(int op, const int64_t[::1] v, floating[::1] out) noexcept nogil:
    cdef Py_ssize_t n = v.shape[0], nb, b, i, k
    cdef int64_t vb[VECTOR_LENGTH]
    cdef floating ob[VECTOR_LENGTH]
    for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
        b = nb * VECTOR_LENGTH
        k = min(<Py_ssize_t>VECTOR_LENGTH, n - b)
        for i in range(VECTOR_LENGTH):
            vb[i] = v[b + i] if i < k else 0
        if op == INT64_TO_REAL:
            vr.int64_to_real(ob, vb)
        elif op == FROM_BITS:
            vr.from_bits(ob, vb)
        for i in range(k):
            out[b + i] = ob[i]


def from_int64(int op, const int64_t[::1] v, floating[::1] out):
    """Apply a real-valued routine ``op`` of an int64 vector into ``out``."""
    with nogil:
        _from_int64(op, v, out)


cdef void _int32_to_real(const int32_t[::1] v, floating[::1] out) noexcept nogil:
    cdef Py_ssize_t n = v.shape[0], nb, b, i, k
    cdef int32_t vb[VECTOR_LENGTH]
    cdef floating ob[VECTOR_LENGTH]
    for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
        b = nb * VECTOR_LENGTH
        k = min(<Py_ssize_t>VECTOR_LENGTH, n - b)
        for i in range(VECTOR_LENGTH):
            vb[i] = v[b + i] if i < k else 0
        vr.int32_to_real(ob, vb)
        for i in range(k):
            out[b + i] = ob[i]


def int32_to_real(const int32_t[::1] v, floating[::1] out):
    """Convert int32 ``v`` to reals in ``out``."""
    with nogil:
        _int32_to_real(v, out)


def split_int64(const int64_t[::1] v, uint32_t[::1] low, int32_t[::1] high):
    """Low (unsigned) and high (signed) 32-bit halves of ``v``."""
    cdef Py_ssize_t n = v.shape[0], nb, b, i, k
    cdef int64_t vb[VECTOR_LENGTH]
    cdef uint32_t lb[VECTOR_LENGTH]
    cdef int32_t hb[VECTOR_LENGTH]
    with nogil:
        for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
            b = nb * VECTOR_LENGTH
            k = min(<Py_ssize_t>VECTOR_LENGTH, n - b)
            for i in range(VECTOR_LENGTH):
                vb[i] = v[b + i] if i < k else 0
            vr.split_int64(lb, hb, vb)
            for i in range(k):
                low[b + i] = lb[i]
                high[b + i] = hb[i]


def join_int64(const uint32_t[::1] low, const int32_t[::1] high, int64_t[::1] out):
    """``high * 2**32 + low`` into ``out``."""
    cdef Py_ssize_t n = low.shape[0], nb, b, i, k
    cdef int64_t ob[VECTOR_LENGTH]
    cdef uint32_t lb[VECTOR_LENGTH]
    cdef int32_t hb[VECTOR_LENGTH]
    with nogil:
        for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
            b = nb * VECTOR_LENGTH
            k = min(<Py_ssize_t>VECTOR_LENGTH, n - b)
            for i in range(VECTOR_LENGTH):
                lb[i] = low[b + i] if i < k else 0
                hb[i] = high[b + i] if i < k else 0
            vr.join_int64(ob, lb, hb)
            for i in range(k):
                out[b + i] = ob[i]


def split_float64(const double[::1] x, uint32_t[::1] low, uint32_t[::1] high):
    """Low and high 32-bit words of the binary64 patterns of ``x``."""
    cdef Py_ssize_t n = x.shape[0], nb, b, i, k
    cdef double xb[VECTOR_LENGTH]
    cdef uint32_t lb[VECTOR_LENGTH]
    cdef uint32_t hb[VECTOR_LENGTH]
    with nogil:
        for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
            b = nb * VECTOR_LENGTH
            k = min(<Py_ssize_t>VECTOR_LENGTH, n - b)
            for i in range(VECTOR_LENGTH):
                xb[i] = x[b + i] if i < k else 0
            vr.split_float64(lb, hb, xb)
            for i in range(k):
                low[b + i] = lb[i]
                high[b + i] = hb[i]


def join_float64(const uint32_t[::1] low, const uint32_t[::1] high, double[::1] out):
    """Doubles from their low and high 32-bit words."""
    cdef Py_ssize_t n = low.shape[0], nb, b, i, k
    cdef double ob[VECTOR_LENGTH]
    cdef uint32_t lb[VECTOR_LENGTH]
    cdef uint32_t hb[VECTOR_LENGTH]
    with nogil:
        for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
            b = nb * VECTOR_LENGTH
            k = min(<Py_ssize_t>VECTOR_LENGTH, n - b)
            for i in range(VECTOR_LENGTH):
                lb[i] = low[b + i] if i < k else 0
                hb[i] = high[b + i] if i < k else 0
            vr.join_float64(ob, lb, hb)
            for i in range(k):
                out[b + i] = ob[i]
