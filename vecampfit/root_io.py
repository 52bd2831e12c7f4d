"""ROOT files through uproot: reading event records, writing trees.

The default event record is the paper's event class as branches of
fixed-size float arrays, e.g. ``km_momentum[4]``, ``pip_momentum[4]``,
``pi0_momentum[4]`` with components (px, py, pz, E) in GeV.  Any other
layout (flat branches, jagged arrays) is mapped to records by a user
function.  Both TTrees and RNTuples are read; trees are written as TTrees
(``mktree`` + ``extend``), which every ROOT version reads.
"""

import os
import textwrap

import numpy as np

from .atomic_files import atomic_write_root

__all__ = ["RootIOError", "RootReadError", "count_entries", "iterate_events", "read_events",
           "select_events",
           "write_tree"]


class RootIOError(KeyError):
    """A tree or branch that the file does not have (the message names it
    and what the file has)."""

    def __str__(self):
        return str(self.args[0]) if self.args else ""


class RootReadError(OSError, ValueError):
    """Data of a tree that cannot be read or has the wrong shape.

    Raised for a damaged or truncated file (uproot's decompression or
    deserialization error), a branch that uproot cannot interpret, a
    jagged branch (a variable number of values per event) read as event
    records, or a branch of another shape than expected.  It is an
    ``OSError`` (the file cannot be read as it should) and a
    ``ValueError`` (its content is not what was asked for).  The message
    names the file, the tree, the branch (when it can be found) and the
    entries; the error from uproot, if any, is the ``__cause__``.

    Attributes
    ----------
    path : str
        The ROOT file.
    tree : str
        The tree (or RNTuple).
    branch : str or None
        The branch that could not be read, None if it is not known.
    entry_start, entry_stop : int or None
        The entries being read, ``entry_start <= entry < entry_stop``;
        ``entry_stop`` None if the end of the range is not known; both
        None if the failure is not tied to entries (the tree's own
        metadata).
    """

    def __init__(self, path, tree, branch, entry_start, entry_stop, reason):
        where = f"{path}: tree {tree!r}"
        if branch is not None:
            where += f", branch {branch!r}"
        if entry_start is not None:
            where += (f", entries {entry_start} to {entry_stop - 1}" if entry_stop is not None
                      else f", entries from {entry_start} on")
        super().__init__(f"{where}: {reason}")
        self.reason = reason
        self.path = path
        self.tree = tree
        self.branch = branch
        self.entry_start = entry_start
        self.entry_stop = entry_stop

    def __reduce__(self):
        # Rebuilt with its own arguments (from another process or MPI rank).
        return (type(self), (self.path, self.tree, self.branch, self.entry_start,
                             self.entry_stop, self.reason))


def _memory_error(exc):
    """The MemoryError behind ``exc`` (itself, its cause or context, at any
    depth), or None.  uproot reports one raised in its threads through
    other exceptions (their message may only name it)."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, MemoryError):
            return exc
        if "MemoryError" in str(exc):
            return exc
        exc = exc.__cause__ or exc.__context__
    return None


def _bytes_wanted(obj, read, entry_start, entry_stop):
    """Uncompressed bytes of the branches ``read`` over the entries (an
    estimate from the branches' totals), None if uproot cannot tell."""
    try:
        n = int(obj.num_entries)
        total = sum(int(obj[b].uncompressed_bytes) for b in read)
        if entry_start is None or n == 0:
            return total
        stop = n if entry_stop is None else entry_stop
        return total * max(stop - entry_start, 0) // n
    except Exception:
        return None


def _out_of_memory(path, tree, branch, entry_start, entry_stop, wanted, cause):
    """A MemoryError naming what was being read and the bytes it needed."""
    where = f"{path}: tree {tree!r}" if tree is not None else f"{path}"
    if branch is not None:
        where += f", branch {branch!r}"
    if entry_start is not None:
        where += (f", entries {entry_start} to {entry_stop - 1}" if entry_stop is not None
                  else f", entries from {entry_start} on")
    size = "" if wanted is None else f" of about {wanted / 2 ** 20:.1f} MiB ({wanted} bytes)"
    detail = str(cause) if isinstance(cause, MemoryError) and str(cause) else ""
    return MemoryError(f"{where}: out of memory while reading a chunk{size}"
                       + (f" ({detail})" if detail else "")
                       + "; read fewer entries at a time (step_size) or free memory")


def _check_fixed_shape(arrays, names, path, tree, entry_start, entry_stop):
    """Refuse a jagged branch (uproot gives an object array of per-event arrays)."""
    for name in names:
        a = arrays.get(name)
        if a is not None and a.dtype == object:
            try:
                sizes = [np.size(x) for x in a]
                counts = (f" (from {min(sizes)} to {max(sizes)} values per event in these "
                          f"entries)" if sizes else "")
            except Exception:
                counts = ""
            raise RootReadError(path, tree, name, entry_start, entry_stop,
                                f"a jagged branch: a variable number of values per event{counts}"
                                f"; event records need the same shape for every event (read "
                                f"fixed-size branches, or give map_records to turn it into "
                                f"fixed-shape records)")


def _describe(exc):
    """``exc`` as ``type: message``, the type with its module unless built in."""
    kind = type(exc)
    name = kind.__qualname__ if kind.__module__ == "builtins" else \
        f"{kind.__module__}.{kind.__qualname__}"
    return f"{name}: {exc}"


def _open_tree(path, tree):
    import uproot
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"ROOT file {path} does not exist")
    try:
        f = uproot.open(path)
    except Exception as exc:
        if _memory_error(exc) is not None:
            raise _out_of_memory(path, None, None, None, None, None,
                                 _memory_error(exc)) from exc
        raise OSError(f"cannot open {path} as a ROOT file: {_describe(exc)}") from exc
    try:
        obj = f[tree]
    except (KeyError, uproot.KeyInFileError):
        keys = sorted({k.split(";")[0] for k in f.keys()})
        f.close()
        raise RootIOError(f"{path}: no tree {tree!r} (the file has: {', '.join(keys) or 'nothing'})"
                          ) from None
    except Exception as exc:
        f.close()
        if _memory_error(exc) is not None:
            raise _out_of_memory(path, tree, None, None, None, None,
                                 _memory_error(exc)) from exc
        raise RootReadError(path, tree, None, None, None,
                            f"cannot read the tree: {_describe(exc)}") from exc
    if not hasattr(obj, "keys") or not (hasattr(obj, "arrays")):
        f.close()
        raise RootIOError(f"{path}: {tree!r} is a {type(obj).__name__}, not a tree")
    return f, obj


