#!/usr/bin/env python3
"""Generate vecampfit's mathematical constants during the build.

Computes, with ``vecampfit.arbitrary_precision`` loaded from the source tree
(the package is not installed while it is being built), every constant of
``vecampfit.mathematical_constants`` at 384 bits and rounds it once, to
nearest, to REAL32 (float), REAL64 (double) and REAL128 (the C ``long double``
of the build machine: x87 80-bit extended on x86-64, 64-bit significand),
and writes

* the C header ``vecampfit/mathematical_constants.h`` (hexadecimal
  floating-point literals, so that the compiler reads the values exactly),
* the Python data module ``vecampfit/_mathematical_constants_data.py`` (the
  same values as bit patterns and exact fractions).

Usage::

    generate_constants.py --arbitrary-precision PATH/__init__.py \\
        --header OUT.h --data-module OUT.py [--long-double-mant-dig 64]
"""

import argparse
import importlib.util
import math
import os
from fractions import Fraction

WORKING_PRECISION = 384
N_COEFFICIENTS = 25

# Cody-Waite split of ln 2: the high part keeps this many significant bits, so
# that k * LN_2_HI is exact for |k| < 2**(p - bits).
LN_2_HI_BITS = {"REAL32": 16, "REAL64": 42}

# name -> (description for the comments, how to compute it)
CONSTANTS = [
    ("SQRT_2", "sqrt(2)"),
    ("LN_2", "ln(2)"),
    ("E", "e = exp(1)"),
    ("PI", "pi"),
    ("SQRT_PI_2", "sqrt(pi / 2)"),
    ("SQRT_PI", "sqrt(pi)"),
    ("SQRT_2PI", "sqrt(2 pi)"),
    ("DEGREE_IN_RADIANS", "pi / 180 (one degree in radians)"),
    ("RADIAN_IN_DEGREES", "180 / pi (one radian in degrees)"),
    ("INV_LN_2", "1 / ln(2) = log2(e)"),
]

KINDS = {"REAL32": ("float32", "float", "f"), "REAL64": ("float64", "double", "")}


