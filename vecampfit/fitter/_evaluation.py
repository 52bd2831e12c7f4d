"""One interface for the sums of the likelihood, over both density forms.

:class:`BlockEvaluator` calls the compiled kernels (no GIL, OpenMP, chunks
reduced in a fixed order); :class:`PythonEvaluator` computes the same sums
with numpy from a Python-form density.  Both return

* ``values(buf, p, pbuf, threads)``: the density at the events, ``(n_events,)``;
* ``values_and_gradient(...)``: and its gradient ``(n_parameters, n_events)``;
* ``normalization_sums(buf, p, pbuf, gradient, threads)``: the array
  ``[sum_j w_j S_j, sum_j w_j dS_j/dp_0, ...]``;
* ``data_sums(buf, p, pbuf, scale, background, fractions, gradient, threads)``:
  the array of the columns ``-2 sum w ln t``, ``sum r S``, ``sum r b_k``
  (one per background), ``sum r dS/dp_a``, with ``t_i = scale S_i + sum_k f_k
  b_ki`` and ``r_i = -2 w_i / t_i`` (in a call without the gradient only
  the first column is used, and the cached path leaves the others 0);

and a :class:`Problem` instead of sums where a density is invalid or the
likelihood argument is not positive.  The likelihood's algebra
(:mod:`vecampfit.fitter.likelihood`) works on these arrays only.

Every sum over events is one row of partial sums per chunk of events
(``*_rows`` methods), the rows reduced in a fixed order by
:mod:`vecampfit.fitter._reduction`, so that the sums have the same bits for
any number of threads and MPI ranks.
"""

import weakref

import numpy as np

from ._dispatch import kernels as _kernels
from ._reduction import (aligned_empty, chunk_events, chunk_partials, chunk_sums, combine_serial,
                         empty_rows)
from .errors import DensityError

_NO_PROBLEM, _ALLOCATION_FAILED, _GUARD_VIOLATED = -1, -2, -3


def _checked_buffers(density, gradient):
    """The event buffers at which :meth:`BlockEvaluator.check_written` found
    every value of ``density`` (``gradient``: of its gradient function)
    written, each with its number of events then (a buffer thawed and
    extended is checked again)."""
    gradient = bool(gradient)
    sets = density.__dict__.setdefault("_checked_writes", {})
    if gradient not in sets:
        sets[gradient] = weakref.WeakKeyDictionary()
    return sets[gradient]


class Problem:
    """Where a sum could not be formed: the first event (index in its
    buffer) at which the density is NaN, infinite or negative (``density``
    holds the value), or at which the likelihood argument is not positive
    (``argument`` holds it)."""

    def __init__(self, event, density, argument=None):
        self.event = int(event)
        self.density = float(density)
        self.argument = None if argument is None else float(argument)

    @property
    def density_invalid(self):
        """True if the density itself is invalid at the event."""
        return not (np.isfinite(self.density) and self.density >= 0)


