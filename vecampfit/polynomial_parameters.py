"""``vecampfit-polynomial-parameters``: Cython source for polynomial parameterizations.

Efficiency, resolution and background parameterizations need polynomials with
many free coefficients: the paper's seven-dimensional first-order efficiency
correction and seven-dimensional second-order background polynomial.  This
command writes the code for them, as the paper's tool of the same name does,
but in Cython for vecampfit's block conventions.

The polynomial in ``D`` variables of maximum order ``n`` is

.. math::

    P(x) = \\sum_{m \\le |e| \\le n} c_e \\prod_{d=1}^{D} b_{e_d}(v_d),
    \\qquad |e| = e_1 + \\dots + e_D,

where ``m`` is the minimum order (``--minimum-order``), ``b_k`` is the
monomial ``v^k`` or the Chebyshev polynomial ``T_k(v)`` (``--basis``), and
``v_d`` is either the variable ``x_d`` itself or its linear map from
``[min_d, max_d]`` to ``[-1, 1]`` (``--ranges``),
``v_d = (2 x_d - max_d - min_d) / (max_d - min_d)``.

Terms are ordered by total order ``|e|``, then by exponents in descending
lexicographic order; term ``e`` has the parameter name
``PREFIX_e1_e2_..._eD`` (for example ``P_1_0_2``).  There are
``C(n + D, D) - C(m - 1 + D, D)`` terms: ``--minimum-order=m`` removes the
``C(m - 1 + D, D)`` terms of order below ``m`` (the constant term for
``m = 1``).

With ``--preprocessor-order``, all terms up to ``n`` are generated, and the
active maximum order is a compile-time constant (the C macro
``POLYNOMIAL_ORDER`` by default, settable with ``-DPOLYNOMIAL_ORDER=k`` when
the model is compiled, e.g. through ``compile_model(...,
extra_compile_args=["-DPOLYNOMIAL_ORDER=1"])``); terms above it are removed by
the C compiler and their coefficient derivatives are zero.  The paper's call
``vecampfit-polynomial-parameters 2 7 --minimum-order=1 --preprocessor-order
--subroutine`` generates orders 1 and 2 and, compiled with
``-DPOLYNOMIAL_ORDER=1``, evaluates the first-order polynomial.

Generated block routines (for every precision and vector length through
vecampfit's block conventions: ``floating`` and ``VECTOR_LENGTH``):

``NAME(out, x, c)``
    ``out[i] = P(x[:, i])`` for the ``L`` lanes; ``x`` holds the ``D``
    variables as real vectors, laid out ``[D][L]`` (``x[d * L + i]``), and
    ``c`` points at the first coefficient.
``NAME_gradient(out, gradient, x, c)``
    Also ``gradient[k * L + i] = dP/dc_k`` (layout ``[n_terms][L]``, the
    density-gradient layout); with ``--variable-gradient`` the routine takes
    ``variable_gradient`` after ``gradient`` and fills ``dP/dx_d`` as
    ``[D][L]``.

The generated ``.pxd`` text is meant to be saved next to the user's model
(``from my_polynomial cimport NAME``); it includes its parameter-index
definitions (a ``cdef enum``), so ``--definitions`` is only needed by code
that uses the indices without the routine.
"""

import argparse
import math
import os
import shlex
import sys

from .atomic_files import atomic_write_text

__all__ = ["MAX_TERMS", "PolynomialSpec", "exponents", "generated_code", "main", "number_of_terms",
           "too_many_terms"]

BASES = ("monomial", "chebyshev")
COMMAND = "vecampfit-polynomial-parameters"

#: Most terms generated without an explicit ``max_terms`` (``--max-terms``):
#: the source of a polynomial grows with its terms, and a compiler takes
#: hours over one of a million.
MAX_TERMS = 10000


def _compositions(total, dimensions):
    """Exponent tuples of ``dimensions`` entries summing to ``total``, descending lexicographic."""
    if dimensions == 1:
        yield (total,)
        return
    for first in range(total, -1, -1):
        for rest in _compositions(total - first, dimensions - 1):
            yield (first,) + rest


