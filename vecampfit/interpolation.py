"""Linear interpolation of tabulated functions (the paper's ``VECAMPFIT_INTERPOLATION``).

A table holds :math:`n \\ge 2` values :math:`y_k` at increasing nodes
:math:`x_0 < x_1 < \\dots < x_{n-1}`.  Between :math:`x_k` and
:math:`x_{k+1}`,

.. math::

    y(x) = (1 - f)\\, y_k + f\\, y_{k+1}, \\qquad f = \\frac{x - x_k}{x_{k+1} - x_k},

exact at the nodes.  :func:`interpolate_uniform` takes uniformly spaced nodes
:math:`x_k = x_\\mathrm{min} + k (x_\\mathrm{max} - x_\\mathrm{min}) / (n - 1)`
and finds the segment with one multiplication; :func:`interpolate` takes
arbitrary increasing nodes (binary search).

Outside the table the argument ``outside`` chooses the result:

``"clamp"``
    :math:`y_0` below :math:`x_0` and :math:`y_{n-1}` above :math:`x_{n-1}`
    (as :func:`numpy.interp`).
``"nan"``
    NaN.
``"extrapolate"``
    The straight line through the first (last) two nodes.
``"raise"``
    :class:`ValueError` if any argument is outside (checked before
    interpolating; the block routines have no such mode).

A NaN argument gives NaN in every mode (it is not "outside").

The same routines are declared for users' Cython code in
``vecampfit/interpolation.pxd`` (``interpolate_uniform``, ``interpolate``,
and the constants ``OUTSIDE_CLAMP``, ``OUTSIDE_NAN``, ``OUTSIDE_EXTRAPOLATE``);
they work on blocks of ``L`` arguments.
"""

import numpy as np

from . import _interpolation as _k

__all__ = ["interpolate", "interpolate_uniform", "OUTSIDE_MODES"]

#: Accepted values of ``outside`` and the block routines' codes (``None``: checked in Python).
OUTSIDE_MODES = {"clamp": 0, "nan": 1, "extrapolate": 2, "raise": None}

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _as_real(x, name):
    if isinstance(x, (np.ndarray, np.generic)):
        a = np.asarray(x)
        if a.dtype not in _FLOATS:
            raise TypeError(f"{name}: dtype {a.dtype} is not supported (use float32 or float64)")
        return a, False
    try:
        a = np.asarray(x)
    except Exception as exc:  # pragma: no cover - numpy raises many kinds
        raise TypeError(f"{name}: expected real numbers, got {x!r}") from exc
    if a.dtype.kind not in "biuf":
        raise TypeError(f"{name}: expected real numbers, got {x!r}")
    return a.astype(np.float64), True


def _common(arrays):
    """Common dtype: that of the numpy arrays (which must agree); Python data adapt."""
    dtypes = {a.dtype for a, python in arrays if not python}
    if len(dtypes) > 1:
        raise TypeError("mixed precisions: " + ", ".join(sorted(str(d) for d in dtypes))
                        + " (convert the arguments to one precision)")
    return dtypes.pop() if dtypes else np.dtype(np.float64)


def _mode(outside):
    if outside not in OUTSIDE_MODES:
        raise ValueError(f"outside: expected one of {', '.join(map(repr, OUTSIDE_MODES))}, got {outside!r}")
    return OUTSIDE_MODES[outside]


def _table(fp, dtype, name="fp"):
    fp = np.ascontiguousarray(fp, dtype=dtype)
    if fp.ndim != 1:
        raise ValueError(f"{name}: expected a one-dimensional table, got shape {fp.shape}")
    if fp.shape[0] < 2:
        raise ValueError(f"{name}: the table needs at least 2 values, got {fp.shape[0]}")
    return fp


def _check_inside(x, lo, hi):
    bad = (x < lo) | (x > hi)
    if np.any(bad):
        first = x[bad].flat[0]
        raise ValueError(f"x: {np.count_nonzero(bad)} argument(s) outside the table [{lo}, {hi}], "
                         f"e.g. {first} (outside='raise')")


