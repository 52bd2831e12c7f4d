"""Printers: expressions as readable formulas and as Cython statements.

:func:`infix` writes a formula for messages and comments.
:class:`CythonPrinter` writes the statements of one function body, one
statement a line, each node once (a node already printed is reused by name:
the common-subexpression pass is the printer's memo).  It asks its owner how
to read the leaves and hoisted nodes (a parameter-buffer slot, an event
field, an argument of the function), so the same printer writes the
parameter-buffer fill (double precision) and the per-event loop.
"""

import math

from .nodes import Expr

__all__ = ["infix", "CythonPrinter", "number_literal", "GRADIENT_SUM_HEAD", "GRADIENT_FROM_SUM",
           "DENSITY_CIMPORTS", "density_cimport", "lane_halves", "LANE_PIECE"]

_PREC = {"add": 1, "mul": 2, "pow": 3}


def _num_text(v):
    if v == int(v) and abs(v) < 1e15:
        return str(int(v))
    return repr(v)


def infix(expr, prec=0):
    """A readable formula of a real expression (``^`` for powers)."""
    op = expr.op
    if op == "num":
        text = _num_text(expr.data) if math.isfinite(expr.data) else repr(expr.data)
        return f"({text})" if expr.data < 0 and prec > 0 else text
    if op in ("par", "const", "event"):
        return expr.data
    if op == "group":
        return infix(expr.args[0], prec)
    if op == "add":
        parts = []
        for k, a in enumerate(expr.args):
            t = infix(a, 1)
            if k and t.startswith("-"):
                parts.append(f"- {t[1:]}")
            else:
                parts.append(("+ " if k else "") + t)
        text = " ".join(parts)
        return f"({text})" if prec > 1 else text
    if op == "mul":
        args = list(expr.args)
        sign = ""
        if args[0].op == "num" and args[0].data == -1.0:
            sign, args = "-", args[1:]
        text = sign + " * ".join(infix(a, 2) for a in args)
        return f"({text})" if prec > 1 else text
    if op == "pow":
        n = expr.data
        if n == 0.5:
            return f"sqrt({infix(expr.args[0])})"
        return f"{infix(expr.args[0], 4)}^{_num_text(n) if n >= 0 else f'({_num_text(n)})'}"
    return f"{op}({', '.join(infix(a) for a in expr.args)})"


def number_literal(v, ctype):
    """A number as a Cython literal of type ``ctype`` (integers stay integers,
    so that they never promote a float expression to double)."""
    if not math.isfinite(v):
        return "NAN" if math.isnan(v) else ("INFINITY" if v > 0 else "-INFINITY")
    if v == int(v) and abs(v) < 2 ** 31:
        return str(int(v))
    if ctype == "double":
        return repr(v)
    return f"(<{ctype}> {v!r})"


