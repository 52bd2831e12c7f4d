# A user's model outside the package that cimports vecampfit.real: applies
# the block routines over arrays, in blocks of VECTOR_LENGTH with a padded tail.
from cython cimport floating
from libc.stdint cimport int32_t, int64_t, uint64_t

cimport vecampfit.real as vr
from vecampfit.block cimport VECTOR_LENGTH


def vector_length():
    return VECTOR_LENGTH


def run(const floating[::1] x, const int32_t[::1] n, floating[::1] mant, int32_t[::1] expo,
        floating[::1] scaled, int32_t[::1] kind, int64_t[::1] bits, int64_t[::1] rounded):
    """frexp, ldexp(x, n), classify, to_bits and nearest_int64 of x, block by block."""
    cdef Py_ssize_t size = x.shape[0], nb, b, i, k
    cdef floating xb[VECTOR_LENGTH]
    cdef floating mb[VECTOR_LENGTH]
    cdef floating sb[VECTOR_LENGTH]
    cdef int32_t nbuf[VECTOR_LENGTH]
    cdef int32_t eb[VECTOR_LENGTH]
    cdef int32_t cb[VECTOR_LENGTH]
    cdef int64_t bb[VECTOR_LENGTH]
    cdef int64_t rb[VECTOR_LENGTH]
    with nogil:
        for nb in range((size + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
            b = nb * VECTOR_LENGTH
            k = min(<Py_ssize_t>VECTOR_LENGTH, size - b)
            for i in range(VECTOR_LENGTH):
                xb[i] = x[b + i] if i < k else 1
                nbuf[i] = n[b + i] if i < k else 0
            vr.frexp(mb, eb, xb)
            vr.ldexp(sb, xb, nbuf)
            vr.classify(cb, xb)
            vr.to_bits(bb, xb)
            vr.nearest_int64(rb, xb)
            for i in range(k):
                mant[b + i] = mb[i]
                expo[b + i] = eb[i]
                scaled[b + i] = sb[i]
                kind[b + i] = cb[i]
                bits[b + i] = bb[i]
                rounded[b + i] = rb[i]


def real128_halves(long double x):
    cdef uint64_t low, high
    vr.split_real128(x, &low, &high)
    return low, high, vr.join_real128(low, high) == x
