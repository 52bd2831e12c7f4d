# The C library's sqrt, fabs, copysign, atan2, fmax, sin and cos for the fused type ``floating``:
# the float versions (sqrtf, ...) for float, the double versions for double,
# so that a float32 routine never computes in double.  Private: shared by
# vecampfit's block-routine declarations (complex_vector, kinematics,
# high_energy_physics, mathematical_functions, quantum_mechanics, vector3) and the code
# the expression layer prints;
# models use those modules.

from cython cimport floating
from libc.math cimport (sqrt, sqrtf, fabs, fabsf, copysign, copysignf, atan2, atan2f, fmax,
                        fmaxf, sin, sinf, cos, cosf)


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


cdef inline floating _fmax(floating x, floating y) noexcept nogil:
    if floating is float:
        return fmaxf(x, y)
    else:
        return fmax(x, y)


cdef inline floating _sin(floating x) noexcept nogil:
    if floating is float:
        return sinf(x)
    else:
        return sin(x)


cdef inline floating _cos(floating x) noexcept nogil:
    if floating is float:
        return cosf(x)
    else:
        return cos(x)
