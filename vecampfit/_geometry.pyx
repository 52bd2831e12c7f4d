# Kernels behind vecampfit.geometry: the block routines of geometry.pxd over
# whole arrays, in blocks of VECTOR_LENGTH with a padded tail block.

from cython cimport floating

from vecampfit.block cimport VECTOR_LENGTH
from vecampfit.geometry cimport azimuthal_angle_difference, azimuthal_angle_difference_scalar


def azimuthal_angle_difference_kernel(const floating[::1] phi1, const floating[::1] phi2,
                                      floating[::1] out):
    cdef Py_ssize_t nb, n = phi1.shape[0], b, i, m
    cdef floating ab[VECTOR_LENGTH]
    cdef floating bb[VECTOR_LENGTH]
    cdef floating ob[VECTOR_LENGTH]
    with nogil:
        for nb in range((n + VECTOR_LENGTH - 1) // VECTOR_LENGTH):
            b = nb * VECTOR_LENGTH
            m = min(<Py_ssize_t>VECTOR_LENGTH, n - b)
            for i in range(VECTOR_LENGTH):
                ab[i] = phi1[b + i] if i < m else 0
                bb[i] = phi2[b + i] if i < m else 0
            azimuthal_angle_difference(ob, ab, bb)
            for i in range(m):
                out[b + i] = ob[i]


def scalar64(double phi1, double phi2):
    return azimuthal_angle_difference_scalar(phi1, phi2)


def scalar32(float phi1, float phi2):
    return azimuthal_angle_difference_scalar(phi1, phi2)
