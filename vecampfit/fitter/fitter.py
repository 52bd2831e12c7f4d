"""The fitter: a :class:`~vecampfit.fitter.likelihood.Likelihood` minimized by
iminuit's Minuit, with the paper's command sequence and result files.

Typical use (the paper's signal fit)::

    from vecampfit.fitter import Density, Fitter, read_parameter_file

    fitter = Fitter(read_parameter_file("parameters_signal.dat"),
                    precision="float64", vector_length=8, seed=1)
    point = fitter.add_point(signal_density)
    point.add_background(background_density, "BACKGROUND_FRACTION", background_parameters)
    point.load_normalization_file("mc_signal.root", "tree")
    point.load_data_file("data_signal.root", "tree")
    fitter.fix_all()
    fitter.release("NR_A", "KSTM_A")
    fitter.migrad(100000)
    fitter.release("NR_P", "KSTM_P", "BACKGROUND_FRACTION")
    fitter.migrad(100000)
    fitter.write_results(parameters="parameters_signal_result.dat", text="results.txt",
                         root="signal_result.root")

The fitter holds a :class:`~vecampfit.fitter.likelihood.Likelihood`
(:attr:`Fitter.likelihood`, an iminuit cost function) and an
:class:`iminuit.Minuit` built on it (:attr:`Fitter.minuit`); everything
iminuit offers (``minos``, ``fixed``, ``limits``, ``strategy``, ...) works on
it.  Events are prepared at the first evaluation (MIGRAD, HESSE, an explicit
:meth:`Likelihood.evaluate`), not when parameters are fixed or released.

Gradient and strategy: with ``use_gradient=True`` (the default when every
signal density has a gradient function) MIGRAD receives the analytic gradient
of :math:`\\mathcal{F}`.  Minuit's strategy 1 (the default) still computes
numerical second derivatives at the start of MIGRAD to seed its error
matrix; strategy 0 skips that and relies on the gradient and on the initial
steps of the parameter file only.  Strategy 0 saves likelihood calls, but its
first steps are only as good as those initial steps (too large steps send
MIGRAD far away, where densities may vanish), and it leaves a cruder error
matrix: call :meth:`Fitter.hesse` (or ``migrad(..., hesse=True)``) for
errors.
"""

import os
import sys
import time

import numpy as np
from iminuit import Minuit

from . import results
from .likelihood import Likelihood
from .parameters import ParameterTable

__all__ = ["Fitter"]


