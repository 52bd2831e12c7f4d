# A user's model outside the package built from vecampfit.quantum_mechanics
# block routines, both precisions: the angular part of a decay chain
#   A(theta) = sum_lambda c_lambda d^j_{lambda, mu}(theta),
# and whole-array drivers of the block d functions (used by the tests to check
# every vector length against the Python routines).
from cython cimport floating

cimport vecampfit.quantum_mechanics as qm
from vecampfit.block cimport VECTOR_LENGTH

import numpy as np

include "blocks.pxi"


cdef void run(int kind, int two_j, int two_m1, int two_m2, const floating[::1] a,
              const floating[::1] b, floating[::1] out) noexcept nogil:
    # kind 0: d_function(cos_half = a, sin_half = b), 1: d_function_cos_theta(a),
    # 2: d_function_scalar lane by lane
    cdef Py_ssize_t n = a.shape[0], nb, start, i
    cdef floating ab[VECTOR_LENGTH]
    cdef floating bb[VECTOR_LENGTH]
    cdef floating ob[VECTOR_LENGTH]
    for nb in range(n_blocks(n)):
        start = nb * VECTOR_LENGTH
        load_block(ab, a, start, 1)
        load_block(bb, b, start, 0)
        if kind == 0:
            qm.d_function(ob, two_j, two_m1, two_m2, ab, bb)
        elif kind == 1:
            qm.d_function_cos_theta(ob, two_j, two_m1, two_m2, ab)
        else:
            for i in range(VECTOR_LENGTH):
                ob[i] = qm.d_function_scalar(two_j, two_m1, two_m2, ab[i], bb[i])
        store_block(out, ob, start)


def d_function(int kind, int two_j, int two_m1, int two_m2, floating[::1] a, floating[::1] b):
    out = np.empty(a.shape[0], np.float32 if floating is float else np.float64)
    cdef floating[::1] o = out
    with nogil:
        run(kind, two_j, two_m1, two_m2, a, b, o)
    return out


cdef void angular_block(floating *out, const floating *cos_theta, int two_j, int two_mu,
                        const floating *c) noexcept nogil:
    cdef floating d[VECTOR_LENGTH]
    cdef int two_lam, i, k = 0
    for i in range(VECTOR_LENGTH):
        out[i] = 0
    for two_lam in range(-two_j, two_j + 1, 2):
        qm.d_function_cos_theta(d, two_j, two_lam, two_mu, cos_theta)
        for i in range(VECTOR_LENGTH):
            out[i] = out[i] + c[k] * d[i]
        k += 1


def angular_amplitude(floating[::1] cos_theta, int two_j, int two_mu, floating[::1] c):
    """sum over lambda = -j..j of c[k] d^j_{lambda mu}(theta), k = (lambda + j)."""
    cdef Py_ssize_t n = cos_theta.shape[0], nb, start
    cdef floating xb[VECTOR_LENGTH]
    cdef floating ob[VECTOR_LENGTH]
    out = np.empty(n, np.float32 if floating is float else np.float64)
    cdef floating[::1] o = out
    with nogil:
        for nb in range(n_blocks(n)):
            start = nb * VECTOR_LENGTH
            load_block(xb, cos_theta, start, 0)
            angular_block(ob, xb, two_j, two_mu, &c[0])
            store_block(o, ob, start)
    return out
