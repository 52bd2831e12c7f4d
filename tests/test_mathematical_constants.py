"""Tests of vecampfit.mathematical_constants: bit-exact against mpmath at 300 bits
rounded by MPFR (gmpy2), from Python and from a user's Cython model."""

import math
from fractions import Fraction

import gmpy2
import mpmath
import numpy as np
import pytest

from vecampfit import mathematical_constants as mc
from vecampfit.model_compiler import compile_model

WP = 300


def exact_values():
    """The constants by mpmath at 300 bits, as exact Fractions of those 300-bit values."""
    with mpmath.workprec(WP):
        pi = mpmath.pi
        v = {
            "SQRT_2": mpmath.sqrt(2), "LN_2": mpmath.log(2), "E": mpmath.e + 0, "PI": +pi,
            "SQRT_PI_2": mpmath.sqrt(pi / 2), "SQRT_PI": mpmath.sqrt(pi), "SQRT_2PI": mpmath.sqrt(2 * pi),
            "DEGREE_IN_RADIANS": pi / 180, "RADIAN_IN_DEGREES": 180 / pi, "INV_LN_2": 1 / mpmath.log(2),
        }
    out = {}
    for k, x in v.items():
        sign, man, exp, _bc = x._mpf_
        out[k] = Fraction((-1) ** sign * int(man)) * Fraction(2) ** int(exp)
    return out


NAMES = list(exact_values())
IEEE = {"REAL32": (24, -126, 127), "REAL64": (53, -1022, 1023)}


def mpfr_round(value, p, emin, emax):
    ctx = gmpy2.context(precision=p, round=gmpy2.RoundToNearest, emax=emax + 1,
                        emin=emin - p + 2, subnormalize=True)
    with ctx:
        r = gmpy2.mpfr(gmpy2.mpq(value))
    return Fraction(*r.as_integer_ratio())


def longdouble_params():
    fi = np.finfo(np.longdouble)
    return fi.nmant + 1, int(fi.minexp), int(fi.maxexp) - 1


def as_fraction(x):
    return Fraction(*x.as_integer_ratio())


@pytest.mark.parametrize("name", NAMES)
def test_constants_are_correctly_rounded(name):
    exact = exact_values()[name]
    v32, v64, v128 = (getattr(mc, f"{name}_{k}") for k in ("REAL32", "REAL64", "REAL128"))
    assert type(v32) is np.float32 and type(v64) is np.float64 and type(v128) is np.longdouble
    assert as_fraction(v32) == mpfr_round(exact, *IEEE["REAL32"])
    assert as_fraction(v64) == mpfr_round(exact, *IEEE["REAL64"])
    assert as_fraction(v128) == mpfr_round(exact, *longdouble_params())
    assert getattr(mc, f"{name}_REAL128_EXACT") == as_fraction(v128)
    # numpy's own rounding agrees for the float32 constants (from the float64 value
    # the double rounding cannot matter at these values) and for pi and e in float64.
    assert v32 == np.float32(exact_values()[name])
    if name in ("PI", "E"):
        assert v64 == {"PI": np.pi, "E": np.e}[name]


def test_longdouble_is_documented_format():
    fmt = {63: "x87_extended", 112: "binary128", 52: "float64"}[np.finfo(np.longdouble).nmant]
    assert mc.LONG_DOUBLE_FORMAT == fmt


@pytest.mark.parametrize("kind", ["REAL32", "REAL64"])
def test_series_coefficients_and_cody_waite_split(kind):
    p, emin, emax = IEEE[kind]
    dtype = np.float32 if kind == "REAL32" else np.float64
    exp_c = getattr(mc, f"EXP_COEFFICIENTS_{kind}")
    log_c = getattr(mc, f"LOG_COEFFICIENTS_{kind}")
    assert exp_c.shape == (25,) and exp_c.dtype == dtype and not exp_c.flags.writeable
    for k in range(25):
        assert as_fraction(exp_c[k]) == mpfr_round(Fraction(1, math.factorial(k)), p, emin, emax)
        assert as_fraction(log_c[k]) == mpfr_round(Fraction(2, 2 * k + 1), p, emin, emax)
    hi, lo = getattr(mc, f"LN_2_HI_{kind}"), getattr(mc, f"LN_2_LO_{kind}")
    hi_bits = {"REAL32": 16, "REAL64": 42}[kind]
    fh = as_fraction(hi)
    # HI has at most hi_bits significant bits: k * HI is exact for |k| < 2**(p - hi_bits).
    assert (fh * 2 ** hi_bits).denominator == 1 and fh * 2 ** (hi_bits - 1) >= 1 >= fh
    kmax = 2 ** (p - hi_bits) - 1
    assert as_fraction(dtype(kmax) * hi) == kmax * fh
    ln2 = exact_values()["LN_2"]
    assert as_fraction(lo) == mpfr_round(ln2 - fh, p, emin, emax)
    err = abs(fh + as_fraction(lo) - ln2)
    print(f"{kind}: |LN_2_HI + LN_2_LO - ln 2| = 2**{math.log2(err):.1f}")
    assert err < Fraction(1, 2 ** (p + hi_bits - 2))


def test_user_model_cimports_constants(model_cache, models_dir):
    import os

    mods = compile_model(os.path.join(models_dir, "constants_user_model.pyx"), [1, 4],
                         build_dir=model_cache)
    for L, m in mods.items():
        assert m.vector_length() == L
        got = m.scalars()
        for name in NAMES:
            f32, f64, ld = got[name]
            assert np.float32(f32) == getattr(mc, f"{name}_REAL32")
            assert f64 == getattr(mc, f"{name}_REAL64")
            assert np.frombuffer(ld, dtype=np.longdouble)[0] == getattr(mc, f"{name}_REAL128")
        for k, v in m.cody_waite().items():
            assert v == getattr(mc, k)
        for k, v in m.coefficients().items():
            np.testing.assert_array_equal(np.array(v, dtype=getattr(mc, k).dtype), getattr(mc, k))
        for x in (-0.3, 0.1, 0.34657):
            assert abs(m.exp_series(x) - math.exp(x)) <= 2 * np.finfo(np.float64).eps * math.exp(x)
