r"""The likelihood of the paper's fitter, its value and its gradient.

For fit points :math:`a` (one for an ordinary fit), data events :math:`i`
with weights :math:`w_i` and normalization events (MC or grid points)
:math:`j` with weights :math:`w_j`,

.. math::

    \mathcal{F} = \sum_a \sum_i -2 w_i \ln\Big[
        (f_S)_a \frac{S_a(\Phi_i, p)}{I_{S,a}}
        + \sum_k (f_B^{(k)})_a \frac{B^{(k)}_a(\Phi_i)}{I_{B^{(k)},a}} \Big]
      + \sum_l C_l(p_{n_l}) + C(p),

with :math:`I_S = \sum_j w_j S(\Phi_j, p)` for Monte Carlo and grid
normalization, :math:`I_S = I(p)` (a user function) for formula
normalization, and :math:`I_S = I_B = 1` without normalization.  In an
ordinary fit the background fractions are parameters and :math:`f_S = 1 -
\sum_k f_B^{(k)}`; in an extended fit the yields :math:`N_S, N_B^{(k)}` are
parameters, :math:`f = N_c / N` with :math:`N = N_S + \sum_k N_B^{(k)}`, and
each point adds :math:`2 (N - N_\text{data} \ln N)` with :math:`N_\text{data}
= \sum_i w_i` (the number of data events when unweighted).  Constant terms
are omitted as in the paper.  :math:`C_l` are asymmetric-Gaussian priors,
:math:`C` a user prior.  Backgrounds have fixed parameters: their values and
normalization are computed once, when the fit is prepared.

The gradient is the paper's eq. (likelihood_vecampfit_derivatives) and its
fraction and yield derivatives; for a block density the sums are computed
without the GIL, in chunks of blocks reduced in a fixed order, so that the
value does not depend on the number of threads.  Every sum over events is
one row of partial sums per chunk of events, the rows added in chunk order
(:func:`~vecampfit.fitter._reduction.reduce_rows`): with a communicator
(``Likelihood(..., comm=MPI.COMM_WORLD)``, :mod:`vecampfit.fitter.mpi`) the
chunks are spread over MPI ranks and the value and gradient keep the bits
of one process.

Parameters bind by name: each density receives the values of the fit
parameters it names (:attr:`Density.parameters`) in its own order, and its
gradient is added back to those parameters, so that one fit can hold
several densities (fit points, processes) sharing some parameters and not
others.  :class:`Likelihood` follows iminuit's cost-function protocol
(callable on the parameters, ``grad``, ``errordef``, ``precision``,
parameter names): ``iminuit.Minuit(likelihood, *likelihood.initial_values)``
works directly.

Whether a call uses the cached component amplitudes of a signal density
(:mod:`vecampfit.fitter.components`) depends only on the call: on the
likelihood's ``cache`` and on the free parameters the call is given --
none for ``likelihood(x)``, the restriction's for the cost function
:meth:`Likelihood.restricted` returns, or ``free=`` of
:meth:`Likelihood.evaluate`.  No other object sets them.
"""


import os
import warnings
from collections.abc import Iterable

import numpy as np

from ..root_io import count_entries, iterate_events
from ..statistics import asymmetric_gaussian_prior
from ._evaluation import CachedEvaluator, Problem, evaluator_for_fit
from ._reduction import CHUNK_EVENTS, chunk_events, chunk_sums, combine_serial
from ._threads import CoreShare
from .density import Density
from .errors import (DensityError, EventBufferError, LikelihoodError, ParameterFileError,
                     RestrictionError)
from .events import EventBuffer
from .mpi import Communicator, read_entry_share
from .parameters import ParameterTable

# LikelihoodError (from .errors) stays importable from here.
__all__ = ["AsymmetricGaussianPrior", "Background", "FitPoint", "Likelihood", "NORMALIZATIONS",
           "CHUNK_EVENTS", "RestrictedLikelihood"]

#: Normalization methods of a fit point.
NORMALIZATIONS = ("mc", "grid", "formula", "none")


def available_cpus():
    """Number of CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def resolve_threads(threads):
    """The number of OpenMP threads to use.

    Parameters
    ----------
    threads : int or None
        None: ``OMP_NUM_THREADS`` if set (its first value), else the CPUs
        available to this process.

    Returns
    -------
    int
        At most the CPUs available (more is capped with a warning).

    Raises
    ------
    ValueError
        If ``threads`` (or ``OMP_NUM_THREADS``) is not a positive integer.
    """
    where = "threads"
    if threads is None:
        env = os.environ.get("OMP_NUM_THREADS", "").split(",")[0].strip()
        if env:
            where = "OMP_NUM_THREADS"
            try:
                threads = int(env)
            except ValueError:
                raise ValueError(f"OMP_NUM_THREADS={env!r} is not an integer") from None
        else:
            return available_cpus()
    if isinstance(threads, (bool, np.bool_)) or not isinstance(threads, (int, np.integer)):
        raise ValueError(f"{where} must be an integer, got {threads!r}")
    threads = int(threads)
    if threads < 1:
        raise ValueError(f"{where} must be >= 1, got {threads}")
    cpus = available_cpus()
    if threads > cpus:
        warnings.warn(f"{where}={threads} is more than the {cpus} CPUs available to this "
                      f"process; using {cpus}", RuntimeWarning, stacklevel=3)
        threads = cpus
    return threads


class AsymmetricGaussianPrior:
    r"""Asymmetric-Gaussian prior likelihood on one parameter.

    .. math::

        C(p) = \left(\frac{p - p_0}{\sigma_-}\right)^2 \ (p < p_0), \qquad
        C(p) = \left(\frac{p - p_0}{\sigma_+}\right)^2 \ (p \ge p_0).

    Parameters
    ----------
    name : str
        Parameter name.
    central : float
        :math:`p_0`.
    sigma_minus, sigma_plus : float
        Negative- and positive-side standard deviations (> 0).
    """

    def __init__(self, name, central, sigma_minus, sigma_plus=None):
        sigma_plus = sigma_minus if sigma_plus is None else sigma_plus
        if not (sigma_minus > 0 and sigma_plus > 0):
            raise ValueError(f"prior on {name}: standard deviations must be positive, got "
                             f"{sigma_minus}, {sigma_plus}")
        self.name = name
        self.central = float(central)
        self.sigma_minus = float(sigma_minus)
        self.sigma_plus = float(sigma_plus)

    def value_and_derivative(self, p):
        """:math:`C(p)` and :math:`dC/dp` (:func:`vecampfit.statistics.asymmetric_gaussian_prior`)."""
        c, dc = asymmetric_gaussian_prior(p, self.central, self.sigma_minus, self.sigma_plus)
        return float(c), float(dc)


def _background_parameter_values(density, parameters, what):
    """The background density's parameter values, in its order (float64)."""
    n = density.n_parameters
    if parameters is None:
        parameters = ()
    if isinstance(parameters, ParameterTable):
        missing = [p for p in density.parameters if p not in parameters]
        if missing:
            raise ParameterFileError(f"{what}: {parameters.source} has no line for parameter(s) "
                                     f"{', '.join(missing)} of density {density.name!r}")
        return np.array([parameters[p].value for p in density.parameters], dtype=np.float64)
    if isinstance(parameters, dict):
        missing = [p for p in density.parameters if p not in parameters]
        extra = [p for p in parameters if p not in density.parameters]
        if missing or extra:
            raise DensityError(f"{what}: parameters of density {density.name!r} "
                               + (f"missing: {', '.join(missing)}" if missing else "")
                               + ("; " if missing and extra else "")
                               + (f"unknown: {', '.join(extra)}" if extra else ""))
        return np.array([float(parameters[p]) for p in density.parameters], dtype=np.float64)
    values = np.asarray(parameters, dtype=np.float64).reshape(-1)
    if values.shape[0] != n:
        raise DensityError(f"{what}: {values.shape[0]} parameter values given for density "
                           f"{density.name!r}, which has {n} ({', '.join(density.parameters)})")
    if not np.all(np.isfinite(values)):
        raise DensityError(f"{what}: parameter values of density {density.name!r} are not "
                           f"finite: {values}")
    return values