def _branch_names(obj):
    try:
        return list(obj.keys(recursive=False))
    except TypeError:
        return list(obj.keys())


def count_entries(path, tree="tree"):
    """Number of entries of a tree, without reading its branches.

    Lets a caller reserve memory for the events before
    :func:`iterate_events` reads them.

    Parameters
    ----------
    path : str or os.PathLike
    tree : str
        Tree (or RNTuple) name.

    Returns
    -------
    int

    Raises
    ------
    FileNotFoundError, OSError
        Missing or unreadable file.
    RootIOError
        Missing tree (named, with the names the file has).
    """
    f, obj = _open_tree(path, tree)
    with f:
        return int(obj.num_entries)


def _entry_step(obj, read, step_size):
    """Entries per chunk of uproot's iteration, None if uproot cannot tell."""
    if isinstance(step_size, (int, np.integer)):
        return int(step_size)
    try:
        return int(obj.num_entries_for(step_size, read))
    except Exception:
        return None


def _failing_branch(obj, read, entry_start, entry_stop):
    """The first of ``read`` that cannot be read on its own over the entries, or None."""
    for name in read:
        try:
            obj.arrays([name], entry_start=entry_start, entry_stop=entry_stop, library="np")
        except Exception:
            return name
    return None


def select_events(arrays, weights, select, path, tree, entry_start, entry_stop):
    """The events of a chunk that ``select(arrays)`` keeps.

    Parameters
    ----------
    arrays : dict of numpy.ndarray
        The branches read (weights included), one entry per event.
    weights : numpy.ndarray or None
    select : callable
        ``select(arrays) -> mask``, a boolean array with one value per event.
    path, tree, entry_start, entry_stop
        Where the chunk comes from (for messages).

    Returns
    -------
    arrays : dict of numpy.ndarray
    weights : numpy.ndarray or None

    Raises
    ------
    ValueError
        If the mask is not a boolean array of one value per event (naming
        the file, the tree and the entries).
    """
    n = len(next(iter(arrays.values()))) if arrays else 0
    mask = np.asarray(select(arrays))
    if mask.dtype != np.bool_ or mask.shape != (n,):
        raise ValueError(f"{path}: tree {tree!r}, entries {entry_start}-{entry_stop}: select "
                         f"returned {mask.dtype} of shape {mask.shape}, expected a boolean "
                         f"array of the chunk's {n} events")
    return ({k: v[mask] for k, v in arrays.items()},
            None if weights is None else weights[mask])


#: The parameters of :func:`iterate_events` and :func:`read_events` that name
#: the tree and its branches (numpydoc lines; see :func:`_with_tree_parameters`).
_TREE_PARAMETERS = """\
path : str or os.PathLike
tree : str
    Tree (or RNTuple) name.
branches : sequence of str, optional
    Branches to read (default: all except the weight branch)."""


