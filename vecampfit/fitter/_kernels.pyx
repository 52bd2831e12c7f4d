# Likelihood kernels of the fitter: loops over event blocks without the GIL.
#
# The events of one density live in a buffer of blocks (structure of arrays):
# row b of `events` (shape (n_blocks, n_fields * L)) is the C struct that the
# density receives for block b.  The loops run over chunks of a fixed number
# of blocks in an OpenMP `prange`, handed out dynamically so that a thread
# slowed by other load does not hold up the call.  Every chunk writes its own
# partial sums, and the caller adds the chunks in index order, so that the
# result depends neither on the number of threads nor on the schedule; the
# rows of partial sums start on cache lines of their own (see
# likelihood._chunk_partials), so that the threads do not share lines.  Lanes
# of the padded last block (event index >= n_events) are evaluated but never
# added.  All sums are in double precision, also for float32 densities.
#
# In a value call a chunk first writes the densities of all its blocks into
# one work array (2048 values, in the first-level cache), then checks, takes
# logarithms and sums in single loops over the chunk, with SUM_LANES
# independent partial sums: per-block loops over L lanes cost more than the
# work they do.  The order of every addition is then fixed by the events'
# indices, whatever L.
#
# Invalid values never raise here (no Python inside nogil code): each chunk
# records the first event at which a density is NaN, infinite or negative, or
# at which the likelihood argument is not positive, and the caller raises.

cimport cython
from cython cimport floating
from cython.parallel cimport parallel, prange
from cpython.pycapsule cimport PyCapsule_GetName, PyCapsule_GetPointer, PyCapsule_CheckExact
from libc.math cimport fabs, isfinite, log
from libc.stdint cimport uint32_t, uint64_t, uintptr_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset

from vecampfit.fitter.density cimport add_product
from vecampfit.mathematical_functions cimport log_scalar

ctypedef void (*density_float32)(float *, const void *, const float *, const void *) noexcept nogil
ctypedef void (*density_float64)(double *, const void *, const double *, const void *) noexcept nogil
ctypedef void (*gradient_float32)(float *, float *, const void *, const float *, const void *) noexcept nogil
ctypedef void (*gradient_float64)(double *, double *, const void *, const double *, const void *) noexcept nogil
ctypedef void (*gradient_sum_float32)(float *, double *, const double *, const void *, const float *, const void *) noexcept nogil
ctypedef void (*gradient_sum_float64)(double *, double *, const double *, const void *, const double *, const void *) noexcept nogil
ctypedef void (*fill_float32)(float *, const float *, const double *) noexcept nogil
ctypedef void (*fill_float64)(double *, const double *, const double *) noexcept nogil

# Values of the `bad` arrays: no problem, a memory-allocation failure, or a
# density that wrote beyond the L values (or n_grad * L gradient values) it
# declares.
cdef enum:
    NO_PROBLEM = -1
    ALLOCATION_FAILED = -2
    GUARD_VIOLATED = -3

# Work arrays that a density writes (its L values, its n_grad * L gradient
# values) are followed by GUARD elements holding GUARD_BYTE in every byte;
# a chunk checks them after its blocks.
cdef enum:
    GUARD = 16
    GUARD_BYTE = 0xA5

# Independent partial sums of the loops that add the values of a chunk.
# (the loops that use them step by the literal 8, which Cython requires).
cdef enum:
    SUM_LANES = 8


cdef extern from *:
    """
    /* Whether this CPU (and its operating system) runs code compiled with
       -march=x86-64-v3 (AVX2, FMA, BMI1/2, F16C, LZCNT, MOVBE).  False where
       the compiler cannot tell. */
    static int vecampfit_cpu_supports_x86_64_v3(void)
    {
    #if defined(__x86_64__) && !defined(__clang__) && defined(__GNUC__) && __GNUC__ >= 12
        __builtin_cpu_init();
        return __builtin_cpu_supports("x86-64-v3") != 0;
    #elif defined(__x86_64__) && defined(__clang__) && __clang_major__ >= 16
        __builtin_cpu_init();
        return __builtin_cpu_supports("x86-64-v3") != 0;
    #else
        return 0;
    #endif
    }
    """
    int vecampfit_cpu_supports_x86_64_v3() noexcept nogil

cdef extern from *:
    """
    /* Whether the target has wide vectors with gathers and FMA (x86-64-v3 or
       better): there the library's logarithm (mathematical_functions.log_scalar,
       no table lookups) vectorizes and beats libm's; on the baseline (SSE2) it
       does not, and libm's is faster. */
    #if defined(__AVX2__) && defined(__FMA__)
    #define VECAMPFIT_KERNEL_VECTOR_LOG 1
    #else
    #define VECAMPFIT_KERNEL_VECTOR_LOG 0
    #endif
    """
    const bint VECTOR_LOG "VECAMPFIT_KERNEL_VECTOR_LOG"


cdef inline double _log(double x) noexcept nogil:
    """ln x, both forms within 1 ulp (chosen at compile time, see VECTOR_LOG)."""
    if VECTOR_LOG:
        return log_scalar(x)
    return log(x)


# Sums of logarithms as logarithms of products.  A sum of ln t over many
# events costs one logarithm per event; written t = m 2^e with m in [1, 2),
# it is ln(m_1 m_2 ... m_G) + (e_1 + ... + e_G) ln 2: one logarithm per G
# events, the exponents added exactly (integers in a double) and multiplied
# by ln 2 once, in two parts (ln 2 = LN2_HI + LN2_LO, LN2_HI with 32
# significant bits, so that e LN2_HI is exact).  The product of G mantissas
# lies in [1, 2^G) and carries at most G - 1 roundings of 2^-53 each: the
# error of its logarithm is at most (G - 1) 2^-53 + an ulp of ln(2^G), a
# few 1e-16 per event at most, as small as the rounding of the per-event
# logarithms it replaces.  Each lane of SUM_LANES keeps its own product, so
# the order of the operations is still fixed by the events' indices.
cdef extern from *:
    """
    #include <string.h>
    #include <stdint.h>
    /* t = m 2^e with m in [1, 2) for positive finite t (subnormals included):
       returns m, stores e (an integer) in *e.  Bit operations and one
       subtraction, so that loops over lanes vectorize. */
    static inline double vecampfit_mantissa_exponent(double t, double *e)
    {
        int small = t < 0x1p-1000;
        double u = small ? t * 0x1p200 : t;
        uint64_t b, mb, eb;
        double m, biased;
        memcpy(&b, &u, 8);
        mb = (b & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull;
        eb = (b >> 52) | 0x4330000000000000ull;      /* 2^52 + biased exponent */
        memcpy(&m, &mb, 8);
        memcpy(&biased, &eb, 8);
        *e = (biased - (0x1p52 + 1023.0)) - (small ? 200.0 : 0.0);
        return m;
    }
    """
    double _mantissa_exponent "vecampfit_mantissa_exponent"(double t, double *e) noexcept nogil

cdef enum:
    # Mantissas multiplied per lane before one logarithm (products < 2^32).
    LOG_GROUP = 32

cdef double LN2_HI = 6.93147180369123816490e-01     # 0x3fe62e42fee00000
cdef double LN2_LO = 1.90821492927058770002e-10     # ln 2 - LN2_HI


cdef inline void _log_products_start(double *pm, double *pe) noexcept nogil:
    """Empty products and exponent sums, one per lane."""
    cdef int i
    for i in range(SUM_LANES):
        pm[i] = 1
        pe[i] = 0


cdef inline void _log_products_add(double *pm, double *pe, const double *t) noexcept nogil:
    """Multiply lane i's product by the mantissa of t[i] and add its exponent,
    for SUM_LANES positive finite values."""
    cdef int i
    cdef double e
    for i in range(SUM_LANES):
        pm[i] = pm[i] * _mantissa_exponent(t[i], &e)
        pe[i] = pe[i] + e


cdef inline void _log_products_flush(double *s, double *pm) noexcept nogil:
    """s[i] += ln pm[i]; the products start again at 1."""
    cdef int i
    for i in range(SUM_LANES):
        s[i] = s[i] + _log(pm[i])
        pm[i] = 1


cdef inline void _log_products_finish(double *s, double *pm, double *pe) noexcept nogil:
    """s[i] += ln pm[i] + pe[i] ln 2: the lanes' sums of logarithms complete."""
    cdef int i
    _log_products_flush(s, pm)
    for i in range(SUM_LANES):
        s[i] = s[i] + (pe[i] * LN2_HI + pe[i] * LN2_LO)
        pe[i] = 0


cdef inline void _log_sum_lanes(double *s, const double *t, Py_ssize_t n) noexcept nogil:
    """s[j % SUM_LANES] += ln t[j] for j < n, for positive finite t (see
    above: one logarithm per LOG_GROUP values of a lane)."""
    cdef Py_ssize_t j, m = n - n % SUM_LANES
    cdef int i, k = 0
    cdef double pm[SUM_LANES]
    cdef double pe[SUM_LANES]
    _log_products_start(pm, pe)
    for j in range(0, m, 8):
        _log_products_add(pm, pe, t + j)
        k += 1
        if k == LOG_GROUP:
            _log_products_flush(s, pm)
            k = 0
    _log_products_finish(s, pm, pe)
    for j in range(m, n):
        s[j - m] += _log(t[j])


def cpu_supports_x86_64_v3():
    """Whether this CPU runs code compiled for the x86-64-v3 level (AVX2, FMA, ...)."""
    return bool(vecampfit_cpu_supports_x86_64_v3())


def capsule_pointer(capsule):
    """Address of the C function in a PyCapsule, as an int."""
    if not PyCapsule_CheckExact(capsule):
        raise TypeError(f"expected a PyCapsule, got {type(capsule).__name__}")
    return <uintptr_t> PyCapsule_GetPointer(capsule, PyCapsule_GetName(capsule))


