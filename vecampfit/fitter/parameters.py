"""Fit parameters and the parameter-file format.

A parameter file has one line per parameter::

    NAME  INITIAL  STEP  LOWER  UPPER  RANDOM_CHANGE

``INITIAL`` is the initial value :math:`I`, ``STEP`` Minuit's initial step,
``LOWER`` and ``UPPER`` the bounds (both zero: unbounded, as in Minuit), and
``RANDOM_CHANGE`` :math:`R`: when a fit starts from random values, the
initial value is drawn uniformly from :math:`(I - R, I + R)`.  Empty lines
and text after ``#`` are ignored.  Numbers are read as Fortran or C reals
(``1E-3``, ``1.5D0``, ``0.77``).
"""

import difflib
import math
import os
import re
import warnings
from dataclasses import dataclass, replace

import numpy as np

from ..atomic_files import atomic_write_text
from .errors import ParameterFileError

# ParameterFileError (from .errors) stays importable from here.
__all__ = ["FitParameter", "ParameterTable", "read_parameter_file", "write_parameter_file"]

#: The numeric fields of a parameter, in the order of the file's columns.
_FIELDS = ("value", "step", "lower", "upper", "random_change")

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.:\-\[\]()]*$")


@dataclass(frozen=True)
class FitParameter:
    """One fit parameter: a line of a parameter file.

    Not to be confused with :class:`vecampfit.isobar.Parameter`, a parameter
    of an isobar model (which :meth:`vecampfit.isobar.IsobarModel.parameter_table`
    turns into lines of this kind).  The old name ``Parameter`` of this
    class is still importable from :mod:`vecampfit.fitter` and this module,
    with a :class:`DeprecationWarning`.

    Attributes
    ----------
    name : str
        Name (unique within a table).
    value : float
        Initial value :math:`I`.
    step : float
        Initial step of the minimizer (> 0; a parameter with step 0 starts fixed).
    lower, upper : float
        Bounds; both 0 means unbounded.  One bound alone is not possible in
        this format (as in Minuit's): 0 counts as a bound when the other is
        non-zero.
    random_change : float
        Half-width :math:`R` of the interval :math:`(I - R, I + R)` from which
        a randomized initial value is drawn.
    """

    name: str
    value: float
    step: float = 0.0
    lower: float = 0.0
    upper: float = 0.0
    random_change: float = 0.0

    @property
    def bounded(self):
        """True if the parameter has bounds (not both 0)."""
        return not (self.lower == 0 and self.upper == 0)

    @property
    def limits(self):
        """``(lower, upper)``, or ``(None, None)`` if unbounded (Minuit's form)."""
        return (self.lower, self.upper) if self.bounded else (None, None)


def _check(p, where):
    if not _NAME.match(p.name):
        raise ParameterFileError(f"{where}: invalid parameter name {p.name!r}")
    for field in _FIELDS:
        v = getattr(p, field)
        if not math.isfinite(v):
            raise ParameterFileError(f"{where}: parameter {p.name}: {field} is not finite ({v})")
    if p.step < 0:
        raise ParameterFileError(f"{where}: parameter {p.name}: negative step {p.step}")
    if p.random_change < 0:
        raise ParameterFileError(f"{where}: parameter {p.name}: negative random change "
                                 f"{p.random_change}")
    if p.bounded:
        if p.lower >= p.upper:
            raise ParameterFileError(f"{where}: parameter {p.name}: lower bound {p.lower} is not "
                                     f"below upper bound {p.upper}")
        if not (p.lower <= p.value <= p.upper):
            raise ParameterFileError(f"{where}: parameter {p.name}: initial value {p.value} is "
                                     f"outside its bounds [{p.lower}, {p.upper}]")


class ParameterTable:
    """An ordered set of :class:`FitParameter` with unique names.

    Parameters
    ----------
    parameters : iterable of FitParameter

    Raises
    ------
    ParameterFileError
        On a duplicated name, a bad bound or an initial value outside bounds.
    """

    def __init__(self, parameters, *, source="parameter table"):
        self._parameters = list(parameters)
        self.source = source
        self._index = {}
        for k, p in enumerate(self._parameters):
            where = f"{source}: parameter {k + 1}"
            _check(p, where)
            if p.name in self._index:
                raise ParameterFileError(f"{where}: duplicated parameter name {p.name!r} "
                                         f"(first as parameter {self._index[p.name] + 1})")
            self._index[p.name] = k

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters)

    def __getitem__(self, key):
        if isinstance(key, str):
            return self._parameters[self.index(key)]
        return self._parameters[key]

    def __contains__(self, name):
        return name in self._index

    def __repr__(self):
        return f"ParameterTable({len(self)} parameters from {self.source})"

    @property
    def names(self):
        """Names in order (list of str)."""
        return [p.name for p in self._parameters]

    @property
    def values(self):
        """Initial values (float64 array)."""
        return np.array([p.value for p in self._parameters], dtype=np.float64)

    def index(self, name):
        """Position of a parameter.

        Raises
        ------
        KeyError
            If there is no such parameter; the message lists close names.
        """
        try:
            return self._index[name]
        except KeyError:
            lower = {n.lower(): n for n in self.names}
            close = [lower[c] for c in difflib.get_close_matches(str(name).lower(), list(lower),
                                                                 n=3)]
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise KeyError(f"unknown parameter {name!r} in {self.source}{hint}") from None

    def randomized_values(self, rng):
        """Initial values drawn uniformly from :math:`(I - R, I + R)`.

        Values are clipped into the bounds of bounded parameters.

        Parameters
        ----------
        rng : numpy.random.Generator
        """
        out = self.values.copy()
        for k, p in enumerate(self._parameters):
            if p.random_change > 0:
                out[k] = rng.uniform(p.value - p.random_change, p.value + p.random_change)
                if p.bounded:
                    out[k] = min(max(out[k], p.lower), p.upper)
        return out

    def with_values(self, values):
        """A copy with new initial values (e.g. a fit result), other fields kept."""
        values = np.asarray(values, dtype=np.float64)
        if values.shape != (len(self),):
            raise ValueError(f"expected {len(self)} values, got shape {values.shape}")
        params = []
        for p, v in zip(self._parameters, values):
            v = float(v)
            if p.bounded:
                v = min(max(v, p.lower), p.upper)
            params.append(replace(p, value=v))
        return ParameterTable(params, source=self.source)


