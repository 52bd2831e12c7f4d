# Block routines for linear interpolation of a tabulated function (the
# paper's VECAMPFIT_INTERPOLATION_#LENGTH#).
#
# A table is a list of n >= 2 values y[0..n-1] at nodes x[0] < ... < x[n-1],
# either uniformly spaced (x[k] = x_min + k (x_max - x_min) / (n - 1):
# interpolate_uniform) or arbitrary (interpolate).  Between nodes x[k] and
# x[k+1], with f = (x - x[k]) / (x[k+1] - x[k]),
#     y(x) = (1 - f) y[k] + f y[k+1],
# which is exact at the nodes.  Outside [x[0], x[n-1]] the argument `outside`
# chooses:
#     OUTSIDE_CLAMP        y[0] below the table, y[n-1] above it (computed as
#                          1 * y[0] + 0 * y[1]: an infinite neighbour gives NaN)
#     OUTSIDE_NAN          NaN
#     OUTSIDE_EXTRAPOLATE  the straight line through the first (last) two nodes
# A NaN argument gives NaN in every mode.  Nothing here raises; the table
# arguments are not checked (n >= 2, increasing nodes, x_max > x_min are
# preconditions; vecampfit.interpolation checks them for Python callers).
#
# Usage from a user's model:
#     from vecampfit.interpolation cimport interpolate_uniform, OUTSIDE_CLAMP
#     interpolate_uniform(out, m, table, n, m_min, m_max, inverse_step, OUTSIDE_CLAMP)
# with inverse_step = (n - 1) / (m_max - m_min) computed once (e.g. into a
# parameter buffer).
#
# interpolate_uniform finds the segment with one multiplication (no search, no
# branches);
# interpolate uses a binary search per lane (log2 n comparisons).

from cython cimport floating
from libc.math cimport INFINITY, NAN, floor, floorf

from vecampfit.block cimport VECTOR_LENGTH


cdef enum:
    OUTSIDE_CLAMP = 0
    OUTSIDE_NAN = 1
    OUTSIDE_EXTRAPOLATE = 2


cdef inline void interpolate_uniform(floating *out, const floating *x, const floating *table, int n,
                                     floating x_min, floating x_max, floating inverse_step,
                                     int outside) noexcept nogil:
    """Linear interpolation on the uniform grid x_min + k / inverse_step, k = 0 .. n-1.

    x_max must be the last node, x_min + (n - 1) / inverse_step, as given by
    the user (it decides which arguments are outside).
    """
    # Selects only, no branches over the outside mode: clamping is done on the
    # interpolation variable (f = 0 or 1 at the ends gives the end values exactly), NaN
    # results are added as NaN.  (gcc does not vectorize the lane loop: the table
    # lookups are gathers.)
    cdef int i, k
    cdef floating t, tc, ts, f, v, xi, kf, nan_add
    cdef floating last = n - 1
    cdef floating k_max = n - 2
    cdef bint nan_outside = outside == OUTSIDE_NAN
    cdef bint extrapolate = outside == OUTSIDE_EXTRAPOLATE
    cdef bint outside_table
    # Range of the interpolation variable: the table, or unlimited when extrapolating.
    cdef floating t_low = -INFINITY if extrapolate else 0
    cdef floating t_high = INFINITY if extrapolate else last
    for i in range(VECTOR_LENGTH):
        xi = x[i]
        t = (xi - x_min) * inverse_step
        t = last if xi == x_max else t     # exact at the last node
        # 0 <= tc <= n - 1, also for NaN (comparisons with NaN are false).
        tc = t if t > 0 else 0
        tc = tc if tc < last else last
        # Segment k = min(floor(tc), n - 2), selected in floating point.
        if floating is float:
            kf = floorf(tc)
        else:
            kf = floor(tc)
        kf = kf if kf < k_max else k_max
        k = <int>kf
        ts = t if t > t_low else t_low
        ts = ts if ts < t_high else t_high
        f = ts - kf
        v = (1 - f) * table[k] + f * table[k + 1]
        outside_table = (xi < x_min) | (xi > x_max)
        nan_add = <floating>NAN if (outside_table & nan_outside) | (xi != xi) else 0
        out[i] = v + nan_add


cdef inline int _segment(floating x, const floating *nodes, int n) noexcept nogil:
    """k in [0, n-2] with nodes[k] <= x < nodes[k+1] (clamped at both ends)."""
    cdef int lo = 0, hi = n - 1, mid
    while hi - lo > 1:
        mid = (lo + hi) >> 1
        if nodes[mid] <= x:
            lo = mid
        else:
            hi = mid
    return lo


cdef inline void interpolate(floating *out, const floating *x, const floating *nodes, const floating *table,
                             int n, int outside) noexcept nogil:
    """Linear interpolation on the increasing nodes nodes[0] < ... < nodes[n-1]."""
    cdef int i, k
    cdef floating f, v, xi
    for i in range(VECTOR_LENGTH):
        xi = x[i]
        if xi != xi:
            out[i] = xi
            continue
        if xi < nodes[0] or xi > nodes[n - 1]:
            if outside == OUTSIDE_CLAMP:
                out[i] = table[0] if xi < nodes[0] else table[n - 1]
                continue
            elif outside == OUTSIDE_NAN:
                out[i] = NAN
                continue
        if xi == nodes[n - 1]:
            out[i] = table[n - 1]
            continue
        k = _segment(xi, nodes, n)
        f = (xi - nodes[k]) / (nodes[k + 1] - nodes[k])
        v = (1 - f) * table[k] + f * table[k + 1]
        out[i] = v
