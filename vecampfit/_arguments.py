"""Argument handling shared by the modules' numpy-array routines (private)."""

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
        if isinstance(value, (np.ndarray, np.generic)):
            if value.dtype not in (np.float32, np.float64):
                raise TypeError(f"{name}: expected a float32 or float64 array, got dtype {value.dtype}")
            a = np.asarray(value)
            typed[name] = a
        else:
            try:
                a = np.asarray(value, dtype=np.float64)
            except (TypeError, ValueError) as exc:
                raise TypeError(f"{name}: expected real numbers, got {value!r}") from exc
        arrays[name] = a
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
