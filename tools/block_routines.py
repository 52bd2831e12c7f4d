"""The block routines that vecampfit offers over numpy arrays.

Each entry names a block routine of ``vecampfit/<module>.pxd`` (a routine
that works on ``VECTOR_LENGTH`` events at once) and says what its wrapper in
``vecampfit/_<module>.pyx`` does with each array argument; for a package
(``vecampfit.real``) the routines are declared in
``vecampfit/<module>/__init__.pxd`` and wrapped in
``vecampfit/<module>/_kernels.pyx``.  The routine's
signature itself is read from the ``.pxd``; only what the ``.pxd`` cannot
tell is written here:

* ``padded(pad)`` (real or integer) or ``padded(pad_re, pad_im)``
  (complex): an input with one value per event; the lanes of the last block
  beyond the end of the array hold ``pad`` (a C expression in the wrapper's
  arguments, evaluated once in the type of the array's elements) and their
  results are discarded;
* ``vectors(pad_0, pad_1, ...)``: an input of shape ``(n, c)`` (3-vectors,
  4-vectors), loaded as ``c`` blocks of ``VECTOR_LENGTH``;
* ``vectors_out(c)``: an output of shape ``(n, c)``;
* ``in_place(pad)`` or ``in_place(pad_re, pad_im)``: an array that the
  routine reads and overwrites (padded like an input);
* ``packed(array, column, pads, **real_fields)``: complex numbers stored
  as (re, im) column pairs of the 2-D real array ``array`` (a real view of a
  complex numpy array), from ``column`` on: one pair for a complex vector,
  one pair per complex field, in the order of the ``.pxd``, for a struct of
  them (2x2 matrices, LU factors); ``pads`` gives (re, im) of each pair for
  an input, and each real field of the struct names its 1-D array (and pad);
* ``whole()``: an array handed to the routine as one pointer (a table);
* ``computed(expression)``: a scalar argument that the wrapper computes
  from the other arguments (a table's length).

Arguments not named are taken from their type in the ``.pxd``: a non-const
``floating *``, ``double *``, ``int32_t *``, ``int64_t *``, ``uint32_t *`` or
``complex_vector *`` is an output with one value per event; a scalar
(``floating``, ``double``, ``int``) is passed through.

``tools/generate_block_wrappers.py`` turns this list into the wrapper
functions (one named entry point ``<routine>_kernel`` each) and into the
reference table ``docs/api/block_routines.rst``.
"""

from collections import namedtuple

Padded = namedtuple("Padded", "pads")
Vectors = namedtuple("Vectors", "pads")
VectorsOut = namedtuple("VectorsOut", "components")
InPlace = namedtuple("InPlace", "pads")
Packed = namedtuple("Packed", "array column pads real_fields")
Whole = namedtuple("Whole", "")
Computed = namedtuple("Computed", "expression")
Routine = namedtuple("Routine", "module name arguments")


def padded(*pads):
    """An input with one value per event, padded with ``pads`` (re[, im])."""
    return Padded(pads)


def vectors(*pads):
    """An input of shape ``(n, len(pads))``; padding lanes hold ``pads``."""
    return Vectors(pads)


def vectors_out(components):
    """An output of shape ``(n, components)``."""
    return VectorsOut(components)


def in_place(*pads):
    """An array read and overwritten by the routine, padded with ``pads``."""
    return InPlace(pads)


def packed(array, column=0, pads=(), **real_fields):
    """Complex numbers in (re, im) column pairs of ``array`` from ``column`` on."""
    return Packed(array, column, tuple(pads), real_fields)


def whole():
    """An array passed to the routine whole, as one pointer."""
    return Whole()


def computed(expression):
    """A scalar argument computed from the other arguments."""
    return Computed(expression)


def routine(module, name, **arguments):
    """One block routine of ``vecampfit/<module>.pxd`` and its array arguments."""
    return Routine(module, name, arguments)


COMPLEX_ZERO = padded("0", "0")
COMPLEX_ONE = padded("1", "0")
VECTOR3 = vectors("0", "0", "1")
VECTOR4 = vectors("0", "0", "0", "1")
# The middle of the Dalitz plot's m12^2 range.
DALITZ_M12S = padded("(m1 + m2) * (m1 + m2) * <floating>0.5 + (m0 - m3) * (m0 - m3) * <floating>0.5")


def _complex_vector():
    two = ["add", "subtract", "multiply", "divide"]
    real = ["add_real", "subtract_real", "multiply_real"]
    scalar = ["add_real_scalar", "subtract_real_scalar", "multiply_real_scalar",
              "add_complex_scalar", "subtract_complex_scalar", "multiply_complex_scalar"]
    one = ["negate", "inverse", "conjugate", "sqrt_physical", "sqrt_unphysical",
           "absolute_value", "absolute_value_squared"]
    addend = in_place("0", "0")
    return (
        [routine("complex_vector", n, a=COMPLEX_ZERO, b=COMPLEX_ONE) for n in two]
        + [routine("complex_vector", n, a=COMPLEX_ZERO, x=padded("1")) for n in real]
        + [routine("complex_vector", n, a=COMPLEX_ZERO) for n in scalar + one]
        + [
            routine("complex_vector", "multiply_add", out=addend, a=COMPLEX_ZERO, b=COMPLEX_ONE),
            routine("complex_vector", "multiply_add_real", out=addend, a=COMPLEX_ZERO, x=padded("1")),
            routine("complex_vector", "multiply_add_complex_scalar", out=addend, a=COMPLEX_ZERO),
        ]
    )


