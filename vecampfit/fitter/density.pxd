# The model protocol: how a compiled Cython model describes itself to the
# fitter (vecampfit.fitter.Density.from_model reads it; the user never types
# a size, an offset or a vector length).
#
# A model module, written once with fused `floating` and compiled per vector
# length by vecampfit.model_compiler.compile_model, defines
#
#     PARAMETERS = ("M", "G")         # names of params[], in order
#     EVENT_FIELDS = ("m",)           # fields of one event block, in struct order
#     CONSTANTS = {"M_A": 0.13957}    # named constants and defaults, in order
#
#     cdef enum:
#         N_PARAMETERS = 2
#         N_EVENT_FIELDS = 1
#         PARAMETER_BUFFER_SIZE = 4
#         N_CONSTANTS = 1
#
# and up to three C functions over one block of L = VECTOR_LENGTH events:
#
#     void fill_parameter_buffer(T *buffer, const T *params,
#                                const double *constants) noexcept nogil
#         writes buffer[0 .. PARAMETER_BUFFER_SIZE) from the parameters and the
#         model constants (float64 whatever T), once per likelihood call;
#     void density(T *out, const void *event_block, const T *params,
#                  const void *parameter_buffer) noexcept nogil
#         writes out[0 .. L);
#     void density_gradient(T *out, T *gradient, const void *event_block,
#                           const T *params, const void *parameter_buffer) noexcept nogil
#         also writes gradient[k * L + i] = d out[i] / d params[k] for every
#         k < N_PARAMETERS.
#
# and exports them with
#
#     from vecampfit.fitter.density cimport model_description
#     def vecampfit_model():
#         return model_description(PARAMETERS, EVENT_FIELDS, CONSTANTS,
#                                  N_PARAMETERS, N_EVENT_FIELDS, PARAMETER_BUFFER_SIZE,
#                                  N_CONSTANTS,
#                                  density[double], density[float],
#                                  density_gradient[double], density_gradient[float],
#                                  fill_parameter_buffer[double], fill_parameter_buffer[float])
#
# (NULL for a function the model does not have; a precision whose density is
# NULL is not offered).  model_description checks the Python-level names
# against the C counts, so that the two declarations cannot drift apart, and
# records the vector length of the compilation.  Each function is handed over
# in a PyCapsule whose name records its kind, precision and L ("vecampfit
# density float64 L=8"); the fitter checks all three.  A module may also
# define, at Python level, fill_event_buffer(records, constants) -> dict of
# field arrays (constants: dict name -> float).
#
# Model constants are inputs of the filler, never C globals: two densities
# made from one module with different constants do not see each other.
#
# A model may also offer the gradient summed over its events,
#
#     void density_gradient_sum(T *out, double *sums, const double *factor,
#                               const void *event_block, const T *params,
#                               const void *parameter_buffer) noexcept nogil
#         writes out[0 .. L) as density does and adds
#         sums[k * L + i] += factor[i] * d out[i] / d params[k]
#         for every k < N_PARAMETERS and i < L
#         (as add_product, below, adds it: then with factors other than 1 the
#         sums are the same to the bit as the fitter's from density_gradient),
#
# exported with gradient_sum_functions (below) as description["gradient_sums"].
# The fitter's sums overlap nothing else the function is given, so it may
# declare the argument ``restricted_sums sums`` (below), as generated models
# do: the compiler may then keep reading the events and the parameter buffer
# while it adds to the sums, and vectorize such a loop.
# The normalization sums of the likelihood then call it instead of
# density_gradient: a model that forms a gradient row by row adds it where it
# forms it, instead of storing it for the fitter to add.  It must add exactly
# what density_gradient writes (checked once per density and event buffer).
#
# A model whose amplitude is a sum of components, A = sum_k c_k X_k with
# S = |A|^2, may also describe its components (component_description, at
# the end of this file): then a fit in which only the couplings move
# evaluates the likelihood from the cached X_k (vecampfit.fitter.components).

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
    static const char vecampfit_capsule_gradient_sum_float32[] = "vecampfit density_gradient_sum float32" VECAMPFIT_CAPSULE_L;
    static const char vecampfit_capsule_gradient_sum_float64[] = "vecampfit density_gradient_sum float64" VECAMPFIT_CAPSULE_L;
    static const char vecampfit_capsule_components_float32[] = "vecampfit components float32" VECAMPFIT_CAPSULE_L;
    static const char vecampfit_capsule_components_float64[] = "vecampfit components float64" VECAMPFIT_CAPSULE_L;
    static const int vecampfit_capsule_vector_length = VECAMPFIT_VECTOR_LENGTH;
    #endif
    """
    const char *_NAME_DENSITY_FLOAT32 "vecampfit_capsule_density_float32"
    const char *_NAME_DENSITY_FLOAT64 "vecampfit_capsule_density_float64"
    const char *_NAME_GRADIENT_FLOAT32 "vecampfit_capsule_gradient_float32"
    const char *_NAME_GRADIENT_FLOAT64 "vecampfit_capsule_gradient_float64"
    const char *_NAME_FILL_FLOAT32 "vecampfit_capsule_fill_float32"
    const char *_NAME_FILL_FLOAT64 "vecampfit_capsule_fill_float64"
    const char *_NAME_GRADIENT_SUM_FLOAT32 "vecampfit_capsule_gradient_sum_float32"
    const char *_NAME_GRADIENT_SUM_FLOAT64 "vecampfit_capsule_gradient_sum_float64"
    const char *_NAME_COMPONENTS_FLOAT32 "vecampfit_capsule_components_float32"
    const char *_NAME_COMPONENTS_FLOAT64 "vecampfit_capsule_components_float64"
    const int _CAPSULE_VECTOR_LENGTH "vecampfit_capsule_vector_length"

# acc + w g, the one way a weighted term is added to a sum, by the fitter's
# kernels and by generated models alike: with one rounding (a fused
# multiply-add) where the target has one, else with two.  Compilers fuse such
# expressions or not depending on flags and context; written through this
# macro the two sides add the same bits.
cdef extern from *:
    """
    #ifndef VECAMPFIT_ADD_PRODUCT
    #if defined(__FMA__) || defined(__FMA4__) || defined(__ARM_FEATURE_FMA)
    #define VECAMPFIT_ADD_PRODUCT(acc, w, g) __builtin_fma((w), (g), (acc))
    #else
    #define VECAMPFIT_ADD_PRODUCT(acc, w, g) ((acc) + (w) * (g))
    #endif
    #endif
    """
    double add_product "VECAMPFIT_ADD_PRODUCT"(double acc, double w, double g) noexcept nogil

# The sums argument of a model's density_gradient_sum, restrict-qualified:
# nothing else the function reads (the events, the parameters, the parameter
# buffer, the factors) or writes (out) overlaps the sums.  The function's type
# is still density_gradient_sum_function_* (C ignores a parameter's
# qualifiers in a function's type).
cdef extern from *:
    ctypedef double *restricted_sums "double *__restrict__"

ctypedef void (*density_function_float32)(float *, const void *, const float *, const void *) noexcept nogil
ctypedef void (*density_function_float64)(double *, const void *, const double *, const void *) noexcept nogil
ctypedef void (*density_gradient_function_float32)(float *, float *, const void *, const float *, const void *) noexcept nogil
ctypedef void (*density_gradient_function_float64)(double *, double *, const void *, const double *, const void *) noexcept nogil
ctypedef void (*density_gradient_sum_function_float32)(float *, double *, const double *, const void *, const float *, const void *) noexcept nogil
ctypedef void (*density_gradient_sum_function_float64)(double *, double *, const double *, const void *, const double *, const void *) noexcept nogil
ctypedef void (*fill_parameter_buffer_function_float32)(float *, const float *, const double *) noexcept nogil
ctypedef void (*fill_parameter_buffer_function_float64)(double *, const double *, const double *) noexcept nogil

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


cdef inline object _declared_names(object names, Py_ssize_t count, str what):
    names = tuple(names)
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"model {what}: {name!r} is not a str")
    if len(names) != count:
        raise ValueError(f"model declares {len(names)} {what} in Python "
                         f"({', '.join(names)}) but {count} in C")
    if len(set(names)) != len(names):
        raise ValueError(f"model {what} {names} contain a name twice")
    return names


cdef inline object _precision_functions(density_function density,
                                        density_gradient_function gradient,
                                        fill_parameter_buffer_function fill):
    """The block functions of one precision (``model_description``'s
    ``functions[precision]``): scipy.LowLevelCallables by kind, None for a
    gradient or a filler that is NULL."""
    return {
        "density": density_callable(density),
        "density_gradient": density_gradient_callable(gradient) if gradient != NULL else None,
        "fill_parameter_buffer": (fill_parameter_buffer_callable(fill) if fill != NULL
                                  else None),
    }


cdef inline object model_description(
        object parameters, object event_fields, object constants,
        Py_ssize_t n_parameters, Py_ssize_t n_event_fields,
        Py_ssize_t parameter_buffer_size, Py_ssize_t n_constants,
        density_function_float64 density_float64, density_function_float32 density_float32,
        density_gradient_function_float64 gradient_float64,
        density_gradient_function_float32 gradient_float32,
        fill_parameter_buffer_function_float64 fill_float64,
        fill_parameter_buffer_function_float32 fill_float32):
    """What the fitter needs to know about a compiled model (see the top of
    this file): a dict with ``protocol``, ``parameters``, ``event_fields``,
    ``constants`` (name -> default), ``parameter_buffer_size``,
    ``vector_length`` and ``functions`` (precision -> kind -> capsule or
    None).  Raises ValueError if the Python-level names disagree with the C
    counts."""
    parameters = _declared_names(parameters, n_parameters, "parameters")
    event_fields = _declared_names(event_fields, n_event_fields, "event fields")
    constants = dict(constants) if constants is not None else {}
    _declared_names(constants.keys(), n_constants, "constants")
    constants = {name: float(value) for name, value in constants.items()}
    if parameter_buffer_size < 0:
        raise ValueError(f"model declares a negative parameter-buffer size "
                         f"({parameter_buffer_size})")
    if ((fill_float64 == NULL and density_float64 != NULL)
            or (fill_float32 == NULL and density_float32 != NULL)):
        if parameter_buffer_size > 0:
            raise ValueError(f"model declares a parameter buffer of {parameter_buffer_size} "
                             f"elements but no function that fills it")
        if n_constants > 0:
            raise ValueError(f"model declares constants {tuple(constants)} but no "
                             f"parameter-buffer filler that receives them")
    functions = {}
    if density_float64 != NULL:
        functions["float64"] = _precision_functions(density_float64, gradient_float64,
                                                    fill_float64)
    if density_float32 != NULL:
        functions["float32"] = _precision_functions(density_float32, gradient_float32,
                                                    fill_float32)
    if not functions:
        raise ValueError("model has no density function")
    return {"protocol": 1, "parameters": parameters, "event_fields": event_fields,
            "constants": constants, "parameter_buffer_size": parameter_buffer_size,
            "vector_length": _CAPSULE_VECTOR_LENGTH, "functions": functions}


cdef inline object _by_precision(void *float64, const char *name64, void *float32,
                                 const char *name32):
    """Two functions by precision as scipy.LowLevelCallables with the
    capsule names given; a NULL function is left out."""
    functions = {}
    if float64 != NULL:
        functions["float64"] = _low_level_callable(float64, name64)
    if float32 != NULL:
        functions["float32"] = _low_level_callable(float32, name32)
    return functions


cdef inline object gradient_sum_functions(density_gradient_sum_function_float64 sum_float64,
                                          density_gradient_sum_function_float32 sum_float32):
    """The density_gradient_sum functions by precision (a model's
    ``description["gradient_sums"]``), named "vecampfit density_gradient_sum
    PRECISION L=N"; a NULL function is left out."""
    return _by_precision(<void *> sum_float64, _NAME_GRADIENT_SUM_FLOAT64,
                         <void *> sum_float32, _NAME_GRADIENT_SUM_FLOAT32)