def _with_tree_parameters(function):
    """``function`` with the line ``{tree_parameters}`` of its docstring
    replaced by :data:`_TREE_PARAMETERS`, indented as a function's
    docstring."""
    if function.__doc__ is not None:
        function.__doc__ = function.__doc__.replace(
            "{tree_parameters}", textwrap.indent(_TREE_PARAMETERS, "    ").lstrip())
    return function


def _branches_to_read(obj, path, tree, branches, weight_branch):
    """The branches of the records and all the branches to read.

    Parameters
    ----------
    obj : uproot tree
    path, tree
        Where the tree comes from (for messages).
    branches : sequence of str or None
        Branches of the records (None: all except the weight branch).
    weight_branch : str or None

    Returns
    -------
    wanted : list of str
        The branches of the records.
    read : list of str
        ``wanted`` and the weight branch.

    Raises
    ------
    RootIOError
        A branch the tree does not have (named, with those it has).
    """
    available = _branch_names(obj)
    wanted = list(branches) if branches is not None else \
        [b for b in available if b != weight_branch]
    for b in wanted + ([weight_branch] if weight_branch else []):
        if b not in available:
            raise RootIOError(f"{path}: tree {tree!r} has no branch {b!r} "
                              f"(branches: {', '.join(available)})")
    read = wanted + ([weight_branch] if weight_branch and weight_branch not in wanted else [])
    return wanted, read


def _chunk_error(exc, obj, path, tree, read, entry_start, entry_stop, asked=None):
    """The error to raise for a chunk that uproot could not read.

    Parameters
    ----------
    exc : Exception
        uproot's error.
    obj : uproot tree
    path, tree
        Where the chunk comes from (for messages).
    read : list of str
        The branches read.
    entry_start, entry_stop : int
        The chunk, ``entry_start <= entry < entry_stop``, named in a
        :class:`RootReadError`.
    asked : tuple of int, optional
        ``(start, stop)``, the entries of the chunk that were asked for,
        named in a ``MemoryError`` with the bytes they need (default: the
        whole chunk).

    Returns
    -------
    MemoryError or RootReadError
        A ``MemoryError`` if memory ran out, else a :class:`RootReadError`
        naming the first branch that cannot be read alone over the chunk.
    """
    cause = _memory_error(exc)
    if cause is not None:
        lo, hi = (entry_start, entry_stop) if asked is None else asked
        return _out_of_memory(path, tree, None, lo, hi, _bytes_wanted(obj, read, lo, hi), cause)
    branch = _failing_branch(obj, read, entry_start, entry_stop)
    return RootReadError(path, tree, branch, entry_start, entry_stop,
                         f"cannot read: {_describe(exc)}")


def _chunk_records(arrays, path, tree, entry_start, entry_stop, wanted, read, *,
                   weight_branch=None, map_records=None, shapes=None, select=None):
    """The event records and weights of one chunk that uproot read.

    Parameters
    ----------
    arrays : dict of array_like
        The branches ``read`` of the chunk.
    path, tree, entry_start, entry_stop
        Where the chunk comes from (for messages).
    wanted, read : list of str
        As :func:`_branches_to_read` returns them.
    weight_branch, map_records, shapes, select
        As :func:`iterate_events`.

    Returns
    -------
    tuple
        ``(records, weights)`` of the chunk, as :func:`iterate_events`
        yields them.

    Raises
    ------
    RootReadError
        A jagged branch without ``map_records`` (or a jagged weight
        branch), or a branch of another shape than ``shapes`` says.
    ValueError
        A mask of ``select`` that is not one boolean per event.
    """
    arrays = {k: np.asarray(v) for k, v in arrays.items()}
    if map_records is None:
        _check_fixed_shape(arrays, read, path, tree, entry_start, entry_stop)
    elif weight_branch:
        _check_fixed_shape(arrays, [weight_branch], path, tree, entry_start, entry_stop)
    for name, shape in (shapes or {}).items():
        a = arrays.get(name)
        if a is not None and a.shape[1:] != tuple(shape):
            raise RootReadError(path, tree, name, entry_start, entry_stop,
                                f"shape {a.shape[1:]} per event, expected "
                                f"{tuple(shape)}")
    weights = arrays[weight_branch].astype(np.float64) if weight_branch else None
    if select is not None:
        arrays, weights = select_events(arrays, weights, select, path, tree,
                                        entry_start, entry_stop)
    records = {k: arrays[k] for k in wanted}
    if map_records is not None:
        records = map_records(records)
    return records, weights