class BlockEvaluator:
    """The sums of a block density over an event buffer, by the kernels."""

    def __init__(self, density, dtype, vector_length):
        self.density = density
        self.dtype = np.dtype(dtype)
        self.vector_length = int(vector_length)

    @property
    def chunk_blocks(self):
        """Blocks per chunk of the reduction (:func:`~vecampfit.fitter._reduction.chunk_events`)."""
        return chunk_events(self.vector_length) // self.vector_length

    def _n_chunks(self, buf):
        cb = self.chunk_blocks
        return (buf.n_blocks + cb - 1) // cb

    def _raise_kernel_error(self, bad):
        if bad.size == 0 or bad.min() >= _NO_PROBLEM:
            return                  # no code below NO_PROBLEM: one reduction
        if np.any(bad == _GUARD_VIOLATED):
            d = self.density
            raise DensityError(
                f"{d.name}: the density wrote beyond the {self.vector_length} values of a block "
                f"or the {d.n_parameters} x {self.vector_length} gradient values its "
                f"{d.n_parameters} parameters ({', '.join(d.parameters)}) allow: its C code "
                f"and its declaration disagree")
        if np.any(bad == _ALLOCATION_FAILED):
            raise MemoryError(f"{self.density.name}: could not allocate work arrays in the "
                              f"likelihood kernel")

    def check_written(self, buf, params_t, pbuf, gradient, threads):
        """Raise :class:`~vecampfit.fitter.density.DensityError` unless the
        density (with ``gradient``: its gradient function) writes every value
        and gradient row it declares at every event of ``buf``.

        With a gradient-sum function (``density_gradient_sum``), also that it
        adds what the gradient function writes, times factors that differ
        from lane to lane.  Run once per density, function and event buffer,
        before the first sum over the buffer: an element the C code never
        writes would otherwise hold whatever was in memory.  Later calls
        cost one lookup.
        """
        d = self.density
        checked = _checked_buffers(d, gradient)
        if checked.get(buf) == buf.n_events:
            return
        if buf.n_events:
            ng = d.n_parameters if gradient else 0
            n_chunks = self._n_chunks(buf)
            event = np.full(n_chunks, _NO_PROBLEM, dtype=np.intp)
            element = np.full(n_chunks, _NO_PROBLEM, dtype=np.intp)
            _kernels.unwritten_values(buf.blocks, buf.n_events, self.vector_length, params_t,
                                      pbuf.ctypes.data, d.function_pointer,
                                      d.gradient_pointer if gradient else 0, ng, event, element,
                                      self.chunk_blocks, threads,
                                      d.gradient_sum_pointer if gradient else 0)
            self._raise_kernel_error(event)
            hit = np.flatnonzero(event >= 0)
            if hit.size:
                c = int(hit[0])
                j = buf.event_number(int(event[c]))
                row = int(element[c])
                where = f"at event {j} of {buf.what}"
                if row < -1:
                    row = -2 - row
                    what = (f"row {row} (d/d{d.parameters[row]})" if row < ng
                            else "the density value")
                    raise DensityError(
                        f"{d.name}: its gradient-sum function (density_gradient_sum) does not "
                        f"add factor[i] times what its gradient function writes: {what} "
                        f"differs in the block of {self.vector_length} events starting "
                        f"{where}; the two must compute the same derivatives")
                if row < 0:
                    function = "gradient function" if gradient else "function"
                    raise DensityError(
                        f"{d.name}: its {function} never wrote the density value {where} "
                        f"(it must write all {self.vector_length} values of a block): the value "
                        f"would be whatever was in memory")
                raise DensityError(
                    f"{d.name}: its gradient function never wrote gradient row {row} "
                    f"(d/d{d.parameters[row]}, elements gradient[{row} * L + i]) {where}; the "
                    f"density declares {d.n_parameters} parameters ({', '.join(d.parameters)}) "
                    f"and must write a row for each: the row would be whatever was in memory")
        checked[buf] = buf.n_events

    def _run_values(self, buf, params_t, pbuf, gradient, threads):
        d = self.density
        self.check_written(buf, params_t, pbuf, gradient, threads)
        L = self.vector_length
        n_pad = buf.n_blocks * L
        values = np.empty(n_pad, dtype=self.dtype)
        ng = d.n_parameters if gradient else 0
        grad = np.empty((max(ng, 1), n_pad if ng else 1), dtype=self.dtype)
        bad = np.full(max(self._n_chunks(buf), 1), _NO_PROBLEM, dtype=np.intp)
        _kernels.density_values(buf.blocks, L, params_t, pbuf.ctypes.data, d.function_pointer,
                                d.gradient_pointer if gradient else 0, ng, values, grad, bad,
                                self.chunk_blocks, threads)
        self._raise_kernel_error(bad)
        n = buf.n_events
        return values[:n], (grad[:ng, :n] if gradient else None)

    def values(self, buf, params_t, pbuf, threads):
        return self._run_values(buf, params_t, pbuf, False, threads)[0]

    def values_and_gradient(self, buf, params_t, pbuf, threads):
        return self._run_values(buf, params_t, pbuf, True, threads)

    def _problem(self, bad, buf, params_t, pbuf, arguments=None):
        self._raise_kernel_error(bad)
        hit = bad[bad >= 0]
        if hit.size == 0:
            return None
        j = int(hit.min())
        L = self.vector_length
        b = j // L
        values = np.empty(L, dtype=self.dtype)
        one = np.full(1, _NO_PROBLEM, dtype=np.intp)
        _kernels.density_values(buf.blocks[b:b + 1], L, params_t, pbuf.ctypes.data,
                                self.density.function_pointer, 0, 0, values,
                                np.empty((1, 1), dtype=self.dtype), one, 1, 1)
        v = values[j % L]
        return Problem(j, v, None if arguments is None else arguments(j, v))

    def normalization_rows(self, buf, params_t, pbuf, gradient, threads):
        """Per-chunk rows of ``[w S, w dS/dp_0, ...]`` (or a Problem)."""
        d = self.density
        ng = d.n_parameters if gradient else 0
        if buf.n_events == 0:
            return empty_rows(1 + ng), None
        self.check_written(buf, params_t, pbuf, gradient, threads)
        n_chunks = self._n_chunks(buf)
        partials = chunk_partials(n_chunks, 1 + ng)
        bad = np.full(max(n_chunks, 1), _NO_PROBLEM, dtype=np.intp)
        _kernels.normalization_sums(
            buf.blocks, buf.n_events, self.vector_length, params_t, pbuf.ctypes.data,
            d.function_pointer, d.gradient_pointer if gradient else 0, ng, buf.padded_weights(),
            partials, bad, self.chunk_blocks, threads, d.gradient_sum_pointer if gradient else 0)
        problem = self._problem(bad, buf, params_t, pbuf)
        if problem is not None:
            return None, problem
        return np.ascontiguousarray(partials[:, :1 + ng]), None

    def normalization_sums(self, buf, params_t, pbuf, gradient, threads, combine=combine_serial):
        return combine(buf, lambda: self.normalization_rows(buf, params_t, pbuf, gradient,
                                                            threads))

    def data_rows(self, buf, params_t, pbuf, scale, background, fractions, gradient, threads):
        """Per-chunk rows of the :meth:`data_sums` columns (or a Problem)."""
        d = self.density
        nb = background.shape[0]
        ng = d.n_parameters if gradient else 0
        if buf.n_events == 0:
            return empty_rows(2 + nb + ng), None
        self.check_written(buf, params_t, pbuf, gradient, threads)
        n_chunks = self._n_chunks(buf)
        partials = chunk_partials(n_chunks, 2 + nb + ng)
        bad = np.full(max(n_chunks, 1), _NO_PROBLEM, dtype=np.intp)
        fractions = np.ascontiguousarray(fractions, dtype=np.float64)
        _kernels.data_sums(
            buf.blocks, buf.n_events, self.vector_length, params_t, pbuf.ctypes.data,
            d.function_pointer, d.gradient_pointer if gradient else 0, ng, buf.padded_weights(),
            background, scale, fractions, partials, bad, self.chunk_blocks, threads,
            d.gradient_sum_pointer if gradient else 0)

        def argument(j, v):
            return scale * float(v) + float(np.dot(fractions, background[:, j])) if nb \
                else scale * float(v)

        problem = self._problem(bad, buf, params_t, pbuf, argument)
        if problem is not None:
            return None, problem
        return np.ascontiguousarray(partials[:, :2 + nb + ng]), None

    def data_sums(self, buf, params_t, pbuf, scale, background, fractions, gradient, threads,
                  combine=combine_serial):
        return combine(buf, lambda: self.data_rows(buf, params_t, pbuf, scale, background,
                                                   fractions, gradient, threads))


