"""Chunks and the reduction: how every sum of the likelihood is formed.

Every sum over events is formed in two steps: one row of partial sums per
chunk of :func:`chunk_events` consecutive events, then :func:`reduce_rows`
over the rows of all chunks in their order in the whole sample.  The second
step goes through a ``combine(buf, local)`` function: :func:`combine_serial`
in one process, the communicator's combine of :mod:`vecampfit.fitter.mpi`
over MPI ranks (each rank holds whole chunks; the rows of all ranks are put
in sample order and reduced by the same :func:`reduce_rows`).  The sums
therefore have the same bits for any number of threads and ranks.

This module imports nothing of the fitter: the event buffers, the
evaluators, the likelihood and the MPI layer all build on it.
"""

import numpy as np

__all__ = ["CHUNK_EVENTS", "GROUP_CHUNKS", "add_rows", "aligned_empty", "chunk_events",
           "chunk_partials", "chunk_sums", "combine_serial", "empty_rows", "reduce_rows"]

#: Events per chunk of the reduction (a chunk holds max(1, CHUNK_EVENTS // L) blocks).
CHUNK_EVENTS = 2048

#: Bytes of a cache line: rows of per-chunk partial sums are aligned and padded to it.
_CACHE_LINE = 64


def chunk_events(vector_length):
    """Events per chunk of the reduction for vector length ``L``:
    ``max(1, CHUNK_EVENTS // L) * L`` (whole blocks)."""
    L = int(vector_length)
    return max(1, int(CHUNK_EVENTS) // L) * L


#: Chunks per group of the reduction: the rows of the chunks of a group are
#: added first, then the sums of the groups (over MPI ranks, a rank that
#: holds a whole group sends its sum instead of its rows).
GROUP_CHUNKS = 16


def add_rows(rows):
    """``rows[0] + rows[1] + ...`` (float64 rows of equal length), added in
    their order: one step of :func:`reduce_rows`."""
    rows = np.ascontiguousarray(rows, dtype=np.float64)
    if rows.shape[0] == 0:
        return np.zeros(rows.shape[1])
    return np.add.reduce(rows, axis=0)


def reduce_rows(rows):
    r"""Sum per-chunk partial rows in a fixed order: the one reduction of
    every sum of the likelihood, in one process and over MPI ranks.

    With :math:`R_c` the row of chunk :math:`c` and :math:`G` =
    :data:`GROUP_CHUNKS`,

    .. math::

        S = \sum_g \Big( \sum_{c = gG}^{\min((g+1)G, C) - 1} R_c \Big),

    both sums taken in increasing order (:func:`add_rows`).

    Parameters
    ----------
    rows : numpy.ndarray
        ``(n_chunks, n_columns)`` float64, chunks in the order of the whole
        sample.

    Returns
    -------
    numpy.ndarray
        ``(n_columns,)``.
    """
    rows = np.ascontiguousarray(rows, dtype=np.float64)
    G = int(GROUP_CHUNKS)
    if rows.shape[0] == 0:
        return np.zeros(rows.shape[1])
    return add_rows(np.array([add_rows(rows[a:a + G]) for a in range(0, rows.shape[0], G)]))


def combine_serial(buf, local):
    """The combine step of one process: ``local()`` gives ``(rows, problem)``;
    returns ``(reduce_rows(rows), None)`` or ``(None, problem)``."""
    rows, problem = local()
    if problem is not None:
        return None, problem
    return reduce_rows(rows), None


def chunk_sums(columns, n, ce):
    """Per-chunk sums of per-event terms, column by column.

    Parameters
    ----------
    columns : iterable of numpy.ndarray
        Columns of ``n`` per-event terms each (float64), or blocks of such
        columns (2-D arrays, one column per row); a generator holds only
        one at a time.
    n : int
        Events.
    ce : int
        Events per chunk.

    Returns
    -------
    numpy.ndarray
        ``(n_chunks, n_columns)``: the sum over the events of each chunk.
        Each chunk of each column is summed as one contiguous run of ``ce``
        values (numpy's pairwise sum; the last chunk padded with zeros), so
        the sum depends on the chunk's values only -- not on the number of
        chunks or columns, nor on where the chunk is computed.
    """
    n_chunks = -(-n // ce)
    full = n // ce
    out = []
    for block in columns:
        c = np.ascontiguousarray(block, dtype=np.float64)
        c = c.reshape(1 if c.ndim == 1 else c.shape[0], -1)
        sums = np.empty((c.shape[0], n_chunks))
        if full:
            sums[:, :full] = np.add.reduce(c[:, :full * ce].reshape(c.shape[0], full, ce),
                                           axis=2)
        if n_chunks > full:
            last = np.zeros((c.shape[0], 1, ce))
            last[:, 0, :n - full * ce] = c[:, full * ce:n]
            sums[:, full] = np.add.reduce(last, axis=2)[:, 0]
        out.append(sums)
    if not out:
        return np.zeros((n_chunks, 0))
    return np.ascontiguousarray(np.concatenate(out, axis=0).T)


def empty_rows(n_columns):
    """The rows of no chunk: a ``(0, n_columns)`` float64 array."""
    return np.zeros((0, n_columns))


def chunk_partials(n_chunks, n_columns):
    """Zeroed (n_chunks, >= n_columns) float64 array whose rows start on cache lines.

    Chunks run on different threads; rows that shared a cache line would
    move it between the cores at every write (false sharing).
    """
    per_line = _CACHE_LINE // 8
    width = -(-n_columns // per_line) * per_line
    raw = np.zeros(n_chunks * width + per_line)
    start = (-raw.ctypes.data % _CACHE_LINE) // 8
    return raw[start:start + n_chunks * width].reshape(n_chunks, width)


def aligned_empty(shape, dtype, alignment=_CACHE_LINE, offset=0):
    """An uninitialized C-contiguous array whose data start ``offset`` bytes
    past a multiple of ``alignment`` bytes (default: on a cache line), for
    the arrays the kernels stream (event buffers, stored component
    amplitudes): their place relative to the cache lines is then the same in
    every run, not wherever the allocator put them."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape))
    raw = np.empty(n * dtype.itemsize + alignment + offset, dtype=np.uint8)
    start = -raw.ctypes.data % alignment + offset
    return raw[start:start + n * dtype.itemsize].view(dtype).reshape(shape)
