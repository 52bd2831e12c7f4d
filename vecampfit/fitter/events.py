"""Event buffers: the events of one density, in blocks of L (structure of arrays).

For a block density, block ``b`` is the C struct ``{T field_0[L]; T
field_1[L]; ...}`` in the order of :attr:`Density.event_fields`: row ``b`` of
:attr:`EventBuffer.blocks` (shape ``(n_blocks, n_fields * L)``).  The last
block is padded with copies of the last event, so that a density never sees
arbitrary numbers, and the padded lanes are never added.  For a Python
density the fields are flat arrays, handed to the density read-only.

Memory: each chunk of events is written straight into its place in the
final layout (one copy of each field, no per-chunk lists to concatenate);
:meth:`EventBuffer.reserve` sizes the buffer before a file is read, so that
it is not grown and copied.  Unweighted events have no weight array.
"""

import numpy as np

from ._reduction import aligned_empty, chunk_events, chunk_sums, reduce_rows
from .errors import EventBufferError

# EventBufferError (from .errors) stays importable from here.
__all__ = ["EventBuffer"]

#: Growth factor of a buffer that was not reserved large enough.
_GROWTH = 1.5

#: Where the block form of an event buffer starts: this many bytes past a
#: cache line.  Measured on an AMD EPYC (AVX-512), the density of a model
#: with wide blocks (the Lambda_c model of the exchange format, 38 fields of
#: 8 lanes) took 21.8 ns per event with its buffer on a cache line and 12.7
#: with it 16, 32, 48 or 96 bytes past one, while the D0 and GenFit3K
#: likelihood calls move by at most 3 % between these places: a fixed place
#: (not the allocator's) and not on a line.
EVENT_STORAGE_OFFSET = 32


