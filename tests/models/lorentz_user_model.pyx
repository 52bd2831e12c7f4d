# A user's kinematics built from vecampfit's vector3/vector4 block routines
# outside the package: for a three-body decay with final-state four-momenta
# p1, p2, p3 (blocks of 4 * VECTOR_LENGTH, component-major), the squared
# invariant mass m12^2 and the cosine of the helicity angle of particle 1 in
# the (12) rest frame, relative to the direction of the (12) system.
from cython cimport floating

from vecampfit.block cimport VECTOR_LENGTH
cimport vecampfit.vector3 as v3
cimport vecampfit.vector4 as v4

import numpy as np


cdef void helicity_block(floating *m12s, floating *cos_h, const floating *p1, const floating *p2,
                         const floating *p3) noexcept nogil:
    cdef floating r[4 * VECTOR_LENGTH]
    cdef floating p1r[4 * VECTOR_LENGTH]
    cdef floating mother[4 * VECTOR_LENGTH]
    cdef floating rr[4 * VECTOR_LENGTH]
    v4.add(r, p1, p2)
    v4.mass_squared(m12s, r)
    v4.add(mother, r, p3)
    # Everything in the mother rest frame, then particle 1 in the R rest frame.
    v4.boost_to_rest_frame(rr, r, mother)
    v4.boost_to_rest_frame(p1r, p1, mother)
    v4.boost_to_rest_frame(p1r, p1r, rr)
    v3.cos_angle(cos_h, p1r, rr)


cdef void run(const floating[:, ::1] p1, const floating[:, ::1] p2, const floating[:, ::1] p3,
              floating[::1] m12s, floating[::1] cos_h) noexcept nogil:
    cdef Py_ssize_t n = p1.shape[0], nb, b, i, c
    cdef floating a[4 * VECTOR_LENGTH]
    cdef floating bb[4 * VECTOR_LENGTH]
    cdef floating cc[4 * VECTOR_LENGTH]
    cdef floating om[VECTOR_LENGTH]
    cdef floating oc[VECTOR_LENGTH]
    for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
        b = nb * VECTOR_LENGTH
        for c in range(4):
            for i in range(VECTOR_LENGTH):
                # Padding lanes: particles at rest with unit mass (discarded).
                a[c * VECTOR_LENGTH + i] = p1[b + i, c] if b + i < n else (1 if c == 3 else 0)
                bb[c * VECTOR_LENGTH + i] = p2[b + i, c] if b + i < n else (1 if c == 3 else 0)
                cc[c * VECTOR_LENGTH + i] = p3[b + i, c] if b + i < n else (1 if c == 3 else 0)
        helicity_block(om, oc, a, bb, cc)
        for i in range(VECTOR_LENGTH):
            if b + i < n:
                m12s[b + i] = om[i]
                cos_h[b + i] = oc[i]


def helicity(floating[:, ::1] p1, floating[:, ::1] p2, floating[:, ::1] p3):
    dtype = np.float32 if floating is float else np.float64
    m12s = np.empty(p1.shape[0], dtype=dtype)
    cos_h = np.empty(p1.shape[0], dtype=dtype)
    cdef floating[::1] mv = m12s, cv = cos_h
    run(p1, p2, p3, mv, cv)
    return m12s, cos_h