def interpolate_uniform(x, x_min, x_max, fp, outside="clamp"):
    """Linear interpolation in a table on a uniform grid.

    Nodes :math:`x_k = x_\\mathrm{min} + k h`, :math:`h = (x_\\mathrm{max} -
    x_\\mathrm{min}) / (n - 1)`, :math:`k = 0, \\dots, n-1`; with
    :math:`t = (x - x_\\mathrm{min}) / h`, :math:`k = \\lfloor t \\rfloor`,
    :math:`f = t - k`, the result is :math:`(1 - f)\\, y_k + f\\, y_{k+1}`.

    Parameters
    ----------
    x : array_like
        Arguments (float32 or float64, any shape), in the units of the nodes.
    x_min, x_max : float
        First and last node, ``x_max > x_min``, finite.
    fp : array_like, shape (n,)
        Function values at the nodes, ``n >= 2``.
    outside : {"clamp", "nan", "extrapolate", "raise"}, optional
        Result outside :math:`[x_\\mathrm{min}, x_\\mathrm{max}]` (see the
        module description).  Default ``"clamp"``.

    Returns
    -------
    numpy.ndarray
        Same shape as ``x``, precision of the arrays given (float64 for
        Python data).

    Raises
    ------
    TypeError
        Unsupported dtypes or mixed precisions.
    ValueError
        A table with fewer than 2 values, ``x_max <= x_min`` or non-finite
        ends, an unknown ``outside``, or (``outside="raise"``) arguments
        outside the table.
    """
    mode = _mode(outside)
    xa, xp_ = _as_real(x, "x")
    fa, fp_ = _as_real(fp, "fp")
    dtype = _common([(xa, xp_), (fa, fp_)])
    table = _table(fa, dtype)
    lo, hi = float(x_min), float(x_max)
    if not (np.isfinite(lo) and np.isfinite(hi)) or not hi > lo:
        raise ValueError(f"x_min, x_max: expected finite x_min < x_max, got {x_min!r}, {x_max!r}")
    xs = np.asarray(xa, dtype=dtype)
    if mode is None:
        _check_inside(xs, lo, hi)
        mode = 0
    flat = np.ascontiguousarray(xs.reshape(-1))
    out = np.empty_like(flat)
    n = table.shape[0]
    _k.interpolate_uniform_kernel(flat, table, dtype.type(lo), dtype.type(hi), dtype.type((n - 1) / (hi - lo)), mode, out)
    return out.reshape(xs.shape)


def interpolate(x, xp, fp, outside="clamp"):
    """Linear interpolation in a table on arbitrary increasing nodes.

    For :math:`x_k \\le x < x_{k+1}` (found by binary search),
    :math:`y(x) = (1 - f)\\, y_k + f\\, y_{k+1}` with
    :math:`f = (x - x_k) / (x_{k+1} - x_k)`; the same values as
    :func:`numpy.interp` up to rounding.

    Parameters
    ----------
    x : array_like
        Arguments (float32 or float64, any shape).
    xp : array_like, shape (n,)
        Strictly increasing finite nodes, ``n >= 2``.
    fp : array_like, shape (n,)
        Function values at the nodes.
    outside : {"clamp", "nan", "extrapolate", "raise"}, optional
        Result outside :math:`[x_0, x_{n-1}]` (see the module description).
        Default ``"clamp"``.

    Returns
    -------
    numpy.ndarray
        Same shape as ``x``.

    Raises
    ------
    TypeError
        Unsupported dtypes or mixed precisions.
    ValueError
        Tables of different lengths or with fewer than 2 values, nodes that
        are not finite and strictly increasing, an unknown ``outside``, or
        (``outside="raise"``) arguments outside the table.
    """
    mode = _mode(outside)
    xa, x_py = _as_real(x, "x")
    na, n_py = _as_real(xp, "xp")
    fa, f_py = _as_real(fp, "fp")
    dtype = _common([(xa, x_py), (na, n_py), (fa, f_py)])
    nodes = _table(na, dtype, "xp")
    table = _table(fa, dtype)
    if nodes.shape != table.shape:
        raise ValueError(f"xp, fp: tables of different lengths ({nodes.shape[0]} and {table.shape[0]})")
    if not np.all(np.isfinite(nodes)):
        raise ValueError("xp: the nodes must be finite")
    if not np.all(np.diff(nodes) > 0):
        raise ValueError("xp: the nodes must be strictly increasing")
    xs = np.asarray(xa, dtype=dtype)
    if mode is None:
        _check_inside(xs, nodes[0], nodes[-1])
        mode = 0
    flat = np.ascontiguousarray(xs.reshape(-1))
    out = np.empty_like(flat)
    _k.interpolate_kernel(flat, nodes, table, mode, out)
    return out.reshape(xs.shape)
