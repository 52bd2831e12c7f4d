"""ROOT files through uproot: reading event records, writing trees.

The default event record is the paper's event class as branches of
fixed-size float arrays, e.g. ``km_momentum[4]``, ``pip_momentum[4]``,
``pi0_momentum[4]`` with components (px, py, pz, E) in GeV.  Any other
layout (flat branches, jagged arrays) is mapped to records by a user
function.  Both TTrees and RNTuples are read; trees are written as TTrees
(``mktree`` + ``extend``), which every ROOT version reads.
"""

import os

import numpy as np

__all__ = ["RootIOError", "iterate_events", "read_events", "write_tree"]


class RootIOError(KeyError):
    """A missing tree or branch, or a branch of the wrong shape."""

    def __str__(self):
        return str(self.args[0]) if self.args else ""


def _open_tree(path, tree):
    import uproot
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"ROOT file {path} does not exist")
    try:
        f = uproot.open(path)
    except Exception as exc:
        raise OSError(f"cannot open {path} as a ROOT file: {exc}") from exc
    try:
        obj = f[tree]
    except (KeyError, uproot.KeyInFileError):
        keys = sorted({k.split(";")[0] for k in f.keys()})
        raise RootIOError(f"{path}: no tree {tree!r} (the file has: {', '.join(keys) or 'nothing'})"
                          ) from None
    if not hasattr(obj, "keys") or not (hasattr(obj, "arrays")):
        raise RootIOError(f"{path}: {tree!r} is a {type(obj).__name__}, not a tree")
    return f, obj


def _branch_names(obj):
    try:
        return list(obj.keys(recursive=False))
    except TypeError:
        return list(obj.keys())


def iterate_events(path, tree="tree", branches=None, *, weight_branch=None, map_records=None,
                   step_size="100 MB", shapes=None):
    """Read event records from a ROOT tree in chunks.

    Parameters
    ----------
    path : str or os.PathLike
    tree : str
        Tree (or RNTuple) name.
    branches : sequence of str, optional
        Branches to read (default: all except the weight branch).
    weight_branch : str, optional
        Branch with per-event weights.
    map_records : callable, optional
        ``map_records(arrays) -> dict`` turning the branches of a chunk into
        event records (for layouts other than the default).
    step_size : int or str
        Chunk size, entries or bytes (uproot's ``step_size``).
    shapes : dict, optional
        Expected per-event shape of branches, e.g. ``{"km_momentum": (4,)}``.

    Yields
    ------
    records : dict of numpy.ndarray
    weights : numpy.ndarray or None

    Raises
    ------
    FileNotFoundError, OSError
        Missing or unreadable file.
    RootIOError
        Missing tree or branch, or a branch of the wrong shape (each named).
    """
    f, obj = _open_tree(path, tree)
    with f:
        available = _branch_names(obj)
        wanted = list(branches) if branches is not None else \
            [b for b in available if b != weight_branch]
        for b in wanted + ([weight_branch] if weight_branch else []):
            if b not in available:
                raise RootIOError(f"{os.fspath(path)}: tree {tree!r} has no branch {b!r} "
                                  f"(branches: {', '.join(available)})")
        read = wanted + ([weight_branch] if weight_branch and weight_branch not in wanted else [])
        if hasattr(obj, "iterate"):
            chunks = obj.iterate(read, library="np", step_size=step_size)
        else:
            chunks = iter([obj.arrays(read, library="np")])
        for arrays in chunks:
            arrays = {k: np.asarray(v) for k, v in arrays.items()}
            for name, shape in (shapes or {}).items():
                a = arrays.get(name)
                if a is not None and a.shape[1:] != tuple(shape):
                    raise RootIOError(f"{os.fspath(path)}: branch {name!r} of tree {tree!r} has "
                                      f"shape {a.shape[1:]} per event, expected {tuple(shape)}")
            weights = arrays[weight_branch].astype(np.float64) if weight_branch else None
            records = {k: arrays[k] for k in wanted}
            if map_records is not None:
                records = map_records(records)
            yield records, weights


def read_events(path, tree="tree", branches=None, **kwargs):
    """All event records of a tree at once (see :func:`iterate_events`).

    Returns
    -------
    records : dict of numpy.ndarray
    weights : numpy.ndarray or None
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
    from .fitter.results import atomic_write_root
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