def load_arbitrary_precision(path):
    spec = importlib.util.spec_from_file_location("_vecampfit_build_arbitrary_precision", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def compute_values(ap):
    """Return {name: Real at WORKING_PRECISION} (to nearest)."""
    p = WORKING_PRECISION
    pi = ap.pi(p)
    ln2 = ap.log(ap.Real(2, p))
    v = {
        "SQRT_2": ap.sqrt(ap.Real(2, p)),
        "LN_2": ln2,
        "E": ap.exp(ap.Real(1, p)),
        "PI": pi,
        "SQRT_PI_2": ap.sqrt(ap.divide(pi, 2)),
        "SQRT_PI": ap.sqrt(pi),
        "SQRT_2PI": ap.sqrt(ap.multiply(pi, 2)),
        "DEGREE_IN_RADIANS": ap.divide(pi, 180),
        "RADIAN_IN_DEGREES": ap.divide(180, pi),
        "INV_LN_2": ap.divide(1, ln2),
    }
    return v


def cody_waite(ap, ln2, kind):
    fmt = KINDS[kind][0]
    bits = LN_2_HI_BITS[kind]
    m, e = ln2.mantissa_exponent()
    # ln 2 to nearest with `bits` significant bits (ln 2 is in [1/2, 1)).
    shift = m.bit_length() - bits
    hi_m = (m + (1 << (shift - 1))) >> shift
    hi = ap.Real(Fraction(hi_m, 2 ** (-(e + shift))), 64)
    lo = ap.subtract(ln2, hi, WORKING_PRECISION)
    return hi, lo


def coefficients(ap, which):
    p = WORKING_PRECISION
    if which == "EXP":
        return [ap.Real(Fraction(1, math.factorial(k)), p) for k in range(N_COEFFICIENTS)]
    return [ap.Real(Fraction(2, 2 * k + 1), p) for k in range(N_COEFFICIENTS)]


def literal(ap, x, fmt, suffix):
    return ap.to_hex(x, fmt, "nearest") + suffix


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arbitrary-precision", required=True,
                        help="path of vecampfit/arbitrary_precision/__init__.py")
    parser.add_argument("--header", required=True, help="output C header")
    parser.add_argument("--data-module", required=True, help="output Python data module")
    parser.add_argument("--long-double-mant-dig", type=int, default=64,
                        help="LDBL_MANT_DIG of the C compiler (64: x87 extended, 113: binary128, 53: double)")
    args = parser.parse_args(argv)

    ap = load_arbitrary_precision(args.arbitrary_precision)
    ld_format = {64: "x87_extended", 113: "binary128", 53: "float64"}.get(args.long_double_mant_dig)
    if ld_format is None:
        parser.error(f"unsupported long double with {args.long_double_mant_dig} significand bits")
    kinds = dict(KINDS)
    kinds["REAL128"] = (ld_format, "long double", "L")

    values = compute_values(ap)
    hdr = []
    data_bits = {}
    data_exact = {}
    for name, desc in CONSTANTS:
        x = values[name]
        hdr.append(f"/* {desc} */")
        data_bits[name] = {}
        for kind, (fmt, _ctype, suffix) in kinds.items():
            hdr.append(f"#define VECAMPFIT_{name}_{kind} {literal(ap, x, fmt, suffix)}")
            data_bits[name][kind] = ap.to_bits(x, fmt, "nearest")
        data_exact[name] = ap.from_bits(data_bits[name]["REAL128"], ld_format, 128).to_fraction()
        hdr.append("")

    hdr.append("/* Cody-Waite split of ln(2) for argument reduction: HI has only its")
    hdr.append(" * leading bits set (16 of float's 24, 42 of double's 53), so that k * HI is")
    hdr.append(" * exact for |k| < 2**8 (REAL32) and |k| < 2**11 (REAL64); LO = ln(2) - HI")
    hdr.append(" * rounded to nearest, so HI + LO is ln(2) to about 2**-40 and 2**-95. */")
    for kind in ("REAL32", "REAL64"):
        hi, lo = cody_waite(ap, values["LN_2"], kind)
        fmt, _ctype, suffix = kinds[kind]
        assert ap.to_bits(hi, fmt) == ap.to_bits(hi, fmt, "toward_zero"), "HI must be exact"
        hdr.append(f"#define VECAMPFIT_LN_2_HI_{kind} {literal(ap, hi, fmt, suffix)}")
        hdr.append(f"#define VECAMPFIT_LN_2_LO_{kind} {literal(ap, lo, fmt, suffix)}")
        data_bits.setdefault("LN_2_HI", {})[kind] = ap.to_bits(hi, fmt, "nearest")
        data_bits.setdefault("LN_2_LO", {})[kind] = ap.to_bits(lo, fmt, "nearest")
    hdr.append("")

    arrays = {}
    hdr.append(f"#define VECAMPFIT_N_EXP_COEFFICIENTS {N_COEFFICIENTS}")
    hdr.append(f"#define VECAMPFIT_N_LOG_COEFFICIENTS {N_COEFFICIENTS}")
    hdr.append("")
    for which, desc in (("EXP", "1 / k!"), ("LOG", "2 / (2k + 1)")):
        coeffs = coefficients(ap, which)
        arrays[f"{which}_COEFFICIENTS"] = {}
        hdr.append(f"/* {desc} for k = 0, ..., {N_COEFFICIENTS - 1}, correctly rounded. */")
        for kind in ("REAL32", "REAL64"):
            fmt, ctype, suffix = kinds[kind]
            arrays[f"{which}_COEFFICIENTS"][kind] = [ap.to_bits(c, fmt, "nearest") for c in coeffs]
            hdr.append(f"static const {ctype} VECAMPFIT_{which}_COEFFICIENTS_{kind}"
                       f"[{N_COEFFICIENTS}] VECAMPFIT_UNUSED = {{")
            for c in coeffs:
                hdr.append(f"    {literal(ap, c, fmt, suffix)},")
            hdr.append("};")
        hdr.append("")

    header = "\n".join([
        "/*",
        " * vecampfit mathematical constants.  GENERATED during the build by",
        " * tools/generate_constants.py with vecampfit.arbitrary_precision; do not edit.",
        " *",
        " * Every value is the exact value rounded once to nearest (computed at",
        f" * {WORKING_PRECISION} bits first).  REAL32 is float, REAL64 double, REAL128 the C long",
        f" * double of this platform (here: {ld_format}, {args.long_double_mant_dig}-bit significand).",
        " * Literals are hexadecimal, so they are read exactly.",
        " */",
        "#ifndef VECAMPFIT_MATHEMATICAL_CONSTANTS_H",
        "#define VECAMPFIT_MATHEMATICAL_CONSTANTS_H",
        "",
        "#if defined(__GNUC__) || defined(__clang__)",
        "#define VECAMPFIT_UNUSED __attribute__((unused))",
        "#else",
        "#define VECAMPFIT_UNUSED",
        "#endif",
        "",
        *hdr,
        "#endif /* VECAMPFIT_MATHEMATICAL_CONSTANTS_H */",
        "",
    ])

    def fmt_dict(d, indent):
        pad = " " * indent
        lines = ["{"]
        for k, v in d.items():
            if isinstance(v, dict):
                lines.append(f"{pad}    {k!r}: {fmt_dict(v, indent + 4)},")
            elif isinstance(v, list):
                lines.append(f"{pad}    {k!r}: [{', '.join(hex(b) for b in v)}],")
            elif isinstance(v, Fraction):
                lines.append(f"{pad}    {k!r}: ({v.numerator}, {v.denominator}),")
            else:
                lines.append(f"{pad}    {k!r}: {hex(v)},")
        lines.append(pad + "}")
        return "\n".join(lines)

    data = "\n".join([
        '"""Mathematical constants as bit patterns.  GENERATED during the build by',
        'tools/generate_constants.py; do not edit.  Public access: vecampfit.mathematical_constants."""',
        "",
        f"LONG_DOUBLE_FORMAT = {ld_format!r}",
        f"WORKING_PRECISION = {WORKING_PRECISION}",
        "",
        "# name -> kind -> bit pattern (REAL32: float32, REAL64: float64, REAL128: LONG_DOUBLE_FORMAT)",
        f"BITS = {fmt_dict(data_bits, 0)}",
        "",
        "# name -> (numerator, denominator) of the exact REAL128 value",
        f"REAL128_EXACT = {fmt_dict(data_exact, 0)}",
        "",
        "# array name -> kind -> bit patterns",
        f"ARRAYS = {fmt_dict(arrays, 0)}",
        "",
    ])

    for path, text in ((args.header, header), (args.data_module, data)):
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, path)


if __name__ == "__main__":
    main()
