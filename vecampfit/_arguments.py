"""Argument handling and docstring assembly shared by the modules' numpy-array routines (private)."""

import inspect

import numpy as np


def real_arrays(**named):
    """Broadcast named real arguments to one shape and one precision.

    The precision is that of the array arguments (float32 or float64); Python
    numbers and numpy scalars adapt to it.  Without array arguments, numpy
    scalars give it, so that float32 in gives float32 out; with neither,
    float64.

    Returns
    -------
    list of numpy.ndarray, tuple, numpy.dtype
        The flattened contiguous arrays (in the order of the keywords), the
        broadcast shape and the precision.

    Raises
    ------
    TypeError
        An argument that is not real, an integer or complex array, or array
        arguments (or, without arrays, numpy scalars) of different precisions;
        the message names the arguments.
    ValueError
        Shapes that do not broadcast (named with their shapes).
    """
    arrays = {}
    typed = {}
    for name, value in named.items():
        a = arrays[name] = real_array(value, name)
        if isinstance(value, (np.ndarray, np.generic)):
            typed[name] = a
    given = {n: a for n, a in typed.items() if a.ndim > 0} or typed
    dtypes = {a.dtype for a in given.values()}
    if len(dtypes) > 1:
        raise TypeError("mixed precisions: " + ", ".join(f"{n} is {a.dtype}" for n, a in given.items())
                        + " (convert the arguments to one precision)")
    dtype = dtypes.pop() if dtypes else np.dtype(np.float64)
    try:
        shape = np.broadcast_shapes(*(a.shape for a in arrays.values()))
    except ValueError as exc:
        raise ValueError("array shapes do not broadcast: " + ", ".join(
            f"{n} {a.shape}" for n, a in arrays.items())) from exc
    flat = [np.ascontiguousarray(np.broadcast_to(a, shape), dtype=dtype).ravel() for a in arrays.values()]
    return flat, shape, dtype


def real_array(value, name):
    """Return one real argument as an array, without broadcasting.

    A numpy array or scalar keeps its precision (float32 or float64); other
    values (Python numbers, nested sequences) become float64.

    Raises
    ------
    TypeError
        An integer or complex numpy argument, or a value that is not a
        number; the message names the argument.
    """
    if isinstance(value, (np.ndarray, np.generic)):
        if value.dtype not in (np.float32, np.float64):
            raise TypeError(f"{name}: expected a float32 or float64 array, got dtype {value.dtype}")
        return np.asarray(value)
    return float64_array(value, name)


def float64_array(value, name):
    """Return a value that is not a numpy array or scalar as a float64 array.

    Raises
    ------
    TypeError
        If the value is not made of real numbers (named in the message).
    """
    try:
        return np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name}: expected real numbers, got {value!r}") from exc


def apply_kernel(kernel, **named):
    """Run ``kernel(*arrays, out)`` over real arguments broadcast by :func:`real_arrays`.

    ``out`` has one value per element, of the arguments' precision.

    Returns
    -------
    numpy.ndarray
        ``out`` in the broadcast shape.
    """
    arrays, shape, dtype = real_arrays(**named)
    out = np.empty_like(arrays[0])
    kernel(*arrays, out)
    return out.reshape(shape)


def public_function(function, name, module, doc):
    """Give a function that a module builds from a table its public name and docstring.

    Sets ``__name__``, ``__qualname__``, ``__module__`` and ``__doc__`` (so
    that ``help()`` and the API reference show it as written in ``module``)
    and returns the function.
    """
    function.__name__ = function.__qualname__ = name
    function.__module__ = module
    function.__doc__ = doc
    return function


def numpydoc(summary, details="", parameters=(), returns=(), raises=()):
    """Assemble a numpydoc docstring.

    Parameters
    ----------
    summary : str
        The first line.
    details : str
        Paragraphs after it (may be empty).
    parameters, returns, raises : sequence of (str, str)
        The entries of those sections: the entry's line (``"x : array_like"``)
        and its description (possibly several lines, possibly empty).

    Returns
    -------
    str
        The docstring, sections separated by blank lines.
    """
    parts = [summary] + ([details] if details else [])
    for title, entries in (("Parameters", parameters), ("Returns", returns), ("Raises", raises)):
        if entries:
            lines = [title, "-" * len(title)]
            for entry, description in entries:
                lines.append(entry)
                lines += ["    " + line if line else "" for line in description.splitlines()]
            parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"


def documented(summary, details="", parameters=(), returns=(), raises=()):
    """Decorator that gives a function the docstring :func:`numpydoc` assembles from the arguments."""
    doc = numpydoc(summary, details, parameters, returns, raises)

    def set_doc(function):
        function.__doc__ = doc
        return function
    return set_doc


#: Raises entries of a function of real arrays broadcast by :func:`real_arrays`.
BROADCAST_RAISES = (
    ("TypeError", "If an argument is not real or the arrays mix float32 and float64."),
    ("ValueError", "If the shapes do not broadcast."),
)


def sections(parameters=(), returns=(), raises=()):
    """Decorator that completes a function's docstring (summary and details) with numpydoc sections.

    The sections are assembled by :func:`numpydoc` from the entries, so that
    functions with the same parameters share their descriptions.
    """
    def add_sections(function):
        function.__doc__ = numpydoc(inspect.cleandoc(function.__doc__ or ""), "", parameters, returns, raises)
        return function
    return add_sections


def fill_doc(**pieces):
    """Decorator that fills a docstring template with shared pieces of text.

    A line of the docstring that is only ``%(name)s`` is replaced by the
    lines of ``pieces[name]``, each indented like that line (the template
    convention of SciPy's docstrings).
    """
    def fill(function):
        lines = []
        for line in (function.__doc__ or "").split("\n"):
            key = line.strip()
            if key.startswith("%(") and key.endswith(")s") and key[2:-2] in pieces:
                indent = line[:len(line) - len(line.lstrip())]
                lines += [indent + piece if piece else "" for piece in pieces[key[2:-2]].split("\n")]
            else:
                lines.append(line)
        function.__doc__ = "\n".join(lines)
        return function
    return fill
