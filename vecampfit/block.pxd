"""Block types of vecampfit: the vector length and the complex vectors.

A module that cimports this file is compiled for one vector length ``L``
(the C macro ``VECAMPFIT_VECTOR_LENGTH``, visible here as ``VECTOR_LENGTH``);
:func:`vecampfit.model_compiler.compile_model` compiles a user's model once
per length.  Within one compilation, the precision is a Cython fused type:
``floating`` (``float`` or ``double``) for real vectors, which are plain C
arrays ``floating x[VECTOR_LENGTH]``, and ``complex_vector`` for complex
vectors, whose specializations are ``complex_vector_float32`` and
``complex_vector_float64`` with separate ``re[L]`` and ``im[L]`` arrays.

Gradients are arrays of real vectors, laid out as ``[n_parameters][L]``:
element ``i`` of the derivative with respect to parameter ``p`` is
``gradient[p * VECTOR_LENGTH + i]``.
"""

from cython cimport floating

cdef extern from "vecampfit/block.h" nogil:
    # The vector length L of this compilation (a compile-time C constant).
    enum: VECTOR_LENGTH "VECAMPFIT_VECTOR_LENGTH"

    ctypedef struct complex_vector_float32 "vecampfit_complex_vector_float32":
        float re[VECTOR_LENGTH]
        float im[VECTOR_LENGTH]

    ctypedef struct complex_vector_float64 "vecampfit_complex_vector_float64":
        double re[VECTOR_LENGTH]
        double im[VECTOR_LENGTH]

# A complex vector of either precision: structure of arrays, L lanes.
ctypedef fused complex_vector:
    complex_vector_float32
    complex_vector_float64
