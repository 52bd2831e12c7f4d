# Likelihood kernels of the fitter: loops over event blocks without the GIL.
#
# The events of one density live in a buffer of blocks (structure of arrays):
# row b of `events` (shape (n_blocks, n_fields * L)) is the C struct that the
# density receives for block b.  The loops run over chunks of a fixed number
# of blocks in an OpenMP `prange` (handed out dynamically, so that a thread
# slowed by other load does not hold up the call); every chunk writes its own
# partial sums, and the caller adds the chunks in index order, so that the
# result does not depend on the number of threads or on the schedule.  The
# rows of partial sums start on cache lines of their own (see
# likelihood._chunk_partials), so that threads do not share lines.  Lanes of the padded last block (event
# index >= n_events) are evaluated but never added.  All sums are in double
# precision, also for float32 densities.
#
# Invalid values never raise here (no Python inside nogil code): each chunk
# records the first event at which a density is NaN, infinite or negative, or
# at which the likelihood argument is not positive, and the caller raises.

cimport cython
from cython cimport floating
from cython.parallel cimport parallel, prange
from cpython.pycapsule cimport PyCapsule_GetName, PyCapsule_GetPointer, PyCapsule_CheckExact
from libc.math cimport log, isfinite
from libc.stdint cimport uintptr_t
from libc.stdlib cimport calloc, free, malloc

ctypedef void (*density_float32)(float *, const void *, const float *, const void *) noexcept nogil
ctypedef void (*density_float64)(double *, const void *, const double *, const void *) noexcept nogil
ctypedef void (*gradient_float32)(float *, float *, const void *, const float *, const void *) noexcept nogil
ctypedef void (*gradient_float64)(double *, double *, const void *, const double *, const void *) noexcept nogil
ctypedef void (*fill_float32)(float *, const float *) noexcept nogil
ctypedef void (*fill_float64)(double *, const double *) noexcept nogil

# Values of the `bad` arrays: no problem, or a memory-allocation failure.
cdef enum:
    NO_PROBLEM = -1
    ALLOCATION_FAILED = -2


def capsule_pointer(capsule):
    """Address of the C function in a PyCapsule, as an int."""
    if not PyCapsule_CheckExact(capsule):
        raise TypeError(f"expected a PyCapsule, got {type(capsule).__name__}")
    return <uintptr_t> PyCapsule_GetPointer(capsule, PyCapsule_GetName(capsule))


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


def fill_parameter_buffer(uintptr_t function, floating[::1] buffer, floating[::1] params):
    """Call a C parameter-buffer filler ``f(buffer, params)``."""
    cdef floating *b = &buffer[0] if buffer.shape[0] > 0 else NULL
    with nogil:
        if floating is double:
            (<fill_float64> function)(b, &params[0])
        else:
            (<fill_float32> function)(b, &params[0])


cdef inline bint _invalid(double v) noexcept nogil:
    return not isfinite(v) or v < 0


cdef void _values_chunk(Py_ssize_t c, Py_ssize_t chunk_blocks, Py_ssize_t n_blocks,
                        Py_ssize_t n_events, int L, Py_ssize_t row, const char *events,
                        uintptr_t func, const floating *params, const void *pbuf,
                        floating *values) noexcept nogil:
    cdef Py_ssize_t b
    for b in range(c * chunk_blocks, min((c + 1) * chunk_blocks, n_blocks)):
        _density(values + b * L, func, events + b * row, params, pbuf)


def density_values(const floating[:, ::1] events, Py_ssize_t n_events, int vector_length,
                   floating[::1] params, uintptr_t parameter_buffer, uintptr_t function,
                   floating[::1] values, Py_ssize_t chunk_blocks, int n_threads):
    """Density at every event (padding lanes included) into ``values``.

    ``values`` has ``n_blocks * L`` elements.
    """
    cdef Py_ssize_t n_blocks = events.shape[0]
    cdef Py_ssize_t n_chunks = (n_blocks + chunk_blocks - 1) // chunk_blocks
    cdef Py_ssize_t row = events.shape[1] * sizeof(floating)
    cdef Py_ssize_t c
    cdef int L = vector_length
    if values.shape[0] < n_blocks * L:
        raise ValueError("values array too short")
    if n_blocks == 0:
        return
    cdef const char *ev = <const char *> &events[0, 0]
    cdef floating *p = &params[0]
    cdef floating *v = &values[0]
    with nogil:
        for c in prange(n_chunks, schedule='dynamic', num_threads=n_threads):
            _values_chunk(c, chunk_blocks, n_blocks, n_events, L, row, ev, function, p,
                          <const void *> parameter_buffer, v)