#: A real as Fortran and C read it: digits with an optional point and an
#: optional exponent (E or D), or inf / nan (refused later as not finite).
#: Python's own extensions (``1_000``, non-ASCII digits) are not numbers here.
_REAL = re.compile(r"^[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[EeDd][+-]?[0-9]+)?"
                   r"|inf|infinity|nan)$", re.IGNORECASE)


def _number(token, path, line_number, column, name):
    if not _REAL.match(token):
        raise ParameterFileError(f"{path}:{line_number}: parameter {name}: column {column} is "
                                 f"not a number: {token!r}")
    return float(token.replace("D", "E").replace("d", "e"))


def read_parameter_file(path):
    """Read a parameter file (format in the module description).

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    ParameterTable

    Raises
    ------
    FileNotFoundError
        If the file does not exist.
    ParameterFileError
        With the file and line: a byte that is not UTF-8, a wrong number of
        columns, a non-number (Python's ``1_000`` is not one), a duplicated name, lower > upper with both non-zero, an initial value
        outside its bounds.
    """
    path = os.fspath(path)
    params = []
    first_line = {}
    with open(path, "rb") as f:
        for line_number, raw in enumerate(f, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise ParameterFileError(
                    f"{path}:{line_number}: byte {raw[exc.start]:#04x} at column {exc.start + 1} "
                    f"is not UTF-8 (parameter files are ASCII or UTF-8 text; a comment in "
                    f"another encoding?)") from None
            if line_number == 1:
                line = line.removeprefix("\ufeff")     # a byte-order mark some editors write
            text = line.split("#", 1)[0].strip()
            if not text:
                continue
            tokens = text.split()
            if len(tokens) != 6:
                raise ParameterFileError(
                    f"{path}:{line_number}: expected 6 columns (name, initial value, step, lower, "
                    f"upper, random change), got {len(tokens)}: {text!r}")
            name = tokens[0]
            numbers = [_number(t, path, line_number, c + 2, name) for c, t in enumerate(tokens[1:])]
            p = FitParameter(name, *numbers)
            where = f"{path}:{line_number}"
            _check(p, where)
            if name in first_line:
                raise ParameterFileError(f"{where}: duplicated parameter name {name!r} "
                                         f"(first on line {first_line[name]})")
            first_line[name] = line_number
            params.append(p)
    if not params:
        raise ParameterFileError(f"{path}: no parameters")
    return ParameterTable(params, source=path)


def _shortest(x):
    """The shortest decimal text that reads back as exactly the float64 ``x``."""
    return repr(float(x))


def format_parameter_table(table, values=None):
    """The text of a parameter file for a table.

    Every number is written as the shortest decimal text that reads back as
    the same float64 (Python's ``repr``), so that :func:`read_parameter_file`
    returns exactly the table written, a value at a bound included.  Names
    are aligned on the left, numbers on the right.

    Parameters
    ----------
    table : ParameterTable
    values : array_like, optional
        Initial values to write instead of the table's (clipped into the
        bounds, see :meth:`ParameterTable.with_values`).

    Returns
    -------
    str
        One line per parameter, each ending with a newline.
    """
    if values is not None:
        table = table.with_values(values)
    rows = [[p.name] + [_shortest(getattr(p, f)) for f in _FIELDS] for p in table]
    widths = [max(len(row[c]) for row in rows) for c in range(len(_FIELDS) + 1)]
    lines = []
    for row in rows:
        cells = [row[0].ljust(widths[0])] + [t.rjust(w) for t, w in zip(row[1:], widths[1:])]
        lines.append(" ".join(cells))
    return "\n".join(lines) + "\n"


def write_parameter_file(path, table, values=None):
    """Write a parameter file atomically (see :mod:`vecampfit.atomic_files`).

    The file reads back exactly (see :func:`format_parameter_table`).

    Parameters
    ----------
    path : str or os.PathLike
    table : ParameterTable
    values : array_like, optional
        Initial values to write instead of the table's (e.g. fit results).
    """
    atomic_write_text(path, format_parameter_table(table, values))


#: Names of this module that are deprecated, with what replaced them.
_DEPRECATED = {"Parameter": "FitParameter"}


def deprecated_name(module, name):
    """The object that replaced a deprecated name of ``module`` (a
    :class:`DeprecationWarning` saying so), or AttributeError."""
    if name in _DEPRECATED:
        new = _DEPRECATED[name]
        warnings.warn(f"{module}.{name} is deprecated: it is now {module}.{new} (a line of a "
                      f"parameter file; vecampfit.isobar.Parameter is a parameter of an isobar "
                      f"model)", DeprecationWarning, stacklevel=3)
        return globals()[new]
    raise AttributeError(f"module {module!r} has no attribute {name!r}")


def __getattr__(name):
    return deprecated_name(__name__, name)