class PythonEvaluator:
    """The same sums for a Python-form density, with numpy."""

    def __init__(self, density, dtype):
        self.density = density
        self.dtype = np.dtype(dtype)

    def _call(self, buf, params_t, gradient):
        d = self.density
        n = buf.n_events
        p = params_t[:d.n_parameters].copy()
        p.flags.writeable = False
        if gradient:
            out = d.gradient(buf.fields, p)
            if not (isinstance(out, tuple) and len(out) == 2):
                raise DensityError(f"{d.name}: the gradient function must return (values, "
                                   f"gradient), got {type(out).__name__}")
            v, g = out
        else:
            v, g = d.function(buf.fields, p), None
        v = np.asarray(v, dtype=np.float64)
        if v.shape != (n,):
            raise DensityError(f"{d.name}: returned values of shape {v.shape}, expected ({n},) "
                               f"(one per event)")
        if gradient:
            g = np.asarray(g, dtype=np.float64)
            if g.shape != (d.n_parameters, n):
                raise DensityError(f"{d.name}: returned a gradient of shape {g.shape}, expected "
                                   f"({d.n_parameters}, {n}) (parameters {', '.join(d.parameters)}"
                                   f" by events)")
            if not np.all(np.isfinite(g)):
                k, j = np.argwhere(~np.isfinite(g))[0]
                raise DensityError(f"{d.name}: gradient with respect to {d.parameters[k]} is "
                                   f"{g[k, j]} at event {j}")
        return v, g

    def values(self, buf, params_t, pbuf, threads):
        return self._call(buf, params_t, False)[0]

    def values_and_gradient(self, buf, params_t, pbuf, threads):
        return self._call(buf, params_t, True)

    @staticmethod
    def _first_invalid(v):
        bad = ~np.isfinite(v) | (v < 0)
        if np.any(bad):
            j = int(np.flatnonzero(bad)[0])
            return Problem(j, v[j])
        return None

    def _chunk_events(self, buf):
        return chunk_events(buf.vector_length)

    def normalization_rows(self, buf, params_t, pbuf, gradient, threads):
        """Per-chunk rows of ``[w S, w dS/dp_0, ...]`` (or a Problem)."""
        ng = self.density.n_parameters if gradient else 0
        if buf.n_events == 0:
            return empty_rows(1 + ng), None
        v, g = self._call(buf, params_t, gradient)
        problem = self._first_invalid(v)
        if problem is not None:
            return None, problem
        w = buf.weights

        def columns():
            yield v if w is None else w * v
            for k in range(ng):
                yield g[k] if w is None else g[k] * w
        return chunk_sums(columns(), buf.n_events, self._chunk_events(buf)), None

    def normalization_sums(self, buf, params_t, pbuf, gradient, threads, combine=combine_serial):
        return combine(buf, lambda: self.normalization_rows(buf, params_t, pbuf, gradient,
                                                            threads))

    def data_rows(self, buf, params_t, pbuf, scale, background, fractions, gradient, threads):
        """Per-chunk rows of the :meth:`data_sums` columns (or a Problem)."""
        nb = background.shape[0]
        ng = self.density.n_parameters if gradient else 0
        if buf.n_events == 0:
            return empty_rows(2 + nb + ng), None
        v, g = self._call(buf, params_t, gradient)
        problem = self._first_invalid(v)
        if problem is not None:
            return None, problem
        n = buf.n_events
        term = scale * v
        if nb:
            term = term + np.asarray(fractions, dtype=np.float64) @ background[:, :n]
        bad = ~(term > 0) | ~np.isfinite(term)
        if np.any(bad):
            j = int(np.flatnonzero(bad)[0])
            return None, Problem(j, v[j], term[j])
        w = buf.weights
        lg = np.log(term) if w is None else w * np.log(term)
        r = -2 / term if w is None else -2 * w / term

        def columns():
            yield -2 * lg
            yield r * v
            for k in range(nb):
                yield background[k, :n] * r
            for k in range(ng):
                yield g[k] * r
        return chunk_sums(columns(), n, self._chunk_events(buf)), None

    def data_sums(self, buf, params_t, pbuf, scale, background, fractions, gradient, threads,
                  combine=combine_serial):
        return combine(buf, lambda: self.data_rows(buf, params_t, pbuf, scale, background,
                                                   fractions, gradient, threads))


def _serial_only(combine, density):
    """Partial recomputation keeps whole-sample state: one process only."""
    if combine is not combine_serial:
        raise DensityError(f"{density.name}: partial recomputation of components runs in one "
                           f"process, not over MPI ranks")


class _PartialState:
    """X_k at the events of one buffer with the parameters they were computed
    at (``keys``), versions kept for a return, and for normalization events
    M and the amplitude A at one set of couplings, when computed."""

    def __init__(self, keys, undeclared, x):
        self.keys = list(keys)
        self.undeclared = undeclared
        self.x = x
        self.m = None
        self.a = None
        self.a_couplings = None
        self.kept = [dict() for _ in keys]
        #: (keys, parameters, parameter buffer) of the last call far from the
        #: base (normalization states), a candidate for the next base.
        self.candidate = None


def evaluator_for_fit(density, dtype, vector_length):
    """The evaluator of a density in a fit of this precision and L."""
    if density.kind == "block":
        return BlockEvaluator(density, dtype, vector_length)
    return PythonEvaluator(density, dtype)


def _aligned_copy(x):
    """A C-contiguous copy of ``x`` that starts on a cache line (what the
    cached data kernel streams)."""
    out = aligned_empty(x.shape, x.dtype)
    out[...] = x
    return out