class CythonPrinter:
    """Statements of one function body, each node printed once.

    Parameters
    ----------
    leaf : callable
        ``leaf(node) -> str or None``: the text of a node that the printer
        must not compute itself (a leaf, a hoisted parameter-only or
        event-only node), or None to compute it here.
    local : callable
        ``local(hint) -> str``: a new local variable name.
    emit : callable
        ``emit(line)``: write one statement.
    ctype : str
        C type of the locals (``"floating"`` in block functions,
        ``"double"`` in the parameter-buffer fill).
    math : dict, optional
        Function name per operation (``exp``, ``log``, ``sin``, ``cos``,
        ``sqrt``, ``pow``, ``atan2``, ``fmax``, ``fabs``).
    """

    def __init__(self, leaf, local, emit, ctype="floating", math=None):
        self.leaf = leaf
        self.local = local
        self.emit = emit
        self.ctype = ctype
        self.math = {"exp": "exp", "log": "log", "sin": "sin", "cos": "cos", "sqrt": "sqrt",
                     "pow": "pow", "atan2": "atan2", "fmax": "fmax", "fabs": "fabs"}
        self.math.update(math or {})
        self.memo = {}
        self.exponents = {}
        self.uses = {}
        self._scanned = set()

    def prepare(self, *exprs):
        """Note the powers of each base in ``exprs`` before printing them.

        A base with a negative half-integer power anywhere (a Blatt-Weisskopf
        factor :math:`P^{-1/2}` beside :math:`P^{-1}` and :math:`P^{-3/2}`)
        has all its negative powers printed from one :math:`1/\\sqrt{P}`
        (one square root and one division for all of them); otherwise its
        negative powers share one reciprocal :math:`1/P`.  Call it with
        everything a function body will print (a value and its derivatives).
        """
        stack = list(exprs)
        while stack:
            node = stack.pop()
            if node in self._scanned:
                continue
            self._scanned.add(node)
            if node.op == "pow":
                self.exponents.setdefault(node.args[0], set()).add(node.data)
            for a in node.args:
                self.uses[a] = self.uses.get(a, 0) + 1
            stack.extend(node.args)

    def code(self, node, hint="t"):
        """The text of ``node`` (a name or a literal), printing what it needs."""
        if node in self.memo:
            return self.memo[node]
        text = self.leaf(node)
        if text is None and node.op == "group":
            text = self.code(node.args[0], hint)
        elif text is None:
            if node.op == "num":
                text = number_literal(node.data, self.ctype)
            else:
                rhs = self._rhs(node, hint)
                if node.op == "mul" and node.args[0].op == "num" and node.args[0].data == -1.0 \
                        and len(node.args) == 2:
                    text = f"(-{self.code(node.args[1], hint)})"
                else:
                    text = self.local(hint)
                    self.emit(f"{text} = {rhs}")
        self.memo[node] = text
        return text

    def _rhs(self, node, hint):
        op, args = node.op, node.args
        c = lambda a: self.code(a, hint)  # noqa: E731
        if op == "add":
            parts = []
            for k, a in enumerate(args):
                if k and a.op == "num" and a.data < 0:
                    parts.append(f"- {number_literal(-a.data, self.ctype)}")
                elif k and a.op == "mul" and a.args[0].op == "num" and a.args[0].data < 0:
                    coef = -a.args[0].data
                    factors = [number_literal(coef, self.ctype)] if coef != 1.0 else []
                    parts.append("- " + " * ".join(factors + [c(x) for x in a.args[1:]]))
                else:
                    parts.append(("+ " if k else "") + c(a))
            return " ".join(parts)
        if op == "mul":
            sign = ""
            if args[0].op == "num" and args[0].data == -1.0:
                sign, args = "-", args[1:]
            # A reciprocal that only this product uses divides it (no separate 1/x).
            den = [a for a in args if a.op == "pow" and a.data == -1 and a not in self.memo
                   and self.uses.get(a, 0) == 1 and self.leaf(a) is None
                   and not self._rsqrt(a.args[0])]
            if den and len(args) > 1:
                d = den[0]
                num = " * ".join(c(a) for a in args if a is not d)
                return f"{sign}{num} / {self._paren(c(d.args[0]))}"
            return sign + " * ".join(c(a) for a in args)
        if op == "pow":
            return self._pow(args[0], node.data, hint)
        if op in ("exp", "log", "sin", "cos"):
            return f"{self.math[op]}({c(args[0])})"
        if op == "atan2":
            return f"{self.math['atan2']}({c(args[0])}, {c(args[1])})"
        if op == "abs":
            return f"{self.math['fabs']}({c(args[0])})"
        if op == "pos":
            return f"{self.math['fmax']}({c(args[0])}, 0)"
        if op == "step":
            return f"<{self.ctype}> ({c(args[0])} > 0)"
        raise ValueError(f"cannot print the operation {op!r}")

    def _rsqrt(self, base):
        """True if the negative powers of ``base`` come from 1/sqrt(base)."""
        exps = self.exponents.get(base, ())
        return (all((2 * e) == int(2 * e) for e in exps)
                and any(e < 0 and not isinstance(e, int) for e in exps))

    @staticmethod
    def _paren(text):
        return text if text.replace("_", "").isalnum() else f"({text})"

    def _product(self, text, k):
        """text^k for an integer k > 0 (a name or literal)."""
        return " * ".join([text] * k) if k <= 4 else self._int_power(text, k)

    def _pow(self, base, n, hint):
        """x^n from one reciprocal (or reciprocal square root) per base."""
        self.prepare(Expr("pow", (base,), n))
        exps = self.exponents[base]
        half = all((2 * e) == int(2 * e) for e in exps)
        rsqrt = self._rsqrt(base)
        b = self.code(base, hint)
        if n == -0.5:
            return f"1 / {self.math['sqrt']}({b})"
        if n == -1 and not rsqrt:
            return f"1 / {b}"
        if isinstance(n, int) and n > 0:
            return self._product(b, n)
        if rsqrt:
            # Every half-integer power from u = x^(-1/2): x^(-k/2) = u^k and
            # x^((2m+1)/2) = x^(m+1) u.
            u = self.code(Expr("pow", (base,), -0.5), hint)
            if n < 0:
                return self._product(u, int(-2 * n))
            m = int(n - 0.5) + 1
            return f"{self._product(b, m)} * {u}"
        if isinstance(n, int):
            return self._product(self.code(Expr("pow", (base,), -1), hint), -n)
        if half and n > 0:
            # x^(m + 1/2) = x^m sqrt(x)
            m = int(n - 0.5)
            root = f"{self.math['sqrt']}({b})"
            return root if m == 0 else f"{self._product(b, m)} * {root}"
        return f"{self.math['pow']}({b}, {number_literal(float(n), self.ctype)})"

    def _int_power(self, b, k):
        """b^k by repeated squaring into locals."""
        out, sq = None, b
        while k:
            if k & 1:
                out = sq if out is None else f"{out} * {sq}"
            k >>= 1
            if k:
                t = self.local("sq")
                self.emit(f"{t} = {sq} * {sq}")
                sq = t
        return out


