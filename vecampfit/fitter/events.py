"""Event buffers: the events of one density, in blocks of L (structure of arrays).

For a block density, block ``b`` is the C struct ``{T field_0[L]; T
field_1[L]; ...}`` in the order of :attr:`Density.event_fields`: row ``b`` of
:attr:`EventBuffer.blocks` (shape ``(n_blocks, n_fields * L)``).  The last
block is padded with copies of the last event, so that a density never sees
arbitrary numbers, and the padded lanes have weight zero and are never added.
For a Python density the fields stay flat arrays.
"""

import numpy as np

__all__ = ["EventBuffer", "EventBufferError"]


class EventBufferError(ValueError):
    """Event fields that do not match a density (missing field, wrong shape,
    non-finite values, bad weights)."""


class EventBuffer:
    """Events of one density, filled chunk by chunk, then frozen.

    Parameters
    ----------
    density : Density
        Whose fields and fill function are used.
    precision : {"float32", "float64"}
    vector_length : int
    what : str
        Description for messages ("data of fit point 0", ...).
    """

    def __init__(self, density, precision, vector_length, what="events"):
        self.density = density
        self.dtype = np.dtype(precision)
        self.vector_length = int(vector_length)
        self.what = what
        self._fields = {name: [] for name in density.event_fields}
        self._weights = []
        self._weighted = None
        self.n_events = 0
        self.blocks = None
        self.fields = None
        self.weights = None
        self.padded_weights = None

    def append(self, records, weights=None):
        """Fill the fields of a chunk of event records and append them.

        Parameters
        ----------
        records : dict of array_like
            Event records; passed to the density's ``fill_event_buffer``, or
            used as fields directly if it has none.
        weights : array_like, optional
            Per-event weights of this chunk.
        """
        if self.blocks is not None or self.fields is not None:
            raise EventBufferError(f"{self.what}: buffer already frozen")
        fill = self.density.fill_event_buffer
        fields = fill(records) if fill is not None else records
        n = None
        converted = {}
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
                                       f"event {self.n_events + bad} ({a[bad]})")
            converted[name] = a
        weighted = weights is not None
        if self._weighted is not None and weighted != self._weighted:
            raise EventBufferError(f"{self.what}: some chunks have weights and others not")
        self._weighted = weighted
        if weighted:
            w = np.asarray(weights, dtype=np.float64)
            if w.shape != (n,):
                raise EventBufferError(f"{self.what}: weights have shape {w.shape}, expected ({n},)")
            if not np.all(np.isfinite(w)):
                raise EventBufferError(f"{self.what}: weights are not finite")
            self._weights.append(w)
        for name, a in converted.items():
            self._fields[name].append(a)
        self.n_events += n

    def freeze(self, require_events=True):
        """Concatenate the chunks into the final layout.

        Raises
        ------
        EventBufferError
            If there are no events and ``require_events``.
        """
        if require_events and self.n_events == 0:
            raise EventBufferError(f"{self.what}: no events")
        flat = {name: (np.concatenate(parts) if parts else np.zeros(0, self.dtype))
                for name, parts in self._fields.items()}
        self._fields = None
        if self._weighted:
            self.weights = np.concatenate(self._weights)
        self._weights = None
        L = self.vector_length
        n_blocks = (self.n_events + L - 1) // L
        n_pad = n_blocks * L
        w = np.zeros(n_pad)
        w[:self.n_events] = self.weights if self.weights is not None else 1.0
        self.padded_weights = w
        self.weight_sum = float(np.sum(self.weights)) if self.weights is not None \
            else float(self.n_events)
        if self.density.kind == "python":
            self.fields = flat
            return self
        names = self.density.event_fields
        blocks = np.empty((n_blocks, len(names), L), dtype=self.dtype)
        for f, name in enumerate(names):
            a = flat.pop(name)
            padded = np.empty(n_pad, dtype=self.dtype)
            padded[:self.n_events] = a
            if n_pad > self.n_events:
                padded[self.n_events:] = a[-1]
            blocks[:, f, :] = padded.reshape(n_blocks, L)
        self.blocks = blocks.reshape(n_blocks, len(names) * L)
        return self

    @property
    def n_blocks(self):
        """Number of blocks of L events (the last one padded)."""
        return (self.n_events + self.vector_length - 1) // self.vector_length

    def field(self, name):
        """One field as a flat array of the events (padding removed)."""
        if self.fields is not None:
            return self.fields[name]
        f = self.density.event_fields.index(name)
        L = self.vector_length
        return self.blocks.reshape(self.n_blocks, -1, L)[:, f, :].reshape(-1)[:self.n_events]
