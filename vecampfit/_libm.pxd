# The C library's sqrt, fabs, copysign and atan2 for the fused type ``floating``:
# the float versions (sqrtf, ...) for float, the double versions for double,
# so that a float32 routine never computes in double.  Private: shared by
# vecampfit's block-routine declarations (complex_vector, kinematics,
# high_energy_physics, mathematical_functions, quantum_mechanics, vector3);
# models use those modules.

from cython cimport floating
from libc.math cimport sqrt, sqrtf, fabs, fabsf, copysign, copysignf, atan2, atan2f


cdef inline floating _sqrt(floating x) noexcept nogil:
    if floating is float:
        return sqrtf(x)
    else:
        return sqrt(x)


cdef inline floating _fabs(floating x) noexcept nogil:
    if floating is float:
        return fabsf(x)
    else:
        return fabs(x)


cdef inline floating _copysign(floating x, floating y) noexcept nogil:
    if floating is float:
        return copysignf(x, y)
    else:
        return copysign(x, y)


cdef inline floating _atan2(floating y, floating x) noexcept nogil:
    if floating is float:
        return atan2f(y, x)
    else:
        return atan2(y, x)