#: Signature of a generated model's gradient-sum function (the fitter's
#: model protocol, vecampfit/fitter/density.pxd), its sums restrict-qualified
#: (``restricted_sums``): a loop that adds to them may go on reading the
#: events and the parameter buffer without reading them again after each
#: store, and stays vectorized.
GRADIENT_SUM_HEAD = [
    "cdef void density_gradient_sum(floating *out, restricted_sums sums, const double *factor,",
    "                               const void *event_block, const floating *params,",
    "                               const void *parameter_buffer) noexcept nogil:",
    '    """S for the L events of one block, and sums[k L + i] += factor[i] dS_i/dp_k',
    '    for every parameter k."""']

#: density_gradient of a generated model: its gradient-sum function with unit
#: factors from zero (0 + 1 x = x exactly, also for float32 values held in
#: double), so that the derivatives are written once.  It calls the function
#: through a pointer the compiler cannot see through (volatile): the same
#: machine code as the fitter's calls then forms every row, and a row comes
#: out the same to the bit (inlined with factors known to be 1, the compiler
#: may fuse its multiplications and additions differently).
GRADIENT_FROM_SUM = [
    "cdef void density_gradient(floating *out, floating *gradient, const void *event_block,",
    "                           const floating *params,",
    "                           const void *parameter_buffer) noexcept nogil:",
    '    """S and dS/dp for every parameter, gradient laid out [N_PARAMETERS][L]."""',
    "    cdef double s[N_PARAMETERS * VECTOR_LENGTH]",
    "    cdef double one[VECTOR_LENGTH]",
    "    cdef volatile density_gradient_sum_function_float64 sum_float64",
    "    cdef volatile density_gradient_sum_function_float32 sum_float32",
    "    cdef int i",
    "    for i in range(VECTOR_LENGTH):",
    "        one[i] = 1",
    "    for i in range(N_PARAMETERS * VECTOR_LENGTH):",
    "        s[i] = 0",
    "    if floating is double:",
    "        sum_float64 = density_gradient_sum[double]",
    "        sum_float64(out, s, one, event_block, params, parameter_buffer)",
    "    else:",
    "        sum_float32 = density_gradient_sum[float]",
    "        sum_float32(out, s, one, event_block, params, parameter_buffer)",
    "    for i in range(N_PARAMETERS * VECTOR_LENGTH):",
    "        gradient[i] = <floating> s[i]"]

#: The names of vecampfit.fitter.density a generated model cimports.
DENSITY_CIMPORTS = ("add_product", "density_gradient_sum_function_float32",
                    "density_gradient_sum_function_float64", "gradient_sum_functions",
                    "model_description", "restricted_sums", "single_component_functions")


def density_cimport(*extra):
    """The lines ``from vecampfit.fitter.density cimport (...)`` of a generated
    model: :data:`DENSITY_CIMPORTS` and ``extra`` names, sorted."""
    names = sorted(set(DENSITY_CIMPORTS) | set(extra))
    return ["from vecampfit.fitter.density cimport ("] + [f"    {n}," for n in names] + [")"]


def lane_halves(lines):
    """A loop over the lanes of a block in pieces of 32 bytes (four float64
    or eight float32 lanes, the whole block where L is not a multiple of
    that), with ``lines`` as its body; the caller declares ``cdef int i, h,
    piece`` and sets ``piece`` with :data:`LANE_PIECE`."""
    return ["    h = 0", "    while h < VECTOR_LENGTH:",
            "        for i in range(h, h + piece):"] + ["            " + x for x in lines] + \
        ["        h += piece"]


#: Sets ``piece`` for :func:`lane_halves` (the compiler folds it to a constant).
LANE_PIECE = ["    piece = <int> (32 // sizeof(floating))",
              "    if piece > VECTOR_LENGTH or VECTOR_LENGTH % piece != 0:",
              "        piece = VECTOR_LENGTH"]