def _high_energy_physics():
    hep = "high_energy_physics"
    m_q = dict(m=padded("m0"), q=padded("1 / inverse_q0"))
    return (
        [routine(hep, n, q=padded("1")) for n in (
            "blatt_weisskopf", "blatt_weisskopf_squared", "blatt_weisskopf_ratio",
            "blatt_weisskopf_ratio_squared", "blatt_weisskopf_gradient")]
        + [
            routine(hep, "covariant_factor_j", f=padded("0")),
            routine(hep, "legendre", x=padded("0")),
            routine(hep, "legendre_laura", x=padded("0")),
            routine(hep, "covariant_angular_distribution", p_star=padded("0"), q=padded("0"),
                    f=padded("1"), cos_theta=padded("0")),
            routine(hep, "breit_wigner_constant_width_m", m=padded("1")),
            routine(hep, "breit_wigner_constant_width_m0", m=padded("1")),
            routine(hep, "breit_wigner_general", s=padded("0"), numerator=COMPLEX_ZERO,
                    width_term=padded("1")),
        ]
        + [routine(hep, n, **m_q) for n in (
            "breit_wigner_q_f_nophsp", "breit_wigner_q_f", "breit_wigner_m2",
            "breit_wigner_q_f_nophsp_gradient", "breit_wigner_q_f_gradient")]
        + [
            routine(hep, "flatte", m=padded("m0"), q1_squared=padded("0"), q2_squared=padded("0")),
            routine(hep, "flatte_masses", m=padded("m0")),
            routine(hep, "k_matrix_add_pole_1", k11=in_place("0"), s=padded("0")),
            routine(hep, "k_matrix_add_pole_2", k11=in_place("0"), k12=in_place("0"),
                    k22=in_place("0"), s=padded("0")),
            routine(hep, "p_vector_add_pole_1", p1=in_place("0", "0"), s=padded("0")),
            routine(hep, "p_vector_add_pole_2", p1=in_place("0", "0"), p2=in_place("0", "0"),
                    s=padded("0")),
            routine(hep, "k_matrix_p_vector_add_pole_1", k11=in_place("0"),
                    p1=in_place("0", "0"), s=padded("0")),
            routine(hep, "k_matrix_p_vector_add_pole_2", k11=in_place("0"), k12=in_place("0"),
                    k22=in_place("0"), p1=in_place("0", "0"), p2=in_place("0", "0"),
                    s=padded("0")),
            routine(hep, "k_matrix_n_factor", q_squared=padded("0")),
        ]
    )


def _mathematical_functions():
    mf = "mathematical_functions"
    gaussians = ("gaussian", "gaussian_unnormalized", "asymmetric_gaussian",
                 "asymmetric_gaussian_unnormalized", "asymmetric_gaussian_exponential_tail",
                 "asymmetric_gaussian_power_law_tail",
                 "asymmetric_gaussian_exponential_power_law_tail",
                 "asymmetric_gaussian_power_law_exponential_tail")
    return (
        [routine(mf, n, x=padded("1")) for n in ("exp", "log", "floor", "logistic")]
        + [
            routine(mf, "power", x=padded("1"), y=padded("1")),
            routine(mf, "kallen_lambda", x=padded("0"), y=padded("0"), z=padded("0")),
        ]
        + [routine(mf, n, x=padded("mean")) for n in gaussians]
        + [routine(mf, "chebyshev_series", x=padded("0"), c=whole(), n=computed("c.shape[0] - 1"))]
    )


def _vector3():
    out3 = vectors_out(3)
    return (
        [routine("vector3", n, out=out3, a=VECTOR3, b=VECTOR3) for n in ("add", "subtract", "cross")]
        + [
            routine("vector3", "unit", out=out3, a=VECTOR3),
            routine("vector3", "scale", out=out3, a=VECTOR3, s=padded("0")),
        ]
        + [routine("vector3", n, a=VECTOR3, b=VECTOR3) for n in ("dot", "cos_angle", "angle")]
        + [routine("vector3", n, a=VECTOR3) for n in (
            "norm", "norm_squared", "transverse", "cos_polar_angle", "polar_angle",
            "azimuthal_angle")]
    )


def _vector4():
    out4 = vectors_out(4)
    return (
        [routine("vector4", n, out=out4, a=VECTOR4, b=VECTOR4) for n in ("add", "subtract")]
        + [routine("vector4", n, out=out4, p=VECTOR4, f=VECTOR4) for n in (
            "boost_to_rest_frame", "boost_from_rest_frame")]
        + [routine("vector4", "boost", out=out4, p=VECTOR4, beta=vectors("0", "0", "0"))]
        + [routine("vector4", n, a=VECTOR4, b=VECTOR4) for n in ("dot", "invariant_mass_squared")]
        + [routine("vector4", n, a=VECTOR4) for n in ("mass_squared", "mass", "momentum")]
    )