class Background:
    """A background source of a fit point (fixed parameters).

    Attributes
    ----------
    density : Density
    fraction : str
        Name of its fraction parameter (its yield in an extended fit).
    parameters : numpy.ndarray
        The background density's own parameters (fixed during the fit), in
        the density's order.
    integral : float
        :math:`I_B` (1 without normalization), set when the fit is prepared.
    """

    def __init__(self, density, fraction, parameters):
        self.density = density
        self.fraction = fraction
        self.parameters = parameters
        self.integral = 1.0


class FitPoint:
    """One simultaneous-fit point: its signal density, backgrounds, events and
    normalization.  Created by :meth:`Likelihood.add_point`.

    Attributes
    ----------
    index : int
    signal : Density
    normalization : {"mc", "grid", "formula", "none"}
    backgrounds : list of Background
    data_events, norm_events : EventBuffer
        The signal density's data and normalization events.
    """

    def __init__(self, likelihood, index, signal, normalization, signal_yield):
        if normalization not in NORMALIZATIONS:
            raise ValueError(f"normalization must be one of {NORMALIZATIONS}, got "
                             f"{normalization!r}")
        if not isinstance(signal, Density):
            raise TypeError(f"signal must be a vecampfit.fitter.Density, got "
                            f"{type(signal).__name__}")
        self._likelihood = likelihood
        self.index = index
        self.signal = signal
        self.normalization = normalization
        self.backgrounds = []
        self.integral_function = None
        self.integral_gradient = None
        self.signal_yield = signal_yield
        lk = likelihood
        signal.check_fit(lk.density_precision, lk.vector_length)
        self.data = {id(signal): EventBuffer(signal, lk.density_precision, lk.vector_length,
                                             f"data of fit point {index}")}
        self.norm = {id(signal): EventBuffer(signal, lk.density_precision, lk.vector_length,
                                             f"normalization events of fit point {index}")}
        self.data_events = self.data[id(signal)]
        self.norm_events = self.norm[id(signal)]
        mpi = lk.mpi
        self._layouts = None
        if mpi is not None:
            ce = chunk_events(lk.vector_length)
            self._layouts = {"data": mpi.layout(ce), "norm": mpi.layout(ce)}
            self.data_events.layout = self._layouts["data"]
            self.norm_events.layout = self._layouts["norm"]
        self.background_matrix = np.zeros((0, 0))
        self.prepared = False
        self.data_source = None

    # -- set-up ---------------------------------------------------------------

    def _check_not_loaded(self, what):
        if self._layouts is not None:       # over MPI ranks: events on any rank
            loaded = any(layout.total for layout in self._layouts.values())
        else:
            loaded = any(b.n_events for b in self.data.values()) or \
                any(b.n_events for b in self.norm.values())
        if loaded:
            raise RuntimeError(f"fit point {self.index}: {what} must be set before events are "
                               f"loaded")

    def add_background(self, density, fraction, parameters=None):
        """Add a background source.

        Parameters
        ----------
        density : Density
            The background density; its parameters are fixed.
        fraction : str
            Name of the fit parameter that is this source's fraction
            :math:`f_B^{(k)}` (its yield :math:`N_B^{(k)}` in an extended fit).
        parameters : array_like, dict or ParameterTable, optional
            The background density's parameter values: in its order, by
            name, or the parameter file of a background fit (values by
            name).  Not needed for a density without parameters.

        Returns
        -------
        Background

        Raises
        ------
        DensityError, ParameterFileError
            If the values do not match the density's parameters.
        """
        self._check_not_loaded("backgrounds")
        if self.normalization == "formula":
            raise ValueError(f"fit point {self.index}: formula normalization is for fits "
                             f"without background (as in the paper)")
        if not isinstance(density, Density):
            raise TypeError("density must be a vecampfit.fitter.Density")
        lk = self._likelihood
        lk.parameter_index(fraction)
        k = len(self.backgrounds) + 1
        what = f"fit point {self.index}: background {k}"
        values = _background_parameter_values(density, parameters, what)
        density.check_fit(lk.density_precision, lk.vector_length)
        bg = Background(density, fraction, values)
        self.backgrounds.append(bg)
        self.data[id(density)] = self.data.get(id(density)) or EventBuffer(
            density, lk.density_precision, lk.vector_length, f"data of fit point {self.index} "
            f"(background {k})")
        if self.normalization in ("mc", "grid"):
            self.norm[id(density)] = self.norm.get(id(density)) or EventBuffer(
                density, lk.density_precision, lk.vector_length, f"normalization events of fit point "
                f"{self.index} (background {k})")
        if self._layouts is not None:
            self.data[id(density)].layout = self._layouts["data"]
            if id(density) in self.norm:
                self.norm[id(density)].layout = self._layouts["norm"]
        return bg

    def set_integral_function(self, function, gradient=None):
        """Formula normalization: :math:`I(p) = \\int S(\\Phi, p)\\,d\\Phi`.

        Parameters
        ----------
        function : callable
            ``function(params) -> float``; ``params`` are the signal
            density's parameters in its order (float64 array).
        gradient : callable, optional
            ``gradient(params) -> array`` of :math:`\\partial I/\\partial p`
            for the signal density's parameters; needed for the analytic
            gradient.
        """
        if self.normalization != "formula":
            raise ValueError(f"fit point {self.index}: an integral function is only used with "
                             f"formula normalization (this point uses {self.normalization!r})")
        self.integral_function = function
        self.integral_gradient = gradient

    def _append(self, buffers, records, weights):
        marks = [(buf, buf.mark()) for buf in buffers]
        try:
            for buf in buffers:
                buf.append(records, weights)
        except BaseException:
            for buf, mark in marks:
                buf.truncate(mark)
            raise

    def add_data(self, records, weights=None):
        """Append data events.

        A chunk that fails (a missing field, a non-finite value) is not
        kept by any of the point's densities.

        Parameters
        ----------
        records : dict of array_like
            A chunk of event records (or fields), one value per event.
        weights : array_like, optional
            Per-event weights :math:`w_i`.
        """
        if self.prepared:
            raise RuntimeError(f"fit point {self.index}: already prepared")
        if self._layouts is not None:
            self._append_share("data", self.data.values(), records, weights)
            return
        self._append(self.data.values(), records, weights)

    def _append_share(self, group, buffers, records, weights):
        """Over MPI ranks: keep this rank's chunks of records every rank holds."""
        mpi = self._likelihood.mpi
        layout = self._layouts[group]
        state = layout.state()
        marks = [(buf, buf.mark()) for buf in buffers]

        def add():
            rec, w = mpi.take_share(layout, records, weights)
            if rec is not None:
                self._append(buffers, rec, w)

        try:
            mpi.agree(add)
        except BaseException:
            layout.restore(state)
            for buf, mark in marks:
                buf.truncate(mark)
            raise

    def add_normalization_events(self, records, weights=None):
        """Append normalization events: MC events, or grid points with their
        weights (integration weight times Jacobian).

        Parameters
        ----------
        records : dict of array_like
            A chunk of event records (or fields).
        weights : array_like, optional
            Per-event weights :math:`w_j` (required for grid points).
        """
        if self.prepared:
            raise RuntimeError(f"fit point {self.index}: already prepared")
        if self.normalization not in ("mc", "grid"):
            raise ValueError(f"fit point {self.index}: {self.normalization!r} normalization "
                             f"takes no normalization events")
        if self.normalization == "grid" and weights is None:
            raise ValueError(f"fit point {self.index}: grid points need weights (integration "
                             f"weight times Jacobian)")
        if self._layouts is not None:
            self._append_share("norm", self.norm.values(), records, weights)
            return
        self._append(self.norm.values(), records, weights)

    def _load_share(self, group, buffers, path, tree, branches, weight_branch, map_records,
                    step_size, select=None):
        """Over MPI ranks: read this rank's run of entries, move the records
        at the edges to the ranks owning their chunks, append this rank's chunks."""
        mpi = self._likelihood.mpi
        layout = self._layouts[group]
        state = layout.state()
        buffers = list(buffers)
        marks = [(buf, buf.mark()) for buf in buffers]
        try:
            records, weights = mpi.agree(lambda: read_entry_share(
                path, tree, branches, weight_branch, map_records, step_size, mpi.rank, mpi.size,
                select))
            records, weights = mpi.exchange(layout, records, weights)

            if group == "norm" and self.normalization == "grid" and \
                    not any(mpi.comm.allgather(weights is not None)):
                raise ValueError(f"fit point {self.index}: grid points need weights (integration "
                                 f"weight times Jacobian)")

            def add():
                if records is not None:
                    for buf in buffers:
                        buf.reserve(len(next(iter(records.values()))))
                    self._append(buffers, records, weights)

            mpi.agree(add)
        except BaseException:
            layout.restore(state)
            for buf, mark in marks:
                buf.truncate(mark)
            raise

    def _load(self, buffers, add, path, tree, branches, weight_branch, map_records, step_size,
              select=None):
        if self.prepared:
            raise RuntimeError(f"fit point {self.index}: already prepared")
        buffers = list(buffers)
        marks = [(buf, buf.mark()) for buf in buffers]
        try:
            n = count_entries(path, tree)
            for buf in buffers:
                buf.reserve(n)
            for records, weights in iterate_events(
                    path, tree, branches, weight_branch=weight_branch, map_records=map_records,
                    step_size=step_size, select=select):
                add(records, weights)
        except BaseException:
            for buf, mark in marks:
                buf.truncate(mark)
            raise

    def load_data_file(self, path, tree="tree", branches=None, *, weight_branch=None,
                       map_records=None, step_size="100 MB", select=None):
        """Load data events from a ROOT tree, in chunks.

        If reading fails part way, none of the file's events are kept.

        Parameters
        ----------
        path : str or os.PathLike
        tree : str
        branches : sequence of str, optional
            Branches to read (default: all but the weight branch).
        weight_branch : str, optional
            Branch with per-event weights.
        map_records : callable, optional
            Turns the arrays of a chunk into event records.
        step_size : int or str
            Chunk size (uproot's ``step_size``).
        select : callable, optional
            ``select(arrays) -> mask``: the events of a chunk to keep (a
            boolean array from its branches, the weight branch included),
            applied to the records and weights before ``map_records``; for
            example the reconstructed events of a simulated sample.

        See Also
        --------
        vecampfit.root_io.iterate_events
        """
        if self.prepared:
            raise RuntimeError(f"fit point {self.index}: already prepared")
        if self._layouts is not None:
            self._load_share("data", self.data.values(), path, tree, branches, weight_branch,
                             map_records, step_size, select)
        else:
            self._load(self.data.values(), self.add_data, path, tree, branches, weight_branch,
                       map_records, step_size, select)
        self.data_source = dict(path=os.fspath(path), tree=tree, branches=branches,
                                weight_branch=weight_branch, map_records=map_records,
                                select=select)

    def load_normalization_file(self, path, tree="tree", branches=None, *, weight_branch=None,
                                map_records=None, step_size="100 MB", select=None):
        """Load normalization events from a ROOT tree, in chunks.

        If reading fails part way, none of the file's events are kept.

        Parameters
        ----------
        path, tree, branches, weight_branch, map_records, step_size, select
            As for :meth:`load_data_file`.
        """
        if self.prepared:
            raise RuntimeError(f"fit point {self.index}: already prepared")
        if self.normalization not in ("mc", "grid"):
            raise ValueError(f"fit point {self.index}: {self.normalization!r} normalization "
                             f"takes no normalization events")
        if self._layouts is not None:
            self._load_share("norm", self.norm.values(), path, tree, branches, weight_branch,
                             map_records, step_size, select)
        else:
            self._load(self.norm.values(), self.add_normalization_events, path, tree, branches,
                       weight_branch, map_records, step_size, select)

    # -- preparation ----------------------------------------------------------

    def _prepare_layouts(self, needs_norm):
        """Over MPI ranks: the global checks and sums of the frozen buffers."""
        mpi = self._likelihood.mpi
        for group, buffers, required in (("data", self.data, True),
                                         ("norm", self.norm, needs_norm)):
            layout = self._layouts[group]
            first = next(iter(buffers.values()))
            if required and layout.total == 0:
                raise EventBufferError(f"{first.what}: no events")
            mpi.finish_layout(layout)
            for buf in buffers.values():
                if not any(mpi.comm.allgather(buf.weights is not None)):
                    buf.weight_sum = float(layout.total)
                else:
                    sums, _ = mpi.combine(buf, lambda: (buf.weight_rows(), None))
                    buf.weight_sum = float(sums[0])

    def prepare(self):
        """Freeze the buffers and compute the backgrounds (values at the data
        events, normalization).  On failure every buffer is left as it was
        (more events can be added and preparation tried again)."""
        if self.prepared:
            return
        lk = self._likelihood
        mpi = lk.mpi
        frozen = []
        try:
            needs_norm = self.normalization in ("mc", "grid")
            for buf in self.data.values():
                buf.freeze(require_events=mpi is None)
                frozen.append(buf)
            for buf in self.norm.values():
                buf.freeze(require_events=needs_norm and mpi is None)
                frozen.append(buf)
            if mpi is not None:
                self._prepare_layouts(needs_norm)
            if self.normalization == "formula" and self.integral_function is None:
                raise ValueError(f"fit point {self.index}: formula normalization needs an "
                                 f"integral function (set_integral_function)")
            n = self.data_events.n_events
            matrix = np.zeros((len(self.backgrounds), self.data_events.n_blocks * lk.vector_length))
            integrals = []
            for k, bg in enumerate(self.backgrounds):
                what = f"fit point {self.index}: background {k + 1} ({bg.density.name!r})"
                values, _ = lk._background_sum(bg, self.data[id(bg.density)], what, "data",
                                               weighted=False)
                integral = 1.0
                if needs_norm:
                    _, integral = lk._background_sum(bg, self.norm[id(bg.density)], what,
                                                     "normalization", weighted=True)
                    if not (integral > 0 and np.isfinite(integral)):
                        raise LikelihoodError(f"{what}: normalization integral is {integral}")
                matrix[k, :n] = values
                matrix[k, :n] /= integral
                integrals.append(integral)
        except BaseException:
            for buf in frozen:
                buf.thaw()
            raise
        for bg, integral in zip(self.backgrounds, integrals):
            bg.integral = integral
        self.background_matrix = matrix
        self.prepared = True