def channel_blocks(x, n_components, n_channels):
    """Amplitudes of several channels (rows k H + h, one column per event)
    in the kernel's blocks: complex (ceil(n / B), H, K, B) with
    B = ``_kernels.CHANNEL_BLOCK_EVENTS``, zero past the last event, so that
    a pass over the events reads one stream of memory."""
    b = _kernels.CHANNEL_BLOCK_EVENTS
    K, H, n = n_components, n_channels, x.shape[1]
    n_blocks = -(-n // b)
    padded = np.zeros((K, H, n_blocks * b), dtype=np.complex128)
    padded[:, :, :n] = x.reshape(K, H, n)
    out = aligned_empty((n_blocks, H, K, b), np.complex128)
    out[...] = padded.reshape(K, H, n_blocks, b).transpose(2, 1, 0, 3)
    return out


def channel_columns(blocks, n_components, n_channels, n_events):
    """The inverse of :func:`channel_blocks`: X as (K, H, n)."""
    K, H = n_components, n_channels
    return blocks.transpose(2, 1, 0, 3).reshape(K, H, -1)[:, :, :n_events]


class CachedEvaluator:
    """The sums of a density with components from cached component amplitudes
    (:mod:`vecampfit.fitter.components`): :math:`X_k` at the data events and
    the matrix :math:`M` of the normalization events, rebuilt when a
    parameter that is not a coupling changes.  Gradients are computed for
    the couplings' parameters only (the likelihood uses this evaluator when
    no other parameter of the density is free)."""

    #: Blocks of normalization events whose amplitudes are held at once
    #: while their matrix is summed.
    MATRIX_CHUNK_EVENTS = 65536

    #: Events per piece of the component amplitudes computed at once.
    PIECE_EVENTS = 8192

    #: Earlier versions of one component's amplitudes at the normalization
    #: events kept for a return to them (Minuit's numerical derivatives step
    #: a parameter away and back).
    KEPT_VERSIONS = 2

    #: Components that may move from the base of a partial-recomputation
    #: state and be recomputed alone (more: all of them in one pass).
    MOVED_IN_PLACE = 1

    #: Chunks of data events whose gradient terms are formed at once.
    GRADIENT_GROUP_CHUNKS = 8

    def __init__(self, density, dtype, vector_length, partial=False):
        self.density = density
        self.components = density.components
        self.dtype = np.dtype(dtype)
        self.vector_length = int(vector_length)
        self._block = BlockEvaluator(density, dtype, vector_length)
        self._cache = {}            # id(buf) -> (key, X or M)
        self.rebuilds = 0
        #: Recompute only the components whose parameters moved (needs the
        #: components' ``depends`` and single functions); keeps X_k of the
        #: normalization events (16 bytes per event and component).
        self.partial = bool(partial)
        if self.partial and not self.components.partial:
            raise DensityError(f"{density.name}: partial recomputation needs the components' "
                               f"dependencies and single-component functions")
        if self.partial and self.components.channel_weights is not None:
            raise DensityError(f"{density.name}: partial recomputation of components with "
                               f"channel weights is not supported")
        self._states = {}           # id(buf) -> _PartialState (partial mode)
        self._last_couplings = None  # (parameter bytes, couplings) of the last call
        #: Component evaluations at data or normalization events, one per
        #: component and buffer (partial mode), for reports and tests.
        self.component_evaluations = 0

    def _key(self, params_t):
        return params_t[self.components.other_parameters].tobytes()

    def _parameters_note(self, params_t):
        """`` (parameters: M1=..., G1=...; not finite: M1)``: the values of
        the parameters the components depend on (all but the couplings'),
        for a message about a component that is not finite."""
        names = self.density.parameters
        values = [(names[i], float(params_t[i])) for i in self.components.other_parameters]
        bad = [n for n, v in values if not np.isfinite(v)]
        text = ", ".join(f"{n}={v:.10g}" for n, v in values) or "none"
        return f" (parameters: {text}" + (f"; not finite: {', '.join(bad)})" if bad else ")")

    def _run_components(self, buf, blocks, first_block, function, n_components, what,
                        params_t, pbuf, threads, out=None):
        """X of ``n_components`` components of ``function`` at ``blocks``
        (the blocks of ``buf`` from ``first_block`` on): complex128 of shape
        (n_components, padded length), written by the kernel in place (into
        ``out`` if it has that shape)."""
        L = self.vector_length
        n_blocks = blocks.shape[0]
        if out is None or out.shape != (n_components, n_blocks * L):
            out = np.empty((n_components, n_blocks * L), dtype=np.complex128)
        cb = self._block.chunk_blocks
        bad = np.full(max((n_blocks + cb - 1) // cb, 1), _NO_PROBLEM, dtype=np.intp)
        n_valid = max(0, min(n_blocks * L, buf.n_events - first_block * L))
        _kernels.component_values(blocks, L, params_t, pbuf.ctypes.data, function, n_components,
                                  n_valid, out.view(np.float64), bad, cb, threads)
        if np.any(bad == _GUARD_VIOLATED):
            raise DensityError(f"{self.density.name}: {what} wrote beyond the "
                               f"{2 * n_components} x {L} values of {n_components} "
                               f"component{'s' if n_components > 1 else ''}")
        if np.any(bad == _ALLOCATION_FAILED):
            raise MemoryError(f"{self.density.name}: could not allocate work arrays")
        hit = bad[bad >= 0]
        if hit.size:
            j = int(hit.min())
            k = int(np.flatnonzero(~np.isfinite(out[:, j]))[0])
            name = (self.components.names[k // self.components.channels] if n_components > 1
                    else what.split()[-1])
            raise DensityError(f"{self.density.name}: component {name} is {out[k, j]} at "
                               f"event {first_block * L + j} of {buf.what}"
                               f"{self._parameters_note(params_t)}")
        return out

    def _amplitudes(self, buf, blocks, params_t, pbuf, threads, first_block=0, out=None):
        """X (n_components channels, padded length of ``blocks``) as complex128:
        row k H + h holds X_kh."""
        comp = self.components
        return self._run_components(buf, blocks, first_block, comp.function_pointer,
                                    comp.n_components * comp.channels,
                                    "the component function", params_t, pbuf, threads, out)

    # -- partial recomputation ----------------------------------------------

    def _component_keys(self, params_t):
        """(per component the bytes of its parameters, the bytes of the
        parameters no component declares)."""
        comp = self.components
        keys = [params_t[d].tobytes() for d in comp.depends]
        return keys, params_t[comp.undeclared_parameters].tobytes()

    def _single(self, buf, k, params_t, pbuf, threads):
        """X_k alone at the events of ``buf`` (complex128, n_events)."""
        x = self._run_components(buf, buf.blocks, 0, self.components.single_pointers[k], 1,
                                 f"the function of component {self.components.names[k]}",
                                 params_t, pbuf, threads)
        self.component_evaluations += 1
        return x[0, :buf.n_events]

    def _all_amplitudes(self, buf, params_t, pbuf, threads, out=None, couplings=None):
        """X of every component at every event of ``buf`` (K, n_events), in
        pieces (into ``out`` if given); with ``couplings`` c also the amplitude
        A = X^T c, formed piece by piece while X is in the cache (returned
        after X)."""
        L = self.vector_length
        # Pieces of PIECE_EVENTS (about 1 MB of amplitudes for 8 components)
        # in one scratch array: copied out and summed while in the cache.
        step = max(1, self.PIECE_EVENTS // L)
        x = out if out is not None else np.empty((self.components.n_components, buf.n_events),
                                                 dtype=np.complex128)
        a = None if couplings is None else np.empty(buf.n_events, dtype=np.complex128)
        scratch = None
        for b0 in range(0, buf.n_blocks, step):
            b1 = min(b0 + step, buf.n_blocks)
            n = min(b1 * L, buf.n_events) - b0 * L
            scratch = self._amplitudes(buf, buf.blocks[b0:b1], params_t, pbuf, threads, b0,
                                       scratch)
            piece = scratch[:, :n]
            x[:, b0 * L:b0 * L + n] = piece
            if a is not None:
                a[b0 * L:b0 * L + n] = np.einsum("k,kn->n", couplings, piece)
        self.component_evaluations += self.components.n_components
        return x if a is None else (x, a)

    def _moved(self, buf, params_t, pbuf, threads):
        """The state of ``buf`` and the components whose parameters moved
        since its base (None: everything was computed again)."""
        keys, undeclared = self._component_keys(params_t)
        st = self._states.get(id(buf))
        if st is None or st.undeclared != undeclared:
            self._states.pop(id(buf), None)
            st = _PartialState(keys, undeclared, self._all_amplitudes(buf, params_t, pbuf,
                                                                      threads))
            self._states[id(buf)] = st
            self.rebuilds += 1
            return st, keys, None
        return st, keys, [k for k in range(len(keys)) if keys[k] != st.keys[k]]

    def _version(self, st, buf, k, key, params_t, pbuf, threads):
        """X_k at the parameters of ``key``: a kept version or computed."""
        kept = st.kept[k]
        if key in kept:
            return kept[key]
        return self._single(buf, k, params_t, pbuf, threads)

    def _keep(self, st, k, key, x):
        kept = st.kept[k]
        kept[key] = x
        while len(kept) > self.KEPT_VERSIONS:
            kept.pop(next(iter(kept)))

    def _partial_data(self, buf, params_t, pbuf, threads):
        """X at the data events, recomputing the components that moved (all of
        them in one pass when more than MOVED_IN_PLACE moved)."""
        st, keys, moved = self._moved(buf, params_t, pbuf, threads)
        if moved and len(moved) > self.MOVED_IN_PLACE:
            try:
                self._all_amplitudes(buf, params_t, pbuf, threads, out=st.x)
            except BaseException:
                self._states.pop(id(buf), None)     # half written: built again next time
                raise
            st.keys = list(keys)
            st.kept = [dict() for _ in keys]
        elif moved:
            for k in moved:
                st.x[k] = self._version(st, buf, k, keys[k], params_t, pbuf, threads)
                st.keys[k] = keys[k]
        return st.x

    def _weighted(self, buf, x):
        w = buf.weights
        return x if w is None else x * w[:buf.n_events]

    def _move_base(self, st, buf, keys, moved, params_t, pbuf, threads):
        """Make the parameters of ``keys`` the base of a normalization state:
        the moved components' amplitudes replace the base's (their old
        versions are kept), and M and the base amplitude are dropped."""
        for k in moved:
            xk = self._version(st, buf, k, keys[k], params_t, pbuf, threads)
            self._keep(st, k, st.keys[k], st.x[k].copy())
            st.kept[k].pop(keys[k], None)
            st.x[k] = xk
            st.keys[k] = keys[k]
        st.m = None
        st.a = None
        st.a_couplings = None
        st.candidate = None

    def _rebase(self, st, buf, candidate, threads):
        """Make the parameters of ``candidate`` the base of a normalization
        state: every component computed there in one pass (in place) with the
        amplitude at its couplings; kept versions and M dropped."""
        keys, params_t, pbuf = candidate
        c = self.components.couplings(params_t[:self.density.n_parameters])
        # The base amplitude at the candidate's couplings comes with X: the
        # steps around the candidate that move a component keep them.
        try:
            _, st.a = self._all_amplitudes(buf, params_t, pbuf, threads, out=st.x, couplings=c)
        except BaseException:
            self._states.pop(id(buf), None)     # half written: built again at the next call
            raise
        st.a_couplings = c.tobytes()
        st.keys = list(keys)
        st.kept = [dict() for _ in keys]
        st.m = None
        st.candidate = None

    def _base_amplitude(self, st, c):
        """A_j = sum_k c_k X_jk of the base at every normalization event
        (kept for these couplings)."""
        key = c.tobytes()
        if st.a_couplings != key:
            st.a = np.einsum("k,kn->n", c, st.x)
            st.a_couplings = key
        return st.a

    def _partial_integral(self, buf, params_t, pbuf, threads, c):
        """(sums, problem) of the normalization events with partial
        recomputation, from the state's base (X at its parameters and, when
        computed, M and the amplitude A = X^T c at one set of couplings).

        * Nothing moved: c^T M c-bar (M built when two sets of couplings
          asked for the same base: a numerical derivative's coupling steps),
          or sum_j w_j |A_j|^2 for the couplings of A.
        * One component moved, couplings those of A (a numerical
          derivative's step of a mass or width): one pass that evaluates the
          component (:meth:`_moved_integral`); the base stays.
        * Otherwise (a MIGRAD line-search point, HESSE's pairs, a component
          and the couplings moved): the full path, whose cost is below that
          of recomputing A.  A point where more than one component moved
          becomes the candidate base; the base moves there (every component
          and A in one pass) when a later call lies within one component of
          it: the steps of the numerical derivatives around the accepted
          point.  Trial points that are not accepted cost one full pass.
        """
        st, keys, moved = self._moved(buf, params_t, pbuf, threads)
        if moved and len(moved) > self.MOVED_IN_PLACE:
            cand = st.candidate
            if cand is not None and sum(a != b for a, b in zip(keys, cand[0])) \
                    <= self.MOVED_IN_PLACE:
                self._rebase(st, buf, cand, threads)
                moved = [k for k in range(len(keys)) if keys[k] != st.keys[k]]
            else:
                st.candidate = (list(keys), params_t.copy(), np.array(pbuf, copy=True))
                return self._block.normalization_sums(buf, params_t, pbuf, False, threads)
        if moved and st.a_couplings != c.tobytes():
            return self._block.normalization_sums(buf, params_t, pbuf, False, threads)
        if moved:                   # MOVED_IN_PLACE = 1: one component
            return np.array([self._moved_integral(st, buf, moved[0], params_t, pbuf, threads,
                                                  c)]), None
        w = buf.weights
        if st.m is None and st.a is not None and st.a_couplings != c.tobytes():
            st.m = self._matrix_of(st.x, buf)
        if st.m is not None:
            value = np.real(np.einsum("k,k->", c, np.einsum("kl,l->k", st.m, c.conj())))
        else:
            a = self._base_amplitude(st, c)
            s = a.real * a.real + a.imag * a.imag
            value = np.sum(s) if w is None else np.dot(w[:buf.n_events], s)
        return np.array([float(value)]), None

    def _moved_integral(self, st, buf, k, params_t, pbuf, threads, c):
        """I_S after component k alone moved to a new value: one pass that
        evaluates X'_k block by block and sums w_j |A_j + c_k (X'_jk - X_jk)|^2
        (no array of X'_k is written; the base stays)."""
        L = self.vector_length
        cb = self._block.chunk_blocks
        n_chunks = max(1, -(-buf.n_blocks // cb))
        partials = np.zeros(n_chunks)
        bad = np.full(n_chunks, _NO_PROBLEM, dtype=np.intp)
        w = buf.weights
        a = self._base_amplitude(st, c)
        _kernels.moved_component_norm(buf.blocks, L, params_t, pbuf.ctypes.data,
                                      self.components.single_pointers[k], buf.n_events,
                                      a.view(np.float64), st.x[k].view(np.float64),
                                      float(c[k].real), float(c[k].imag),
                                      np.zeros(0) if w is None else w[:buf.n_events],
                                      partials, bad, cb, threads)
        self.component_evaluations += 1
        name = self.components.names[k]
        if np.any(bad == _GUARD_VIOLATED):
            raise DensityError(f"{self.density.name}: the function of component {name} wrote "
                               f"beyond the 2 x {L} values of one component")
        if np.any(bad == _ALLOCATION_FAILED):
            raise MemoryError(f"{self.density.name}: could not allocate work arrays")
        hit = bad[bad >= 0]
        if hit.size:
            raise DensityError(f"{self.density.name}: component {name} (or its term of the "
                               f"integral) is not finite at normalization event "
                               f"{int(hit.min())}{self._parameters_note(params_t)}")
        return float(np.sum(partials))

    def _partial_matrix(self, buf, params_t, pbuf, threads):
        """M of the normalization events at the parameters (the base moved
        there, M built if not yet)."""
        st, keys, moved = self._moved(buf, params_t, pbuf, threads)
        if moved:
            self._move_base(st, buf, keys, moved, params_t, pbuf, threads)
        if st.m is None:
            st.m = self._matrix_of(st.x, buf)
        return st.m

    def _matrix_of(self, x, buf):
        """M = sum_j w_j X_j X_j^H of stored amplitudes, in pieces."""
        m = np.zeros((x.shape[0], x.shape[0]), dtype=np.complex128)
        step = self.MATRIX_CHUNK_EVENTS
        for j0 in range(0, x.shape[1], step):
            xs = x[:, j0:j0 + step]
            w = buf.weights
            xw = xs if w is None else xs * w[j0:j0 + xs.shape[1]]
            m += xw @ xs.conj().T
        return m

    # -- amplitudes and matrix ------------------------------------------------

    def data_amplitudes(self, buf, params_t, pbuf, threads):
        """X at the events of ``buf``, complex128 of shape (n_components,
        n_events), cached while the non-coupling parameters stay (in partial
        mode, recomputed for the components whose parameters moved)."""
        if self.partial:
            return self._partial_data(buf, params_t, pbuf, threads)
        key = self._key(params_t)
        hit = self._cache.get(id(buf))
        if hit is not None and hit[0] == key:
            return hit[1]
        self._cache.pop(id(buf), None)
        x = self._amplitudes(buf, buf.blocks, params_t, pbuf, threads)[:, :buf.n_events]
        comp = self.components
        x = (_aligned_copy(x) if comp.channels == 1
             else channel_blocks(x, comp.n_components, comp.channels))
        self._cache[id(buf)] = (key, x)
        self.rebuilds += 1
        return x

    _data_complex = data_amplitudes

    def matrix_rows(self, buf, params_t, pbuf, threads):
        """Per-chunk rows of :math:`\\sum_j w_j X_{jk} X^*_{jl}`: the real parts
        of the ``K * K`` elements, then their imaginary parts."""
        K = self.components.n_components
        H = self.components.channels
        weights = self.components.channel_weights
        E = 1 if weights is None else weights.n_weights
        L = self.vector_length
        ce = chunk_events(L)
        if buf.n_events == 0:
            return empty_rows(2 * E * K * K), None
        cb = ce // L
        step = max(1, self.MATRIX_CHUNK_EVENTS // ce) * cb
        w_all = buf.weights
        rows = []
        for b0 in range(0, buf.n_blocks, step):
            b1 = min(b0 + step, buf.n_blocks)
            n = min(b1 * L, buf.n_events) - b0 * L
            x = self._amplitudes(buf, buf.blocks[b0:b1], params_t, pbuf, threads, b0)[:, :n]
            xw = x if w_all is None else x * w_all[b0 * L:b0 * L + n]
            # rows k H + h: the channels of a component side by side
            x, xw = x.reshape(K, H, n), xw.reshape(K, H, n)
            for c0 in range(0, n, ce):
                c1 = min(c0 + ce, n)
                # One product of fresh contiguous operands per chunk: the
                # row of a chunk does not depend on where it is computed.
                if weights is None:
                    a = np.ascontiguousarray(xw[:, :, c0:c1]).reshape(K, -1)
                    b = np.conj(x[:, :, c0:c1]).reshape(K, -1)
                    m = (a @ b.T).reshape(-1)
                else:
                    m = self._weight_matrices(xw[:, :, c0:c1], x[:, :, c0:c1]).reshape(-1)
                rows.append(np.concatenate([m.real, m.imag]))
        return np.array(rows, dtype=np.float64).reshape(-1, 2 * E * K * K), None

    def _weight_matrices(self, xw, x):
        """M^e_kl = sum_(h, h', e) sum_j w_j X_jkh conj(X_jlh'), one per channel
        weight e, of amplitudes (K, H, n) (``xw`` with the event weights)."""
        weights = self.components.channel_weights
        K = x.shape[0]
        m = np.zeros((weights.n_weights, K, K), dtype=np.complex128)
        for h, h2, e in weights.pairs:
            m[e] += np.ascontiguousarray(xw[:, h, :]) @ np.conj(x[:, h2, :]).T
        return m

    def matrix(self, buf, params_t, pbuf, threads, combine=combine_serial):
        """M_kl = sum_j w_j X_jk conj(X_jl) of the events of ``buf`` (cached),
        summed per chunk and the chunks in order
        (:func:`~vecampfit.fitter._reduction.reduce_rows`); in partial mode (one process), updated for the components that moved."""
        if self.partial:
            _serial_only(combine, self.density)
            return self._partial_matrix(buf, params_t, pbuf, threads)
        key = self._key(params_t)
        hit = self._cache.get(id(buf))
        if hit is not None and hit[0] == key:
            return hit[1]
        self._cache.pop(id(buf), None)
        K = self.components.n_components
        weights = self.components.channel_weights
        E = 1 if weights is None else weights.n_weights
        flat, _ = combine(buf, lambda: self.matrix_rows(buf, params_t, pbuf, threads))
        m = (flat[:E * K * K] + 1j * flat[E * K * K:]).reshape(E, K, K)
        if weights is None:
            m = m[0]
        self._cache[id(buf)] = (key, m)
        self.rebuilds += 1
        return m

    def _gradient(self, params_t, vector):
        """2 Re sum_k dc_k/dp vector_k for every density parameter."""
        jac = self.components.coupling_jacobian(params_t[:self.density.n_parameters])
        return 2 * np.real(np.einsum("k,kp->p", vector, jac))

    def _weight_gradient(self, params_t, q):
        """sum_e Re[dw_e/dp q_e] for every density parameter (zero without
        channel weights)."""
        w = self.components.weights(params_t[:self.density.n_parameters])
        if w is None:
            return 0.0
        return np.real(q @ w[1])

    def _intensity(self, a, params_t):
        """S per event of the channel amplitudes ``a`` (H, n), and with
        channel weights the products A_h conj(A_h') per pair (or None)."""
        w = self.components.weights(params_t[:self.density.n_parameters])
        if w is None:
            return np.sum(a.real ** 2 + a.imag ** 2, axis=0), None
        pairs = self.components.channel_weights.pairs
        z = a[pairs[:, 0]] * np.conj(a[pairs[:, 1]])
        return np.real(w[0][pairs[:, 2]] @ z), z

    def _channel_amplitudes(self, buf, params_t, pbuf, threads):
        """X (K, H, n) at the data events, from the cache."""
        x = self._data_complex(buf, params_t, pbuf, threads)
        comp = self.components
        if comp.channels == 1:
            return x[:, None, :]
        return channel_columns(x, comp.n_components, comp.channels, buf.n_events)

    def values(self, buf, params_t, pbuf, threads):
        c = self.components.couplings(params_t[:self.density.n_parameters])
        a = np.einsum("k,khn->hn", c, self._channel_amplitudes(buf, params_t, pbuf, threads))
        return self._intensity(a, params_t)[0]

    def values_and_gradient(self, buf, params_t, pbuf, threads):
        x = self._channel_amplitudes(buf, params_t, pbuf, threads)
        p = params_t[:self.density.n_parameters]
        c = self.components.couplings(p)
        a = np.einsum("k,khn->hn", c, x)
        jac = self.components.coupling_jacobian(p)
        s, z = self._intensity(a, params_t)
        if z is None:
            return s, 2 * np.real(jac.T @ np.einsum("khn,hn->kn", x, a.conj()))
        # conj(G_h) = sum_(h, h', e) w_e conj(A_h'); the weights' terms from z
        w, dw = self.components.weights(p)
        pairs = self.components.channel_weights.pairs
        gc = np.zeros_like(a)
        np.add.at(gc, pairs[:, 0], w[pairs[:, 2], None] * np.conj(a[pairs[:, 1]]))
        q = np.zeros((len(w), a.shape[1]), dtype=np.complex128)
        np.add.at(q, pairs[:, 2], z)
        grad = 2 * np.real(jac.T @ np.einsum("khn,hn->kn", x, gc)) + np.real(dw.T @ q)
        return s, grad

    def _couplings(self, params_t):
        """The couplings at ``params_t``, computed once for the passes of a
        call (kept for the last parameter vector)."""
        key = params_t.tobytes()
        last = self._last_couplings
        if last is None or last[0] != key:
            c = self.components.couplings(params_t[:self.density.n_parameters])
            c.setflags(write=False)
            last = self._last_couplings = (key, c)
        return last[1]

    def normalization_sums(self, buf, params_t, pbuf, gradient, threads, combine=combine_serial):
        c = self._couplings(params_t)
        if self.partial and not gradient:
            _serial_only(combine, self.density)
            return self._partial_integral(buf, params_t, pbuf, threads, c)
        m = self.matrix(buf, params_t, pbuf, threads, combine)
        w = self.components.weights(params_t[:self.density.n_parameters])
        if w is None:
            mc = np.einsum("kl,l->k", m, c.conj())
            q = None
        else:
            # I = sum_e w_e c M^e conj(c)
            me = np.einsum("ekl,l->ek", m, c.conj())
            q = me @ c
            mc = w[0] @ me
        integral = float(np.real(np.einsum("k,k->", c, mc)))
        sums = [integral]
        if gradient:
            g = self._gradient(params_t, mc)
            if q is not None:
                g = g + self._weight_gradient(params_t, q)
            sums.extend(g)
        return np.array(sums, dtype=np.float64), None

    def data_rows(self, buf, params_t, pbuf, scale, background, fractions, gradient, threads):
        """Per-chunk rows: ``-2 w ln t``, ``r S``, ``r b_k`` (these two 0
        without the gradient), then (with the gradient) the real and
        imaginary parts of ``X_k r conj(A)``: one pass
        of a compiled kernel over the stored amplitudes
        (``_kernels.cached_data_rows``; the chunks among the threads, each
        chunk's sums in a fixed order)."""
        K = self.components.n_components
        nb = background.shape[0]
        weights = self.components.channel_weights
        E = 0 if weights is None else weights.n_weights
        width = 2 + nb + (2 * K + 2 * E if gradient else 0)
        n = buf.n_events
        if n == 0:
            return empty_rows(width), None
        x = np.ascontiguousarray(self._data_complex(buf, params_t, pbuf, threads))
        c = np.ascontiguousarray(self._couplings(params_t), dtype=np.complex128)
        ce = chunk_events(self.vector_length)
        n_chunks = -(-n // ce)
        rows = np.empty((n_chunks, width))
        bad = np.empty(n_chunks, dtype=np.intp)
        bg = np.ascontiguousarray(background, dtype=np.float64) if nb else np.zeros((0, 1))
        w = buf.weights
        # x: (K, n), or with several channels the blocks of channel_blocks
        xv = (x if x.ndim == 2 else x.reshape(x.shape[0], -1)).view(np.float64)
        _kernels.cached_data_rows(xv, c.view(np.float64), float(scale), bg,
                                  np.ascontiguousarray(fractions, dtype=np.float64).reshape(-1)
                                  if nb else np.zeros(0),
                                  np.zeros(0) if w is None else np.ascontiguousarray(w[:n]),
                                  bool(gradient), n, ce, rows, bad, threads,
                                  self.components.channels,
                                  None if weights is None else weights.pairs,
                                  None if weights is None else np.ascontiguousarray(
                                      self.components.weights(
                                          params_t[:self.density.n_parameters])[0]
                                  ).view(np.float64))
        if bad.size and bad.min() < 0 and (bad == _ALLOCATION_FAILED).any():
            raise MemoryError(f"{self.density.name}: could not allocate work arrays")
        if bad.size and bad.max() >= 0:
            j = int(bad[bad >= 0].min())
            xj = (x[:, j:j + 1] if self.components.channels == 1 else
                  channel_columns(x, K, self.components.channels, n)[:, :, j])
            a = c @ xj                              # one value per channel
            s = float(self._intensity(a.reshape(-1, 1), params_t)[0][0])
            term = scale * s + (float(np.dot(fractions, background[:, j])) if nb else 0.0)
            return None, Problem(j, s, term)
        return rows, None

    def data_sums(self, buf, params_t, pbuf, scale, background, fractions, gradient, threads,
                  combine=combine_serial):
        if self.partial and not gradient:
            # With masses or widths moving, the data term of a value call costs
            # less on the full path (one pass of the model, about 5 ns per D0
            # event) than recomputing moved components and forming A = X^T c
            # and the terms from stored amplitudes (about 15 ns per event).
            return self._block.data_sums(buf, params_t, pbuf, scale, background, fractions,
                                         False, threads, combine)
        K = self.components.n_components
        nb = background.shape[0]
        sums, problem = combine(buf, lambda: self.data_rows(buf, params_t, pbuf, scale,
                                                            background, fractions, gradient,
                                                            threads))
        if problem is not None:
            return None, problem
        if not gradient:
            return sums, None
        head = sums[:2 + nb]
        vector = sums[2 + nb:2 + nb + K] + 1j * sums[2 + nb + K:2 + nb + 2 * K]
        g = self._gradient(params_t, vector)
        weights = self.components.channel_weights
        if weights is not None:
            E = weights.n_weights
            rest = sums[2 + nb + 2 * K:]
            g = g + self._weight_gradient(params_t, rest[:E] + 1j * rest[E:])
        return np.concatenate([head, g]), None