class EventBuffer:
    """Events of one density, appended chunk by chunk, then frozen.

    Parameters
    ----------
    density : Density
        Whose fields and fill function are used.
    precision : {"float32", "float64"}
    vector_length : int
    what : str
        Description for messages ("data of fit point 0", ...).
    use_fill : bool
        Pass appended records through the density's ``fill_event_buffer``
        (default); False when the appended dicts already hold the fields.

    Attributes
    ----------
    n_events : int
    weights : numpy.ndarray or None
        Per-event weights (None for unweighted events).
    weight_sum : float
        :math:`\\sum_i w_i` (the number of events when unweighted); set by
        :meth:`freeze`.
    """

    def __init__(self, density, precision, vector_length, what="events", *, use_fill=True):
        self.density = density
        self.dtype = np.dtype(precision)
        self.vector_length = int(vector_length)
        self.what = what
        self.use_fill = use_fill
        self._n_fields = len(density.event_fields)
        self._block = density.kind == "block"
        self._capacity = 0            # events
        self._blocks = None           # (capacity_blocks, n_fields, L) for the block form
        self._flat = None             # dict of (capacity,) arrays for the Python form
        self._weights = None          # (capacity,) float64, or None
        self._weighted = None
        self.n_events = 0
        self.frozen = False
        self.weight_sum = None
        self._released = None         # why the events were released, once they are

    # -- filling --------------------------------------------------------------

    def reserve(self, n_more):
        """Make room for ``n_more`` further events (one allocation)."""
        self._ensure(self.n_events + int(n_more), exact=True)

    def _ensure(self, needed, exact=False):
        if needed <= self._capacity:
            return
        L = self.vector_length
        capacity = needed if exact else max(needed, int(self._capacity * _GROWTH) + L)
        capacity = -(-capacity // L) * L
        n = self.n_events
        if self._block:
            blocks = aligned_empty((capacity // L, self._n_fields, L), self.dtype,
                                   offset=EVENT_STORAGE_OFFSET)
            if self._blocks is not None:
                used = -(-n // L)
                blocks[:used] = self._blocks[:used]
            self._blocks = blocks
        else:
            flat = {}
            for name in self.density.event_fields:
                a = np.empty(capacity, dtype=self.dtype)
                if self._flat is not None:
                    a[:n] = self._flat[name][:n]
                flat[name] = a
            self._flat = flat
        if self._weights is not None:
            w = np.empty(capacity)
            w[:n] = self._weights[:n]
            self._weights = w
        self._capacity = capacity

    def append(self, records, weights=None):
        """Fill the fields of a chunk of event records and append them.

        Parameters
        ----------
        records : dict of array_like
            Event records; passed to the density's ``fill_event_buffer``, or
            used as fields directly if it has none.
        weights : array_like, optional
            Per-event weights of this chunk.

        Raises
        ------
        EventBufferError
            A missing field, fields of different lengths or shapes, a
            non-finite value, bad weights, or weights on some chunks only.
            Nothing of the chunk is kept then.
        """
        if self.frozen:
            raise EventBufferError(f"{self.what}: buffer already frozen")
        fill = self.density.fill_event_buffer if self.use_fill else None
        fields = fill(records) if fill is not None else records
        if not hasattr(fields, "keys"):
            raise EventBufferError(f"{self.what}: the {'fill function' if fill else 'events'} of "
                                   f"density {self.density.name!r} gave a "
                                   f"{type(fields).__name__}, not a dict of fields")
        n = None
        converted = []
        for name in self.density.event_fields:
            if name not in fields:
                raise EventBufferError(f"{self.what}: density {self.density.name!r} needs event "
                                       f"field {name!r}, which the "
                                       f"{'fill function' if fill else 'event records'} did not "
                                       f"provide (has: {sorted(fields)})")
            a = np.asarray(fields[name], dtype=self.dtype)
            if a.ndim != 1:
                raise EventBufferError(f"{self.what}: event field {name!r} has shape {a.shape}, "
                                       f"expected one value per event")
            if n is None:
                n = a.shape[0]
            elif a.shape[0] != n:
                raise EventBufferError(f"{self.what}: event field {name!r} has {a.shape[0]} "
                                       f"events, other fields {n}")
            if not np.all(np.isfinite(a)):
                bad = int(np.flatnonzero(~np.isfinite(a))[0])
                raise EventBufferError(f"{self.what}: event field {name!r} is not finite at "
                                       f"event {self.event_number(self.n_events + bad)} "
                                       f"({a[bad]})")
            converted.append(a)
        weighted = weights is not None
        if self._weighted is not None and weighted != self._weighted and n:
            raise EventBufferError(f"{self.what}: some chunks have weights and others not")
        w = None
        if weighted:
            w = np.asarray(weights, dtype=np.float64)
            if w.shape != (n,):
                raise EventBufferError(f"{self.what}: weights have shape {w.shape}, expected ({n},)")
            if not np.all(np.isfinite(w)):
                raise EventBufferError(f"{self.what}: weights are not finite")
        if not n:
            return
        self._ensure(self.n_events + n)
        if weighted and self._weights is None:
            self._weights = np.empty(self._capacity)
        self._weighted = weighted
        start = self.n_events
        if self._block:
            L = self.vector_length
            flat = self._blocks.reshape(-1, self._n_fields, L)
            # Event e lives at block e // L, lane e % L; write by whole blocks
            # where possible.
            for f, a in enumerate(converted):
                self._scatter(flat, f, start, a)
        else:
            for name, a in zip(self.density.event_fields, converted):
                self._flat[name][start:start + n] = a
        if weighted:
            self._weights[start:start + n] = w
        self.n_events += n

    def _scatter(self, blocks, f, start, a):
        L = self.vector_length
        n = a.shape[0]
        i = 0
        head = (-start) % L
        if head:
            k = min(head, n)
            blocks[start // L, f, start % L:start % L + k] = a[:k]
            i = k
        full = (n - i) // L
        if full:
            b0 = (start + i) // L
            blocks[b0:b0 + full, f, :] = a[i:i + full * L].reshape(full, L)
            i += full * L
        if i < n:
            b = (start + i) // L
            blocks[b, f, :n - i] = a[i:]

    def event_number(self, j):
        """The number of event ``j`` of this buffer in the whole sample: ``j``
        itself, or over MPI ranks its number among the events of all ranks
        (:class:`vecampfit.fitter.mpi.ChunkLayout`, set as ``layout``)."""
        layout = getattr(self, "layout", None)
        return j if layout is None else layout.global_event(j)

    def mark(self):
        """A position to :meth:`truncate` back to (the number of events)."""
        return self.n_events

    def truncate(self, mark):
        """Drop every event appended after :meth:`mark` returned ``mark``."""
        if self.frozen:
            raise EventBufferError(f"{self.what}: buffer already frozen")
        if not 0 <= mark <= self.n_events:
            raise ValueError(f"{self.what}: cannot truncate {self.n_events} events to {mark}")
        self.n_events = mark
        if mark == 0:
            self._weighted = None
            self._weights = None

    def freeze(self, require_events=True):
        """Pad the last block and make the buffer ready for the likelihood.

        Freezing can be undone by :meth:`thaw` (nothing is discarded).

        Raises
        ------
        EventBufferError
            If there are no events and ``require_events``.
        """
        if self.frozen:
            return self
        if require_events and self.n_events == 0:
            raise EventBufferError(f"{self.what}: no events")
        n = self.n_events
        if self._block and n:
            L = self.vector_length
            last = (n - 1) // L
            lane = (n - 1) % L
            if lane + 1 < L:
                self._blocks[last, :, lane + 1:] = self._blocks[last, :, lane:lane + 1]
        self.weight_sum = self.local_weight_sum()
        self.frozen = True
        return self

    def weight_rows(self):
        """Per-chunk sums of the weights (ones if unweighted), ``(n_chunks, 1)``,
        chunks of :func:`~vecampfit.fitter._reduction.chunk_events` events."""
        return chunk_sums([self.weight_array()], self.n_events, chunk_events(self.vector_length))

    def local_weight_sum(self):
        """:math:`\\sum_i w_i` of the events of this buffer (their number if
        unweighted), summed per chunk and the chunks in order."""
        if not self._weighted:
            return float(self.n_events)
        return float(reduce_rows(self.weight_rows())[0])

    def thaw(self):
        """Undo :meth:`freeze` (more events may be appended again)."""
        if self._released:
            self._refuse()
        self.frozen = False

    def release(self, reason):
        """Free the events (the fields; the weights and their sum stay).

        Parameters
        ----------
        reason : str
            Why, for the message of any later use of the events.
        """
        self._released = str(reason)
        self._blocks = None
        self._flat = None

    @property
    def released(self):
        """True once :meth:`release` freed the events."""
        return self._released is not None

    def _refuse(self):
        raise EventBufferError(f"{self.what}: the events were released ({self._released})")

    # -- access ---------------------------------------------------------------

    @property
    def n_blocks(self):
        """Number of blocks of L events (the last one padded)."""
        return (self.n_events + self.vector_length - 1) // self.vector_length

    @property
    def blocks(self):
        """Block form: the events, shape ``(n_blocks, n_fields * L)`` (a view)."""
        if not self._block:
            return None
        if self._released:
            self._refuse()
        if self._blocks is None:
            return np.zeros((0, self._n_fields * self.vector_length), dtype=self.dtype)
        return self._blocks[:self.n_blocks].reshape(self.n_blocks, -1)

    @property
    def fields(self):
        """Python form: dict of read-only field arrays (views)."""
        if self._block:
            return None
        if self._released:
            self._refuse()
        out = {}
        for name in self.density.event_fields:
            a = (self._flat[name][:self.n_events] if self._flat is not None
                 else np.zeros(0, self.dtype)).view()
            a.flags.writeable = False
            out[name] = a
        return out

    @property
    def weights(self):
        """Per-event weights (read-only view), or None if unweighted."""
        if not self._weighted:
            return None
        w = self._weights[:self.n_events].view()
        w.flags.writeable = False
        return w

    def padded_weights(self):
        """Weights of the ``n_blocks * L`` lanes (a view; padding lanes are
        never read), or an empty array for unweighted events."""
        if not self._weighted:
            return np.zeros(0)
        return self._weights[:self.n_blocks * self.vector_length]

    def weight_array(self):
        """Per-event weights as a float64 array (ones if unweighted; a new
        array then)."""
        w = self.weights
        return np.ones(self.n_events) if w is None else w

    def field(self, name):
        """One field as a flat array of the events (padding removed)."""
        if not self._block:
            return self.fields[name]
        if self._released:
            self._refuse()
        f = self.density.event_fields.index(name)
        if self._blocks is None:
            return np.zeros(0, self.dtype)
        return self._blocks[:self.n_blocks, f, :].reshape(-1)[:self.n_events]
