"""Parameters, constants and coupling forms of an isobar model.

Every number of a model (a mass, a width, a radius, the parts of a coupling)
is a *quantity*: either a fit :class:`Parameter` (free or fixed in the fit,
bound to the fit's parameter table by name, with an exact gradient) or a
named model :class:`Constant` (an input of the compiled model's
parameter-buffer filler and event-buffer filler, changed with
``Density.from_model(..., constants=...)``, no gradient).  A quantity is
shared between resonances by passing the same object or its name.
"""

import math

from vecampfit import expressions as _ex

__all__ = ["Cartesian", "Constant", "Parameter", "Polar"]


class Parameter:
    """A fit parameter of an isobar model.

    Parameters
    ----------
    name : str
        Name in the fit's parameter table (an identifier, unique in the model).
    value : float
        Starting value (GeV for masses and widths, GeV^-1 for radii,
        degrees for phases).
    step : float, optional
        Initial step of the minimizer; default ``1e-3`` (``0.1`` for a phase).
    lower, upper : float
        Bounds; both 0 (default) means unbounded (the paper's file format).
    fixed : bool
        Start fixed in the fit (written with step 0).  The parameter stays a
        parameter of the compiled density: it can be released later.
    random_change : float
        Half-width of the interval of randomized starting values.
    """

    kind = "parameter"

    def __init__(self, name, value, step=None, lower=0.0, upper=0.0, fixed=False,
                 random_change=0.0):
        _check_name(name, "parameter")
        self.name = name
        self.value = _finite(value, f"parameter {name!r}: value")
        self.step = None if step is None else _finite(step, f"parameter {name!r}: step")
        self.lower = _finite(lower, f"parameter {name!r}: lower")
        self.upper = _finite(upper, f"parameter {name!r}: upper")
        self.fixed = bool(fixed)
        self.random_change = _finite(random_change, f"parameter {name!r}: random_change")

    def same_as(self, other):
        """True if ``other`` declares the same parameter (name and settings)."""
        return isinstance(other, Parameter) and self.to_dict() == other.to_dict()

    def to_dict(self):
        """Plain-data form (for the model's JSON/YAML description)."""
        return {"kind": "parameter", "name": self.name, "value": self.value,
                "step": self.step, "lower": self.lower, "upper": self.upper,
                "fixed": self.fixed, "random_change": self.random_change}

    def __repr__(self):
        return f"Parameter({self.name!r}, {self.value!r}{', fixed=True' if self.fixed else ''})"


class Constant:
    """A named constant of an isobar model (no gradient).

    Passed to the compiled model's fillers; its value is a default that
    ``Density.from_model(..., constants={name: value})`` overrides.

    Parameters
    ----------
    name : str
        Constant name (an identifier, unique in the model).
    value : float
        Default value.
    """

    kind = "constant"

    def __init__(self, name, value):
        _check_name(name, "constant")
        self.name = name
        self.value = _finite(value, f"constant {name!r}: value")

    def same_as(self, other):
        """True if ``other`` declares the same constant (name and value)."""
        return isinstance(other, Constant) and self.to_dict() == other.to_dict()

    def to_dict(self):
        """Plain-data form (for the model's JSON/YAML description)."""
        return {"kind": "constant", "name": self.name, "value": self.value}

    def __repr__(self):
        return f"Constant({self.name!r}, {self.value!r})"


def quantity_from_dict(d):
    """Inverse of ``to_dict`` of :class:`Parameter` and :class:`Constant`."""
    d = dict(d)
    kind = d.pop("kind", None)
    if kind == "parameter":
        return Parameter(**d)
    if kind == "constant":
        return Constant(**d)
    raise ValueError(f"quantity {d!r}: kind must be 'parameter' or 'constant', got {kind!r}")


class _CouplingForm:
    """Base of the coupling forms (:class:`Polar`, :class:`Cartesian`): a
    coupling from its parts by role and an optional constant scale."""

    @staticmethod
    def expression(parts, scale=None):
        """The coupling on the expression layer from its parts (dict role ->
        expression) and an optional scale."""
        raise NotImplementedError

    @classmethod
    def value(cls, parts, n=1.0):
        """Complex coupling from the numeric parts (dict role -> value)."""
        return complex(_ex.evaluate(cls.expression(
            {r: _ex.num(float(v)) for r, v in parts.items()}, _ex.num(float(n))), {}))


class Polar(_CouplingForm):
    """Coupling in magnitude and phase: :math:`c = n\\, a\\, e^{i \\phi \\pi/180}`.

    Parameters
    ----------
    magnitude, phase : float, str, Parameter or Constant
        :math:`a` and :math:`\\phi` (degrees, as in the paper's parameter
        files).  A number makes a parameter named ``<component>_A`` and
        ``<component>_P``; a str names a quantity declared elsewhere in the
        model (sharing).
    scale : float, str or Constant, optional
        Constant factor :math:`n` (for example a normalization of the
        component); default 1 (no constant).
    """

    form = "polar"
    roles = ("magnitude", "phase")
    suffixes = {"magnitude": "A", "phase": "P"}

    def __init__(self, magnitude, phase, scale=None):
        self.parts = {"magnitude": magnitude, "phase": phase}
        self.scale = scale

    @staticmethod
    def expression(parts, scale=None):
        """The coupling on the expression layer from its parts (dict role ->
        expression) and an optional scale: :math:`n a (\\cos\\phi' + i \\sin\\phi')`,
        :math:`\\phi' = \\phi \\pi/180`."""
        phi = _ex.mul(math.pi / 180, parts["phase"])
        n = parts["magnitude"] if scale is None else _ex.mul(scale, parts["magnitude"])
        return _ex.ComplexExpr(_ex.mul(n, _ex.cos(phi)), _ex.mul(n, _ex.sin(phi)))


class Cartesian(_CouplingForm):
    """Coupling in real and imaginary parts: :math:`c = n\\,(x + i y)`.

    Parameters
    ----------
    re, im : float, str, Parameter or Constant
        :math:`x` and :math:`y`; numbers make parameters ``<component>_RE``
        and ``<component>_IM``.
    scale : float, str or Constant, optional
        Constant factor :math:`n`; default 1.
    """

    form = "cartesian"
    roles = ("re", "im")
    suffixes = {"re": "RE", "im": "IM"}

    def __init__(self, re, im, scale=None):
        self.parts = {"re": re, "im": im}
        self.scale = scale

    @staticmethod
    def expression(parts, scale=None):
        """The coupling on the expression layer: :math:`n (x + i y)`."""
        c = _ex.ComplexExpr(parts["re"], parts["im"])
        return c if scale is None else c * scale


COUPLING_FORMS = {"polar": Polar, "cartesian": Cartesian}


def _check_name(name, what):
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"{what} name {name!r} is not an identifier")


def _finite(x, what):
    try:
        v = float(x)
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be a number, got {x!r}") from None
    if not math.isfinite(v):
        raise ValueError(f"{what} must be finite, got {v!r}")
    return v
