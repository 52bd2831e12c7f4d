r"""One likelihood over MPI ranks.

Every rank runs the same script (SPMD)::

    from mpi4py import MPI
    from vecampfit.fitter import Fitter, Likelihood, read_parameter_file
    from vecampfit.fitter.mpi import serve

    likelihood = Likelihood(read_parameter_file("parameters.dat"), comm=MPI.COMM_WORLD)
    point = likelihood.add_point(signal)
    point.load_normalization_file("mc.root")      # each rank reads its share
    point.load_data_file("data.root")
    fitter = Fitter(likelihood, seed=1)
    with serve(fitter) as root:                   # ranks > 0 serve here
        if root:                                  # rank 0 drives Minuit
            fitter.migrad()
            fitter.write_results(parameters="result.dat")

launched with ``mpiexec -n 4 python fit.py``.

Events.  The events of a fit point (data, and normalization events
separately) are numbered in the order in which they are added, over all
files and :meth:`~vecampfit.fitter.FitPoint.add_data` calls, as in one
process, and cut into chunks of :func:`~vecampfit.fitter._reduction.chunk_events`
events (2048 for a vector length that divides 2048).  Each chunk belongs to
one rank.  The chunks that start in a file (or in the records of one
``add_data`` call) are divided among the ranks in contiguous, equal runs
(rank 0 the first run); a chunk that a file leaves incomplete is completed
by the next file's first events on the same rank.  A rank reads only the
entries ``[N r / P, N (r + 1) / P)`` of a file of ``N`` entries (uproot
entry ranges); after ``map_records`` the few records at the edges of its run
move to the rank that owns their chunk (one ``alltoall``).  ``add_data``
receives the same records on every rank and each rank keeps its chunks.

Sums.  Every sum over events is computed per chunk (one row of partial sums
per chunk, the same bits on whatever rank and with whatever number of
OpenMP threads the chunk is computed).  The rows are added in groups of
consecutive chunks, the groups in order, in one process as over ranks
(:func:`~vecampfit.fitter._reduction.reduce_rows`): a rank adds the groups
it holds whole, rank 0 gathers those sums and the rows of groups shared by
two ranks (``Gatherv``), adds them in the same order and broadcasts the
result.  :math:`\mathcal{F}` and its gradient are therefore bit-identical for
any number of ranks and threads.

Failures.  An exception on any rank inside a collective step (reading a
file, a density, a kernel) reaches every rank, and is raised there with its
type and message (the rank is added as a note); an invalid density at an
event reports the first such event of the whole sample, with its number in
the whole sample, as in one process.  No rank is left waiting.
"""

import os
import pickle
from contextlib import contextmanager

import numpy as np

from . import _reduction
from ..root_io import (_branches_to_read, _chunk_error, _chunk_records, _entry_step,
                       _open_tree, count_entries)
from ._reduction import add_rows

__all__ = ["ChunkLayout", "Communicator", "serve"]

_OK, _PROBLEM, _ERROR = 0, 1, 2


def _rebuild(cls, args, state):
    """An exception of class ``cls`` with ``args`` and attributes ``state``,
    made without calling its ``__init__`` (which may take other arguments)."""
    exc = cls.__new__(cls, *args)
    exc.args = args
    exc.__dict__.update(state)
    return exc


def _portable(exc, rank):
    """The exception pickled, with a note naming the rank: as it is if it
    pickles, else rebuilt from its class, ``args`` and attributes, else a
    RuntimeError with its type and message."""
    try:
        exc.add_note(f"(raised on MPI rank {rank})")
    except AttributeError:  # pragma: no cover - Python < 3.11
        pass
    try:
        data = pickle.dumps(exc)
        if str(pickle.loads(data)) == str(exc):
            return data
    except Exception:
        pass
    try:
        state = {k: v for k, v in vars(exc).items() if k != "__traceback__"}
        data = pickle.dumps((_rebuild, (type(exc), exc.args, state)))
        fn, fargs = pickle.loads(data)
        if str(fn(*fargs)) == str(exc):
            return pickle.dumps(_Rebuilt(type(exc), exc.args, state))
    except Exception:
        pass
    return pickle.dumps(RuntimeError(f"{type(exc).__name__} on MPI rank {rank}: {exc}"))


