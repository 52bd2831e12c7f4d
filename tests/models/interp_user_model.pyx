# A user's model outside the package: an efficiency tabulated in m^2 on a
# uniform grid and a resolution width on arbitrary nodes, both interpolated
# with vecampfit.interpolation block routines.
from cython cimport floating

from vecampfit.block cimport VECTOR_LENGTH
from vecampfit.interpolation cimport interpolate, interpolate_uniform, OUTSIDE_CLAMP, OUTSIDE_NAN

import numpy as np

include "blocks.pxi"


def evaluate(floating[::1] x, floating[::1] table, floating x_min, floating x_max,
             floating[::1] nodes, floating[::1] values):
    dtype = np.float32 if floating is float else np.float64
    cdef Py_ssize_t n = x.shape[0], nb, b
    out1 = np.empty(n, dtype)
    out2 = np.empty(n, dtype)
    cdef floating[::1] o1 = out1, o2 = out2
    cdef floating xb[VECTOR_LENGTH]
    cdef floating r1[VECTOR_LENGTH]
    cdef floating r2[VECTOR_LENGTH]
    cdef floating inverse_step = (table.shape[0] - 1) / (x_max - x_min)
    with nogil:
        for nb in range(n_blocks(n)):
            b = nb * VECTOR_LENGTH
            load_block(xb, x, b, x_min)
            interpolate_uniform(r1, xb, &table[0], table.shape[0], x_min, x_max, inverse_step, OUTSIDE_CLAMP)
            interpolate(r2, xb, &nodes[0], &values[0], nodes.shape[0], OUTSIDE_NAN)
            store_block(o1, r1, b)
            store_block(o2, r2, b)
    return out1, out2