cdef inline object _components_callables(density_function_float64 components_float64,
                                         density_function_float32 components_float32):
    """Component functions (all components or one) by precision, as
    scipy.LowLevelCallables named as such; a NULL function is left out."""
    return _by_precision(<void *> components_float64, _NAME_COMPONENTS_FLOAT64,
                         <void *> components_float32, _NAME_COMPONENTS_FLOAT32)


cdef inline object single_component_functions(density_function_float64 component_float64,
                                              density_function_float32 component_float32):
    """One component's block function alone, by precision (an element of
    ``component_description``'s ``single``): it writes X_k of lane i to
    out[i] (real part) and out[L + i] (imaginary part)."""
    return _components_callables(component_float64, component_float32)


cdef inline object component_description(
        object names, object couplings, Py_ssize_t n_components,
        density_function_float64 components_float64,
        density_function_float32 components_float32,
        object depends=None, object single=None):
    """The components of a model whose amplitude is A = sum_k c_k X_k and
    density S = |A|^2, for the fitter's cached evaluation (add it to the
    model's description as ``description["components"]``).

    ``names``: one name per component; ``couplings``: per component
    ``("polar_degrees", magnitude, phase)`` (degrees), ``("polar_radians",
    magnitude, phase)`` (radians) or ``("cartesian", real, imaginary)``, each a parameter name
    or a number, or ``("fixed", real, imaginary)``, optionally with a fourth
    element, a scale (a number or the name of a model constant) that
    multiplies the coupling; the functions have the
    signature of a density and write X_k of lane i to out[2 k L + i] (real
    part) and out[(2 k + 1) L + i] (imaginary part), without the coupling.

    Optional, for fits in which masses, widths or other parameters of the
    X_k move: ``depends``, per component the names of the parameters its
    X_k depends on, and ``single``, per component its function alone
    (``single_component_functions``).  With both, the fitter recomputes only
    the components whose parameters moved; without them, all of them.
    """
    names = _declared_names(names, n_components, "components")
    couplings = tuple([tuple(c) for c in couplings])
    if len(couplings) != n_components:
        raise ValueError(f"model declares {len(couplings)} couplings for {n_components} "
                         f"components")
    desc = {"names": names, "couplings": couplings, "vector_length": _CAPSULE_VECTOR_LENGTH,
            "functions": _components_callables(components_float64, components_float32)}
    if (depends is None) != (single is None):
        raise ValueError("model components: give both depends and single, or neither")
    if depends is not None:
        depends = tuple([tuple(d) for d in depends])
        single = list(single)
        if len(depends) != n_components or len(single) != n_components:
            raise ValueError(f"model components: {len(depends)} depends and {len(single)} "
                             f"single functions for {n_components} components")
        desc["depends"] = depends
        desc["single"] = single
    return desc