def exponents(order, dimensions, minimum_order=0):
    """Return the exponent tuples of the polynomial's terms, in generation order.

    Parameters
    ----------
    order : int
        Maximum total order ``n >= 0``.
    dimensions : int
        Number of variables ``D >= 1``.
    minimum_order : int
        Terms of total order below this are left out.

    Returns
    -------
    list of tuple of int
        Sorted by total order, then in descending lexicographic order.
    """
    terms = []
    for total in range(minimum_order, order + 1):
        terms.extend(_compositions(total, dimensions))
    return terms


def number_of_terms(order, dimensions, minimum_order=0):
    """Number of terms: ``C(order + D, D) - C(minimum_order - 1 + D, D)``.

    Parameters
    ----------
    order, dimensions, minimum_order : int
        As in :func:`exponents`.

    Returns
    -------
    int
    """
    removed = math.comb(minimum_order - 1 + dimensions, dimensions) if minimum_order > 0 else 0
    return math.comb(order + dimensions, dimensions) - removed


def too_many_terms(order, dimensions, minimum_order, max_terms, option="max_terms"):
    """The message for a polynomial above the limit of ``max_terms`` terms."""
    n = number_of_terms(order, dimensions, minimum_order)
    return (f"order {order} in {dimensions} variables (minimum order {minimum_order}) has {n:,} "
            f"terms, above the limit of {max_terms:,}: lower the order or the dimensions, or "
            f"raise {option} if that many are meant")