class Likelihood:
    """The function :math:`\\mathcal{F}(p)` to minimize (module description),
    an iminuit cost function.

    Parameters
    ----------
    parameters : ParameterTable
        All fit parameters (of every density, fractions or yields).
    precision : {"float64", "float32"}
        Precision of the densities; sums are always accumulated in float64.
    vector_length : int
        ``L`` of the block densities.
    threads : int, optional
        OpenMP threads for block densities (default: ``OMP_NUM_THREADS`` if
        set, else the CPUs this process may run on; more than those CPUs is
        capped with a warning).
    thread_policy : {"share", "fixed"}
        ``"share"`` (default): a call uses no more of the ``threads`` than
        there are cores not running other work (at least one): with
        :math:`n` CPUs and :math:`o` other running tasks (the kernel's
        count in ``/proc/loadavg``, the smallest over the last four
        parallel passes), :math:`\\min(T, \\max(1, n - o))` threads, so that
        a helper thread never waits for a core that another job holds.
        Applies where the process may run on every CPU of the machine and
        the library knows how the idle threads wait (its own short spin,
        whose threads it counts out, or ``OMP_WAIT_POLICY=passive``; see
        ``docs/performance.rst``); elsewhere, and with ``"fixed"``, every
        call uses ``threads`` (``"fixed"`` is for cores that are the fit's
        alone: where other work runs, the helper threads' spin competes
        with it, and two threads were 0.5-0.8x one).  Values and gradients
        are the same to the bit with any number of threads.
    extended : bool
        Extended maximum-likelihood fit (yields instead of fractions).
    on_invalid : {"raise", "large"}
        On a NaN, infinite or negative density, or a non-positive
        normalization: raise :class:`LikelihoodError` (default), or return a
        large value (``LARGE_VALUE``) so that MIGRAD steps back.
    unused_parameters : {"error", "ignore"}
        What to do, when the fit is prepared, with table parameters that no
        density, fraction, yield or prior uses (default: an error naming
        them; a user prior may use any parameter, so with one set nothing is
        checked).
    cache : {"auto", "always", "never"}
        Cached evaluation of signal densities that describe their components
        (:mod:`vecampfit.fitter.components`), decided per call from the free
        parameters the call is given (:meth:`restricted`, or ``free=`` of
        :meth:`evaluate`; a plain call ``likelihood(x)`` is given none, i.e.
        every parameter may move): ``"auto"`` uses it when the call is given
        its free parameters and every free parameter of the density is a
        coupling; ``"always"`` also for values when other parameters are
        free, and for plain calls (only the components that moved are
        recomputed, for models that declare their dependencies, else the
        cache is rebuilt; gradients then come from the full path);
        ``"never"`` evaluates the whole model at every call.
    release_normalization_events : bool
        Free the normalization events of a fit point (its event buffer:
        72 bytes per event for the D0 example's model in float64) once the
        cached matrix of its components is built, for fits in which only
        couplings move.  A later need of the events (a mass or width
        released, the density file, values at the normalization events) is
        an error naming the fit point.  Default False (kept).
    comm : mpi4py.MPI.Comm, optional
        Spread the events over the ranks of this communicator (usually
        ``MPI.COMM_WORLD``; :mod:`vecampfit.fitter.mpi`).  Every rank then
        runs the same script: it builds the same likelihood, adds the same
        records and loads the same files (each rank keeps, and reads, only
        its share), and every evaluation is a collective call; inside
        :func:`vecampfit.fitter.mpi.serve` only rank 0 calls it.  The value
        and gradient are bit-identical to those of one process.

    Attributes
    ----------
    errordef : float
        1: :math:`\\mathcal{F} = -2 \\ln L`, one unit is one standard deviation.
    density_precision : {"float64", "float32"}
        The ``precision`` argument.
    precision : float
        iminuit's attribute of a cost function: the relative precision of
        the value :math:`\\mathcal{F}`, which :class:`iminuit.Minuit` reads
        when it is built on the likelihood.  :math:`4 \\epsilon_{64} =
        2^{-50} \\approx 8.9 \\times 10^{-16}` (:data:`PRECISION`), what
        Minuit assumes for a function computed in double precision: every
        sum is accumulated in float64, for float32 densities too.  (The
        precision of the densities, ``"float32"`` or ``"float64"``, is
        :attr:`density_precision`.)
    n_calls : int
        Evaluations so far.
    """

    LARGE_VALUE = 1e30
    errordef = 1.0
    #: Relative precision of the value (:attr:`precision`): 4 times the machine
    #: epsilon of float64, Minuit2's own assumption for double precision.
    PRECISION = 4 * 2.0 ** -52
    precision = PRECISION

    def __init__(self, parameters, *, precision="float64", vector_length=8, threads=None,
                 thread_policy="share", extended=False, on_invalid="raise",
                 unused_parameters="error", cache="auto", release_normalization_events=False,
                 comm=None):
        if not isinstance(parameters, ParameterTable):
            raise TypeError(f"parameters must be a ParameterTable (read_parameter_file), got "
                            f"{type(parameters).__name__}")
        if precision not in ("float32", "float64"):
            raise ValueError(f"precision must be 'float32' or 'float64', got {precision!r}")
        if isinstance(vector_length, (bool, np.bool_)) or \
                not isinstance(vector_length, (int, np.integer)) or vector_length < 1:
            raise ValueError(f"vector_length must be a positive integer, got {vector_length!r}")
        if on_invalid not in ("raise", "large"):
            raise ValueError(f"on_invalid must be 'raise' or 'large', got {on_invalid!r}")
        if unused_parameters not in ("error", "ignore"):
            raise ValueError(f"unused_parameters must be 'error' or 'ignore', got "
                             f"{unused_parameters!r}")
        if cache not in ("auto", "always", "never"):
            raise ValueError(f"cache must be 'auto', 'always' or 'never', got {cache!r}")
        for name, flag in (("extended", extended),
                           ("release_normalization_events", release_normalization_events)):
            # A string such as "no" is true: say so instead of acting on it.
            if not (isinstance(flag, (bool, np.bool_)) or
                    (isinstance(flag, (int, np.integer)) and flag in (0, 1))):
                raise TypeError(f"{name} must be True or False, got {flag!r}")
        self.cache = cache
        self.release_normalization_events = bool(release_normalization_events)
        #: The :class:`~vecampfit.fitter.mpi.Communicator` of the ranks (None: one process).
        self.mpi = None
        self._combine = combine_serial
        if comm is not None:
            self.mpi = Communicator(comm)
            self._combine = self.mpi.combine
        # Free parameters of calls given none, set only through the
        # deprecated attribute free_parameters (None: every parameter).
        self._free_default = None
        self._cached = {}         # id(density) -> CachedEvaluator
        # (id(density), free names) -> whether a parameter other than a coupling is free
        self._others_free = {}
        self.parameters = parameters
        self.density_precision = precision
        self.dtype = np.dtype(precision)
        self.vector_length = int(vector_length)
        if thread_policy not in CoreShare.POLICIES:
            raise ValueError(f"thread_policy must be 'share' or 'fixed', got {thread_policy!r}")
        self._thread_policy = thread_policy
        self.threads = threads
        self.extended = bool(extended)
        self.on_invalid = on_invalid
        self.unused_parameters = unused_parameters
        self.points = []
        self.priors = []
        self.user_prior = None
        self.user_prior_gradient = None
        self.n_calls = 0
        self._index = {}          # id(density) -> index array into the parameters
        self._buffers = {}        # id(density) -> parameter buffer (with guard zone)
        self._evaluators = {}     # id(density) -> evaluator
        self._last = None         # (x, value, grad) of the last evaluation

    # -- configuration --------------------------------------------------------

    @property
    def threads(self):
        """Number of OpenMP threads used by block densities."""
        return self._threads

    @threads.setter
    def threads(self, n):
        n = resolve_threads(n)
        if getattr(self, "_share", None) is None or n != self._threads:
            # a new choice only for a new number: the choice keeps the counts
            # of its last calls and knows which helper threads still spin
            self._share = CoreShare(n, self._thread_policy)
        self._threads = n

    @property
    def thread_policy(self):
        """``"share"`` or ``"fixed"`` (the constructor's argument)."""
        return self._thread_policy

    @property
    def initial_values(self):
        """The parameter table's initial values (float64 array)."""
        return self.parameters.values

    @property
    def free_parameters(self):
        """Deprecated: the free parameters of calls given none (None: every
        parameter).  Give them to the call instead: :meth:`restricted` (a
        cost function for Minuit) or ``evaluate(x, free=...)``."""
        return self._free_default

    @free_parameters.setter
    def free_parameters(self, names):
        warnings.warn("Likelihood.free_parameters is deprecated: the cached evaluation is decided "
                      "per call; use likelihood.restricted(free) (a cost function for Minuit) or "
                      "likelihood.evaluate(x, free=free)", DeprecationWarning, stacklevel=2)
        self._free_default = None if names is None else self._free_names(names)

    def _free_names(self, names):
        """``names`` as a tuple of parameter names of the table (KeyError
        naming close names for an unknown one)."""
        if isinstance(names, str) or not isinstance(names, Iterable):
            raise TypeError(f"free parameters must be a sequence of names, got {names!r}")
        names = tuple(names)
        for n in names:
            self.parameters.index(n)
        return names

    def restricted(self, free):
        """The likelihood as a cost function in which only ``free`` move.

        Parameters
        ----------
        free : sequence of str
            Names of the parameters that may move; the others must keep the
            values of the first call (fix them in Minuit).

        Returns
        -------
        RestrictedLikelihood
            An iminuit cost function of all the table's parameters, like the
            likelihood itself: ``Minuit(likelihood.restricted(free),
            *likelihood.initial_values)``.  With ``cache="auto"`` its calls
            use the cached component amplitudes when every free parameter of
            a signal density is a coupling.

        Raises
        ------
        KeyError
            A name that is not a parameter of the table (naming close ones).
        """
        return RestrictedLikelihood(self, free)

    @property
    def _parameters(self):
        # iminuit's cost-function protocol: parameter names and limits.
        return {p.name: (p.limits if p.bounded else None) for p in self.parameters}

    def parameter_index(self, name):
        """Index of a parameter (KeyError naming close names if unknown).

        Parameters
        ----------
        name : str
        """
        return self.parameters.index(name)

    def parameter_map(self, density):
        """Indices into the fit parameters of a density's parameters (in its order).

        Parameters
        ----------
        density : Density
            A signal density of a fit point.
        """
        return self._index[id(density)]

    def _bind(self, density, what):
        missing = [p for p in density.parameters if p not in self.parameters]
        if missing:
            hints = []
            for p in missing:
                try:
                    self.parameters.index(p)
                except KeyError as exc:
                    hints.append(str(exc.args[0]))
            raise ParameterFileError(f"{what} ({density.name!r}) needs parameter(s) "
                                     f"{', '.join(missing)}, which {self.parameters.source} does "
                                     f"not have: " + "; ".join(hints))
        self._index[id(density)] = np.array([self.parameters.index(p) for p in density.parameters],
                                            dtype=np.intp)
        self._evaluators[id(density)] = evaluator_for_fit(density, self.dtype,
                                                          self.vector_length)

    def add_point(self, signal, *, normalization="mc", signal_yield=None):
        """Add a fit point.

        Parameters
        ----------
        signal : Density
            The signal density; its parameters bind to the fit's by name.
        normalization : {"mc", "grid", "formula", "none"}
        signal_yield : str, optional
            Extended fits: name of the signal-yield parameter of this point.

        Returns
        -------
        FitPoint

        Raises
        ------
        ParameterFileError
            If the parameter table lacks a parameter of the density.
        DensityError
            If the density is compiled for another precision or vector length.
        """
        if self.extended:
            if signal_yield is None:
                raise ValueError("an extended fit needs the name of the signal-yield parameter")
            self.parameter_index(signal_yield)
        elif signal_yield is not None:
            raise ValueError("signal_yield is for extended fits (Likelihood(extended=True))")
        point = FitPoint(self, len(self.points), signal, normalization, signal_yield)
        self._bind(signal, f"fit point {point.index}: signal density")
        self.points.append(point)
        return point

    def add_prior(self, name, central, sigma_minus, sigma_plus=None):
        """Add an asymmetric-Gaussian prior (see :class:`AsymmetricGaussianPrior`).

        Parameters
        ----------
        name : str
            Parameter name.
        central : float
        sigma_minus, sigma_plus : float
            Standard deviations below and above ``central`` (``sigma_plus``
            defaults to ``sigma_minus``).
        """
        self.parameter_index(name)
        self.priors.append(AsymmetricGaussianPrior(name, central, sigma_minus, sigma_plus))

    def set_prior_function(self, function, gradient=None):
        """User prior :math:`C(p)`.

        Parameters
        ----------
        function : callable
            ``function(params) -> float``; ``params`` are all fit parameters
            in the table's order.
        gradient : callable, optional
            ``gradient(params) -> array`` of one value per fit parameter.
        """
        self.user_prior = function
        self.user_prior_gradient = gradient

    def used_parameters(self):
        """Names of the table's parameters that a density, fraction, yield or prior uses."""
        used = set()
        for p in self.points:
            used.update(p.signal.parameters)
            used.update(bg.fraction for bg in p.backgrounds)
            if p.signal_yield is not None:
                used.add(p.signal_yield)
        used.update(pr.name for pr in self.priors)
        return [n for n in self.parameters.names if n in used]

    def check_parameters(self):
        """Raise :class:`ParameterFileError` if a table parameter is used by
        nothing (see ``unused_parameters``)."""
        if self.unused_parameters == "ignore" or self.user_prior is not None:
            return
        used = set(self.used_parameters())
        unused = [n for n in self.parameters.names if n not in used]
        if unused:
            raise ParameterFileError(
                f"{self.parameters.source}: parameter(s) {', '.join(unused)} are used by no "
                f"density, fraction, yield or prior of the fit (densities use: "
                + "; ".join(f"{p.signal.name}: {', '.join(p.signal.parameters) or 'none'}"
                            for p in self.points)
                + "); remove them or pass unused_parameters='ignore'")

    def prepare(self):
        """Check the parameters, freeze all event buffers and compute the
        backgrounds.  Called by the first evaluation; on failure nothing is
        frozen.  With a communicator, a collective call (announced to the
        other ranks inside :func:`vecampfit.fitter.mpi.serve`)."""
        if self.mpi is not None and not self.prepared:
            with self.mpi.collective("prepare", (), self):
                return self._prepare()
        return self._prepare()

    def _prepare(self):
        if not self.points:
            raise ValueError("the likelihood has no fit point")
        self.check_parameters()
        done = []
        try:
            for p in self.points:
                if not p.prepared:
                    p.prepare()
                    done.append(p)
        except BaseException:
            for p in done:
                p.prepared = False
                for buf in list(p.data.values()) + list(p.norm.values()):
                    buf.thaw()
            raise

    @property
    def prepared(self):
        """True once every fit point is prepared."""
        return bool(self.points) and all(p.prepared for p in self.points)

    @property
    def has_gradient(self):
        """True if every signal density has a gradient function (and every
        formula normalization an integral gradient), and the user prior has a
        gradient if set."""
        ok = all(p.signal.has_gradient and (p.normalization != "formula"
                                            or p.integral_gradient is not None)
                 for p in self.points)
        return ok and (self.user_prior is None or self.user_prior_gradient is not None)

    @property
    def has_grad(self):
        """iminuit's name for :attr:`has_gradient`."""
        return self.has_gradient

    # -- iminuit cost-function protocol ---------------------------------------

    def _point(self, args):
        if len(args) == 1 and np.ndim(args[0]) == 1:
            return np.asarray(args[0], dtype=np.float64)
        return np.array(args, dtype=np.float64)

    def __call__(self, *args):
        """:math:`\\mathcal{F}` at the parameters, given as one array or one
        value per parameter (both of iminuit's call conventions); the value of
        the last evaluation is reused at the same point (also one of a
        :meth:`restricted` cost)."""
        return self._value(self._point(args), None)

    def grad(self, *args):
        """:math:`\\partial\\mathcal{F}/\\partial p` at the parameters (one
        array or one value per parameter); the value is computed and kept too."""
        return self._gradient(self._point(args), None)

    def _value(self, x, free):
        last = self._last
        if last is not None and np.array_equal(x, last[0]):
            return last[1]
        value, _ = self.evaluate(x, free=free)
        self._last = (x.copy(), value, None)
        return value

    def _gradient(self, x, free):
        last = self._last
        if last is not None and last[2] is not None and np.array_equal(x, last[0]):
            return last[2].copy()
        value, g = self.evaluate(x, gradient=True, free=free)
        self._last = (x.copy(), value, g)
        return g.copy()

    # -- helpers --------------------------------------------------------------

    def signal_evaluator(self, density, gradient=False, free=None):
        """The evaluator of a signal density for one call: the cached one
        (:class:`~vecampfit.fitter._evaluation.CachedEvaluator`) where
        :attr:`cache` and the call's free parameters allow it, else the full one.

        Parameters
        ----------
        density : Density
        gradient : bool
            For a call with the gradient.
        free : sequence of str, optional
            The parameters free in the call (default: none given, every
            parameter may move).
        """
        if free is None:
            free = self._free_default
        comp = density.components
        if comp is None or self.cache == "never":
            return self._evaluator(density)
        if self.cache == "auto" and free is None:
            return self._evaluator(density)
        key = (id(density), free if free is None or isinstance(free, tuple) else tuple(free))
        others_free = self._others_free.get(key)
        if others_free is None:
            names = set(density.parameters) if free is None else set(free)
            others_free = any(density.parameters[k] in names for k in comp.other_parameters)
            self._others_free[key] = others_free
        partial = False
        if others_free:
            # The cached amplitudes give the couplings' derivatives only: an
            # analytic gradient with masses or widths free takes the full
            # path.  Value calls do too with "auto" (measured faster than
            # recomputing the moved components, benchmarks/bench_partial.py);
            # "always" recomputes the components that moved (in one process;
            # over MPI ranks it rebuilds the cache).
            if self.cache == "auto" or gradient:
                return self._evaluator(density)
            partial = comp.partial and self.mpi is None
        key = (id(density), partial)
        ev = self._cached.get(key)
        if ev is None:
            ev = CachedEvaluator(density, self.dtype, self.vector_length, partial=partial)
            self._cached[key] = ev
        return ev

    def _evaluator(self, density):
        ev = self._evaluators.get(id(density))
        if ev is None:
            ev = evaluator_for_fit(density, self.dtype, self.vector_length)
            self._evaluators[id(density)] = ev
        return ev

    def _parameter_buffer(self, density, params_t):
        buf = self._buffers.get(id(density))
        if buf is None:
            buf = density.new_parameter_buffer(self.dtype)
            self._buffers[id(density)] = buf
        return density.fill_buffer(buf, params_t)

    def _density_parameters(self, density, x):
        return density.parameter_vector(x[self._index[id(density)]], self.dtype)

    def _background_sum(self, bg, buf, what, where, weighted):
        """Background values at the events of this rank's buffer, checked on
        every rank, and (``weighted``) :math:`\\sum_j w_j B(\\Phi_j)` over all
        events, summed per chunk and the chunks in order."""
        held = {}

        def local():
            values = self._background_values(bg, buf)
            held["values"] = values
            bad = ~np.isfinite(values) | (values < 0)
            if np.any(bad):
                j = int(np.flatnonzero(bad)[0])
                return None, Problem(j, values[j])
            if not weighted:
                return np.zeros((-(-buf.n_events // chunk_events(self.vector_length)), 1)), None
            v = np.asarray(values, dtype=np.float64)
            w = buf.weights
            return chunk_sums([v if w is None else w * v], buf.n_events,
                              chunk_events(self.vector_length)), None

        sums, problem = self._combine(buf, local)
        if problem is not None:
            pdesc = ", ".join(f"{n}={v:.10g}" for n, v in zip(bg.density.parameters,
                                                               bg.parameters))
            raise LikelihoodError(f"{what}: density is {problem.density} at {where} event "
                                  f"{problem.event} (parameters: {pdesc or 'none'})")
        return held["values"], float(sums[0])

    def _background_values(self, bg, buf):
        if buf.n_events == 0:
            return np.zeros(0)
        params_t = bg.density.parameter_vector(bg.parameters, self.dtype)
        pbuf = bg.density.fill_buffer(bg.density.new_parameter_buffer(self.dtype), params_t)
        with self._share.call() as threads:
            return self._evaluator(bg.density).values(buf, params_t, pbuf, threads)

    def _describe(self, params):
        names = self.parameters.names
        return ", ".join(f"{n}={v:.10g}" for n, v in zip(names, params))

    def _fail(self, message):
        if self.on_invalid == "raise":
            raise LikelihoodError(message)
        return None

    def _problem_message(self, what, where, problem, x):
        if problem.density_invalid:
            return (f"{what}: density is {problem.density} at {where} event {problem.event} "
                    f"(parameters: {self._describe(x)})")
        return (f"{what}: the likelihood argument is not positive at {where} event "
                f"{problem.event} (it is {problem.argument}; signal density {problem.density}; "
                f"parameters: {self._describe(x)})")

    # -- evaluation -----------------------------------------------------------

    def _normalization(self, point, x, params_t, pbuf, want_gradient, free, threads=None):
        """(I_S, dI_S/dp for the signal density's parameters) for one point, or
        (None, None) after a problem with on_invalid="large"; ``threads``: the
        call's (default: chosen now)."""
        dens = point.signal
        ng = dens.n_parameters
        what = f"fit point {point.index}: signal density {dens.name!r}"
        if point.normalization == "none":
            return 1.0, np.zeros(ng)
        if point.normalization == "formula":
            p = x[self._index[id(dens)]].copy()
            integral = float(point.integral_function(p.copy()))
            g = np.zeros(ng)
            if want_gradient:
                g = np.asarray(point.integral_gradient(p.copy()), dtype=np.float64)
                if g.shape != (ng,):
                    raise DensityError(f"{what}: the integral gradient has shape {g.shape}, "
                                       f"expected ({ng},) (parameters "
                                       f"{', '.join(dens.parameters)})")
            if not (integral > 0 and np.isfinite(integral)):
                return self._fail(f"{what}: integral function is {integral} (parameters: "
                                  f"{self._describe(x)})"), None
            return integral, g
        evaluator = self.signal_evaluator(dens, want_gradient, free)
        if threads is None:
            with self._share.call() as threads:
                sums, problem = evaluator.normalization_sums(
                    point.norm_events, params_t, pbuf, want_gradient, threads, self._combine)
        else:
            sums, problem = evaluator.normalization_sums(
                point.norm_events, params_t, pbuf, want_gradient, threads, self._combine)
        if (self.release_normalization_events and isinstance(evaluator, CachedEvaluator)
                and not evaluator.partial and not point.norm_events.released):
            point.norm_events.release(
                f"release_normalization_events=True: freed once the cached matrix of fit point "
                f"{point.index} was built; fits in which parameters other than couplings move, "
                f"and values or files at the normalization events, need them")
        if problem is not None:
            return self._fail(self._problem_message(what, "normalization", problem, x)), None
        integral = float(sums[0])
        if not (integral > 0 and np.isfinite(integral)):
            return self._fail(f"{what}: normalization integral is {integral} (parameters: "
                              f"{self._describe(x)})"), None
        return integral, (sums[1:] if want_gradient else np.zeros(ng))

    def fractions(self, point, params):
        """Signal and background fractions of a point at ``params``.

        Returns
        -------
        f_s : float
        f_b : numpy.ndarray
            One per background.
        yields : tuple or None
            Extended fits: ``(N_S, N_B array, N)``.

        Raises
        ------
        LikelihoodError
            If the total yield of an extended fit is not positive.
        """
        x = np.asarray(params, dtype=np.float64)
        nb = len(point.backgrounds)
        fb_values = np.array([x[self.parameter_index(bg.fraction)]
                              for bg in point.backgrounds]) if nb else np.zeros(0)
        if self.extended:
            ns = x[self.parameter_index(point.signal_yield)]
            total = ns + fb_values.sum()
            if not (total > 0 and np.isfinite(total)):
                raise LikelihoodError(
                    f"fit point {point.index}: the total yield N = {total} is not positive "
                    f"(signal yield {point.signal_yield} = {ns}"
                    + "".join(f", {bg.fraction} = {v}" for bg, v in
                              zip(point.backgrounds, fb_values)) + ")")
            return ns / total, fb_values / total, (ns, fb_values, total)
        return 1.0 - fb_values.sum(), fb_values, None

    def evaluate(self, params, gradient=False, *, free=None):
        """:math:`\\mathcal{F}` and, if asked, its gradient.

        Parameters
        ----------
        params : array_like
            All fit parameters (float64), in the table's order.
        gradient : bool
            Also compute :math:`\\partial\\mathcal{F}/\\partial p` (needs
            gradient functions, see :attr:`has_gradient`).
        free : sequence of str, optional
            The parameters that move in the fit this call belongs to; with
            ``cache="auto"`` the call uses the cached component amplitudes
            when every free parameter of a signal density is a coupling.
            Default: none given (every parameter may move).  The value is
            the same either way, to rounding (relative :math:`10^{-15}`).

        Returns
        -------
        value : float
        grad : numpy.ndarray or None

        Raises
        ------
        LikelihoodError
            See the class description (with ``on_invalid="raise"``).

        Notes
        -----
        With a communicator (``comm``) this is a collective call: every rank
        calls it with the same parameters, or rank 0 alone inside
        :func:`vecampfit.fitter.mpi.serve` (the others are told to).
        """
        free = self._free_default if free is None else self._free_names(free)
        if self.mpi is None:
            return self._evaluate(params, gradient, free)
        with self.mpi.collective("evaluate", (np.array(params, dtype=np.float64), gradient),
                                 self, free):
            return self._evaluate(params, gradient, free)

    def _evaluate(self, params, gradient, free):
        try:
            return self._evaluate_passes(params, gradient, free)
        finally:
            # the helper threads of the call's passes spin from here (fitter._threads)
            self._share.finished()

    def _evaluate_passes(self, params, gradient, free):
        x = np.array(params, dtype=np.float64).reshape(-1)
        n = len(self.parameters)
        if x.shape != (n,):
            raise ValueError(f"expected {n} parameters ({self.parameters.source}), got "
                             f"{x.shape[0]}")
        if gradient and not self.has_gradient:
            raise ValueError("the analytic gradient needs a density-with-gradient function for "
                             "every signal (and an integral gradient for formula normalization)")
        if not self.prepared:
            self.prepare()
        self.n_calls += 1
        total = 0.0
        grad = np.zeros(n) if gradient else None
        large = (self.LARGE_VALUE, np.zeros(n) if gradient else None)
        # One choice of threads for all passes of the call (fitter._threads).
        threads = self._share()
        filled = {}
        for point in self.points:
            dens = point.signal
            key = id(dens)
            if key not in filled:
                params_t = self._density_parameters(dens, x)
                filled[key] = (params_t, self._parameter_buffer(dens, params_t))
            params_t, pbuf = filled[key]
            try:
                f_s, f_b, yields = self.fractions(point, x)
            except LikelihoodError:
                if self.on_invalid == "raise":
                    raise
                return large
            integral, g_norm = self._normalization(point, x, params_t, pbuf, gradient, free,
                                                   threads)
            if g_norm is None:
                return large
            scale = f_s / integral
            sums, problem = self.signal_evaluator(dens, gradient, free).data_sums(
                point.data_events, params_t, pbuf, scale, point.background_matrix, f_b, gradient,
                threads, self._combine)
            if problem is not None:
                self._fail(self._problem_message(
                    f"fit point {point.index}: signal density {dens.name!r}", "data", problem, x))
                return large
            nb = len(point.backgrounds)
            value, c1, cb = float(sums[0]), float(sums[1]), sums[2:2 + nb]
            total += value
            data = point.data_events
            if yields is not None:
                ns, nbk, ntot = yields
                total += 2 * (ntot - data.weight_sum * np.log(ntot))
            if not gradient:
                continue
            a = sums[2 + nb:]
            # Signal parameters: (f_S / I_S) (A - G c1 / I_S), scattered by name.
            grad[self._index[key]] += (f_s / integral) * (a - g_norm * c1 / integral)
            d_fs = c1 / integral
            d_fb = cb
            if yields is None:
                for k, bg in enumerate(point.backgrounds):
                    grad[self.parameter_index(bg.fraction)] += d_fb[k] - d_fs
            else:
                ns, nbk, ntot = yields
                s = f_s * d_fs + float(np.dot(f_b, d_fb))
                extended = 2 - 2 * data.weight_sum / ntot
                grad[self.parameter_index(point.signal_yield)] += (d_fs - s) / ntot + extended
                for k, bg in enumerate(point.backgrounds):
                    grad[self.parameter_index(bg.fraction)] += (d_fb[k] - s) / ntot + extended
        for prior in self.priors:
            k = self.parameter_index(prior.name)
            c, dc = prior.value_and_derivative(x[k])
            total += c
            if gradient:
                grad[k] += dc
        if self.user_prior is not None:
            total += float(self.user_prior(x.copy()))
            if gradient:
                g = np.asarray(self.user_prior_gradient(x.copy()), dtype=np.float64)
                if g.shape != (n,):
                    raise ValueError(f"the user prior's gradient has shape {g.shape}, expected "
                                     f"({n},)")
                grad += g
        return float(total), grad

    # -- values for result files and plots --------------------------------------

    def _signal_buffers(self, point, params):
        """(all parameters, the signal's parameters, its filled parameter buffer)."""
        x = np.asarray(params, dtype=np.float64)
        if not self.prepared:
            self.prepare()
        params_t = self._density_parameters(point.signal, x)
        return x, params_t, self._parameter_buffer(point.signal, params_t)

    def signal_values(self, point, params, where="data"):
        """Signal density at the data (or normalization) events of a point
        (float64 array), for result files and plots.  With a communicator:
        at the events this rank holds (its chunks, in order).

        Parameters
        ----------
        point : FitPoint
        params : array_like
            All fit parameters.
        where : {"data", "normalization"}
        """
        x, params_t, pbuf = self._signal_buffers(point, params)
        buf = point.data_events if where == "data" else point.norm_events
        with self._share.call() as threads:
            return np.asarray(self._evaluator(point.signal).values(buf, params_t, pbuf, threads),
                              dtype=np.float64)

    def normalization_integral(self, point, params, *, free=None):
        """:math:`I_S` of a point at ``params`` (1 without normalization).

        Parameters
        ----------
        point : FitPoint
        params : array_like
            All fit parameters.
        free : sequence of str, optional
            The free parameters of the fit (see :meth:`evaluate`): with
            ``cache="auto"`` and only couplings free, the integral comes
            from the cached matrix of the components.
        """
        free = self._free_default if free is None else self._free_names(free)
        if self.mpi is None:
            return self._normalization_integral_at(point.index, params, free=free)
        with self.mpi.collective("_normalization_integral_at",
                                 (point.index, np.array(params, dtype=np.float64)), self, free):
            return self._normalization_integral_at(point.index, params, free=free)

    def _normalization_integral_at(self, index, params, *, free=None):
        point = self.points[index]
        x, params_t, pbuf = self._signal_buffers(point, params)
        integral, g = self._normalization(point, x, params_t, pbuf, False, free)
        if g is None:
            raise LikelihoodError(f"fit point {point.index}: no valid normalization at these "
                                  f"parameters")
        return integral

    def density_columns(self, point, params, where="data", *, free=None):
        """Density values per event of a fit point (dict of float64 arrays):
        ``signal_density`` (:math:`S`), ``signal`` (:math:`f_S S / I_S`),
        ``background_k`` (:math:`f_B^{(k)} B^{(k)}/I_{B^{(k)}}`) and
        ``total`` (their sum).  With a communicator: at the events this
        rank holds (a collective call: the normalization is summed over
        every rank).

        Parameters
        ----------
        point : FitPoint
        params : array_like
            All fit parameters.
        where : {"data", "normalization"}
        free : sequence of str, optional
            The free parameters of the fit, for the normalization integral
            (:meth:`normalization_integral`).
        """
        if where not in ("data", "normalization"):
            raise ValueError(f"where must be 'data' or 'normalization', got {where!r}")
        x = np.asarray(params, dtype=np.float64)
        s = self.signal_values(point, x, where)
        f_s, f_b, _ = self.fractions(point, x)
        integral = self.normalization_integral(point, x, free=free)
        cols = {"signal_density": s, "signal": f_s * s / integral}
        total = cols["signal"].copy()
        n = point.data_events.n_events
        for k, bg in enumerate(point.backgrounds):
            if where == "data":
                b = point.background_matrix[k, :n]
            else:
                buf = point.norm[id(bg.density)]
                b = np.asarray(self._background_values(bg, buf), dtype=np.float64) / bg.integral
            cols[f"background_{k + 1}"] = f_b[k] * b
            total += cols[f"background_{k + 1}"]
        cols["total"] = total
        return cols


class RestrictedLikelihood:
    """A :class:`Likelihood` as a cost function in which only some parameters
    move (made by :meth:`Likelihood.restricted`).

    It takes all the table's parameters, like the likelihood, and gives the
    likelihood's value and gradient; its calls decide the cached evaluation
    from its free parameters (see ``cache`` of :class:`Likelihood`).  The
    other parameters must keep the values they have at the first call:
    a call that moves one raises :class:`~vecampfit.fitter.errors.RestrictionError`
    (the cached amplitudes give the derivatives by the couplings only).

    Parameters
    ----------
    likelihood : Likelihood
    free : sequence of str
        Names of the free parameters.

    Attributes
    ----------
    likelihood : Likelihood
    free_parameters : tuple of str
    errordef : float
        1, as the likelihood's.
    """

    errordef = Likelihood.errordef

    def __init__(self, likelihood, free):
        if not isinstance(likelihood, Likelihood):
            raise TypeError(f"likelihood must be a vecampfit.fitter.Likelihood, got "
                            f"{type(likelihood).__name__}")
        self.likelihood = likelihood
        self.free_parameters = likelihood._free_names(free)
        free = set(self.free_parameters)
        self._fixed = np.array([k for k, n in enumerate(likelihood.parameters.names)
                                if n not in free], dtype=np.intp)
        self._reference = None

    @property
    def precision(self):
        """The likelihood's :attr:`Likelihood.precision` (for iminuit)."""
        return self.likelihood.precision

    @property
    def _parameters(self):
        return self.likelihood._parameters

    @property
    def initial_values(self):
        """The parameter table's initial values."""
        return self.likelihood.initial_values

    @property
    def has_gradient(self):
        """:attr:`Likelihood.has_gradient`."""
        return self.likelihood.has_gradient

    @property
    def has_grad(self):
        """iminuit's name for :attr:`has_gradient`."""
        return self.likelihood.has_gradient

    def _check(self, x):
        if x.shape != (len(self.likelihood.parameters),):
            return          # the likelihood names the wrong count
        fixed = x[self._fixed].tobytes()
        if self._reference is None:
            self._reference = fixed
        elif fixed != self._reference:
            names = self.likelihood.parameters.names
            reference = np.frombuffer(self._reference)
            moved = [names[k] for k, a, b in zip(self._fixed, x[self._fixed], reference)
                     if not a == b]
            raise RestrictionError(
                f"parameter(s) {', '.join(moved)} moved, but this cost is restricted to the "
                f"free parameters {', '.join(self.free_parameters) or '(none)'}; make another "
                f"with likelihood.restricted(...) for the new set of free parameters")

    def __call__(self, *args):
        """:math:`\\mathcal{F}` (one array or one value per parameter)."""
        x = self.likelihood._point(args)
        self._check(x)
        return self.likelihood._value(x, self.free_parameters)

    def grad(self, *args):
        """:math:`\\partial\\mathcal{F}/\\partial p` (one array or one value
        per parameter)."""
        x = self.likelihood._point(args)
        self._check(x)
        return self.likelihood._gradient(x, self.free_parameters)

    def evaluate(self, params, gradient=False):
        """:meth:`Likelihood.evaluate` with these free parameters.

        Parameters
        ----------
        params : array_like
            All fit parameters.
        gradient : bool

        Returns
        -------
        value : float
        grad : numpy.ndarray or None
        """
        x = np.array(params, dtype=np.float64).reshape(-1)
        self._check(x)
        return self.likelihood.evaluate(x, gradient, free=self.free_parameters)

    def __repr__(self):
        return (f"RestrictedLikelihood(free={list(self.free_parameters)}, "
                f"{len(self.likelihood.parameters)} parameters)")
