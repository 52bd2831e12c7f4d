"""Tests of vecampfit.fitter.events: the block layout against a layout built
independently in the test, padding, chunks written in place (reserve, no
regrowth), storage at a fixed place relative to the cache lines, rollback of failed chunks and
files, read-only fields, and no weight array for unweighted events."""

import numpy as np
import pytest

from vecampfit.fitter import Density, EventBufferError
from vecampfit.fitter.events import EVENT_STORAGE_OFFSET, EventBuffer


class _BlockLike:
    """Stands in for a block density (the buffer reads kind, fields and fill only)."""
    kind = "block"
    name = "block-like"
    fill_event_buffer = None

    def __init__(self, fields):
        self.event_fields = tuple(fields)


def reference_blocks(fields, names, L, dtype):
    """(n_blocks, n_fields * L) built by hand: lane i of block b is event b L + i,
    the last block padded with the last event."""
    n = len(fields[names[0]])
    nb = -(-n // L)
    out = np.empty((nb, len(names), L), dtype=dtype)
    for b in range(nb):
        for f, name in enumerate(names):
            for i in range(L):
                out[b, f, i] = fields[name][min(b * L + i, n - 1)]
    return out.reshape(nb, -1)


@pytest.mark.parametrize("L", [1, 3, 4, 8])
@pytest.mark.parametrize("chunks", [[37], [5, 1, 0, 31], [2, 2, 2, 2, 29]])
def test_blocks_equal_a_layout_built_by_hand(L, chunks):
    rng = np.random.default_rng(L)
    names = ("a", "b", "c")
    n = sum(chunks)
    fields = {k: rng.normal(size=n) for k in names}
    buf = EventBuffer(_BlockLike(names), "float64", L)
    start = 0
    for k in chunks:
        buf.append({name: fields[name][start:start + k] for name in names})
        start += k
    buf.freeze()
    np.testing.assert_array_equal(buf.blocks, reference_blocks(fields, names, L, np.float64))
    # the storage starts at its fixed place relative to the cache lines, also after the
    # buffer grew chunk by chunk
    assert buf.blocks.ctypes.data % 64 == EVENT_STORAGE_OFFSET
    for name in names:
        np.testing.assert_array_equal(buf.field(name), fields[name])
    assert buf.weights is None and buf.padded_weights().size == 0
    assert buf.weight_sum == n


def test_reserve_writes_in_place_without_regrowing():
    names = ("x", "y")
    buf = EventBuffer(_BlockLike(names), "float32", 8)
    buf.reserve(1000)
    first = buf._blocks
    for k in range(10):
        buf.append({"x": np.full(100, k), "y": np.full(100, -k)})
    assert buf._blocks is first                      # never reallocated
    assert buf._blocks.nbytes == 1000 * 2 * 4        # exactly the events, no copy
    assert buf._blocks.ctypes.data % 64 == EVENT_STORAGE_OFFSET
    buf.freeze()
    np.testing.assert_array_equal(buf.field("y"), np.repeat(-np.arange(10), 100))


def test_weights_and_rollback():
    buf = EventBuffer(_BlockLike(("x",)), "float64", 4)
    buf.append({"x": np.arange(5.0)}, np.full(5, 2.0))
    mark = buf.mark()
    buf.append({"x": np.arange(3.0)}, np.full(3, 3.0))
    buf.truncate(mark)
    with pytest.raises(EventBufferError, match="some chunks have weights and others not"):
        buf.append({"x": np.arange(3.0)})
    with pytest.raises(EventBufferError, match="not finite at event 6"):
        buf.append({"x": np.array([0.0, np.nan])}, np.ones(2))
    assert buf.n_events == 5                          # failed chunks keep nothing
    buf.freeze()
    assert buf.weight_sum == 10.0
    np.testing.assert_array_equal(buf.weights, np.full(5, 2.0))
    with pytest.raises(EventBufferError, match="already frozen"):
        buf.append({"x": np.arange(2.0)}, np.ones(2))
    buf.thaw()
    buf.append({"x": np.arange(2.0)}, np.ones(2))
    assert buf.freeze().weight_sum == 12.0


def test_python_densities_see_read_only_flat_fields():
    d = Density(lambda ev, p: ev["x"], parameters=[], event_fields=["x"])
    buf = EventBuffer(d, "float64", 8)
    buf.append({"x": np.arange(5.0)})
    buf.freeze()
    assert buf.blocks is None
    with pytest.raises(ValueError, match="read-only"):
        buf.fields["x"][0] = 1.0
    np.testing.assert_array_equal(buf.fields["x"], np.arange(5.0))


def test_bad_chunks_are_named():
    buf = EventBuffer(_BlockLike(("x", "y")), "float64", 4, "data of fit point 2")
    with pytest.raises(EventBufferError, match="data of fit point 2: event field 'y' has 3 events, "
                                               "other fields 2"):
        buf.append({"x": np.zeros(2), "y": np.zeros(3)})
    with pytest.raises(EventBufferError, match=r"event field 'x' has shape \(2, 2\)"):
        buf.append({"x": np.zeros((2, 2)), "y": np.zeros(2)})
    with pytest.raises(EventBufferError, match=r"weights have shape \(3,\), expected \(2,\)"):
        buf.append({"x": np.zeros(2), "y": np.zeros(2)}, np.ones(3))
    with pytest.raises(EventBufferError, match="data of fit point 2: no events"):
        buf.freeze()
    assert buf.n_events == 0 and not buf.frozen
