# C function types of vecampfit densities, and the capsules that hand them to
# the fitter (vecampfit.fitter.Density accepts the scipy.LowLevelCallable
# these return).
#
# A density over one block of L = VECTOR_LENGTH events:
#     void density(T *out, const void *event_block, const T *params,
#                  const void *parameter_buffer) noexcept nogil
# writes out[0..L-1].  The gradient form
#     void density_gradient(T *out, T *gradient, const void *event_block,
#                           const T *params, const void *parameter_buffer) noexcept nogil
# also writes gradient[p * L + i] = d out[i] / d params[p] for the first
# n_gradient_parameters parameters.  A parameter-buffer filler
#     void fill_parameter_buffer(T *buffer, const T *params) noexcept nogil
# writes what depends on the parameters only, once per likelihood call.
#
# In a user's model, written once with fused `floating`:
#     from vecampfit.fitter.density cimport density_callable
#     SIGNAL_FLOAT64 = density_callable(signal_density[double])
#     SIGNAL_FLOAT32 = density_callable(signal_density[float])
# The capsule's name records the precision and the vector length the module
# was compiled for ("vecampfit density float64 L=8"); the fitter checks both.

from cpython.pycapsule cimport PyCapsule_New

cdef extern from *:
    """
    #ifndef VECAMPFIT_DENSITY_CAPSULE_NAMES
    #define VECAMPFIT_DENSITY_CAPSULE_NAMES
    #ifndef VECAMPFIT_VECTOR_LENGTH
    #error "VECAMPFIT_VECTOR_LENGTH is not defined: compile with vecampfit.model_compiler.compile_model"
    #endif
    #define VECAMPFIT_CAPSULE_STR2(x) #x
    #define VECAMPFIT_CAPSULE_STR(x) VECAMPFIT_CAPSULE_STR2(x)
    #define VECAMPFIT_CAPSULE_L " L=" VECAMPFIT_CAPSULE_STR(VECAMPFIT_VECTOR_LENGTH)
    static const char vecampfit_capsule_density_float32[] = "vecampfit density float32" VECAMPFIT_CAPSULE_L;
    static const char vecampfit_capsule_density_float64[] = "vecampfit density float64" VECAMPFIT_CAPSULE_L;
    static const char vecampfit_capsule_gradient_float32[] = "vecampfit density_gradient float32" VECAMPFIT_CAPSULE_L;
    static const char vecampfit_capsule_gradient_float64[] = "vecampfit density_gradient float64" VECAMPFIT_CAPSULE_L;
    static const char vecampfit_capsule_fill_float32[] = "vecampfit fill_parameter_buffer float32" VECAMPFIT_CAPSULE_L;
    static const char vecampfit_capsule_fill_float64[] = "vecampfit fill_parameter_buffer float64" VECAMPFIT_CAPSULE_L;
    #endif
    """
    const char *_NAME_DENSITY_FLOAT32 "vecampfit_capsule_density_float32"
    const char *_NAME_DENSITY_FLOAT64 "vecampfit_capsule_density_float64"
    const char *_NAME_GRADIENT_FLOAT32 "vecampfit_capsule_gradient_float32"
    const char *_NAME_GRADIENT_FLOAT64 "vecampfit_capsule_gradient_float64"
    const char *_NAME_FILL_FLOAT32 "vecampfit_capsule_fill_float32"
    const char *_NAME_FILL_FLOAT64 "vecampfit_capsule_fill_float64"

ctypedef void (*density_function_float32)(float *, const void *, const float *, const void *) noexcept nogil
ctypedef void (*density_function_float64)(double *, const void *, const double *, const void *) noexcept nogil
ctypedef void (*density_gradient_function_float32)(float *, float *, const void *, const float *, const void *) noexcept nogil
ctypedef void (*density_gradient_function_float64)(double *, double *, const void *, const double *, const void *) noexcept nogil
ctypedef void (*fill_parameter_buffer_function_float32)(float *, const float *) noexcept nogil
ctypedef void (*fill_parameter_buffer_function_float64)(double *, const double *) noexcept nogil

ctypedef fused density_function:
    density_function_float32
    density_function_float64

ctypedef fused density_gradient_function:
    density_gradient_function_float32
    density_gradient_function_float64

ctypedef fused fill_parameter_buffer_function:
    fill_parameter_buffer_function_float32
    fill_parameter_buffer_function_float64


cdef inline object _low_level_callable(void *pointer, const char *name):
    from scipy import LowLevelCallable
    return LowLevelCallable(PyCapsule_New(pointer, name, NULL))


cdef inline object density_callable(density_function f):
    """scipy.LowLevelCallable of a block density, named with precision and L."""
    if density_function is density_function_float64:
        return _low_level_callable(<void *> f, _NAME_DENSITY_FLOAT64)
    else:
        return _low_level_callable(<void *> f, _NAME_DENSITY_FLOAT32)


cdef inline object density_gradient_callable(density_gradient_function f):
    """scipy.LowLevelCallable of a block density with gradient."""
    if density_gradient_function is density_gradient_function_float64:
        return _low_level_callable(<void *> f, _NAME_GRADIENT_FLOAT64)
    else:
        return _low_level_callable(<void *> f, _NAME_GRADIENT_FLOAT32)


cdef inline object fill_parameter_buffer_callable(fill_parameter_buffer_function f):
    """scipy.LowLevelCallable of a parameter-buffer filler."""
    if fill_parameter_buffer_function is fill_parameter_buffer_function_float64:
        return _low_level_callable(<void *> f, _NAME_FILL_FLOAT64)
    else:
        return _low_level_callable(<void *> f, _NAME_FILL_FLOAT32)