cdef inline void _accumulate_lanes(double *acc, const floating *g, const double *factor,
                                   int n_grad, int L, Py_ssize_t n_valid) noexcept nogil:
    """acc[a * L + i] += factor[i] g[a * L + i] for the valid lanes.

    Per-lane accumulators keep the lanes independent, so that the loop
    vectorizes (a running sum over the lanes is a chain of dependent
    additions); the caller adds the lanes in a fixed order.
    """
    cdef Py_ssize_t a
    cdef int i
    for a in range(n_grad):
        for i in range(n_valid):
            acc[a * L + i] += factor[i] * g[a * L + i]


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


cdef inline bint _block_valid(const floating *out, Py_ssize_t n) noexcept nogil:
    """Whether out[0..n) are all finite and non-negative (branch-free, vectorizes)."""
    cdef int ok = 1
    cdef Py_ssize_t i
    for i in range(n):
        # v - v is NaN for infinities; NaN fails both comparisons.
        ok = ok & (out[i] >= 0) & (out[i] - out[i] == 0)
    return ok


cdef void _normalization_chunk(
        Py_ssize_t c, Py_ssize_t chunk_blocks, Py_ssize_t n_blocks, Py_ssize_t n_events, int L,
        Py_ssize_t row, const char *events, uintptr_t func, uintptr_t grad_func, int n_grad,
        const floating *params, const void *pbuf, const double *weights,
        floating *out, floating *g, double *acc, double *wl, double *partial,
        Py_ssize_t *bad) noexcept nogil:
    """partial[0] = sum_j w_j S_j, partial[1 + a] = sum_j w_j dS_j/dp_a over the chunk.

    ``acc`` ((n_grad + 1) * L, zero on entry and on return) holds per-lane
    sums: of the gradient in its first n_grad * L elements, of w S in the
    last L.  ``wl`` (L) holds the weights of one block.  A block whose
    values are all valid (the usual case) is added by a loop without
    branches; a block with an invalid value is added lane by lane, and the
    first invalid event of the chunk is recorded in ``bad[c]``.
    """
    cdef Py_ssize_t b, j, a, n_valid
    cdef Py_ssize_t first_bad = NO_PROBLEM
    cdef int i
    cdef double *acc_value = acc + n_grad * L
    for a in range(1 + n_grad):
        partial[a] = 0
    if out == NULL or acc == NULL or wl == NULL or (n_grad > 0 and g == NULL):
        bad[c] = ALLOCATION_FAILED
        return
    for b in range(c * chunk_blocks, min((c + 1) * chunk_blocks, n_blocks)):
        if n_grad > 0:
            _gradient(out, g, grad_func, events + b * row, params, pbuf)
        else:
            _density(out, func, events + b * row, params, pbuf)
        n_valid = min(<Py_ssize_t> L, n_events - b * L)
        for i in range(n_valid):
            wl[i] = weights[b * L + i] if weights != NULL else 1.0
        if _block_valid(out, n_valid):
            for i in range(n_valid):
                acc_value[i] += wl[i] * out[i]
        else:
            for i in range(n_valid):
                if _invalid(out[i]):
                    if first_bad == NO_PROBLEM:
                        first_bad = b * L + i
                    wl[i] = 0
                else:
                    acc_value[i] += wl[i] * out[i]
        if n_grad > 0:
            _accumulate_lanes(acc, g, wl, n_grad, L, n_valid)
    _reduce_lanes(partial, acc_value, 1, L)
    if n_grad > 0:
        _reduce_lanes(partial + 1, acc, n_grad, L)
    bad[c] = first_bad


