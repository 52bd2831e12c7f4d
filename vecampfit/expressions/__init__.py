"""The expression layer beneath the model builders.

An amplitude piece (lineshape, form factor, angular function, coupling) is
written once, as an expression over numbers, fit parameters, model constants
and event quantities (:mod:`~vecampfit.expressions.nodes`), or as a formula
string (:mod:`~vecampfit.expressions.parser`).  Passes
(:mod:`~vecampfit.expressions.passes`) derive its gradient and split it by
dependency class: what depends on parameters only is computed once per
likelihood call in the parameter-buffer fill, what depends on the event
only once when the events are loaded, and the rest per event.  Printers
(:mod:`~vecampfit.expressions.printing`) write Cython block code, and
:func:`~vecampfit.expressions.evaluate.evaluate` is the numpy reference.
Nothing here knows about a particular decay; :mod:`vecampfit.isobar` builds
its models on it.

Examples
--------
>>> from vecampfit import expressions as ex
>>> bw = ex.parse("1/(m0^2 - s - i*m0*w0)", symbols={"s": ex.event("s")})
>>> bw.re.dependency
'mixed'
>>> dbw = ex.derivative(bw, "w0")          # d/dw0, an expression too
>>> complex(ex.evaluate(dbw, {"m0": 0.775, "w0": 0.149, "s": 0.6}))
(-0.6291038722693406-58.11491323086187j)
"""

from .evaluate import evaluate
from .nodes import (I, ComplexExpr, Expr, absolute, add, as_complex, as_expr, atan2, constant, cos,
                    event, exp, group, log, mul, num, parameter, pos, power, sin, sqrt, step)
from .parser import FUNCTIONS, FormulaError, parse
from .passes import derivative, hoist, leaves, substitute
from .physics import (bachelor_momentum_squared, blatt_weisskopf, blatt_weisskopf_coefficients, blatt_weisskopf_polynomial,
                      breakup_momentum, breakup_momentum_squared, breit_wigner, complex_sqrt,
                      constant_width_breit_wigner, flatte, k_matrix, phase_space_factor,
                      sqrt_physical)
from .printing import CythonPrinter, infix
from .spin import doubled_spin, wigner_small_d, wigner_small_d_cos, wigner_small_d_terms

__all__ = [
    "Expr", "ComplexExpr", "I", "num", "parameter", "constant", "event", "add", "mul", "power",
    "sqrt", "exp", "log", "sin", "cos", "atan2", "absolute", "pos", "step", "group", "as_expr", "as_complex",
    "parse", "FUNCTIONS", "FormulaError", "derivative", "hoist", "leaves", "substitute",
    "evaluate", "CythonPrinter", "infix", "sqrt_physical", "complex_sqrt",
    "breakup_momentum_squared", "breakup_momentum", "bachelor_momentum_squared",
    "phase_space_factor",
    "blatt_weisskopf_coefficients", "blatt_weisskopf_polynomial", "blatt_weisskopf",
    "breit_wigner", "constant_width_breit_wigner", "flatte", "k_matrix",
    "doubled_spin", "wigner_small_d", "wigner_small_d_cos", "wigner_small_d_terms",
]