# A block's row of the event buffer holds all its fields, a few hundred
# bytes to a few kilobytes; a density reads them in the order its code needs
# them, which the hardware's prefetchers follow only in part.  The loops over
# blocks therefore ask for the row PREFETCH_BYTES ahead of the one they
# evaluate (measured on the Lambda_c model's 2432-byte rows: 20-25 % less time
# per event from memory; no change where the density's arithmetic, not the
# memory, sets the pace).
cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define VECAMPFIT_PREFETCH(p) __builtin_prefetch((p), 0, 3)
    #else
    #define VECAMPFIT_PREFETCH(p) ((void) (p))
    #endif
    """
    void _prefetch "VECAMPFIT_PREFETCH"(const void *p) noexcept nogil

# The end of a parallel region.  With sleeping idle threads
# (OMP_WAIT_POLICY=passive; the library's default lets them spin for a
# while first, vecampfit._openmp) a thread that reaches the
# region's closing barrier before the others goes to sleep, and waking it
# again costs tens of microseconds on some hosts (virtual machines above
# all): a large part of a cached call.  So every chunk counts itself done,
# and the main thread, once no chunk is left for it, waits for the others'
# last chunks awake (a pause loop, at most SPIN_NANOSECONDS, usually one
# chunk's time) before it reaches the barrier.  Only the time changes.
cdef extern from *:
    """
    #include <time.h>
    #ifdef _OPENMP
    #include <omp.h>
    #endif
    #include "vecampfit/pause.h"
    static inline void vecampfit_chunk_done(Py_ssize_t *done)
    {
        __atomic_fetch_add(done, 1, __ATOMIC_RELEASE);
    }
    static void vecampfit_await_chunks(Py_ssize_t *done, Py_ssize_t n_chunks, long spin_ns)
    {
    #ifdef _OPENMP
        struct timespec t0, t;
        long k = 0;
        if (omp_get_thread_num() != 0 || omp_get_num_threads() < 2)
            return;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        while (__atomic_load_n(done, __ATOMIC_ACQUIRE) < n_chunks) {
            VECAMPFIT_PAUSE();
            if (++k % 64 == 0) {
                clock_gettime(CLOCK_MONOTONIC, &t);
                if ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) > spin_ns)
                    return;
            }
        }
    #else
        (void) done; (void) n_chunks; (void) spin_ns;
    #endif
    }
    """
    void _chunk_done "vecampfit_chunk_done"(Py_ssize_t *done) noexcept nogil
    void _await_chunks "vecampfit_await_chunks"(Py_ssize_t *done, Py_ssize_t n_chunks,
                                                long spin_ns) noexcept nogil

# The longest the main thread waits awake for the other threads' last chunks.
cdef enum:
    SPIN_NANOSECONDS = 100000


cdef enum:
    PREFETCH_BYTES = 8192
    CACHE_LINE = 64


cdef inline void _prefetch_ahead(const char *events, Py_ssize_t b, Py_ssize_t n_blocks,
                                 Py_ssize_t row) noexcept nogil:
    """Prefetch the ``row`` bytes PREFETCH_BYTES beyond the start of block
    ``b`` (within the ``n_blocks`` rows of ``events``)."""
    cdef Py_ssize_t k = b * row + PREFETCH_BYTES
    cdef Py_ssize_t stop = min(k + row, n_blocks * row)
    while k < stop:
        _prefetch(events + k)
        k += CACHE_LINE


cdef inline void _density(floating *out, uintptr_t f, const char *ev, const floating *p,
                          const void *pb) noexcept nogil:
    if floating is double:
        (<density_float64> f)(out, ev, p, pb)
    else:
        (<density_float32> f)(out, ev, p, pb)


cdef inline void _gradient(floating *out, floating *g, uintptr_t f, const char *ev,
                           const floating *p, const void *pb) noexcept nogil:
    if floating is double:
        (<gradient_float64> f)(out, g, ev, p, pb)
    else:
        (<gradient_float32> f)(out, g, ev, p, pb)


cdef inline void _gradient_sum(floating *out, double *sums, const double *factor, uintptr_t f,
                               const char *ev, const floating *p, const void *pb) noexcept nogil:
    if floating is double:
        (<gradient_sum_float64> f)(out, sums, factor, ev, p, pb)
    else:
        (<gradient_sum_float32> f)(out, sums, factor, ev, p, pb)


def fill_parameter_buffer(uintptr_t function, floating[::1] buffer, floating[::1] params,
                          const double[::1] constants):
    """Call a C parameter-buffer filler ``f(buffer, params, constants)``."""
    cdef floating *b = &buffer[0] if buffer.shape[0] > 0 else NULL
    cdef const double *c = &constants[0] if constants.shape[0] > 0 else NULL
    with nogil:
        if floating is double:
            (<fill_float64> function)(b, &params[0], c)
        else:
            (<fill_float32> function)(b, &params[0], c)


cdef void *_guarded(Py_ssize_t n_bytes, Py_ssize_t guard_bytes) noexcept nogil:
    """malloc'ed n_bytes followed by a guard zone of guard_bytes (NULL on failure)."""
    cdef unsigned char *a = <unsigned char *> malloc(n_bytes + guard_bytes)
    if a != NULL:
        memset(a + n_bytes, GUARD_BYTE, guard_bytes)
    return a


cdef bint _guard_intact(const floating *a, Py_ssize_t n) noexcept nogil:
    """Whether the guard zone behind a[0..n) (from _guarded) still holds GUARD_BYTE."""
    cdef const unsigned char *g = <const unsigned char *> (a + n)
    cdef Py_ssize_t k
    for k in range(GUARD * <Py_ssize_t> sizeof(floating)):
        if g[k] != GUARD_BYTE:
            return False
    return True


cdef inline bint _invalid(double v) noexcept nogil:
    return not isfinite(v) or v < 0


cdef void _values_chunk(Py_ssize_t c, Py_ssize_t chunk_blocks, Py_ssize_t n_blocks,
                        int L, Py_ssize_t row, const char *events, uintptr_t func,
                        uintptr_t grad_func, int n_grad, const floating *params,
                        const void *pbuf, floating *out, floating *g, floating *values,
                        floating *gradient, Py_ssize_t gradient_stride,
                        Py_ssize_t *bad) noexcept nogil:
    """Values (and gradient rows) of the blocks of chunk c, through guarded work arrays."""
    cdef Py_ssize_t b, a
    cdef int i
    bad[c] = NO_PROBLEM
    if out == NULL or (n_grad > 0 and g == NULL):
        bad[c] = ALLOCATION_FAILED
        return
    for b in range(c * chunk_blocks, min((c + 1) * chunk_blocks, n_blocks)):
        _prefetch_ahead(events, b, n_blocks, row)
        if n_grad > 0:
            _gradient(out, g, grad_func, events + b * row, params, pbuf)
            for a in range(n_grad):
                for i in range(L):
                    gradient[a * gradient_stride + b * L + i] = g[a * L + i]
        else:
            _density(out, func, events + b * row, params, pbuf)
        for i in range(L):
            values[b * L + i] = out[i]
    if not _guard_intact(out, L) or (n_grad > 0 and not _guard_intact(g, n_grad * L)):
        bad[c] = GUARD_VIOLATED


# The check of what a density writes (run once per density and event buffer,
# see unwritten_values): every value and gradient element is set to a NaN
# whose payload no arithmetic produces before the density is called; an
# element that still holds it afterwards was never written.
cdef extern from *:
    """
    #define VECAMPFIT_UNWRITTEN_64 0x7FF5A5A5A5A5A5A5ULL
    #define VECAMPFIT_UNWRITTEN_32 0x7FA5A5A5U
    """
    const uint64_t UNWRITTEN_64 "VECAMPFIT_UNWRITTEN_64"
    const uint32_t UNWRITTEN_32 "VECAMPFIT_UNWRITTEN_32"