def normalization_sums(const floating[:, ::1] events, Py_ssize_t n_events, int vector_length,
                       floating[::1] params, uintptr_t parameter_buffer, uintptr_t function,
                       uintptr_t gradient_function, int n_gradient, const double[::1] weights,
                       double[:, ::1] partials, Py_ssize_t[::1] bad, Py_ssize_t chunk_blocks,
                       int n_threads):
    """Per-chunk sums of w_j S_j and (with a gradient function) of w_j dS_j/dp.

    ``partials`` has shape (n_chunks, 1 + n_gradient); ``bad[c]`` receives
    the first invalid event of chunk ``c``, -1 if none, -2 if a work array
    could not be allocated.  ``weights`` may be empty (unit weights).
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
    cdef floating *out
    cdef floating *g
    cdef double *acc
    cdef double *wl
    with nogil, parallel(num_threads=n_threads):
        out = <floating *> malloc(L * sizeof(floating))
        g = <floating *> malloc((n_grad if n_grad > 0 else 1) * L * sizeof(floating))
        acc = <double *> calloc((n_grad + 1) * L, sizeof(double))
        wl = <double *> malloc(L * sizeof(double))
        for c in prange(n_chunks, schedule='dynamic'):
            _normalization_chunk(c, chunk_blocks, n_blocks, n_events, L, row, ev, function,
                                 gradient_function, n_grad, p, <const void *> parameter_buffer,
                                 w, out, g, acc, wl, part + c * stride, bd)
        free(out)
        free(g)
        free(acc)
        free(wl)


cdef void _data_chunk(
        Py_ssize_t c, Py_ssize_t chunk_blocks, Py_ssize_t n_blocks, Py_ssize_t n_events, int L,
        Py_ssize_t row, const char *events, uintptr_t func, uintptr_t grad_func, int n_grad,
        const floating *params, const void *pbuf, const double *weights,
        const double *background, Py_ssize_t n_background, Py_ssize_t background_stride,
        double signal_scale, const double *fractions,
        floating *out, floating *g, double *r, double *acc, double *partial,
        Py_ssize_t n_columns, Py_ssize_t *bad) noexcept nogil:
    """Chunk sums of the data term; see data_sums for the columns.

    ``acc`` (n_grad * L, zero on entry and on return) holds per-lane sums of
    r_i dS_i/dp_a.
    """
    cdef Py_ssize_t b, j, a, k, n_valid
    cdef Py_ssize_t first_bad = NO_PROBLEM
    cdef int i
    cdef double w, v, term, s0, s1, s
    for a in range(n_columns):
        partial[a] = 0
    if out == NULL or g == NULL or r == NULL or (n_grad > 0 and acc == NULL):
        bad[c] = ALLOCATION_FAILED
        return
    for b in range(c * chunk_blocks, min((c + 1) * chunk_blocks, n_blocks)):
        if n_grad > 0:
            _gradient(out, g, grad_func, events + b * row, params, pbuf)
        else:
            _density(out, func, events + b * row, params, pbuf)
        n_valid = min(<Py_ssize_t> L, n_events - b * L)
        s0 = 0
        s1 = 0
        for i in range(n_valid):
            j = b * L + i
            v = out[i]
            term = signal_scale * v
            for k in range(n_background):
                term = term + fractions[k] * background[k * background_stride + j]
            if _invalid(v) or not (term > 0) or not isfinite(term):
                if first_bad == NO_PROBLEM:
                    first_bad = j
                r[i] = 0
                continue
            w = weights[j] if weights != NULL else 1.0
            s0 += -2 * w * log(term)
            r[i] = -2 * w / term
            s1 += r[i] * v
        partial[0] += s0
        partial[1] += s1
        for k in range(n_background):
            s = 0
            for i in range(n_valid):
                s += r[i] * background[k * background_stride + b * L + i]
            partial[2 + k] += s
        if n_grad > 0:
            _accumulate_lanes(acc, g, r, n_grad, L, n_valid)
    if n_grad > 0:
        _reduce_lanes(partial + 2 + n_background, acc, n_grad, L)
    bad[c] = first_bad


def data_sums(const floating[:, ::1] events, Py_ssize_t n_events, int vector_length,
              floating[::1] params, uintptr_t parameter_buffer, uintptr_t function,
              uintptr_t gradient_function, int n_gradient, const double[::1] weights,
              const double[:, ::1] background, double signal_scale,
              const double[::1] background_fractions, double[:, ::1] partials,
              Py_ssize_t[::1] bad, Py_ssize_t chunk_blocks, int n_threads):
    """Per-chunk sums of the data part of F = sum_i -2 w_i ln(term_i).

    term_i = signal_scale * S_i + sum_k f_k b_ki with signal_scale = f_S / I_S
    and b_ki = B_k(Phi_i) / I_Bk (``background``, shape (n_background,
    n_blocks * L)).  With r_i = -2 w_i / term_i, the columns of ``partials``
    are: 0: sum -2 w_i ln term_i; 1: sum r_i S_i; 2 + k: sum r_i b_ki;
    2 + n_background + a: sum r_i dS_i/dp_a (with a gradient function).
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
    cdef floating *out
    cdef floating *g
    cdef double *r
    cdef double *acc
    with nogil, parallel(num_threads=n_threads):
        out = <floating *> malloc(L * sizeof(floating))
        g = <floating *> malloc((n_grad if n_grad > 0 else 1) * L * sizeof(floating))
        r = <double *> malloc(L * sizeof(double))
        acc = <double *> calloc((n_grad if n_grad > 0 else 1) * L, sizeof(double))
        for c in prange(n_chunks, schedule='dynamic'):
            _data_chunk(c, chunk_blocks, n_blocks, n_events, L, row, ev, function,
                        gradient_function, n_grad, p, <const void *> parameter_buffer, w,
                        bg, n_background, bg_stride, signal_scale, fr, out, g, r, acc,
                        part + c * stride, n_columns, bd)
        free(out)
        free(g)
        free(r)
        free(acc)