class _Rebuilt:
    """Pickles as the call that rebuilds an exception (see :func:`_rebuild`)."""

    def __init__(self, cls, args, state):
        self.cls, self.args, self.state = cls, args, state

    def __reduce__(self):
        return _rebuild, (self.cls, self.args, self.state)


def _record_count(records):
    """Number of events of a dict of per-event arrays (length of the first)."""
    for v in records.values():
        return len(v)
    return 0


def _slice_records(records, start, stop):
    return {k: np.asarray(v)[start:stop] for k, v in records.items()}


def _concat_records(parts):
    parts = [p for p in parts if p is not None]
    if not parts:
        return None
    if len(parts) == 1:
        return parts[0]
    return {k: np.concatenate([np.asarray(p[k]) for p in parts]) for k in parts[0]}


class ChunkLayout:
    """Which rank holds which chunk of a group of event buffers (the data,
    or the normalization events, of one fit point).

    Parameters
    ----------
    chunk_events : int
        Events per chunk.
    rank, size : int
        This rank and the number of ranks.

    Attributes
    ----------
    total : int
        Events added so far, on all ranks.
    owned : list of int
        The chunks (numbers in the whole sample) this rank holds, in the
        order of its buffers.
    """

    def __init__(self, chunk_events, rank, size):
        self.chunk_events = int(chunk_events)
        self.rank = int(rank)
        self.size = int(size)
        self.total = 0
        self.open_owner = None
        self.owned = []
        self.order = None
        self.counts = None
        self.send_plan = self.send_group = self.send_counts = self.assembly = None

    def state(self):
        """A copy of the state, for :meth:`restore` after a failed piece."""
        return (self.total, self.open_owner, list(self.owned))

    def restore(self, state):
        self.total, self.open_owner, owned = state
        self.owned = list(owned)
        self.order = None
        self.counts = None

    def split(self, m):
        """Assign the next ``m`` events (one file or ``add_data`` call).

        Returns
        -------
        list of list of (int, int)
            For every rank, the ranges of positions in the piece it holds.
        """
        ce, P = self.chunk_events, self.size
        G = self.total
        ranges = [[] for _ in range(P)]
        head = 0
        if G % ce and m:
            head = min(m, ce - G % ce)
            ranges[self.open_owner].append((0, head))
        n_chunks = -(-(m - head) // ce)
        first = (G + head) // ce
        last_owner = self.open_owner
        for r in range(P):
            a, b = n_chunks * r // P, n_chunks * (r + 1) // P
            if b > a:
                ranges[r].append((head + a * ce, min(m, head + b * ce)))
                if r == self.rank:
                    self.owned.extend(range(first + a, first + b))
                last_owner = r
        self.total = G + m
        self.open_owner = last_owner if self.total % ce else None
        self.order = None
        self.counts = None
        return ranges

    def global_event(self, j):
        """The number in the whole sample of event ``j`` of this rank's buffer."""
        ce = self.chunk_events
        return self.owned[j // ce] * ce + j % ce


class Communicator:
    """An mpi4py communicator serving one likelihood: the combine step of
    its sums, the agreement of all ranks on failures, the event exchange.

    Parameters
    ----------
    comm : mpi4py.MPI.Comm
        Usually ``MPI.COMM_WORLD``.

    Attributes
    ----------
    rank, size : int
    serving : bool
        True on rank 0 inside :func:`serve`: collective calls of the
        likelihood are announced to the other ranks first.
    bytes_gathered : int
        Bytes of partial rows rank 0 received so far (a measure of the
        traffic per call).
    """

    def __init__(self, comm):
        for name in ("Get_rank", "Get_size", "gather", "bcast", "allgather", "alltoall"):
            if not hasattr(comm, name):
                raise TypeError(f"comm must be an mpi4py communicator (e.g. MPI.COMM_WORLD), "
                                f"got {type(comm).__name__} without {name}()")
        self.comm = comm
        self.rank = comm.Get_rank()
        self.size = comm.Get_size()
        self.serving = False
        self.bytes_gathered = 0
        self._depth = 0

    @property
    def root(self):
        """True on rank 0."""
        return self.rank == 0

    def layout(self, chunk_events):
        """A new :class:`ChunkLayout` of this rank."""
        return ChunkLayout(chunk_events, self.rank, self.size)

    # -- agreement ---------------------------------------------------------------

    def agree(self, function):
        """Run ``function()`` on every rank; if it raised anywhere, raise the
        exception of the lowest such rank on every rank.

        Returns
        -------
        The local result of ``function()``.
        """
        try:
            result, status = function(), None
        except Exception as exc:
            result, status = None, _portable(exc, self.rank)
        statuses = self.comm.allgather(status)
        for s in statuses:
            if s is not None:
                raise pickle.loads(s)
        return result

    def combine(self, buf, local):
        """The combine step of a sum over the events of ``buf`` (see
        :func:`vecampfit.fitter._reduction.combine_serial`) over the ranks.

        ``local()`` gives ``(rows, problem)`` for this rank's chunks: rows
        :math:`R_c` (float64, one per chunk :math:`c`).  The sums are

        .. math::

            S = \\sum_g \\Big(\\sum_{c \\in g} R_c\\Big)

        over the groups :math:`g` of
        :data:`~vecampfit.fitter._reduction.GROUP_CHUNKS` consecutive
        chunks of the whole sample, each sum in increasing order, as in one
        process (:func:`~vecampfit.fitter._reduction.reduce_rows`).

        Normal case: every rank reports success (``allreduce`` of one
        integer); each rank sends the sums of the groups it holds whole and
        the rows of the chunks of groups it shares (``Gatherv`` to rank 0,
        :math:`8 m` bytes per row of ``m`` columns); rank 0 adds the shared
        groups' rows, then the groups, and broadcasts the :math:`8 m` bytes
        of ``S`` (``Bcast``).  Otherwise the ranks' outcomes are gathered (pickled):
        an exception (of the lowest rank that raised) is raised on every
        rank, or the :class:`~vecampfit.fitter._evaluation.Problem` at the
        first event of the whole sample is returned on every rank.

        Returns
        -------
        (numpy.ndarray, None) or (None, Problem)
        """
        from mpi4py import MPI
        layout = buf.layout
        rows = problem = error = None
        try:
            rows, problem = local()
            if problem is not None:
                problem.event = layout.global_event(problem.event)
            else:
                rows = np.ascontiguousarray(rows, dtype=np.float64)
                if layout.counts is None:
                    raise RuntimeError("the event layout was not exchanged (prepare the "
                                       "likelihood on every rank)")
                if rows.ndim != 2 or rows.shape[0] != layout.counts[self.rank]:
                    raise RuntimeError(f"{rows.shape[0]} chunk rows computed for the "
                                       f"{layout.counts[self.rank]} chunks of rank {self.rank}")
        except Exception as exc:
            error = _portable(exc, self.rank)
        status = _ERROR if error is not None else (_PROBLEM if problem is not None else _OK)
        if self.comm.allreduce(status, op=MPI.MAX) == _OK:
            return self._reduce_rows(layout, rows), None
        gathered = self.comm.gather((status, error if error is not None else problem), root=0)
        result = None
        if self.rank == 0:
            errors = [v for k, v in gathered if k == _ERROR]
            if errors:
                result = (_ERROR, errors[0])
            else:
                result = (_PROBLEM, min((v for k, v in gathered if k == _PROBLEM),
                                        key=lambda p: p.event))
        kind, value = self.comm.bcast(result, root=0)
        if kind == _ERROR:
            raise pickle.loads(value)
        return None, value

    def _reduce_rows(self, layout, rows):
        """Gatherv to rank 0 of every rank's sums of its whole groups and rows
        of the chunks of groups shared with other ranks, the reduction of
        :func:`~vecampfit.fitter._reduction.reduce_rows` there, Bcast of
        the sums."""
        from mpi4py import MPI
        m = rows.shape[1]
        send = np.empty((len(layout.send_plan), m))
        for k, (a, b) in enumerate(layout.send_plan):
            send[k] = add_rows(rows[a:b]) if layout.send_group[k] else rows[a]
        sums = np.empty(m)
        if self.rank == 0:
            counts = layout.send_counts
            stacked = np.empty((int(counts.sum()), m))
            sizes = counts * m
            displacements = np.concatenate([[0], np.cumsum(sizes)[:-1]])
            self.comm.Gatherv(send, [stacked, sizes, displacements, MPI.DOUBLE], root=0)
            self.bytes_gathered += int(sizes[1:].sum()) * 8
            whole, shared = layout.assembly
            groups = np.empty((whole.shape[0], m))
            held = whole >= 0
            groups[held] = stacked[whole[held]]
            for g, where in shared:
                groups[g] = add_rows(stacked[where])
            sums[:] = add_rows(groups)
        else:
            self.comm.Gatherv(send, None, root=0)
        self.comm.Bcast(sums, root=0)
        return sums

    def finish_layout(self, layout):
        """Exchange the chunk numbers of every rank (once, at preparation):
        afterwards rank 0 can put gathered rows in chunk order."""
        owned = self.comm.allgather(np.asarray(layout.owned, dtype=np.int64))
        ids = np.concatenate(owned) if owned else np.zeros(0, dtype=np.int64)
        n_chunks = -(-layout.total // layout.chunk_events)
        if ids.shape[0] != n_chunks or not np.array_equal(np.sort(ids), np.arange(n_chunks)):
            raise RuntimeError(f"the ranks hold chunks {sorted(ids.tolist())} of {n_chunks}: "
                               f"every rank must add the same events in the same order")
        layout.order = np.argsort(ids, kind="stable")
        layout.counts = np.array([o.shape[0] for o in owned], dtype=np.int64)
        self._plan(layout, owned, n_chunks)

    def _plan(self, layout, owned, n_chunks):
        """What each rank sends for a sum and how rank 0 puts it together.

        A group of :data:`~vecampfit.fitter._reduction.GROUP_CHUNKS` chunks
        held whole by one rank is sent as its sum (added on that rank, in
        order); the chunks of a group shared by ranks are sent as rows, and
        rank 0 adds them in chunk order.  Either way each group's sum has the
        bits of one process's.
        """
        G = int(_reduction.GROUP_CHUNKS)
        owner = np.empty(n_chunks, dtype=np.int64)
        for r, ids in enumerate(owned):
            owner[ids] = r
        n_groups = -(-n_chunks // G)
        whole = np.array([np.all(owner[g * G:(g + 1) * G] == owner[g * G])
                          for g in range(n_groups)], dtype=bool)
        # Items every rank sends, in its order: (whole group?, group, first
        # and last local chunk, the chunks).
        items = []
        for ids in owned:
            mine = []
            i = 0
            while i < len(ids):
                g = int(ids[i]) // G
                if whole[g]:
                    j = i + min((g + 1) * G, n_chunks) - g * G
                    mine.append((True, g, i, j, ids[i:j]))
                    i = j
                else:
                    mine.append((False, g, i, i + 1, ids[i:i + 1]))
                    i += 1
            items.append(mine)
        layout.send_plan = [(a, b) for _, _, a, b, _ in items[self.rank]]
        layout.send_group = [is_group for is_group, _, _, _, _ in items[self.rank]]
        layout.send_counts = np.array([len(mine) for mine in items], dtype=np.int64)
        # Rank 0: the position of each whole group's sum in the gathered
        # array (-1 for a shared group), and for each shared group the
        # positions of its chunks' rows, in chunk order.
        position = 0
        whole_at = {}
        chunk_at = {}
        for mine in items:
            for is_group, g, _, _, ids in mine:
                if is_group:
                    whole_at[g] = position
                else:
                    chunk_at[int(ids[0])] = position
                position += 1
        layout.assembly = (
            np.array([whole_at[g] if whole[g] else -1 for g in range(n_groups)], dtype=np.int64),
            [(g, np.array([chunk_at[c] for c in range(g * G, min((g + 1) * G, n_chunks))]))
             for g in range(n_groups) if not whole[g]])

    def total_events(self, n):
        """Sum over the ranks of ``n`` (an event count)."""
        return int(sum(self.comm.allgather(int(n))))

    # -- events ------------------------------------------------------------------

    def take_share(self, layout, records, weights):
        """This rank's part of records every rank holds in full (``add_data``)."""
        m = _record_count(records)
        counts = self.comm.allgather(m)
        if any(c != m for c in counts):
            raise ValueError(f"add_data was given {counts} events on ranks 0..{self.size - 1}: "
                             f"every rank must add the same events (each keeps its chunks)")
        mine = layout.split(m)[self.rank]
        if not mine:
            return None, None
        parts = [_slice_records(records, a, b) for a, b in mine]
        w = None if weights is None else np.concatenate([np.asarray(weights)[a:b]
                                                         for a, b in mine])
        return _concat_records(parts), w

    def exchange(self, layout, records, weights):
        """Redistribute records read from consecutive entry runs (rank order)
        to the ranks that own their chunks.

        Parameters
        ----------
        layout : ChunkLayout
        records : dict of numpy.ndarray or None
            This rank's records (after ``map_records``), in entry order.
        weights : numpy.ndarray or None

        Returns
        -------
        (records, weights) of the chunks this rank owns, in order.
        """
        n = 0 if records is None else _record_count(records)
        counts = self.comm.allgather(n)
        weighted = self.comm.allgather(weights is not None)
        start = sum(counts[:self.rank])
        ranges = layout.split(sum(counts))
        send = []
        for dest in range(self.size):
            pieces = []
            for a, b in ranges[dest]:
                lo, hi = max(a, start), min(b, start + n)
                if hi > lo:
                    pieces.append((_slice_records(records, lo - start, hi - start),
                                   None if weights is None else weights[lo - start:hi - start]))
            send.append(pieces)
        received = self.comm.alltoall(send)
        parts = [p for src in received for p, _ in src]
        wparts = [w for src in received for _, w in src]
        if not parts:
            return None, None
        return _concat_records(parts), (np.concatenate(wparts) if any(weighted) else None)

    # -- rank 0 drives, the others serve ----------------------------------------------

    @contextmanager
    def collective(self, name, args, likelihood, free=None):
        """Around a collective call of the likelihood: on rank 0 inside
        :func:`serve`, the outermost such call is first announced to the
        other ranks, which run ``getattr(likelihood, name)(*args,
        free=free)`` (``free``: the free parameters of the call, if given;
        calls made inside it, such as the preparation inside the first
        evaluation, are not announced again)."""
        if self.serving and self.rank == 0 and self._depth == 0:
            self.comm.bcast(("call", name, args, free), root=0)
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1

    def serve_loop(self, likelihood):
        """Ranks > 0: run the calls rank 0 announces until it says stop.

        An exception of a call was raised on rank 0 too (every failure is
        agreed on by all ranks), so it is dropped here and the loop goes on.

        Returns
        -------
        bytes or None
            The pickled exception that ended rank 0's block, if any.
        """
        while True:
            command = self.comm.bcast(None, root=0)
            if command[0] == "stop":
                return command[1]
            _, name, args, free = command
            try:
                getattr(likelihood, name)(*args, **({} if free is None else {"free": free}))
            except Exception:
                pass

    def stop(self, error=None):
        """Rank 0: end the other ranks' :meth:`serve_loop` (which returns
        ``error``, a pickled exception or None)."""
        self.comm.bcast(("stop", error), root=0)


@contextmanager
def serve(likelihood):
    """Let rank 0 drive the fit while the other ranks serve its likelihood calls.

    Use on every rank, after the events are loaded::

        with serve(fitter) as root:
            if root:
                fitter.migrad()
                fitter.write_results(parameters="result.dat")

    On rank 0 the block runs with ``root`` True: every evaluation of
    :math:`\\mathcal{F}` (and its gradient, MIGRAD, HESSE, MINOS, scans) is
    announced to the other ranks, which compute their partial sums.  On the
    other ranks the ``with`` statement waits until rank 0 leaves the block,
    then runs the block with ``root`` False.  If an exception ends rank 0's
    block, the same exception (type and message) is raised by the ``with``
    statement of every other rank, so that every rank stops alike.  Per
    evaluation, rank 0 broadcasts the parameter vector (``8 n_par`` bytes
    plus a small header) and gathers the rows of partial sums (see
    ``docs/mpi.rst``).

    Parameters
    ----------
    likelihood : Likelihood or Fitter
        Built with ``comm=`` on every rank.  Without a communicator (or with
        one rank) the block simply runs with ``root`` True.

    Yields
    ------
    bool
        True on rank 0.
    """
    lk = getattr(likelihood, "likelihood", likelihood)
    mpi = getattr(lk, "mpi", None)
    if mpi is None or mpi.size == 1:
        yield True
        return
    if mpi.rank != 0:
        error = mpi.serve_loop(lk)
        if error is not None:
            raise pickle.loads(error)
        yield False
        return
    mpi.serving = True
    try:
        yield True
    except BaseException as exc:
        mpi.serving = False
        mpi.stop(_portable(exc, 0) if isinstance(exc, Exception) else
                 pickle.dumps(RuntimeError(f"rank 0 stopped: {type(exc).__name__}")))
        raise
    mpi.serving = False
    mpi.stop()


def iterate_entry_range(path, tree="tree", branches=None, *, weight_branch=None,
                        map_records=None, step_size="100 MB", entry_start=0, entry_stop=None,
                        select=None):
    """Like :func:`vecampfit.root_io.iterate_events`, over the entries
    ``entry_start <= entry < entry_stop`` only (uproot entry ranges).

    Raises
    ------
    FileNotFoundError, OSError, RootIOError, RootReadError
        As :func:`~vecampfit.root_io.iterate_events` (the entries named are
        those of the failing chunk in the whole tree).
    """
    path = os.fspath(path)
    f, obj = _open_tree(path, tree)
    with f:
        wanted, read = _branches_to_read(obj, path, tree, branches, weight_branch)
        n_entries = int(obj.num_entries)
        stop = n_entries if entry_stop is None else min(int(entry_stop), n_entries)
        start = int(entry_start)
        if stop <= start:
            return
        # Chunks on the boundaries of one process's chunks (multiples of the
        # step from entry 0), so that an error names the entries it would
        # name in one process.
        step = _entry_step(obj, read, step_size)
        if step is None or step < 1:
            step = n_entries
        for first in range(start - start % step, stop, step):
            lo, hi = max(first, start), min(first + step, stop)
            try:
                arrays = obj.arrays(read, library="np", entry_start=lo, entry_stop=hi)
            except Exception as exc:
                raise _chunk_error(exc, obj, path, tree, read, first,
                                   min(first + step, n_entries), asked=(lo, hi)) from exc
            yield _chunk_records(arrays, path, tree, lo, hi, wanted, read,
                                 weight_branch=weight_branch, map_records=map_records,
                                 select=select)


def read_entry_share(path, tree, branches, weight_branch, map_records, step_size, rank, size,
                     select=None):
    """Records and weights of a rank's run of entries ``[N r / P, N (r+1) / P)``
    (one array per field; None if the run is empty)."""
    n = count_entries(path, tree)
    start, stop = n * rank // size, n * (rank + 1) // size
    parts, wparts = [], []
    for records, weights in iterate_entry_range(path, tree, branches,
                                                weight_branch=weight_branch,
                                                map_records=map_records, step_size=step_size,
                                                entry_start=start, entry_stop=stop,
                                                select=select):
        parts.append(records)
        wparts.append(weights)
    records = _concat_records(parts)
    if records is None:
        return None, None
    weights = None if wparts[0] is None else np.concatenate(wparts)
    return records, weights