def _linear_algebra():
    la = "linear_algebra"
    identity = ("1", "0", "0", "0", "0", "0", "1", "0")
    matrix = packed("a", pads=identity)
    lu = packed("lu", pads=identity, pivot=("pivot", "0"))
    out1, out2 = packed("out"), packed("out", 2)
    b1, b2 = packed("b", 0, ("0", "0")), packed("b", 2, ("0", "0"))
    return [
        routine(la, "multiply", out=packed("out"), a=matrix, b=packed("b", pads=identity)),
        routine(la, "multiply_vector", y1=out1, y2=out2, a=matrix,
                x1=packed("x", 0, ("0", "0")), x2=packed("x", 2, ("0", "0"))),
        routine(la, "determinant", det=out1, a=matrix),
        routine(la, "lu_decompose", lu=packed("out", pivot=("out_pivot",)), a=matrix),
        routine(la, "lu_determinant", det=out1, lu=lu),
        routine(la, "lu_solve", x1=out1, x2=out2, lu=lu, b1=b1, b2=b2),
        routine(la, "lu_inverse", out=packed("out"), lu=lu),
        routine(la, "solve", x1=out1, x2=out2, a=matrix, b1=b1, b2=b2),
        routine(la, "inverse", out=packed("out"), a=matrix),
    ]


def _real():
    zero = padded("0")
    to_integer = ("classify", "is_finite", "is_infinite", "is_nan", "sign_bit", "exponent_field",
                  "get_exponent", "to_bits", "mantissa_field", "real_to_int64", "nearest_int64")
    return (
        [routine("real", n, x=zero) for n in to_integer + ("frexp", "get_mantissa", "split_float64")]
        + [
            routine("real", "set_sign_bit", x=zero, sign=zero),
            routine("real", "set_exponent_field", x=zero, e=zero),
            routine("real", "ldexp", x=zero, n=zero),
            routine("real", "set_exponent", x=zero, e=zero),
            routine("real", "set_mantissa_field", x=zero, m=zero),
            routine("real", "from_bits", bits=zero),
        ]
        + [routine("real", n, n=zero) for n in ("int64_to_real", "int32_to_real", "split_int64")]
        + [routine("real", n, low=zero, high=zero) for n in ("join_int64", "join_float64")]
    )


ROUTINES = (
    _complex_vector()
    + [routine("geometry", "azimuthal_angle_difference", phi1=padded("0"), phi2=padded("0"))]
    + _high_energy_physics()
    + [
        routine("interpolation", "interpolate_uniform", x=padded("x_min"), table=whole(),
                n=computed("table.shape[0]")),
        routine("interpolation", "interpolate", x=padded("nodes[0]"), nodes=whole(),
                table=whole(), n=computed("table.shape[0]")),
        routine("kinematics", "covariant_factor", m12=padded("1")),
        routine("kinematics", "decay_momentum", m0=padded("1"), m1=padded("0"), m2=padded("0")),
        routine("kinematics", "decay_momentum_squared", m0=padded("1"), m1=padded("0"),
                m2=padded("0")),
        routine("kinematics", "decay_momentum_gradient", m0=padded("1"), m1=padded("0"),
                m2=padded("0")),
        routine("kinematics", "decay_momentum_s", s=padded("1")),
        routine("kinematics", "decay_momentum_squared_s", s=padded("1")),
        routine("kinematics", "phase_space_2body_complex", s=COMPLEX_ONE),
        routine("kinematics", "momentum_analytic_continuation", m0=padded("m1 + m2 + 1")),
        routine("kinematics", "dalitz_m23_squared_range", m12s=DALITZ_M12S),
        routine("kinematics", "dalitz_inside", m12s=DALITZ_M12S, m23s=padded("0")),
        routine("kinematics", "dalitz_cos_helicity_angle", m12s=DALITZ_M12S, m23s=padded("0")),
    ]
    + _linear_algebra()
    + _mathematical_functions()
    + [routine("quantum_mechanics", n, cos_half=padded("1"), sin_half=padded("0")) for n in (
        "d_function", "d_function_sum", "d_function_recurrence")]
    + [routine("quantum_mechanics", "d_function_cos_theta", cos_theta=padded("1"))]
    + _real()
    + _vector3()
    + _vector4()
)

# Block routines whose numpy wrappers are written by hand in _<module>.pyx
# (several routines chained in one loop, outputs of another shape), listed
# for the reference table: (module, routine, wrapper).
HAND_WRITTEN = (
    [("complex_vector", "sum", "sum_kernel")]
    + [("high_energy_physics", "k_matrix_" + part, "k_matrix_kernel") for part in (
        "denominator_1", "denominator_s_wave_1", "denominator_2", "denominator_s_wave_2",
        "amplitude_1", "amplitude_s_wave_1", "amplitude_2", "amplitude_s_wave_2")]
    + [("mathematical_functions", "chebyshev_basis", "chebyshev_basis_kernel")]
)