class Fitter:
    """Unbinned maximum-likelihood fit: likelihood, Minuit, results.

    Parameters
    ----------
    parameters : ParameterTable
        Fit parameters (e.g. :func:`read_parameter_file`).
    precision : {"float64", "float32"}
        Precision of the densities.
    vector_length : int
        ``L`` of the block densities.
    threads : int, optional
        OpenMP threads (default: ``OMP_NUM_THREADS`` if set, else all CPUs
        available to this process).
    extended : bool
        Extended fit (yields as parameters).
    seed : int, optional
        Seed of the random initial values (a non-negative integer); drawn
        from the operating system and printed if not given, so that every
        run can be repeated.
    randomize : bool
        Start from random values in :math:`(I - R, I + R)` (default True; R = 0
        keeps a parameter at I).
    use_gradient : bool, optional
        Give MIGRAD the analytic gradient (default: when available).
    strategy : {0, 1, 2}
        Minuit strategy (default 1; see the module description for 0 with
        an analytic gradient).
    on_invalid : {"raise", "large"}
        On a NaN, infinite or negative density, or a non-positive
        normalization: raise :class:`LikelihoodError` (default), or return
        ``LARGE_VALUE`` (1e30) so that MIGRAD steps back from the region
        (the minimum may then be reported invalid).
    unused_parameters : {"error", "ignore"}
        Table parameters that nothing uses: an error (default) or ignored
        (see :class:`Likelihood`).
    cache : {"auto", "always", "never"}
        Cached evaluation of densities with components (see
        :class:`Likelihood`); with ``"auto"`` it is chosen at each MIGRAD,
        HESSE or MINOS from the parameters that are free.
    verbose : bool
        Print the seed and a line per MIGRAD/HESSE call (on rank 0 only
        over MPI).
    release_normalization_events : bool
        Free each fit point's normalization events once its cached matrix
        is built (see :class:`Likelihood`).
    comm : mpi4py.MPI.Comm, optional
        Spread the events over the ranks of this communicator (see
        :class:`Likelihood` and :mod:`vecampfit.fitter.mpi`): every rank
        runs the same script; inside :func:`vecampfit.fitter.mpi.serve`
        rank 0 drives Minuit and writes the result files while the others
        compute their share of every likelihood call.  The seed is rank 0's.

    Attributes
    ----------
    likelihood : Likelihood
        The function minimized.
    initial_values : numpy.ndarray
        The starting values (randomized or the table's).
    """

    def __init__(self, parameters, *, precision="float64", vector_length=8, threads=None,
                 extended=False, seed=None, randomize=True, use_gradient=None, strategy=1,
                 on_invalid="raise", unused_parameters="error", cache="auto", verbose=True,
                 release_normalization_events=False, comm=None):
        if not isinstance(parameters, ParameterTable):
            raise TypeError(f"parameters must be a ParameterTable (read_parameter_file), got "
                            f"{type(parameters).__name__}")
        for name, flag in (("extended", extended), ("randomize", randomize),
                           ("verbose", verbose),
                           ("release_normalization_events", release_normalization_events)):
            # A string such as "no" is true: say so instead of acting on it.
            if not (isinstance(flag, (bool, np.bool_)) or
                    (isinstance(flag, (int, np.integer)) and flag in (0, 1))):
                raise TypeError(f"{name} must be True or False, got {flag!r}")
        self.likelihood = Likelihood(parameters, precision=precision,
                                     vector_length=vector_length, threads=threads,
                                     extended=extended, on_invalid=on_invalid,
                                     unused_parameters=unused_parameters, cache=cache,
                                     release_normalization_events=release_normalization_events,
                                     comm=comm)
        mpi = self.likelihood.mpi
        self.verbose = verbose and (mpi is None or mpi.root)
        if seed is None:
            seed = int.from_bytes(os.urandom(4), "little")
            if mpi is not None:
                seed = mpi.comm.bcast(seed, root=0)
        if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) \
                or seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
        self.seed = int(seed)
        if self.verbose:
            print(f"Random seed: {self.seed}")
        rng = np.random.default_rng(self.seed)
        self.initial_values = parameters.randomized_values(rng) if randomize else parameters.values
        if use_gradient not in (None, True, False):
            raise ValueError(f"use_gradient must be None, True or False, got {use_gradient!r}")
        self._use_gradient = use_gradient
        if strategy not in (0, 1, 2):
            raise ValueError(f"strategy must be 0, 1 or 2, got {strategy!r}")
        self._strategy = strategy
        self._minuit = None
        self.wall_time = 0.0
        self.cpu_time = 0.0

    # -- the likelihood's set-up, forwarded -------------------------------------

    @property
    def parameters(self):
        """The fit's :class:`ParameterTable`."""
        return self.likelihood.parameters

    @property
    def points(self):
        """The fit points (list of :class:`FitPoint`)."""
        return self.likelihood.points

    @property
    def precision(self):
        """Precision of the densities."""
        return self.likelihood.density_precision

    @property
    def vector_length(self):
        """``L`` of the block densities."""
        return self.likelihood.vector_length

    @property
    def threads(self):
        """OpenMP threads of the likelihood (settable)."""
        return self.likelihood.threads

    @threads.setter
    def threads(self, n):
        self.likelihood.threads = n

    @property
    def extended(self):
        """Whether the fit is extended."""
        return self.likelihood.extended

    @property
    def n_calls(self):
        """Likelihood evaluations so far."""
        return self.likelihood.n_calls

    @property
    def has_gradient(self):
        """Whether the likelihood has an analytic gradient."""
        return self.likelihood.has_gradient

    def parameter_index(self, name):
        """Index of a parameter in the table (KeyError naming close names).

        Parameters
        ----------
        name : str
        """
        return self.likelihood.parameter_index(name)

    def add_point(self, signal, *, normalization="mc", signal_yield=None):
        """Add a fit point (:meth:`Likelihood.add_point`).

        Parameters
        ----------
        signal : Density
        normalization : {"mc", "grid", "formula", "none"}
        signal_yield : str, optional
            Extended fits: the signal-yield parameter of this point.

        Returns
        -------
        FitPoint
        """
        if self._minuit is not None:
            raise RuntimeError("fit points must be added before the fit starts")
        return self.likelihood.add_point(signal, normalization=normalization,
                                         signal_yield=signal_yield)

    def add_prior(self, name, central, sigma_minus, sigma_plus=None):
        """Add an asymmetric-Gaussian prior (:meth:`Likelihood.add_prior`).

        Parameters
        ----------
        name : str
            Parameter name.
        central : float
            :math:`p_0`.
        sigma_minus, sigma_plus : float
            Standard deviations below and above :math:`p_0`.
        """
        self.likelihood.add_prior(name, central, sigma_minus, sigma_plus)

    def set_prior_function(self, function, gradient=None):
        """User prior (:meth:`Likelihood.set_prior_function`).

        Parameters
        ----------
        function : callable
            ``function(params) -> float`` of all fit parameters.
        gradient : callable, optional
            ``gradient(params) -> array`` (one value per fit parameter).
        """
        self.likelihood.set_prior_function(function, gradient)

    def evaluate(self, params, gradient=False):
        """:math:`\\mathcal{F}` (and its gradient) at ``params``
        (:meth:`Likelihood.evaluate`).

        Parameters
        ----------
        params : array_like
            All fit parameters.
        gradient : bool
            Also return the gradient.

        Returns
        -------
        value : float
        grad : numpy.ndarray or None
        """
        return self.likelihood.evaluate(params, gradient)

    # -- Minuit ---------------------------------------------------------------

    @property
    def use_gradient(self):
        """Whether MIGRAD gets the analytic gradient."""
        if self._use_gradient is None:
            return self.likelihood.has_gradient
        return self._use_gradient

    @property
    def minuit(self):
        """The :class:`iminuit.Minuit` object on :attr:`likelihood` (created on
        first use; events are prepared at the first evaluation)."""
        if self._minuit is None:
            lk = self.likelihood
            if not lk.points:
                raise ValueError("the fit has no fit point (add_point)")
            if self._use_gradient and not lk.has_gradient:
                raise ValueError("use_gradient=True, but not every signal density has a gradient "
                                 "function")
            m = Minuit(lk, self.initial_values.copy(), grad=lk.grad if self.use_gradient else False,
                       name=self.parameters.names)
            for p in self.parameters:
                if p.bounded:
                    m.limits[p.name] = (p.lower, p.upper)
                if p.step > 0:
                    m.errors[p.name] = p.step
                else:
                    m.fixed[p.name] = True
            m.strategy = self._strategy
            self._minuit = m
        return self._minuit

    # -- fix and release ------------------------------------------------------

    def _index(self, item):
        n = len(self.parameters)
        if isinstance(item, (int, np.integer)) and not isinstance(item, (bool, np.bool_)):
            if not 0 <= item < n:
                raise IndexError(f"parameter index {item} is out of range: the fit has {n} "
                                 f"parameters (0..{n - 1}) from {self.parameters.source}")
            return int(item)
        if isinstance(item, str):
            return self.parameters.index(item)
        raise TypeError(f"a parameter is a name or an index, got {item!r}")

    def _names(self, items):
        out = []
        for item in items:
            if isinstance(item, (list, tuple)):
                out.extend(self._names(item))
            else:
                out.append(self.parameters[self._index(item)].name)
        return out

    def fix(self, *names):
        """Fix parameters.

        Parameters
        ----------
        *names : str, int or sequences of them
            Names or 0-based indices.
        """
        for n in self._names(names):
            self.minuit.fixed[n] = True

    def release(self, *names):
        """Release parameters.

        Parameters
        ----------
        *names : str, int or sequences of them
            Names or 0-based indices.
        """
        for n in self._names(names):
            self.minuit.fixed[n] = False

    def fix_all(self):
        """Fix every parameter."""
        self.minuit.fixed = True

    def release_all(self):
        """Release every parameter."""
        self.minuit.fixed = False

    def _range(self, first, last):
        i, j = self._index(first), self._index(last)
        if i > j:
            raise IndexError(f"parameter range {first}..{last} is empty ({i} > {j})")
        return [self.parameters[k].name for k in range(i, j + 1)]

    def fix_range(self, first, last):
        """Fix parameters ``first`` to ``last`` inclusive.

        Parameters
        ----------
        first, last : str or int
            Names or 0-based indices.
        """
        for n in self._range(first, last):
            self.minuit.fixed[n] = True

    def release_range(self, first, last):
        """Release parameters ``first`` to ``last`` inclusive.

        Parameters
        ----------
        first, last : str or int
            Names or 0-based indices.
        """
        for n in self._range(first, last):
            self.minuit.fixed[n] = False

    # -- minimization ---------------------------------------------------------

    def _timed(self, what, call):
        m = self.minuit
        self.likelihood.free_parameters = [n for n in self.parameters.names if not m.fixed[n]]
        t0, c0 = time.perf_counter(), time.process_time()
        calls0 = self.n_calls
        result = call()
        dt, dc = time.perf_counter() - t0, time.process_time() - c0
        self.wall_time += dt
        self.cpu_time += dc
        if self.verbose:
            m = self.minuit
            print(f"{what}: F = {m.fval:.10g}, valid = {m.valid}, {self.n_calls - calls0} calls, "
                  f"{dt:.2f} s", file=sys.stdout)
        return result

    def migrad(self, ncall=None, *, iterate=5, hesse=False):
        """Run MIGRAD (and HESSE after it if ``hesse``).

        Parameters
        ----------
        ncall : int, optional
            Maximum number of calls (iminuit's default if None).
        iterate : int
            MIGRAD is repeated up to this many times until the minimum is valid.
        hesse : bool
            Run HESSE after MIGRAD.

        Returns
        -------
        iminuit.Minuit
        """
        m = self.minuit
        self._timed("MIGRAD", lambda: m.migrad(ncall=ncall, iterate=iterate))
        if hesse:
            self.hesse()
        return m

    def hesse(self, ncall=None):
        """Run HESSE (error matrix from numerical second derivatives).

        Parameters
        ----------
        ncall : int, optional
            Maximum number of calls.

        Returns
        -------
        iminuit.Minuit
        """
        m = self.minuit
        self._timed("HESSE", lambda: m.hesse(ncall=ncall))
        return m

    def minos(self, *names, cl=None, ncall=None):
        """Run MINOS.

        Parameters
        ----------
        *names : str or int
            Parameters (default: all free).
        cl : float, optional
            Confidence level or number of standard deviations (iminuit's).
        ncall : int, optional
            Maximum number of calls per parameter.

        Returns
        -------
        iminuit.Minuit
        """
        m = self.minuit
        self._timed("MINOS", lambda: m.minos(*self._names(names), cl=cl, ncall=ncall))
        return m

    # -- results --------------------------------------------------------------

    @property
    def values(self):
        """Current parameter values (float64 array)."""
        return np.array(self.minuit.values, dtype=np.float64)

    @property
    def errors(self):
        """Current parameter errors (float64 array; 0 for fixed parameters)."""
        m = self.minuit
        return np.array([0.0 if m.fixed[k] else m.errors[k] for k in range(len(m.values))])

    def covariance(self, names=None):
        """The error matrix of the fit, zero in the rows and columns of fixed
        parameters (and everywhere before HESSE or MIGRAD gave one).

        Parameters
        ----------
        names : sequence of str, optional
            The parameters of the rows and columns, in this order (default:
            every parameter of the table, in its order).

        Returns
        -------
        numpy.ndarray
            :math:`C_{ij} = \\mathrm{cov}(p_i, p_j)` (float64, shape
            ``(n, n)``), in the parameters' units squared.

        Raises
        ------
        ValueError
            Naming the names that are not parameters of the fit.
        """
        m = self.minuit
        all_names = list(self.parameters.names)
        names = all_names if names is None else list(names)
        index = {n: k for k, n in enumerate(all_names)}
        missing = [n for n in names if n not in index]
        if missing:
            raise ValueError(f"{', '.join(map(repr, missing))} not parameters of the fit "
                             f"({self.parameters.source})")
        out = np.zeros((len(names), len(names)))
        if m.covariance is None:
            return out
        c = np.array(m.covariance, dtype=np.float64)
        rows = [j for j, n in enumerate(names) if not m.fixed[index[n]]]
        full = [index[names[j]] for j in rows]
        out[np.ix_(rows, rows)] = c[np.ix_(full, full)]
        return out

    def point(self, index):
        """Fit point ``index``.

        Raises
        ------
        IndexError
            Naming the index asked for and the points that exist.
        """
        n = len(self.points)
        if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer)) \
                or not 0 <= index < n:
            raise IndexError(f"fit point {index!r} does not exist: the fit has {n} point(s)"
                             + (f" (0..{n - 1})" if n else ""))
        return self.points[int(index)]

    def write_results(self, *, parameters=None, text=None, root=None, density=None, point=0):
        """Write result files (each optional; each written atomically).

        Parameters
        ----------
        parameters : path, optional
            Parameter file with the fitted values (ready for another run).
        text : path, optional
            Text summary: F, status, parameters and errors.
        root : path, optional
            ROOT file with F, parameters, errors, the error matrix, its
            eigenvalues and eigenvectors.
        density : path, optional
            ROOT file with the density values per data event of ``point``
            next to the event records.
        point : int or None
            Fit point of the density file (None: every point).

        Raises
        ------
        RuntimeError, ValueError
            Over MPI ranks: on a rank other than 0, or for the density file
            (per event; each rank holds only its events).
        """
        if density is not None and point is not None:
            self.point(point)
        mpi = self.likelihood.mpi
        if mpi is not None and not mpi.root:
            raise RuntimeError(f"write_results on MPI rank {mpi.rank}: result files are written "
                               f"by rank 0 (inside vecampfit.fitter.mpi.serve, under 'if root:')")
        if density is not None and mpi is not None and mpi.size > 1:
            raise ValueError(f"the density file {os.fspath(density)!r} holds one row per event, "
                             f"and over {mpi.size} MPI ranks each rank holds only its share of "
                             f"the events: write it from a one-process run at the fitted "
                             f"parameters")
        if parameters is not None:
            results.write_result_parameters(self, parameters)
        if text is not None:
            results.write_result_text(self, text)
        if root is not None:
            results.write_result_root(self, root)
        if density is not None:
            results.write_density_root(self, density, point=point)