class PolynomialSpec:
    """Description of one generated polynomial.

    Parameters
    ----------
    order : int
        Maximum total order ``n``.
    dimensions : int
        Number of variables ``D``.
    minimum_order : int
        Lowest total order generated.
    basis : {"monomial", "chebyshev"}
        One-variable basis ``b_k``: ``v**k`` or Chebyshev ``T_k(v)``.
    ranges : sequence of (float, float), optional
        ``(min_d, max_d)`` per variable: map ``x_d`` linearly onto ``[-1, 1]``.
    preprocessor_order : bool
        Make the active maximum order a compile-time macro.
    active_order : int, optional
        Default value of that macro (default: ``order``).
    order_macro : str
        Name of the macro.
    name : str
        Name of the generated routine.
    prefix : str
        Prefix of the parameter names.
    max_terms : int
        Refuse a polynomial of more terms (default :data:`MAX_TERMS`).

    Raises
    ------
    ValueError
        If the polynomial has more than ``max_terms`` terms (the message
        says how many).
    """

    def __init__(self, order, dimensions, minimum_order=0, basis="monomial", ranges=None,
                 preprocessor_order=False, active_order=None, order_macro="POLYNOMIAL_ORDER",
                 name="polynomial", prefix="P", max_terms=MAX_TERMS):
        n = number_of_terms(order, dimensions, minimum_order)
        if n > max_terms:
            raise ValueError(too_many_terms(order, dimensions, minimum_order, max_terms))
        self.order = order
        self.dimensions = dimensions
        self.minimum_order = minimum_order
        self.basis = basis
        self.ranges = None if ranges is None else [tuple(map(float, r)) for r in ranges]
        self.preprocessor_order = preprocessor_order
        self.active_order = order if active_order is None else active_order
        self.order_macro = order_macro
        self.name = name
        self.prefix = prefix
        self.terms = exponents(order, dimensions, minimum_order)
        self.names = [prefix + "_" + "_".join(str(k) for k in e) for e in self.terms]

    # -- helpers -----------------------------------------------------------------
    def _basis_lines(self, lane_var, need_derivative):
        """Per-lane statements computing v_d, b_d_k (k >= 2) and derivatives."""
        lines = []
        for d in range(self.dimensions):
            src = f"x[{d} * VECTOR_LENGTH + i]"
            if self.ranges is not None:
                lo, hi = self.ranges[d]
                scale = 2.0 / (hi - lo)
                shift = -(hi + lo) / (hi - lo)
                sign = "-" if shift < 0 else "+"
                lines.append(f"v{d} = <floating>{scale!r} * {src} {sign} <floating>{abs(shift)!r}")
            else:
                lines.append(f"v{d} = {src}")
            top = max(e[d] for e in self.terms) if self.terms else 0
            for k in range(2, top + 1):
                prev = "v%d" % d if k - 1 == 1 else f"b{d}_{k - 1}"
                if self.basis == "monomial":
                    lines.append(f"b{d}_{k} = {prev} * v{d}")
                else:
                    prev2 = "<floating>1" if k - 2 == 0 else ("v%d" % d if k - 2 == 1 else f"b{d}_{k - 2}")
                    lines.append(f"b{d}_{k} = <floating>2 * v{d} * {prev} - {prev2}")
            if need_derivative and self.basis == "chebyshev":
                # T_k' = k U_{k-1}; U_0 = 1, U_1 = 2 v, U_{k+1} = 2 v U_k - U_{k-1}.
                for k in range(1, top):
                    if k == 1:
                        lines.append(f"u{d}_1 = <floating>2 * v{d}")
                    else:
                        prev2 = "<floating>1" if k - 2 == 0 else f"u{d}_{k - 2}"
                        lines.append(f"u{d}_{k} = <floating>2 * v{d} * u{d}_{k - 1} - {prev2}")
        return lines

    def _factor(self, d, k):
        return "v%d" % d if k == 1 else f"b{d}_{k}"

    def _product(self, e):
        factors = [self._factor(d, k) for d, k in enumerate(e) if k > 0]
        return " * ".join(factors) if factors else "<floating>1"

    def _derivative_factor(self, d, k):
        """d b_k / d v as an expression (k >= 1)."""
        if self.basis == "monomial":
            base = "<floating>1" if k == 1 else ("v%d" % d if k == 2 else f"b{d}_{k - 1}")
        else:
            base = "<floating>1" if k == 1 else f"u{d}_{k - 1}"
        return base if k == 1 else f"<floating>{k} * {base}"

    def _locals(self, need_derivative):
        names = [f"v{d}" for d in range(self.dimensions)]
        for d in range(self.dimensions):
            top = max(e[d] for e in self.terms) if self.terms else 0
            names += [f"b{d}_{k}" for k in range(2, top + 1)]
            if need_derivative and self.basis == "chebyshev":
                names += [f"u{d}_{k}" for k in range(1, top)]
        if need_derivative:
            names += [f"g{d}" for d in range(self.dimensions)]
        return names + ["s", "t"]

    def _lane_loop(self, need_derivative):
        """The end of a routine's docstring, its locals and the start of the
        loop over the L lanes: the basis values of lane ``i`` and ``s = 0``."""
        lines = [
            '    """',
            "    cdef Py_ssize_t i",
            "    cdef floating " + ", ".join(self._locals(need_derivative)),
            "    for i in range(VECTOR_LENGTH):",
        ]
        lines += ["        " + line for line in self._basis_lines("i", need_derivative)]
        lines.append("        s = <floating>0")
        return lines

    def _guarded(self, body_by_order, indent):
        """Lines for each total order, wrapped in a compile-time guard if requested."""
        out = []
        for total in sorted(body_by_order):
            lines = body_by_order[total]
            if not lines:
                continue
            if self.preprocessor_order and total > 0:
                out.append(indent + f"if {self.order_macro} >= {total}:")
                out.extend(indent + "    " + line for line in lines)
            else:
                out.extend(indent + line for line in lines)
        return out

    def _description(self):
        basis = "monomials v**k" if self.basis == "monomial" else "Chebyshev polynomials T_k(v)"
        mapping = ("v_d = (2 x_d - max_d - min_d) / (max_d - min_d) with (min_d, max_d) = "
                   + ", ".join(f"({lo!r}, {hi!r})" for lo, hi in self.ranges)) if self.ranges else "v_d = x_d"
        order = (f"orders {self.minimum_order} to {self.order}" if self.minimum_order else f"orders up to {self.order}")
        active = (f"; terms above the compile-time order {self.order_macro} (default {self.active_order}) are inactive"
                  if self.preprocessor_order else "")
        return (f"P(x) = sum_e c_e prod_d b_(e_d)(v_d) over {len(self.terms)} terms ({order}{active}), "
                f"{self.dimensions} variables, basis {basis}, {mapping}.")

    # -- outputs -----------------------------------------------------------------
    def cython_prelude(self):
        """Imports, the order macro and the index enum (Cython declarations)."""
        lines = [
            "from cython cimport floating",
            "from vecampfit.block cimport VECTOR_LENGTH",
            "",
        ]
        if self.preprocessor_order:
            lines += [
                "cdef extern from *:",
                '    """',
                f"    #ifndef {self.order_macro}",
                f"    #define {self.order_macro} {self.active_order}",
                "    #endif",
                '    """',
                f"    # Active maximum order, fixed when the model is compiled.",
                f"    enum: {self.order_macro}",
                "",
            ]
        lines += self.index_enum()
        lines += ["", f"# Parameter names of {self.name} in index order (a model's PARAMETERS).",
                  f"{self.prefix}_NAMES = ("
                  + ", ".join(repr(n) for n in self.names) + ("," if len(self.names) == 1 else "")
                  + ")"]
        return lines

    def index_enum(self):
        """``cdef enum`` with the parameter indices and the number of terms."""
        lines = [f"# Parameter indices of {self.name} (offsets from its first coefficient)."]
        lines.append("cdef enum:")
        for i, n in enumerate(self.names):
            lines.append(f"    {n} = {i}")
        lines.append(f"    {self.prefix}_N_TERMS = {len(self.terms)}")
        return lines

    def value_routine(self):
        """The block routine ``NAME(out, x, c)``."""
        lines = [
            f"cdef inline void {self.name}(floating *out, const floating *x, const floating *c) noexcept nogil:",
            f'    """Polynomial value for the L lanes: out[i] = P(x[:, i]).',
            "",
            f"    {self._description()}",
            f"    x: the {self.dimensions} variables as real vectors, layout [D][L]; c: coefficients,",
            f"    indexed by the {self.prefix}_* enum.",
        ]
        lines += self._lane_loop(False)
        by_order = {}
        for e, n in zip(self.terms, self.names):
            # Same grouping as in the gradient routine: both give identical values.
            product = self._product(e)
            if " * " in product:
                product = f"({product})"
            by_order.setdefault(sum(e), []).append(f"s = s + c[{n}] * {product}")
        lines += self._guarded(by_order, "        ")
        lines.append("        out[i] = s")
        lines.append("")
        return lines

    def gradient_routine(self, variable_gradient=False):
        """The block routine with the gradient with respect to the coefficients (and variables)."""
        args = "floating *out, floating *gradient, "
        if variable_gradient:
            args += "floating *variable_gradient, "
        args += "const floating *x, const floating *c"
        lines = [
            f"cdef inline void {self.name}_gradient({args}) noexcept nogil:",
            f'    """Polynomial value and gradient for the L lanes.',
            "",
            f"    {self._description()}",
            "    gradient[k * L + i] = dP/dc_k (layout [n_terms][L]; zero for inactive terms)"
            + (";\n    variable_gradient[d * L + i] = dP/dx_d (layout [D][L])." if variable_gradient else "."),
        ]
        lines += self._lane_loop(variable_gradient)
        if variable_gradient:
            lines += [f"        g{d} = <floating>0" for d in range(self.dimensions)]
        if self.preprocessor_order:
            # Inactive terms contribute nothing; their derivatives are zero.
            lines += [f"        gradient[{n} * VECTOR_LENGTH + i] = <floating>0"
                      for e, n in zip(self.terms, self.names) if sum(e) > 0]
        by_order = {}
        for e, n in zip(self.terms, self.names):
            body = by_order.setdefault(sum(e), [])
            body.append(f"t = {self._product(e)}")
            body.append(f"gradient[{n} * VECTOR_LENGTH + i] = t")
            body.append(f"s = s + c[{n}] * t")
            if variable_gradient:
                for d, k in enumerate(e):
                    if k == 0:
                        continue
                    others = [self._factor(dd, kk) for dd, kk in enumerate(e) if kk > 0 and dd != d]
                    expr = " * ".join([self._derivative_factor(d, k)] + others)
                    body.append(f"g{d} = g{d} + c[{n}] * {expr}")
        lines += self._guarded(by_order, "        ")
        lines.append("        out[i] = s")
        if variable_gradient:
            for d in range(self.dimensions):
                scale = ""
                if self.ranges is not None:
                    lo, hi = self.ranges[d]
                    scale = f"<floating>{2.0 / (hi - lo)!r} * "
                lines.append(f"        variable_gradient[{d} * VECTOR_LENGTH + i] = {scale}g{d}")
        lines.append("")
        return lines

    def python_definitions(self):
        """Python module text with the names, exponents, orders and indices."""
        lines = [
            f'"""Parameter definitions of the polynomial {self.name}.',
            "",
            f"{self._description()}",
            '"""',
            "",
            f"#: Parameter names, in the order of the coefficients.",
            "NAMES = (",
        ]
        lines += [f"    {n!r}," for n in self.names]
        lines += [")", "", "#: Exponents (e_1, ..., e_D) of each term.", "EXPONENTS = ("]
        lines += [f"    {e!r}," for e in self.terms]
        lines += [")", "", "#: Total order of each term.",
                  "ORDERS = (" + ", ".join(str(sum(e)) for e in self.terms) + ("," if len(self.terms) == 1 else "") + ")",
                  "", f"#: Number of terms.", f"{self.prefix}_N_TERMS = {len(self.terms)}", "",
                  "#: Index of each parameter by name.", "INDEX = {name: i for i, name in enumerate(NAMES)}", ""]
        lines += [f"{n} = {i}" for i, n in enumerate(self.names)]
        lines.append("")
        return lines

    def parameter_file(self, step, random_change, constant_initial):
        """Parameter file in the fitter's format (name, initial, step, lower, upper, random change)."""
        width = max(len(n) for n in self.names) if self.names else 1
        lines = []
        for e, n in zip(self.terms, self.names):
            initial = constant_initial if sum(e) == 0 else 0.0
            lines.append(f"{n:<{width}} {initial!r} {step!r} 0 0 {random_change!r}")
        return lines

    def release_code(self):
        """Python function releasing the coefficients of an order range."""
        return [
            f'"""Release the coefficients of the polynomial {self.name} by order."""',
            "",
            "NAMES = (" + "".join(f"{n!r}, " for n in self.names) + ")",
            "ORDERS = (" + "".join(f"{sum(e)}, " for e in self.terms) + ")",
            "",
            "",
            f"def release_{self.name}_parameters(fit, minimum_order, maximum_order):",
            f'    """Release the coefficients of {self.name} whose total order lies in',
            "    [minimum_order, maximum_order].",
            "",
            "    ``fit`` is an object with a ``release(name)`` method (a vecampfit fitter)",
            "    or an ``iminuit.Minuit`` (its ``fixed[name]`` is set to False).",
            "    Returns the list of released names.",
            '    """',
            "    if minimum_order > maximum_order:",
            "        raise ValueError(f\"minimum_order {minimum_order} > maximum_order {maximum_order}\")",
            "    released = []",
            "    for name, order in zip(NAMES, ORDERS):",
            "        if minimum_order <= order <= maximum_order:",
            "            if hasattr(fit, \"release\"):",
            "                fit.release(name)",
            "            else:",
            "                fit.fixed[name] = False",
            "            released.append(name)",
            "    return released",
            "",
        ]