@_with_tree_parameters
def iterate_events(path, tree="tree", branches=None, *, weight_branch=None, map_records=None,
                   step_size="100 MB", shapes=None, select=None):
    """Read event records from a ROOT tree in chunks.

    Parameters
    ----------
    {tree_parameters}
    weight_branch : str, optional
        Branch with per-event weights.
    map_records : callable, optional
        ``map_records(arrays) -> dict`` turning the branches of a chunk into
        event records (for layouts other than the default).
    step_size : int or str
        Chunk size, entries or bytes (uproot's ``step_size``).
    shapes : dict, optional
        Expected per-event shape of branches, e.g. ``{"km_momentum": (4,)}``.
    select : callable, optional
        ``select(arrays) -> mask``: the events to keep (a boolean array per
        chunk, from its branches, the weight branch included), applied to
        the records and the weights before ``map_records``
        (:func:`select_events`).

    Yields
    ------
    records : dict of numpy.ndarray
    weights : numpy.ndarray or None

    Raises
    ------
    FileNotFoundError, OSError
        Missing or unreadable file.
    RootIOError
        Missing tree or branch (each named).
    RootReadError
        (an ``OSError`` and a ``ValueError``) Data that cannot be read (a
        damaged or truncated file, a corrupt basket, a branch uproot cannot
        interpret), a jagged branch without ``map_records``, or a branch of
        the wrong shape: the message names the file, the tree, the branch
        and the entries.  Chunks before the failing one have been yielded
        already.
    MemoryError
        Memory ran out while uproot read a chunk: the message names the
        file, the tree, the entries and about how many bytes they need.

    See Also
    --------
    count_entries : the number of entries, to reserve memory beforehand.
    """
    path = os.fspath(path)
    f, obj = _open_tree(path, tree)
    with f:
        wanted, read = _branches_to_read(obj, path, tree, branches, weight_branch)
        n_entries = int(obj.num_entries)
        if hasattr(obj, "iterate"):
            chunks = obj.iterate(read, library="np", step_size=step_size, report=True)
        else:
            chunks = iter([(obj.arrays(read, library="np"), None)])
        entry_start = 0
        while True:
            try:
                arrays, report = next(chunks)
            except StopIteration:
                break
            except Exception as exc:
                step = _entry_step(obj, read, step_size)
                entry_stop = n_entries if step is None else min(entry_start + step, n_entries)
                raise _chunk_error(exc, obj, path, tree, read, entry_start, entry_stop) from exc
            if report is not None:
                chunk_start, chunk_stop = int(report.tree_entry_start), int(report.tree_entry_stop)
            else:
                chunk_start, chunk_stop = 0, n_entries
            entry_start = chunk_stop
            yield _chunk_records(arrays, path, tree, chunk_start, chunk_stop, wanted, read,
                                 weight_branch=weight_branch, map_records=map_records,
                                 shapes=shapes, select=select)


@_with_tree_parameters
def read_events(path, tree="tree", branches=None, **kwargs):
    """All event records of a tree at once (see :func:`iterate_events`).

    Parameters
    ----------
    {tree_parameters}
    **kwargs
        ``weight_branch``, ``map_records``, ``step_size``, ``shapes``,
        ``select`` of :func:`iterate_events`.

    Returns
    -------
    records : dict of numpy.ndarray
    weights : numpy.ndarray or None

    Raises
    ------
    FileNotFoundError, OSError, RootIOError, RootReadError
        As :func:`iterate_events`.
    """
    parts, wparts = [], []
    for records, weights in iterate_events(path, tree, branches, **kwargs):
        parts.append(records)
        wparts.append(weights)
    if not parts:
        return {}, None
    records = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    weights = None if wparts[0] is None else np.concatenate(wparts)
    return records, weights


def write_tree(path, branches, tree="tree", *, mode="recreate"):
    """Write arrays as a TTree, atomically (temporary name, then moved).

    Parameters
    ----------
    path : str or os.PathLike
    branches : dict of array_like
        Branch name -> array of shape (n,) or (n, k) (fixed-size array
        branches such as ``km_momentum[4]``).
    tree : str
    mode : {"recreate"}
        The file is always created anew.

    Raises
    ------
    ValueError
        Branches of different lengths.
    """
    if mode != "recreate":
        raise ValueError("only mode='recreate' is supported")
    arrays = {k: np.ascontiguousarray(v) for k, v in branches.items()}
    lengths = {k: a.shape[0] for k, a in arrays.items()}
    if len(set(lengths.values())) > 1:
        raise ValueError(f"branches of different lengths: {lengths}")
    types = {k: (a.dtype if a.ndim == 1 else np.dtype((a.dtype, a.shape[1:])))
             for k, a in arrays.items()}

    def write(f):
        f.mktree(tree, types)
        f[tree].extend(arrays)

    atomic_write_root(path, write)