cdef inline void _fill_unwritten(floating *a, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t k
    cdef uint64_t u64 = UNWRITTEN_64
    cdef uint32_t u32 = UNWRITTEN_32
    for k in range(n):
        if floating is double:
            memcpy(<void *> (a + k), &u64, sizeof(double))
        else:
            memcpy(<void *> (a + k), &u32, sizeof(float))


cdef inline bint _unwritten(const floating *a, Py_ssize_t k) noexcept nogil:
    cdef uint64_t u64
    cdef uint32_t u32
    if floating is double:
        memcpy(&u64, <const void *> (a + k), sizeof(double))
        return u64 == UNWRITTEN_64
    else:
        memcpy(&u32, <const void *> (a + k), sizeof(float))
        return u32 == UNWRITTEN_32


cdef inline double _sum_tolerance(floating x) noexcept nogil:
    """Relative tolerance of the check of a gradient-sum function."""
    if floating is double:
        return 1e-9
    else:
        return 1e-3


cdef Py_ssize_t _sum_mismatch(const floating *out, const floating *g, uintptr_t sum_func,
                              const char *ev, const floating *params, const void *pbuf,
                              int n_grad, int L, Py_ssize_t n_valid, floating *out2,
                              double *acc, double *factor) noexcept nogil:
    """Whether the gradient-sum function adds what the gradient function wrote
    (``out``, ``g``) at one block: -1 if it does, else the element that
    differs (a < n_grad: sum row a, n_grad: the value).  The factors differ
    from lane to lane.  A sum may add its terms in another order, so a lane
    agrees within a relative _sum_tolerance of the largest term of its row in
    the block, or of 1e-6 of the largest value or term of the block if that
    is larger (a row that is zero but for rounding, such as the derivative
    by the phase of the only component, is rounding on both sides).  The
    models vecampfit generates add exactly factor[i] times the row."""
    cdef Py_ssize_t a
    cdef int i
    cdef double ref, scale, floor = 0, tol = _sum_tolerance(out[0])
    for i in range(L):
        factor[i] = 1 + (i + 1.0) / (2 * L)
    for a in range(n_grad * L):
        acc[a] = 0
    _gradient_sum(out2, acc, factor, sum_func, ev, params, pbuf)
    for i in range(n_valid):
        if isfinite(out[i]) and not (fabs(<double> out2[i] - out[i]) <= tol * fabs(out[i])):
            return n_grad
        if isfinite(out[i]) and fabs(out[i]) > floor:
            floor = fabs(out[i])
    for a in range(n_grad):
        for i in range(n_valid):
            ref = fabs(factor[i] * g[a * L + i])
            if isfinite(ref) and ref > floor:
                floor = ref
    floor = 1e-6 * floor
    for a in range(n_grad):
        scale = floor
        for i in range(n_valid):
            ref = fabs(factor[i] * g[a * L + i])
            if isfinite(ref) and ref > scale:
                scale = ref
        for i in range(n_valid):
            ref = factor[i] * g[a * L + i]
            if isfinite(ref) and not (fabs(acc[a * L + i] - ref) <= tol * scale):
                return a
    return -1


cdef void _unwritten_chunk(Py_ssize_t c, Py_ssize_t chunk_blocks, Py_ssize_t n_blocks,
                           Py_ssize_t n_events, int L, Py_ssize_t row, const char *events,
                           uintptr_t func, uintptr_t grad_func, uintptr_t sum_func, int n_grad,
                           const floating *params, const void *pbuf, floating *out,
                           floating *g, floating *out2, double *acc, double *factor,
                           Py_ssize_t *event, Py_ssize_t *element) noexcept nogil:
    """The first value the density (or its gradient function) leaves unwritten
    in chunk c: event[c] its event (NO_PROBLEM if none), element[c] -1 for
    the density value, a >= 0 for gradient row a.  With a gradient-sum
    function, also the first event at which it does not add what the
    gradient function wrote: element[c] = -2 - a for row a, -2 - n_grad for
    the value."""
    cdef Py_ssize_t b, a, n_valid
    cdef int i
    event[c] = NO_PROBLEM
    element[c] = NO_PROBLEM
    if out == NULL or (n_grad > 0 and g == NULL) or \
            (sum_func != 0 and (out2 == NULL or acc == NULL or factor == NULL)):
        event[c] = ALLOCATION_FAILED
        return
    for b in range(c * chunk_blocks, min((c + 1) * chunk_blocks, n_blocks)):
        _fill_unwritten(out, L)
        if n_grad > 0:
            _fill_unwritten(g, n_grad * L)
            _gradient(out, g, grad_func, events + b * row, params, pbuf)
        else:
            _density(out, func, events + b * row, params, pbuf)
        n_valid = min(<Py_ssize_t> L, n_events - b * L)
        for i in range(n_valid):
            if _unwritten(out, i):
                event[c] = b * L + i
                element[c] = -1
                break
        if event[c] == NO_PROBLEM:
            for a in range(n_grad):
                for i in range(n_valid):
                    if _unwritten(g, a * L + i):
                        event[c] = b * L + i
                        element[c] = a
                        break
                if event[c] != NO_PROBLEM:
                    break
        if event[c] == NO_PROBLEM and n_grad > 0 and sum_func != 0:
            a = _sum_mismatch(out, g, sum_func, events + b * row, params, pbuf, n_grad, L,
                              n_valid, out2, acc, factor)
            if a >= 0:
                event[c] = b * L
                element[c] = -2 - a
        if event[c] != NO_PROBLEM:
            break
    if not _guard_intact(out, L) or (n_grad > 0 and not _guard_intact(g, n_grad * L)):
        event[c] = GUARD_VIOLATED
    if sum_func != 0 and not (_guard_intact(out2, L) and _guard_intact(acc, n_grad * L)):
        event[c] = GUARD_VIOLATED


def unwritten_values(const floating[:, ::1] events, Py_ssize_t n_events, int vector_length,
                     floating[::1] params, uintptr_t parameter_buffer, uintptr_t function,
                     uintptr_t gradient_function, int n_gradient, Py_ssize_t[::1] event,
                     Py_ssize_t[::1] element, Py_ssize_t chunk_blocks, int n_threads,
                     uintptr_t gradient_sum_function=0):
    """Whether the density (with a gradient function: the density with its
    gradient) writes every value it declares at the first ``n_events`` events.

    Before each block every value (``L``) and gradient element (``n_gradient
    * L``) is set to a NaN of a payload that no arithmetic produces; after
    the call, ``event[c]`` is the first event of chunk ``c`` at which one
    still holds it (-1 if none, -2 / -3 if the chunk could not allocate its
    work arrays / found their guard zone overwritten) and ``element[c]``
    what was not written: -1 the value, ``a >= 0`` gradient row ``a``.
    With a gradient-sum function (and a gradient function), also whether it
    adds factor[i] times what the gradient function wrote: ``event[c]`` the
    first event of the first block where it does not, ``element[c]`` -2 - a
    for row ``a``, -2 - n_gradient for the value.
    """
    cdef Py_ssize_t n_blocks = events.shape[0]
    cdef Py_ssize_t n_chunks = (n_blocks + chunk_blocks - 1) // chunk_blocks
    cdef Py_ssize_t row = events.shape[1] * sizeof(floating)
    cdef Py_ssize_t c
    cdef int L = vector_length
    cdef int n_grad = n_gradient if gradient_function != 0 else 0
    if event.shape[0] < n_chunks or element.shape[0] < n_chunks:
        raise ValueError("event or element array too short")
    if n_events > n_blocks * L:
        raise ValueError("more events than the blocks hold")
    if n_blocks == 0:
        return
    cdef const char *ev = <const char *> &events[0, 0]
    cdef floating *p = &params[0]
    cdef Py_ssize_t *evp = &event[0]
    cdef Py_ssize_t *elp = &element[0]
    cdef uintptr_t sum_function = gradient_sum_function if n_grad > 0 else 0
    cdef floating *out
    cdef floating *g
    cdef floating *out2
    cdef double *acc
    cdef double *factor
    cdef Py_ssize_t done = 0
    cdef Py_ssize_t *donep = &done
    if 1 <= n_chunks < n_threads:
        n_threads = <int> n_chunks    # a thread without a chunk would only be woken
    with nogil, parallel(num_threads=n_threads):
        out = <floating *> _guarded(L * sizeof(floating), GUARD * sizeof(floating))
        g = <floating *> _guarded((n_grad if n_grad > 0 else 1) * L * sizeof(floating),
                                  GUARD * sizeof(floating))
        out2 = <floating *> _guarded(L * sizeof(floating), GUARD * sizeof(floating))
        acc = <double *> _guarded((n_grad if n_grad > 0 else 1) * L * sizeof(double),
                                  GUARD * sizeof(double))
        factor = <double *> malloc(L * sizeof(double))
        for c in prange(n_chunks, schedule='dynamic'):
            _unwritten_chunk(c, chunk_blocks, n_blocks, n_events, L, row, ev, function,
                             gradient_function, sum_function, n_grad, p,
                             <const void *> parameter_buffer, out, g, out2, acc, factor,
                             evp, elp)
            _chunk_done(donep)
        _await_chunks(donep, n_chunks, SPIN_NANOSECONDS)
        free(out)
        free(g)
        free(out2)
        free(acc)
        free(factor)


def density_values(const floating[:, ::1] events, int vector_length, floating[::1] params,
                   uintptr_t parameter_buffer, uintptr_t function, uintptr_t gradient_function,
                   int n_gradient, floating[::1] values, floating[:, ::1] gradient,
                   Py_ssize_t[::1] bad, Py_ssize_t chunk_blocks, int n_threads):
    """Density (and, with a gradient function, its gradient) at every event,
    padding lanes included.

    ``values`` has ``n_blocks * L`` elements, ``gradient`` shape
    ``(n_gradient, n_blocks * L)`` (ignored without a gradient function);
    ``bad[c]`` is -1, or -2 / -3 if chunk ``c`` could not allocate its work
    arrays / found their guard zone overwritten.
    """
    cdef Py_ssize_t n_blocks = events.shape[0]
    cdef Py_ssize_t n_chunks = (n_blocks + chunk_blocks - 1) // chunk_blocks
    cdef Py_ssize_t row = events.shape[1] * sizeof(floating)
    cdef Py_ssize_t c
    cdef int L = vector_length
    cdef int n_grad = n_gradient if gradient_function != 0 else 0
    if values.shape[0] < n_blocks * L or bad.shape[0] < n_chunks:
        raise ValueError("values or bad array too short")
    if n_grad > 0 and (gradient.shape[0] < n_grad or gradient.shape[1] < n_blocks * L):
        raise ValueError("gradient array too small")
    if n_blocks == 0:
        return
    cdef const char *ev = <const char *> &events[0, 0]
    cdef floating *p = &params[0]
    cdef floating *v = &values[0]
    cdef floating *gr = &gradient[0, 0] if n_grad > 0 else NULL
    cdef Py_ssize_t gstride = gradient.shape[1] if n_grad > 0 else 0
    cdef Py_ssize_t *bd = &bad[0]
    cdef floating *out
    cdef floating *g
    cdef Py_ssize_t done = 0
    cdef Py_ssize_t *donep = &done
    if 1 <= n_chunks < n_threads:
        n_threads = <int> n_chunks    # a thread without a chunk would only be woken
    with nogil, parallel(num_threads=n_threads):
        out = <floating *> _guarded(L * sizeof(floating), GUARD * sizeof(floating))
        g = <floating *> _guarded((n_grad if n_grad > 0 else 1) * L * sizeof(floating),
                                  GUARD * sizeof(floating))
        for c in prange(n_chunks, schedule='dynamic'):
            _values_chunk(c, chunk_blocks, n_blocks, L, row, ev, function, gradient_function,
                          n_grad, p, <const void *> parameter_buffer, out, g, v, gr, gstride,
                          bd)
            _chunk_done(donep)
        _await_chunks(donep, n_chunks, SPIN_NANOSECONDS)
        free(out)
        free(g)


cdef void _components_chunk(Py_ssize_t c, Py_ssize_t chunk_blocks, Py_ssize_t n_blocks, int L,
                            Py_ssize_t row, const char *events, uintptr_t func,
                            int n_components, Py_ssize_t n_valid, const floating *params,
                            const void *pbuf, floating *out, double *values, Py_ssize_t stride,
                            Py_ssize_t *bad) noexcept nogil:
    """The component amplitudes of the blocks of chunk c (in double,
    interleaved real and imaginary parts), and the first valid event of the
    chunk at which one is not finite."""
    cdef Py_ssize_t b, k, j, first
    cdef double re, im, check
    cdef double *row_k
    cdef int i
    bad[c] = NO_PROBLEM
    if out == NULL:
        bad[c] = ALLOCATION_FAILED
        return
    for b in range(c * chunk_blocks, min((c + 1) * chunk_blocks, n_blocks)):
        _prefetch_ahead(events, b, n_blocks, row)
        # A component function has the signature of a density, with
        # 2 n_components values per lane.
        _density(out, func, events + b * row, params, pbuf)
        first = NO_PROBLEM
        for k in range(n_components):
            # Copied without a branch; (x - x) is 0 for a finite x and NaN
            # otherwise, so one test per block and component finds a value
            # that is not finite (then its lane is looked up).
            row_k = values + k * stride + 2 * b * L
            check = 0
            for i in range(L):
                re = out[2 * k * L + i]
                im = out[(2 * k + 1) * L + i]
                row_k[2 * i] = re
                row_k[2 * i + 1] = im
                check = check + (re - re) + (im - im)
            if check != 0 or check != check:
                for i in range(L):
                    j = b * L + i
                    if j < n_valid and (first == NO_PROBLEM or j < first) and not (
                            isfinite(out[2 * k * L + i]) and isfinite(out[(2 * k + 1) * L + i])):
                        first = j
                        break
        if first != NO_PROBLEM and bad[c] == NO_PROBLEM:
            bad[c] = first
    if not _guard_intact(out, 2 * n_components * L):
        bad[c] = GUARD_VIOLATED


def component_values(const floating[:, ::1] events, int vector_length, floating[::1] params,
                     uintptr_t parameter_buffer, uintptr_t function, int n_components,
                     Py_ssize_t n_valid, double[:, ::1] values, Py_ssize_t[::1] bad,
                     Py_ssize_t chunk_blocks, int n_threads):
    """The ``n_components`` complex values per event of a component function
    (real and imaginary parts of component ``k`` at ``out[2 k L + i]`` and
    ``out[(2 k + 1) L + i]``) into the rows of ``values`` (float64, shape
    ``(n_components, >= 2 n_blocks L)``, real and imaginary parts
    interleaved: a complex128 array viewed as float64); ``bad[c]`` is the
    first of the ``n_valid`` events of chunk ``c`` at which a value is not
    finite."""
    cdef Py_ssize_t n_blocks = events.shape[0]
    cdef Py_ssize_t n_chunks = (n_blocks + chunk_blocks - 1) // chunk_blocks
    cdef Py_ssize_t row = events.shape[1] * sizeof(floating)
    cdef Py_ssize_t c
    cdef int L = vector_length
    if (values.shape[0] < n_components or values.shape[1] < 2 * n_blocks * L
            or bad.shape[0] < n_chunks):
        raise ValueError("values or bad array too small")
    if n_blocks == 0 or n_components <= 0:
        return
    cdef const char *ev = <const char *> &events[0, 0]
    cdef floating *p = &params[0]
    cdef double *v = &values[0, 0]
    cdef Py_ssize_t stride = values.shape[1]
    cdef Py_ssize_t *bd = &bad[0]
    cdef floating *out
    cdef Py_ssize_t done = 0
    cdef Py_ssize_t *donep = &done
    if 1 <= n_chunks < n_threads:
        n_threads = <int> n_chunks    # a thread without a chunk would only be woken
    with nogil, parallel(num_threads=n_threads):
        out = <floating *> _guarded(2 * n_components * L * sizeof(floating),
                                    GUARD * sizeof(floating))
        for c in prange(n_chunks, schedule='dynamic'):
            _components_chunk(c, chunk_blocks, n_blocks, L, row, ev, function, n_components,
                              n_valid, p, <const void *> parameter_buffer, out, v, stride, bd)
            _chunk_done(donep)
        _await_chunks(donep, n_chunks, SPIN_NANOSECONDS)
        free(out)


cdef inline void _accumulate_lanes(double *acc, const floating *g, const double *factor,
                                   int n_grad, int L, Py_ssize_t n_valid) noexcept nogil:
    """acc[a * L + i] += factor[i] g[a * L + i] for the valid lanes (factor 1 if NULL;
    added as density.pxd's add_product, as a model's gradient sums add it).

    Per-lane accumulators keep the lanes independent, so that the loop
    vectorizes (a running sum over the lanes is a chain of dependent
    additions); the caller adds the lanes in a fixed order.
    """
    cdef Py_ssize_t a, k
    cdef int i
    if factor == NULL and n_valid == L:
        # every lane: one contiguous loop over the n_grad * L values
        for k in range(n_grad * L):
            acc[k] += g[k]
    elif factor == NULL:
        for a in range(n_grad):
            for i in range(n_valid):
                acc[a * L + i] += g[a * L + i]
    else:
        for a in range(n_grad):
            for i in range(n_valid):
                acc[a * L + i] = add_product(acc[a * L + i], factor[i], g[a * L + i])


cdef inline void _reduce_lanes(double *partial, double *acc, int n_grad, int L) noexcept nogil:
    """partial[a] += sum_i acc[a * L + i] (in lane order), and acc = 0."""
    cdef Py_ssize_t a
    cdef int i
    cdef double s
    for a in range(n_grad):
        s = 0
        for i in range(L):
            s += acc[a * L + i]
            acc[a * L + i] = 0
        partial[a] += s


cdef inline void _sum_lanes(double *s, double *lo, const floating *v, const double *w,
                            Py_ssize_t n) noexcept nogil:
    """s[j % SUM_LANES] += w[j] v[j] (w[j] = 1 if ``w`` is NULL) and, if
    ``lo`` is not NULL, lo[j % SUM_LANES] = min(lo[j % SUM_LANES], v[j]), for
    j < n.

    SUM_LANES independent sums, so that the loop vectorizes; the caller adds
    them in index order (:func:`_lane_total`).  The order of the additions is
    fixed by the values' indices alone, not by the vector length of the
    density.  A NaN or infinite v[j] makes its lane's sum NaN or infinite, a
    negative one its lane's minimum negative (:func:`_lanes_suspect`).
    """
    cdef Py_ssize_t j, m = n - n % SUM_LANES
    cdef int i
    cdef double x
    cdef double t[SUM_LANES]
    cdef double u[SUM_LANES]
    for i in range(SUM_LANES):
        t[i] = s[i]
        u[i] = lo[i] if lo != NULL else 0
    if lo == NULL and w == NULL:
        for j in range(0, m, 8):
            for i in range(SUM_LANES):
                t[i] += v[j + i]
    elif lo == NULL:
        for j in range(0, m, 8):
            for i in range(SUM_LANES):
                t[i] += w[j + i] * v[j + i]
    elif w == NULL:
        for j in range(0, m, 8):
            for i in range(SUM_LANES):
                x = v[j + i]
                t[i] += x
                u[i] = x if x < u[i] else u[i]
    else:
        for j in range(0, m, 8):
            for i in range(SUM_LANES):
                x = v[j + i]
                t[i] += w[j + i] * x
                u[i] = x if x < u[i] else u[i]
    for i in range(SUM_LANES):
        s[i] = t[i]
        if lo != NULL:
            lo[i] = u[i]
    for j in range(m, n):
        x = v[j]
        s[j - m] += x if w == NULL else w[j] * x
        if lo != NULL and x < lo[j - m]:
            lo[j - m] = x


cdef inline void _dot_lanes(double *s, double *lo, const double *a, const floating *v,
                            Py_ssize_t n) noexcept nogil:
    """s[j % SUM_LANES] += a[j] v[j] and, if ``lo`` is not NULL,
    lo[j % SUM_LANES] = min(lo[j % SUM_LANES], v[j]), for j < n (as
    :func:`_sum_lanes`)."""
    cdef Py_ssize_t j, m = n - n % SUM_LANES
    cdef int i
    cdef double x
    cdef double t[SUM_LANES]
    cdef double u[SUM_LANES]
    for i in range(SUM_LANES):
        t[i] = s[i]
        u[i] = lo[i] if lo != NULL else 0
    if lo == NULL:
        for j in range(0, m, 8):
            for i in range(SUM_LANES):
                t[i] += a[j + i] * v[j + i]
    else:
        for j in range(0, m, 8):
            for i in range(SUM_LANES):
                x = v[j + i]
                t[i] += a[j + i] * x
                u[i] = x if x < u[i] else u[i]
    for i in range(SUM_LANES):
        s[i] = t[i]
        if lo != NULL:
            lo[i] = u[i]
    for j in range(m, n):
        x = v[j]
        s[j - m] += a[j] * x
        if lo != NULL and x < lo[j - m]:
            lo[j - m] = x


cdef inline bint _lanes_suspect(const double *s, const double *lo) noexcept nogil:
    """Whether a lane sum (``s`` not NULL) is not finite or a lane minimum
    (``lo`` not NULL) is negative: then a value may be invalid (or a sum of
    valid values overflowed), and the caller looks for the first invalid
    value."""
    cdef int i
    cdef bint suspect = False
    for i in range(SUM_LANES):
        suspect = (suspect or (s != NULL and not isfinite(s[i]))
                   or (lo != NULL and lo[i] < 0))
    return suspect


cdef inline double _lane_total(const double *s) noexcept nogil:
    """s[0] + s[1] + ... + s[SUM_LANES - 1], in that order."""
    cdef double t = 0
    cdef int i
    for i in range(SUM_LANES):
        t += s[i]
    return t


cdef inline bint _values_valid(const floating *out, Py_ssize_t n) noexcept nogil:
    """Whether out[0..n) are all finite and non-negative (branch-free, vectorizes)."""
    cdef int ok = 1
    cdef Py_ssize_t i
    for i in range(n):
        # v - v is NaN for infinities; NaN fails both comparisons.
        ok = ok & (out[i] >= 0) & (out[i] - out[i] == 0)
    return ok


cdef inline bint _arguments_valid(const double *r, Py_ssize_t n) noexcept nogil:
    """Whether r[0..n) are all finite and positive (branch-free, vectorizes)."""
    cdef int ok = 1
    cdef Py_ssize_t i
    for i in range(n):
        ok = ok & (r[i] > 0) & (r[i] - r[i] == 0)
    return ok


cdef inline Py_ssize_t _first_invalid(const floating *out, const double *r,
                                      Py_ssize_t n) noexcept nogil:
    """Index of the first i with out[i] NaN, infinite or negative or (if ``r``
    is not NULL) r[i] not finite and positive; n if there is none."""
    cdef Py_ssize_t i
    for i in range(n):
        if _invalid(out[i]) or (r != NULL and (not (r[i] > 0) or not isfinite(r[i]))):
            return i
    return n


cdef inline void _arm_guard(floating *a, Py_ssize_t n) noexcept nogil:
    """Fill the GUARD elements behind a[0..n) with GUARD_BYTE."""
    memset(<void *> (a + n), GUARD_BYTE, GUARD * sizeof(floating))


cdef void _normalization_chunk(
        Py_ssize_t c, Py_ssize_t chunk_blocks, Py_ssize_t n_blocks, Py_ssize_t n_events, int L,
        Py_ssize_t row, const char *events, uintptr_t func, uintptr_t grad_func,
        uintptr_t sum_func, int n_grad, const floating *params, const void *pbuf,
        const double *weights, const double *ones, floating *out, floating *g, double *acc,
        double *partial, Py_ssize_t *bad) noexcept nogil:
    """partial[0] = sum_j w_j S_j, partial[1 + a] = sum_j w_j dS_j/dp_a over the chunk.

    ``out`` (chunk_blocks * L + GUARD) receives the densities of the whole
    chunk, block after block; their check and their weighted sum are then
    single loops over the chunk.  ``acc`` (n_grad * L + GUARD, zero on entry
    and on return) holds per-lane sums of the gradient: the gradient-sum
    function (``sum_func``, if any) adds w_i dS_i/dp (``ones`` (L values 1)
    for unit weights) of a full block to it; otherwise the gradient function
    writes the rows to ``g`` and they are added here.  At the first invalid
    value the chunk records the event in ``bad[c]`` (the caller then
    discards the sums).
    """
    cdef Py_ssize_t b, a, n_valid, n, b0, b1
    cdef Py_ssize_t first_bad = NO_PROBLEM
    cdef const double *w = NULL
    cdef floating *o
    cdef double s[SUM_LANES]
    cdef double lo[SUM_LANES]
    for a in range(1 + n_grad):
        partial[a] = 0
    if out == NULL or (n_grad > 0 and (acc == NULL or g == NULL)):
        bad[c] = ALLOCATION_FAILED
        return
    b0 = c * chunk_blocks
    b1 = min(b0 + chunk_blocks, n_blocks)
    n = min(b1 * L, n_events) - b0 * L
    _arm_guard(out, (b1 - b0) * L)
    for b in range(b0, b1):
        _prefetch_ahead(events, b, n_blocks, row)
        o = out + (b - b0) * L
        if n_grad > 0:
            n_valid = min(<Py_ssize_t> L, n_events - b * L)
            if sum_func != 0 and n_valid == L:
                # a block whose sums are discarded (an invalid value) is
                # discarded with its chunk
                _gradient_sum(o, acc, ones if weights == NULL else weights + b * L, sum_func,
                              events + b * row, params, pbuf)
                if not _values_valid(o, n_valid):
                    first_bad = b * L + _first_invalid(o, NULL, n_valid)
                    break
                continue
            _gradient(o, g, grad_func, events + b * row, params, pbuf)
            if not _values_valid(o, n_valid):
                first_bad = b * L + _first_invalid(o, NULL, n_valid)
                break
            _accumulate_lanes(acc, g, NULL if weights == NULL else weights + b * L,
                              n_grad, L, n_valid)
        else:
            _density(o, func, events + b * row, params, pbuf)
    if first_bad == NO_PROBLEM:
        for a in range(SUM_LANES):
            s[a] = 0
            lo[a] = 0
        if weights != NULL:
            w = weights + b0 * L
        _sum_lanes(s, lo, out, w, n)
        partial[0] = _lane_total(s)
        if _lanes_suspect(s, lo):
            a = _first_invalid(out, NULL, n)
            if a < n:
                first_bad = b0 * L + a
        if not _guard_intact(out, (b1 - b0) * L):
            first_bad = GUARD_VIOLATED
    if n_grad > 0:
        _reduce_lanes(partial + 1, acc, n_grad, L)
        if not (_guard_intact(g, n_grad * L) and _guard_intact(acc, n_grad * L)):
            first_bad = GUARD_VIOLATED
    bad[c] = first_bad


def normalization_sums(const floating[:, ::1] events, Py_ssize_t n_events, int vector_length,
                       floating[::1] params, uintptr_t parameter_buffer, uintptr_t function,
                       uintptr_t gradient_function, int n_gradient, const double[::1] weights,
                       double[:, ::1] partials, Py_ssize_t[::1] bad, Py_ssize_t chunk_blocks,
                       int n_threads, uintptr_t gradient_sum_function=0):
    """Per-chunk sums of w_j S_j and (with a gradient function) of w_j dS_j/dp.

    ``partials`` has shape (n_chunks, 1 + n_gradient); ``bad[c]`` receives
    the first invalid event of chunk ``c``, -1 if none, -2 if a work array
    could not be allocated, -3 if the density wrote beyond its L values or
    n_gradient * L gradient values.  ``weights`` may be empty (unit weights).
    With a gradient function, a gradient-sum function (the density's
    ``density_gradient_sum``, 0 if none) adds the gradient of the full
    blocks; the gradient function serves the last, partly filled one.
    """
    cdef Py_ssize_t n_blocks = events.shape[0]
    cdef Py_ssize_t n_chunks = (n_blocks + chunk_blocks - 1) // chunk_blocks
    cdef Py_ssize_t row = events.shape[1] * sizeof(floating)
    cdef Py_ssize_t c
    cdef int L = vector_length
    cdef int n_grad = n_gradient if gradient_function != 0 else 0
    if partials.shape[0] < n_chunks or partials.shape[1] < 1 + n_grad or bad.shape[0] < n_chunks:
        raise ValueError("partials or bad arrays too small")
    if weights.shape[0] != 0 and weights.shape[0] < n_blocks * L:
        raise ValueError("weights array too short")
    if n_blocks == 0:
        return
    cdef const char *ev = <const char *> &events[0, 0]
    cdef floating *p = &params[0]
    cdef const double *w = &weights[0] if weights.shape[0] > 0 else NULL
    cdef double *part = &partials[0, 0]
    cdef Py_ssize_t stride = partials.shape[1]
    cdef Py_ssize_t *bd = &bad[0]
    cdef uintptr_t sum_function = gradient_sum_function if n_grad > 0 else 0
    cdef Py_ssize_t n_acc = (n_grad if n_grad > 0 else 1) * L
    cdef Py_ssize_t k
    cdef floating *out
    cdef floating *g
    cdef double *acc
    cdef double *ones
    cdef Py_ssize_t done = 0
    cdef Py_ssize_t *donep = &done
    if 1 <= n_chunks < n_threads:
        n_threads = <int> n_chunks    # a thread without a chunk would only be woken
    with nogil, parallel(num_threads=n_threads):
        out = <floating *> malloc((chunk_blocks * L + GUARD) * sizeof(floating))
        g = <floating *> _guarded(n_acc * sizeof(floating), GUARD * sizeof(floating))
        acc = <double *> _guarded(n_acc * sizeof(double), GUARD * sizeof(double))
        ones = <double *> malloc(L * sizeof(double))
        if acc != NULL:
            memset(acc, 0, n_acc * sizeof(double))
        if ones != NULL:
            for k in range(L):
                ones[k] = 1
        for c in prange(n_chunks, schedule='dynamic'):
            _normalization_chunk(c, chunk_blocks, n_blocks, n_events, L, row, ev, function,
                                 gradient_function, sum_function if ones != NULL else 0, n_grad,
                                 p, <const void *> parameter_buffer, w, ones, out, g, acc,
                                 part + c * stride, bd)
            _chunk_done(donep)
        _await_chunks(donep, n_chunks, SPIN_NANOSECONDS)
        free(out)
        free(g)
        free(acc)
        free(ones)


cdef inline void _data_arguments(double *r, const floating *out, const double *background,
                                 Py_ssize_t n_background, Py_ssize_t background_stride,
                                 double signal_scale, const double *fractions,
                                 Py_ssize_t n) noexcept nogil:
    """r[i] = signal_scale out[i] + sum_k f_k b_k[i] for i < n, added in k order
    (``background`` points at the first event of the range in b_0)."""
    cdef Py_ssize_t i, k
    cdef const double *bk
    for i in range(n):
        r[i] = signal_scale * out[i]
    for k in range(n_background):
        bk = background + k * background_stride
        for i in range(n):
            r[i] = r[i] + fractions[k] * bk[i]


cdef void _data_chunk(
        Py_ssize_t c, Py_ssize_t chunk_blocks, Py_ssize_t n_blocks, Py_ssize_t n_events, int L,
        Py_ssize_t row, const char *events, uintptr_t func, uintptr_t grad_func, int n_grad,
        const floating *params, const void *pbuf, const double *weights,
        const double *background, Py_ssize_t n_background, Py_ssize_t background_stride,
        double signal_scale, const double *fractions,
        floating *out, floating *g, double *r, double *lg, double *acc, double *partial,
        Py_ssize_t n_columns, Py_ssize_t *bad, uintptr_t sum_func=0,
        floating *out2=NULL) noexcept nogil:
    """Chunk sums of the data term; see data_sums for the columns.

    ``out`` (chunk_blocks * L + GUARD) receives the densities of the whole
    chunk, ``r`` (chunk_blocks * L) the likelihood arguments term_i, then
    r_i = -2 w_i / term_i, and ``lg`` (chunk_blocks * L) ln term_i: the
    checks, logarithms and sums are single loops over the chunk.  With a
    gradient, term_i and -2 w_i / term_i of each block are formed as the
    block is evaluated, and ``acc`` (n_grad * L, zero on entry and on
    return) holds per-lane sums of -2 w_i / term_i dS_i/dp; ``lg`` then
    holds the factors of one block first.  With a gradient-sum function
    (``sum_func``), a full block's densities come from the density function
    and its derivatives, times those factors, are added to ``acc`` by the
    sum function (its own values go to ``out2``, L values): no gradient is
    written and read back.  At the first invalid density or argument the
    chunk records the event in ``bad[c]`` (the caller then discards the
    sums).
    """
    cdef Py_ssize_t b, a, k, i, n_valid, n, b0, b1, j0
    cdef Py_ssize_t first_bad = NO_PROBLEM
    cdef const double *bg = NULL
    cdef const double *w = NULL
    cdef floating *o
    cdef double s[SUM_LANES]
    cdef double lo[SUM_LANES]
    cdef bint suspect
    for a in range(n_columns):
        partial[a] = 0
    if out == NULL or r == NULL or lg == NULL or (n_grad > 0 and (acc == NULL or g == NULL)) \
            or (sum_func != 0 and out2 == NULL):
        bad[c] = ALLOCATION_FAILED
        return
    b0 = c * chunk_blocks
    b1 = min(b0 + chunk_blocks, n_blocks)
    j0 = b0 * L
    n = min(b1 * L, n_events) - j0
    if n_background > 0:
        bg = background + j0
    if weights != NULL:
        w = weights + j0
    _arm_guard(out, (b1 - b0) * L)
    for b in range(b0, b1):
        _prefetch_ahead(events, b, n_blocks, row)
        o = out + (b - b0) * L
        if n_grad > 0:
            n_valid = min(<Py_ssize_t> L, n_events - b * L)
            if sum_func != 0 and n_valid == L:
                _density(o, func, events + b * row, params, pbuf)
            else:
                _gradient(o, g, grad_func, events + b * row, params, pbuf)
            _data_arguments(r + (b - b0) * L, o, NULL if bg == NULL else bg + (b - b0) * L,
                            n_background, background_stride, signal_scale, fractions, n_valid)
            if not (_values_valid(o, n_valid) and _arguments_valid(r + (b - b0) * L, n_valid)):
                first_bad = b * L + _first_invalid(o, r + (b - b0) * L, n_valid)
                break
            for i in range(n_valid):
                lg[i] = -2 / r[(b - b0) * L + i] if w == NULL else \
                    -2 * w[(b - b0) * L + i] / r[(b - b0) * L + i]
            if sum_func != 0 and n_valid == L:
                _gradient_sum(out2, acc, lg, sum_func, events + b * row, params, pbuf)
            else:
                _accumulate_lanes(acc, g, lg, n_grad, L, n_valid)
        else:
            _density(o, func, events + b * row, params, pbuf)
    if first_bad == NO_PROBLEM and n_grad == 0:
        _data_arguments(r, out, bg, n_background, background_stride, signal_scale, fractions, n)
    if first_bad == NO_PROBLEM:
        for a in range(SUM_LANES):
            s[a] = 0
            lo[a] = 0
        if w == NULL and _arguments_valid(r, n):
            # one logarithm per LOG_GROUP events of a lane
            _log_sum_lanes(s, r, n)
        else:
            for i in range(n):
                lg[i] = _log(r[i])
            _sum_lanes(s, NULL, lg, w, n)
        partial[0] = -2 * _lane_total(s)
        # An invalid argument makes its logarithm, and so its lane's sum, NaN
        # or infinite; so does a NaN or infinite density (its argument is NaN
        # or infinite).  A negative density makes its lane's minimum negative.
        suspect = _lanes_suspect(s, NULL)
        if w == NULL:
            for i in range(n):
                r[i] = -2 / r[i]
        else:
            for i in range(n):
                r[i] = -2 * w[i] / r[i]
        for a in range(SUM_LANES):
            s[a] = 0
        _dot_lanes(s, lo, r, out, n)
        partial[1] = _lane_total(s)
        if suspect or _lanes_suspect(NULL, lo):
            _data_arguments(r, out, bg, n_background, background_stride, signal_scale,
                            fractions, n)
            a = _first_invalid(out, r, n)
            if a < n:
                first_bad = j0 + a
        for k in range(n_background):
            for a in range(SUM_LANES):
                s[a] = 0
            _dot_lanes(s, NULL, r, bg + k * background_stride, n)
            partial[2 + k] = _lane_total(s)
        if not _guard_intact(out, (b1 - b0) * L):
            first_bad = GUARD_VIOLATED
    if n_grad > 0:
        _reduce_lanes(partial + 2 + n_background, acc, n_grad, L)
        if not (_guard_intact(g, n_grad * L) and _guard_intact(acc, n_grad * L)):
            first_bad = GUARD_VIOLATED
        if sum_func != 0 and not _guard_intact(out2, L):
            first_bad = GUARD_VIOLATED
    bad[c] = first_bad


def data_sums(const floating[:, ::1] events, Py_ssize_t n_events, int vector_length,
              floating[::1] params, uintptr_t parameter_buffer, uintptr_t function,
              uintptr_t gradient_function, int n_gradient, const double[::1] weights,
              const double[:, ::1] background, double signal_scale,
              const double[::1] background_fractions, double[:, ::1] partials,
              Py_ssize_t[::1] bad, Py_ssize_t chunk_blocks, int n_threads,
              uintptr_t gradient_sum_function=0):
    """Per-chunk sums of the data part of F = sum_i -2 w_i ln(term_i).

    term_i = signal_scale * S_i + sum_k f_k b_ki with signal_scale = f_S / I_S
    and b_ki = B_k(Phi_i) / I_Bk (``background``, shape (n_background,
    n_blocks * L)).  With r_i = -2 w_i / term_i, the columns of ``partials``
    are: 0: sum -2 w_i ln term_i; 1: sum r_i S_i; 2 + k: sum r_i b_ki;
    2 + n_background + a: sum r_i dS_i/dp_a (with a gradient function;
    added by ``gradient_sum_function`` for full blocks if given).
    """
    cdef Py_ssize_t n_blocks = events.shape[0]
    cdef Py_ssize_t n_chunks = (n_blocks + chunk_blocks - 1) // chunk_blocks
    cdef Py_ssize_t row = events.shape[1] * sizeof(floating)
    cdef Py_ssize_t c
    cdef int L = vector_length
    cdef int n_grad = n_gradient if gradient_function != 0 else 0
    cdef Py_ssize_t n_background = background.shape[0]
    cdef Py_ssize_t n_columns = 2 + n_background + n_grad
    if partials.shape[0] < n_chunks or partials.shape[1] < n_columns or bad.shape[0] < n_chunks:
        raise ValueError("partials or bad arrays too small")
    if weights.shape[0] != 0 and weights.shape[0] < n_blocks * L:
        raise ValueError("weights array too short")
    if n_background > 0 and background.shape[1] < n_blocks * L:
        raise ValueError("background array too short")
    if background_fractions.shape[0] < n_background:
        raise ValueError("background_fractions too short")
    if n_blocks == 0:
        return
    cdef const char *ev = <const char *> &events[0, 0]
    cdef floating *p = &params[0]
    cdef const double *w = &weights[0] if weights.shape[0] > 0 else NULL
    cdef const double *bg = &background[0, 0] if n_background > 0 else NULL
    cdef Py_ssize_t bg_stride = background.shape[1]
    cdef const double *fr = &background_fractions[0] if n_background > 0 else NULL
    cdef double *part = &partials[0, 0]
    cdef Py_ssize_t stride = partials.shape[1]
    cdef Py_ssize_t *bd = &bad[0]
    cdef Py_ssize_t ce = chunk_blocks * L
    cdef floating *out
    cdef floating *g
    cdef double *r
    cdef double *lg
    cdef double *acc
    cdef floating *out2
    cdef uintptr_t sum_function = gradient_sum_function if n_grad > 0 else 0
    cdef Py_ssize_t n_acc = (n_grad if n_grad > 0 else 1) * L
    cdef Py_ssize_t done = 0
    cdef Py_ssize_t *donep = &done
    if 1 <= n_chunks < n_threads:
        n_threads = <int> n_chunks    # a thread without a chunk would only be woken
    with nogil, parallel(num_threads=n_threads):
        out = <floating *> malloc((ce + GUARD) * sizeof(floating))
        g = <floating *> _guarded(n_acc * sizeof(floating), GUARD * sizeof(floating))
        r = <double *> malloc(ce * sizeof(double))
        lg = <double *> malloc(ce * sizeof(double))
        acc = <double *> _guarded(n_acc * sizeof(double), GUARD * sizeof(double))
        if acc != NULL:
            memset(acc, 0, n_acc * sizeof(double))
        out2 = <floating *> _guarded(L * sizeof(floating), GUARD * sizeof(floating))
        for c in prange(n_chunks, schedule='dynamic'):
            _data_chunk(c, chunk_blocks, n_blocks, n_events, L, row, ev, function,
                        gradient_function, n_grad, p, <const void *> parameter_buffer, w,
                        bg, n_background, bg_stride, signal_scale, fr, out, g, r, lg, acc,
                        part + c * stride, n_columns, bd, sum_function, out2)
            _chunk_done(donep)
        _await_chunks(donep, n_chunks, SPIN_NANOSECONDS)
        free(out)
        free(g)
        free(r)
        free(lg)
        free(acc)
        free(out2)


cdef void _moved_component_chunk(Py_ssize_t c, Py_ssize_t chunk_blocks, Py_ssize_t n_blocks,
                                 int L, Py_ssize_t row, const char *events, uintptr_t func,
                                 Py_ssize_t n_valid, const floating *params, const void *pbuf,
                                 floating *out, double *acc, const double *base,
                                 const double *old, double cr, double ci, const double *w,
                                 double *partials, Py_ssize_t *bad) noexcept nogil:
    """Chunk c of :func:`moved_component_norm`: per lane sums of
    w_j |base_j + c (X'_j - old_j)|^2 over the valid events of its blocks,
    added in lane order into partials[c]; bad[c] the first event at which
    X' or the term is not finite."""
    cdef Py_ssize_t b, j0, m
    cdef int i
    cdef double dr, di, yr, yi, s
    bad[c] = NO_PROBLEM
    partials[c] = 0
    if out == NULL or acc == NULL:
        bad[c] = ALLOCATION_FAILED
        return
    for i in range(L):
        acc[i] = 0
    for b in range(c * chunk_blocks, min((c + 1) * chunk_blocks, n_blocks)):
        _prefetch_ahead(events, b, n_blocks, row)
        j0 = b * L
        m = min(<Py_ssize_t> L, n_valid - j0)
        if m <= 0:
            break
        _density(out, func, events + b * row, params, pbuf)
        # Lane sums (the loop vectorizes); a value of X' that is not finite
        # makes its lane's sum NaN or infinite, found after the chunk.
        if w == NULL:
            for i in range(m):
                dr = out[i] - old[2 * (j0 + i)]
                di = out[L + i] - old[2 * (j0 + i) + 1]
                yr = base[2 * (j0 + i)] + cr * dr - ci * di
                yi = base[2 * (j0 + i) + 1] + cr * di + ci * dr
                acc[i] += yr * yr + yi * yi
        else:
            for i in range(m):
                dr = out[i] - old[2 * (j0 + i)]
                di = out[L + i] - old[2 * (j0 + i) + 1]
                yr = base[2 * (j0 + i)] + cr * dr - ci * di
                yi = base[2 * (j0 + i) + 1] + cr * di + ci * dr
                acc[i] += w[j0 + i] * (yr * yr + yi * yi)
    s = 0
    for i in range(L):
        s += acc[i]
        # A term that is not finite, or (cr = ci = 0) a value times 0: NaN or inf.
        s += (acc[i] - acc[i])
    partials[c] = s
    if not isfinite(s):
        # Rare: evaluate the chunk again to name the first event.
        for b in range(c * chunk_blocks, min((c + 1) * chunk_blocks, n_blocks)):
            j0 = b * L
            m = min(<Py_ssize_t> L, n_valid - j0)
            if m <= 0:
                break
            _density(out, func, events + b * row, params, pbuf)
            for i in range(m):
                if not (isfinite(out[i]) and isfinite(out[L + i])):
                    bad[c] = j0 + i
                    break
            if bad[c] != NO_PROBLEM:
                break
        if bad[c] == NO_PROBLEM:
            bad[c] = c * chunk_blocks * L
    if not _guard_intact(out, 2 * L):
        bad[c] = GUARD_VIOLATED


def moved_component_norm(const floating[:, ::1] events, int vector_length, floating[::1] params,
                         uintptr_t parameter_buffer, uintptr_t function, Py_ssize_t n_valid,
                         const double[::1] base, const double[::1] old, double cr, double ci,
                         const double[::1] weights, double[::1] partials, Py_ssize_t[::1] bad,
                         Py_ssize_t chunk_blocks, int n_threads):
    """The normalization integral after one component moved, in one pass that
    evaluates the component: per chunk of ``chunk_blocks`` blocks,
    sum_j w_j |base_j + c (X'_j - old_j)|^2 into ``partials`` (the caller adds
    them in order), X' from the single-component ``function`` (a block
    function with 2 values per lane) at the blocks of ``events``.

    ``base`` (the base amplitude) and ``old`` (the component's values at the
    base) are complex128 arrays viewed as float64 (length >= 2 ``n_valid``);
    ``weights`` of length 0 means unweighted.  ``bad[c]`` is the first event
    of chunk c at which X' or the term is not finite (NO_PROBLEM if none)."""
    cdef Py_ssize_t n_blocks = events.shape[0]
    cdef Py_ssize_t n_chunks = (n_blocks + chunk_blocks - 1) // chunk_blocks
    cdef Py_ssize_t row = events.shape[1] * sizeof(floating)
    cdef bint weighted = weights.shape[0] > 0
    cdef Py_ssize_t c
    cdef int L = vector_length
    if (n_valid > n_blocks * L or base.shape[0] < 2 * n_valid or old.shape[0] < 2 * n_valid
            or partials.shape[0] < n_chunks or bad.shape[0] < n_chunks
            or (weighted and weights.shape[0] < n_valid)):
        raise ValueError("moved_component_norm: inconsistent shapes")
    if n_blocks == 0 or n_valid <= 0:
        return
    cdef const char *ev = <const char *> &events[0, 0]
    cdef floating *p = &params[0]
    cdef const double *bp = &base[0]
    cdef const double *op = &old[0]
    cdef const double *wp = &weights[0] if weighted else NULL
    cdef double *pp = &partials[0]
    cdef Py_ssize_t *bd = &bad[0]
    cdef floating *out
    cdef double *acc
    cdef Py_ssize_t done = 0
    cdef Py_ssize_t *donep = &done
    if 1 <= n_chunks < n_threads:
        n_threads = <int> n_chunks    # a thread without a chunk would only be woken
    with nogil, parallel(num_threads=n_threads):
        out = <floating *> _guarded(2 * L * sizeof(floating), GUARD * sizeof(floating))
        acc = <double *> malloc(L * sizeof(double))
        for c in prange(n_chunks, schedule='dynamic'):
            _moved_component_chunk(c, chunk_blocks, n_blocks, L, row, ev, function, n_valid, p,
                                   <const void *> parameter_buffer, out, acc, bp, op, cr, ci,
                                   wp, pp, bd)
            _chunk_done(donep)
        _await_chunks(donep, n_chunks, SPIN_NANOSECONDS)
        free(out)
        free(acc)



cdef inline void _log_terms(Py_ssize_t j, int n, const double *t, const double *weights,
                            double *pm, double *pe, double *sums) noexcept nogil:
    """The -2 w ln t of ``n`` valid arguments t of the events from ``j`` on:
    into the lanes' products ``pm``, ``pe`` where given (whole blocks of
    unweighted events, :func:`_cached_data_chunk` adds -2 times their
    logarithms at the end), into the first row of ``sums`` otherwise."""
    cdef int i
    if pm != NULL:
        _log_products_add(pm, pe, t)
    elif weights != NULL:
        for i in range(n):
            sums[i] += -2 * (weights[j + i] * _log(t[i]))
    else:
        for i in range(n):
            sums[i] += -2 * _log(t[i])


cdef inline bint _cached_block(
        Py_ssize_t j, int n, Py_ssize_t K, const double *x, Py_ssize_t x_stride,
        const double *coupling, double scale, const double *background,
        Py_ssize_t n_background, Py_ssize_t background_stride, const double *fractions,
        const double *weights, bint gradient, double *sums, double *pm,
        double *pe) noexcept nogil:
    """``n`` (at most SUM_LANES) events from ``j`` on, added to the lane sums
    (see :func:`_cached_data_chunk`); False if an argument t is not finite
    and positive (nothing is added then).  Called with the literal
    SUM_LANES for whole blocks, so that the compiler unrolls and vectorizes
    the loops over the lanes.  With ``pm`` and ``pe`` (a whole block of
    unweighted events) the logarithms go to the lanes' products
    (:func:`_log_products_add`) instead of the first row of ``sums``."""
    cdef Py_ssize_t k, b, col
    cdef int i, ok = 1
    cdef double ar[SUM_LANES]
    cdef double ai[SUM_LANES]
    cdef double s[SUM_LANES]
    cdef double t[SUM_LANES]
    cdef double r[SUM_LANES]
    cdef double xr, xi, cr, ci
    cdef const double *xk
    cdef const double *bk
    for i in range(n):
        ar[i] = 0
        ai[i] = 0
    for k in range(K):
        cr = coupling[2 * k]
        ci = coupling[2 * k + 1]
        xk = x + k * x_stride + 2 * j
        for i in range(n):
            xr = xk[2 * i]
            xi = xk[2 * i + 1]
            ar[i] += cr * xr - ci * xi
            ai[i] += cr * xi + ci * xr
    for i in range(n):
        s[i] = ar[i] * ar[i] + ai[i] * ai[i]
        t[i] = scale * s[i]
    for b in range(n_background):
        bk = background + b * background_stride + j
        for i in range(n):
            t[i] += fractions[b] * bk[i]
    for i in range(n):
        ok = ok & (t[i] > 0) & (t[i] - t[i] == 0)
    if not ok:
        return False
    _log_terms(j, n, t, weights, pm, pe, sums)
    if not gradient:
        # the other rows serve the gradient only
        return True
    for i in range(n):
        r[i] = -2 / t[i]
    if weights != NULL:
        for i in range(n):
            r[i] = weights[j + i] * r[i]
    for i in range(n):
        sums[SUM_LANES + i] += r[i] * s[i]
    for b in range(n_background):
        bk = background + b * background_stride + j
        for i in range(n):
            sums[(2 + b) * SUM_LANES + i] += bk[i] * r[i]
    if gradient:
        # X_k r conj(A)
        for i in range(n):
            ar[i] = r[i] * ar[i]
            ai[i] = -r[i] * ai[i]
        col = 2 + n_background
        for k in range(K):
            xk = x + k * x_stride + 2 * j
            for i in range(n):
                xr = xk[2 * i]
                xi = xk[2 * i + 1]
                sums[(col + k) * SUM_LANES + i] += xr * ar[i] - xi * ai[i]
                sums[(col + K + k) * SUM_LANES + i] += xr * ai[i] + xi * ar[i]
    return True


cdef inline void _weighted_conjugates(
        int n, Py_ssize_t H, const double *amp, const Py_ssize_t *pairs, Py_ssize_t n_pairs,
        const double *w, const double *r, double *gw, double *wsums,
        Py_ssize_t n_w) noexcept nogil:
    """For the Hermitian form of :func:`_cached_block_channels`: r conj(G_h) =
    r sum_(p: h) w_e conj(A_h') into ``gw`` (re, im per channel, SUM_LANES
    each), and r A_h conj(A_h') added to the sums of weight e (``wsums``:
    the Re rows of the n_w weights, then their Im rows)."""
    cdef Py_ssize_t p, h, e
    cdef int i
    cdef double wr, wi, zr, zi
    cdef const double *ar
    cdef const double *ai
    cdef const double *br
    cdef const double *bi
    cdef double *gr
    cdef double *gi
    for h in range(2 * H * SUM_LANES):
        gw[h] = 0
    for p in range(n_pairs):
        ar = amp + 2 * pairs[3 * p] * SUM_LANES
        ai = ar + SUM_LANES
        br = amp + 2 * pairs[3 * p + 1] * SUM_LANES
        bi = br + SUM_LANES
        e = pairs[3 * p + 2]
        wr = w[2 * e]
        wi = w[2 * e + 1]
        gr = gw + 2 * pairs[3 * p] * SUM_LANES
        gi = gr + SUM_LANES
        for i in range(n):
            # w conj(A_h') and A_h conj(A_h'), times r
            gr[i] += r[i] * (wr * br[i] + wi * bi[i])
            gi[i] += r[i] * (wi * br[i] - wr * bi[i])
            zr = ar[i] * br[i] + ai[i] * bi[i]
            zi = ai[i] * br[i] - ar[i] * bi[i]
            wsums[e * SUM_LANES + i] += r[i] * zr
            wsums[(n_w + e) * SUM_LANES + i] += r[i] * zi


cdef inline bint _cached_block_channels(
        Py_ssize_t j, int n, Py_ssize_t K, Py_ssize_t H, const double *x,
        const double *coupling, double scale, const double *background,
        Py_ssize_t n_background, Py_ssize_t background_stride, const double *fractions,
        const double *weights, bint gradient, double *sums, double *amp,
        const Py_ssize_t *pairs, Py_ssize_t n_pairs, const double *w, Py_ssize_t n_w,
        double *gw, double *pm, double *pe) noexcept nogil:
    """As :func:`_cached_block` for a density summed over H channels,
    S = sum_h |A_h|^2 with A_h = sum_k c_k X_kh: ``x`` holds the events in
    blocks of SUM_LANES, X_kh of event e at complex element
    ((e / SUM_LANES) H + h) K + k) SUM_LANES + e % SUM_LANES (one stream of
    memory, the lanes of a block side by side); the ``n`` events from ``j``
    lie in one block.  ``amp`` is work space for 2 H SUM_LANES doubles.  The
    gradient sums are Re and Im of sum_h X_kh r conj(A_h).

    With ``n_pairs`` > 0 the density is the Hermitian form
    S = sum_p Re[w_e A_h conj(A_h')] over the pairs p = (h, h', e) of
    ``pairs`` (n_pairs x 3), with the complex weights w_e at ``w`` (re, im
    interleaved, ``n_w`` of them); the gradient sums are then Re and Im of
    sum_h X_kh r conj(G_h), conj(G_h) = sum_(p: h) w_e conj(A_h'), followed
    by Re and Im of r sum_(p: e) A_h conj(A_h') for every weight e (its
    derivative's coefficient).  ``gw`` is work space for 2 H SUM_LANES
    doubles."""
    cdef Py_ssize_t k, b, h, col, p
    cdef int i, ok = 1
    cdef double s[SUM_LANES]
    cdef double t[SUM_LANES]
    cdef double r[SUM_LANES]
    cdef double xr, xi, cr, ci, wr, wi
    cdef double *ar
    cdef double *ai
    cdef double *br
    cdef double *bi
    cdef const double *xk
    cdef const double *bk
    cdef const double *xb = x + 2 * ((j // SUM_LANES) * H * K * SUM_LANES + j % SUM_LANES)
    for i in range(n):
        s[i] = 0
    for h in range(H):
        ar = amp + 2 * h * SUM_LANES
        ai = ar + SUM_LANES
        for i in range(n):
            ar[i] = 0
            ai[i] = 0
        for k in range(K):
            cr = coupling[2 * k]
            ci = coupling[2 * k + 1]
            xk = xb + 2 * (h * K + k) * SUM_LANES
            for i in range(n):
                xr = xk[2 * i]
                xi = xk[2 * i + 1]
                ar[i] += cr * xr - ci * xi
                ai[i] += cr * xi + ci * xr
        if n_pairs == 0:
            for i in range(n):
                s[i] += ar[i] * ar[i] + ai[i] * ai[i]
    for p in range(n_pairs):
        ar = amp + 2 * pairs[3 * p] * SUM_LANES
        ai = ar + SUM_LANES
        br = amp + 2 * pairs[3 * p + 1] * SUM_LANES
        bi = br + SUM_LANES
        wr = w[2 * pairs[3 * p + 2]]
        wi = w[2 * pairs[3 * p + 2] + 1]
        for i in range(n):
            # Re[w A_h conj(A_h')]
            s[i] += wr * (ar[i] * br[i] + ai[i] * bi[i]) - wi * (ai[i] * br[i] - ar[i] * bi[i])
    for i in range(n):
        t[i] = scale * s[i]
    for b in range(n_background):
        bk = background + b * background_stride + j
        for i in range(n):
            t[i] += fractions[b] * bk[i]
    for i in range(n):
        ok = ok & (t[i] > 0) & (t[i] - t[i] == 0)
    if not ok:
        return False
    _log_terms(j, n, t, weights, pm, pe, sums)
    if not gradient:
        return True
    for i in range(n):
        r[i] = -2 / t[i]
    if weights != NULL:
        for i in range(n):
            r[i] = weights[j + i] * r[i]
    for i in range(n):
        sums[SUM_LANES + i] += r[i] * s[i]
    for b in range(n_background):
        bk = background + b * background_stride + j
        for i in range(n):
            sums[(2 + b) * SUM_LANES + i] += bk[i] * r[i]
    if gradient:
        # sum_h X_kh r conj(A_h)
        col = 2 + n_background
        if n_pairs:
            _weighted_conjugates(n, H, amp, pairs, n_pairs, w, r, gw,
                                 sums + (col + 2 * K) * SUM_LANES, n_w)
        for h in range(H):
            ar = (gw if n_pairs else amp) + 2 * h * SUM_LANES
            ai = ar + SUM_LANES
            if n_pairs == 0:
                for i in range(n):
                    ar[i] = r[i] * ar[i]
                    ai[i] = -r[i] * ai[i]
            for k in range(K):
                xk = xb + 2 * (h * K + k) * SUM_LANES
                for i in range(n):
                    xr = xk[2 * i]
                    xi = xk[2 * i + 1]
                    sums[(col + k) * SUM_LANES + i] += xr * ar[i] - xi * ai[i]
                    sums[(col + K + k) * SUM_LANES + i] += xr * ai[i] + xi * ar[i]
    return True


cdef void _cached_data_chunk(
        Py_ssize_t c, Py_ssize_t chunk, Py_ssize_t n_events, Py_ssize_t K, Py_ssize_t H,
        const double *x, Py_ssize_t x_stride, const double *coupling, double scale,
        const double *background, Py_ssize_t n_background, Py_ssize_t background_stride,
        const double *fractions, const double *weights, bint gradient, double *sums,
        double *amp, double *row, Py_ssize_t *bad, const Py_ssize_t *pairs,
        Py_ssize_t n_pairs, const double *w, Py_ssize_t n_w, double *gw) noexcept nogil:
    """One chunk of the cached data term: A = sum_k c_k X_k, S = |A|^2,
    t = scale S + sum_b f_b B_b, and the chunk's sums of -2 w ln t and (with
    ``gradient``) r S, r B_b and Re and Im of X_k r conj(A), r = -2 w / t
    (without the gradient those rows are 0: a value call needs the first
    alone).

    Events are taken SUM_LANES at a time (:func:`_cached_block`), every sum
    kept per lane and the lanes added in order at the end: the order of the
    additions depends on the events' indices alone.  The logarithms of the
    whole blocks of unweighted events are taken of products, one per
    LOG_GROUP blocks and lane (:func:`_log_products_add`).  ``sums`` holds
    (width * SUM_LANES) doubles.  ``x`` is the complex (K, n) cache seen as
    doubles (re, im interleaved).  At the first event whose argument is not
    finite and positive, bad[c] receives its index.
    """
    cdef Py_ssize_t width = 2 + n_background + (2 * K + 2 * n_w if gradient else 0)
    cdef Py_ssize_t j0 = c * chunk
    cdef Py_ssize_t j1 = j0 + chunk if j0 + chunk < n_events else n_events
    cdef Py_ssize_t j, jj, col
    cdef int n, i, blocks = 0
    cdef bint ok
    cdef double pm[SUM_LANES]
    cdef double pe[SUM_LANES]
    cdef double ls[SUM_LANES]
    cdef double *pmw = pm if weights == NULL else NULL
    memset(sums, 0, width * SUM_LANES * sizeof(double))
    _log_products_start(pm, pe)
    for i in range(SUM_LANES):
        ls[i] = 0
    j = j0
    while j < j1:
        n = SUM_LANES if j1 - j >= SUM_LANES else <int> (j1 - j)
        if H > 1:
            # the events of one block of the storage
            if n > SUM_LANES - j % SUM_LANES:
                n = <int> (SUM_LANES - j % SUM_LANES)
            ok = _cached_block_channels(j, n, K, H, x, coupling, scale,
                                        background, n_background, background_stride,
                                        fractions, weights, gradient, sums, amp,
                                        pairs, n_pairs, w, n_w, gw,
                                        pmw if n == SUM_LANES else NULL, pe)
        elif n == SUM_LANES:
            ok = _cached_block(j, SUM_LANES, K, x, x_stride, coupling, scale, background,
                               n_background, background_stride, fractions, weights, gradient,
                               sums, pmw, pe)
        else:
            ok = _cached_block(j, n, K, x, x_stride, coupling, scale, background,
                               n_background, background_stride, fractions, weights, gradient,
                               sums, NULL, NULL)
        if not ok:
            # the first invalid event of the block, one at a time
            for jj in range(j, j + n):
                if H > 1:
                    ok = _cached_block_channels(jj, 1, K, H, x, coupling,
                                                scale, background, n_background,
                                                background_stride, fractions, weights, False,
                                                sums, amp, pairs, n_pairs, w, n_w, gw,
                                                NULL, NULL)
                else:
                    ok = _cached_block(jj, 1, K, x, x_stride, coupling, scale, background,
                                       n_background, background_stride, fractions, weights,
                                       False, sums, NULL, NULL)
                if not ok:
                    bad[c] = jj
                    return
        if pmw != NULL and n == SUM_LANES:
            blocks += 1
            if blocks == LOG_GROUP:
                _log_products_flush(ls, pm)
                blocks = 0
        j += n
    _log_products_finish(ls, pm, pe)
    for i in range(SUM_LANES):
        sums[i] += -2 * ls[i]
    for col in range(width):
        row[col] = _lane_total(sums + col * SUM_LANES)


#: Events per block of the stored amplitudes of a density with several
#: channels (:func:`cached_data_rows`).
CHANNEL_BLOCK_EVENTS = SUM_LANES


def cached_data_rows(const double[:, ::1] x, const double[::1] couplings, double scale,
                     const double[:, ::1] background, const double[::1] fractions,
                     const double[::1] weights, bint gradient, Py_ssize_t n_events,
                     Py_ssize_t chunk, double[:, ::1] rows, Py_ssize_t[::1] bad,
                     int n_threads, Py_ssize_t n_channels=1, const Py_ssize_t[:, ::1] pairs=None,
                     const double[::1] channel_weights=None):
    """The cached data term's per-chunk rows in one pass over the stored amplitudes.

    ``x``: the component amplitudes at the data events, complex128 of shape
    (K, n) seen as float64 (K, 2n); with ``n_channels`` H > 1 (the density
    S = sum_h |sum_k c_k X_kh|^2) the events in blocks of 8, complex128 of
    shape (ceil(n / 8), H, K, 8) seen as float64 (ceil(n / 8), 16 H K)
    (:func:`vecampfit.fitter._evaluation.channel_blocks`, blocks of
    CHANNEL_BLOCK_EVENTS); ``couplings``: c
    as float64 (2K,);
    ``background``: (n_background, n) values; ``weights`` may be empty;
    ``rows`` (n_chunks, 2 + n_background [+ 2K]) receives per chunk the sums
    of -2 w ln t and, with ``gradient``, of r S, r B_b and Re and Im of
    X_k r conj(A) (with ``pairs``, those of :func:`_cached_block_channels`,
    then the weights' rows; without ``gradient`` the columns after the first
    are 0); ``pairs`` (n_pairs, 3) and ``channel_weights``
    (2 n_w: re, im), given together with H > 1, make S the Hermitian form
    sum_p Re[w_e A_h conj(A_h')] of :func:`_cached_block_channels` (a
    polarized parent's density matrix); ``bad[c]`` the first event of chunk ``c`` whose argument t
    is not finite and positive (-1 if none, -2 if a work array could not be
    allocated).  Chunks are shared among the threads; each chunk's sums
    have a fixed order, so the rows do not depend on the number of threads.
    """
    cdef Py_ssize_t H = n_channels
    cdef Py_ssize_t K = x.shape[0] if H == 1 else couplings.shape[0] // 2
    cdef Py_ssize_t nb = background.shape[0]
    cdef Py_ssize_t n_chunks = (n_events + chunk - 1) // chunk
    cdef Py_ssize_t n_pairs = 0 if pairs is None else pairs.shape[0]
    cdef Py_ssize_t n_w = 0 if channel_weights is None else channel_weights.shape[0] // 2
    cdef Py_ssize_t width = 2 + nb + (2 * K + 2 * n_w if gradient else 0)
    cdef Py_ssize_t c, p
    cdef const Py_ssize_t *pp = NULL
    cdef const double *wvp = NULL
    if chunk <= 0:
        raise ValueError("chunk must be positive")
    if H < 1:
        raise ValueError("cached_data_rows: n_channels must be positive")
    if (pairs is None) != (channel_weights is None):
        raise ValueError("cached_data_rows: pairs and channel_weights go together")
    if pairs is not None:
        if H < 2 or n_pairs == 0 or pairs.shape[1] != 3 or n_w == 0 \
                or channel_weights.shape[0] % 2:
            raise ValueError("cached_data_rows: pairs or channel_weights of the wrong shape")
        for p in range(n_pairs):
            if not (0 <= pairs[p, 0] < H and 0 <= pairs[p, 1] < H and 0 <= pairs[p, 2] < n_w):
                raise ValueError(f"cached_data_rows: pair {p} out of range")
        pp = &pairs[0, 0]
        wvp = &channel_weights[0]
    if H > 1:
        if (x.shape[0] < (n_events + SUM_LANES - 1) // SUM_LANES
                or x.shape[1] != 2 * H * K * SUM_LANES or couplings.shape[0] % 2):
            raise ValueError("cached_data_rows: x or couplings of the wrong shape")
    elif x.shape[1] < 2 * n_events or couplings.shape[0] != 2 * K:
        raise ValueError("cached_data_rows: x or couplings of the wrong shape")
    if nb and background.shape[1] < n_events:
        raise ValueError("cached_data_rows: background array too short")
    if fractions.shape[0] < nb:
        raise ValueError("cached_data_rows: fractions array too short")
    if weights.shape[0] != 0 and weights.shape[0] < n_events:
        raise ValueError("cached_data_rows: weights array too short")
    if rows.shape[0] < n_chunks or rows.shape[1] != width or bad.shape[0] < n_chunks:
        raise ValueError("cached_data_rows: rows or bad arrays of the wrong shape")
    if n_events == 0:
        return
    cdef const double *xp = &x[0, 0]
    cdef Py_ssize_t x_stride = x.shape[1]
    cdef const double *cp = &couplings[0]
    cdef const double *bp = &background[0, 0] if nb else NULL
    cdef Py_ssize_t b_stride = background.shape[1] if nb else 0
    cdef const double *fp = &fractions[0] if fractions.shape[0] else NULL
    cdef const double *wp = &weights[0] if weights.shape[0] > 0 else NULL
    cdef double *rp = &rows[0, 0]
    cdef Py_ssize_t *bd = &bad[0]
    cdef double *sums
    cdef double *amp
    cdef double *gw
    cdef Py_ssize_t done = 0
    cdef Py_ssize_t *donep = &done
    if 1 <= n_chunks < n_threads:
        n_threads = <int> n_chunks    # a thread without a chunk would only be woken
    with nogil, parallel(num_threads=n_threads):
        sums = <double *> malloc(width * SUM_LANES * sizeof(double))
        amp = <double *> malloc(2 * H * SUM_LANES * sizeof(double))
        gw = <double *> malloc(2 * H * SUM_LANES * sizeof(double))
        for c in prange(n_chunks, schedule='dynamic'):
            bd[c] = NO_PROBLEM
            if sums == NULL or amp == NULL or gw == NULL:
                bd[c] = ALLOCATION_FAILED
            else:
                _cached_data_chunk(c, chunk, n_events, K, H, xp, x_stride, cp, scale, bp, nb,
                                   b_stride, fp, wp, gradient, sums, amp, rp + c * width, bd,
                                   pp, n_pairs, wvp, n_w, gw)
            _chunk_done(donep)
        _await_chunks(donep, n_chunks, SPIN_NANOSECONDS)
        free(sums)
        free(amp)
        free(gw)