def _header(comment, argv):
    call = " ".join([COMMAND] + [shlex.quote(a) for a in argv])
    try:
        from . import __version__ as version
    except Exception:  # running from a source tree without the build
        version = "unknown"
    return [
        f"{comment} Generated by: {call}",
        f"{comment} (vecampfit {version}). Do not edit: run the command again instead.",
        "",
    ]


def _parse_ranges(text, dimensions, parser):
    ranges = []
    for part in text.split(","):
        bits = part.split(":")
        if len(bits) != 2:
            parser.error(f"--ranges: {part!r} is not MIN:MAX")
        try:
            lo, hi = float(bits[0]), float(bits[1])
        except ValueError:
            parser.error(f"--ranges: {part!r} is not MIN:MAX with numbers")
        if not (math.isfinite(lo) and math.isfinite(hi)) or not lo < hi:
            parser.error(f"--ranges: {part!r} needs finite MIN < MAX")
        ranges.append((lo, hi))
    if len(ranges) != dimensions:
        parser.error(f"--ranges: {len(ranges)} ranges given for {dimensions} dimensions")
    return ranges


def _build_parser():
    p = argparse.ArgumentParser(
        prog=COMMAND,
        description=(
            "Emit Cython source for a polynomial in DIMENSIONS variables of total order up to "
            "ORDER: block routines (every precision and vector length through vecampfit's "
            "fused block conventions), their gradients, parameter-index definitions, a parameter "
            "file for the fitter and Python code that releases coefficients by order. Each output "
            "is selected by its option and goes to FILE, or to standard output when FILE is "
            "omitted or '-'. Parameter names are PREFIX_e1_..._eD; terms are ordered by total "
            "order, then by exponents in descending lexicographic order."
        ),
        epilog=(
            "Example (the paper's efficiency correction): "
            f"{COMMAND} 2 7 --minimum-order=1 --preprocessor-order --subroutine"
        ),
    )
    p.add_argument("order", metavar="ORDER", type=int, help="maximum total order n (>= 0)")
    p.add_argument("dimensions", metavar="DIMENSIONS", type=int, help="number of variables D (>= 1)")
    p.add_argument("--minimum-order", type=int, default=0, metavar="M",
                   help="leave out the terms of total order below M (default 0; 1 removes the constant term)")
    p.add_argument("--preprocessor-order", action="store_true",
                   help="generate all orders up to ORDER but make the active maximum order a compile-time "
                        "C macro (see --order-macro, --active-order); inactive terms are removed by the compiler")
    p.add_argument("--order-macro", default="POLYNOMIAL_ORDER", metavar="NAME",
                   help="name of the compile-time order macro (default POLYNOMIAL_ORDER)")
    p.add_argument("--active-order", type=int, default=None, metavar="K",
                   help="default value of the order macro when the compiler is not given -DNAME=K "
                        "(default: ORDER)")
    p.add_argument("--basis", default="monomial", choices=BASES,
                   help="one-variable basis: monomial v**k or chebyshev T_k(v) (default monomial)")
    p.add_argument("--ranges", default=None, metavar="MIN:MAX,...",
                   help="map each variable x_d linearly from [MIN, MAX] to [-1, 1] before evaluating "
                        "the basis; one MIN:MAX per dimension, comma-separated")
    p.add_argument("--name", default="polynomial", help="name of the generated routine (default polynomial)")
    p.add_argument("--prefix", default="P", help="prefix of the parameter names (default P)")
    out = p.add_argument_group("outputs (each to FILE, or standard output)")
    out.add_argument("--subroutine", nargs="?", const="-", metavar="FILE",
                     help="Cython block routine NAME(out, x, c) with its index definitions")
    out.add_argument("--gradient", nargs="?", const="-", metavar="FILE",
                     help="Cython block routine NAME_gradient(out, gradient, [variable_gradient,] x, c) "
                          "with the derivatives with respect to the coefficients, with its index definitions")
    out.add_argument("--variable-gradient", action="store_true",
                     help="with --gradient: also the derivatives with respect to the variables")
    out.add_argument("--definitions", nargs="?", const="-", metavar="FILE",
                     help="Cython (.pxd/.pxi) parameter-index definitions only")
    out.add_argument("--python-definitions", nargs="?", const="-", metavar="FILE",
                     help="Python module with NAMES, EXPONENTS, ORDERS and the indices")
    out.add_argument("--parameter-file", nargs="?", const="-", metavar="FILE",
                     help="parameter file in the fitter's format (constant term --constant-initial, others 0)")
    out.add_argument("--release-code", nargs="?", const="-", metavar="FILE",
                     help="Python function release_NAME_parameters(fit, minimum_order, maximum_order)")
    p.add_argument("--max-terms", type=int, default=MAX_TERMS, metavar="N",
                   help=f"refuse a polynomial of more than N terms (default {MAX_TERMS})")
    out.add_argument("--step", type=float, default=1e-3, help="initial step in the parameter file (default 1e-3)")
    out.add_argument("--random-change", type=float, default=0.0,
                     help="random change R in the parameter file (default 0)")
    out.add_argument("--constant-initial", type=float, default=1.0,
                     help="initial value of the constant term in the parameter file (default 1)")
    return p


