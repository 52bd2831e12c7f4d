# A user's model outside the package: an efficiency tabulated in m^2 on a
# uniform grid and a resolution width on arbitrary nodes, both interpolated
# with vecampfit.interpolation block routines.
from cython cimport floating

from vecampfit.block cimport VECTOR_LENGTH
from vecampfit.interpolation cimport interpolate, interpolate_uniform, OUTSIDE_CLAMP, OUTSIDE_NAN

import numpy as np


def evaluate(floating[::1] x, floating[::1] table, floating x_min, floating x_max,
             floating[::1] nodes, floating[::1] values):
    dtype = np.float32 if floating is float else np.float64
    cdef Py_ssize_t n = x.shape[0], nb, b, i
    out1 = np.empty(n, dtype)
    out2 = np.empty(n, dtype)
    cdef floating[::1] o1 = out1, o2 = out2
    cdef floating xb[VECTOR_LENGTH]
    cdef floating r1[VECTOR_LENGTH]
    cdef floating r2[VECTOR_LENGTH]
    cdef floating inverse_step = (table.shape[0] - 1) / (x_max - x_min)
    with nogil:
        for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
            b = nb * VECTOR_LENGTH
            for i in range(VECTOR_LENGTH):
                xb[i] = x[b + i] if b + i < n else x_min
            interpolate_uniform(r1, xb, &table[0], table.shape[0], x_min, x_max, inverse_step, OUTSIDE_CLAMP)
            interpolate(r2, xb, &nodes[0], &values[0], nodes.shape[0], OUTSIDE_NAN)
            for i in range(VECTOR_LENGTH):
                if b + i < n:
                    o1[b + i] = r1[i]
                    o2[b + i] = r2[i]
    return out1, out2