def _write(path, text):
    if path in (None, "-"):
        sys.stdout.write(text)
        return
    atomic_write_text(path, text)


def _check_destination(path, option, parser):
    """A usage error unless ``path`` can be written (its folder exists, it is
    not a folder): checked for every output before any is written."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        parser.error(f"{option} {path}: the folder {folder} does not exist")
    if os.path.isdir(path):
        parser.error(f"{option} {path}: is a folder")
    if not os.access(folder, os.W_OK):
        parser.error(f"{option} {path}: the folder {folder} is not writable")


def main(argv=None):
    """Run the command; return the exit status (2 for a usage error).

    Parameters
    ----------
    argv : list of str, optional
        Arguments without the program name; default ``sys.argv[1:]``.
    """
    if argv is None:
        argv = sys.argv[1:]
    parser = _build_parser()
    args = parser.parse_args(argv)
    if args.order < 0:
        parser.error(f"ORDER must be >= 0, got {args.order}")
    if args.dimensions < 1:
        parser.error(f"DIMENSIONS must be >= 1, got {args.dimensions}")
    if not 0 <= args.minimum_order <= args.order:
        parser.error(f"--minimum-order must be between 0 and ORDER={args.order}, got {args.minimum_order}")
    if args.active_order is not None:
        if not args.preprocessor_order:
            parser.error("--active-order needs --preprocessor-order")
        if not 0 <= args.active_order <= args.order:
            parser.error(f"--active-order must be between 0 and ORDER={args.order}, got {args.active_order}")
    for label, ident in (("--name", args.name), ("--prefix", args.prefix), ("--order-macro", args.order_macro)):
        if not ident.isidentifier():
            parser.error(f"{label} {ident!r} is not an identifier")
    if args.variable_gradient and args.gradient is None:
        parser.error("--variable-gradient needs --gradient")
    ranges = _parse_ranges(args.ranges, args.dimensions, parser) if args.ranges else None
    for option, value, lowest in (("--step", args.step, 0.0),
                                  ("--random-change", args.random_change, 0.0),
                                  ("--constant-initial", args.constant_initial, None)):
        if not math.isfinite(value) or (lowest is not None and value < lowest):
            need = "a finite number" if lowest is None else "finite and >= 0"
            parser.error(f"{option} must be {need} (the fitter's parameter files refuse "
                         f"anything else), got {value!r}")
    if args.max_terms < 1:
        parser.error(f"--max-terms must be >= 1, got {args.max_terms}")
    if number_of_terms(args.order, args.dimensions, args.minimum_order) > args.max_terms:
        parser.error(too_many_terms(args.order, args.dimensions, args.minimum_order,
                                    args.max_terms, "--max-terms"))

    spec = PolynomialSpec(args.order, args.dimensions, args.minimum_order, args.basis, ranges,
                          args.preprocessor_order, args.active_order, args.order_macro,
                          args.name, args.prefix, max_terms=args.max_terms)
    outputs = {
        "subroutine": args.subroutine, "gradient": args.gradient, "definitions": args.definitions,
        "python_definitions": args.python_definitions, "parameter_file": args.parameter_file,
        "release_code": args.release_code,
    }
    if all(v is None for v in outputs.values()):
        outputs["subroutine"] = "-"
    # Group what goes to the same destination; Cython outputs share one prelude.
    by_dest = {}
    for kind, dest in outputs.items():
        if dest is not None:
            by_dest.setdefault(os.path.abspath(dest) if dest != "-" else "-", []).append(kind)
    cython_kinds = {"subroutine", "gradient", "definitions"}
    for dest, kinds in by_dest.items():
        if len(kinds) > 1 and not set(kinds) <= cython_kinds:
            where = "standard output" if dest == "-" else dest
            parser.error(f"outputs {', '.join('--' + k.replace('_', '-') for k in kinds)} cannot share "
                         f"{where}: give them different files")
    for kind, dest in outputs.items():
        if dest not in (None, "-"):
            _check_destination(dest, "--" + kind.replace("_", "-"), parser)
    for dest, kinds in by_dest.items():
        kinds = set(kinds)
        if kinds & cython_kinds:
            lines = _header("#", argv)
            if kinds & {"subroutine", "gradient"}:
                lines += spec.cython_prelude()
                if "subroutine" in kinds:
                    lines += ["", ""] + spec.value_routine()[:-1]
                if "gradient" in kinds:
                    lines += ["", ""] + spec.gradient_routine(args.variable_gradient)[:-1]
            else:
                lines += spec.index_enum()
        elif "python_definitions" in kinds:
            lines = _header("#", argv) + spec.python_definitions()
        elif "parameter_file" in kinds:
            lines = spec.parameter_file(args.step, args.random_change, args.constant_initial)
        else:
            lines = _header("#", argv) + spec.release_code()
        text = "\n".join(lines).rstrip("\n") + "\n"
        try:
            _write(None if dest == "-" else dest, text)
        except OSError as exc:
            print(f"{COMMAND}: cannot write {dest}: {exc.strerror or exc}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())


def generated_code(files, folder):
    """Write the tool's code into a folder, for a model compiled with it.

    For each ``name -> arguments`` of ``files`` the tool runs with the
    arguments (a command line without the program's name; ``{}`` stands
    for the path of ``name`` in ``folder``, where an option's FILE goes),
    and what it writes to standard output becomes the file ``name`` (when
    nothing is written there, the options wrote their own files).  Each
    file is replaced whole, so that programs compiling at the same time
    never read a half-written one.  Give the folder to
    :func:`vecampfit.model_compiler.compile_model` as one of its
    ``include_dirs`` (``include`` or ``cimport`` the files from the model):
    the compiled code is then always the tool's current output.

    Parameters
    ----------
    files : dict of str to str
        File name -> the tool's arguments.
    folder : str or os.PathLike
        Created if missing.

    Returns
    -------
    str
        The folder.

    Raises
    ------
    RuntimeError
        The tool refused the arguments of a file (its message names it).
    """
    import contextlib
    import io
    folder = os.fspath(folder)
    os.makedirs(folder, exist_ok=True)
    for name, arguments in files.items():
        path = os.path.join(folder, name)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main(shlex.split(arguments.format(shlex.quote(path))))
            except SystemExit as exc:      # argparse's refusal
                status = exc.code if isinstance(exc.code, int) else 2
        if status != 0:
            raise RuntimeError(f"vecampfit-polynomial-parameters {arguments} (for {name}): "
                               f"{err.getvalue().strip() or f'exit status {status}'}")
        if out.getvalue():
            atomic_write_text(path, out.getvalue())
    return folder
