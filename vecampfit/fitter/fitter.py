"""The stage runner: the paper's command sequence on top of iminuit's Minuit.

A fit is a :class:`~vecampfit.fitter.likelihood.Likelihood` (an iminuit cost
function) minimized by :class:`iminuit.Minuit`.  ``Minuit(likelihood,
*likelihood.initial_values)`` is a complete fit; :class:`Fitter` adds what
the paper's fits do on top of it: random initial values from a seed, the
limits and steps of the parameter file, fix and release by name, index or
range, stages of MIGRAD, HESSE and MINOS (:meth:`Fitter.run`, or one command
at a time), the cached evaluation chosen per stage from the parameters that
are free, timing, and the result files.  Minuit itself is
:attr:`Fitter.minuit`: its values, errors, covariance, ``fval``, ``valid``,
``scan`` and everything else iminuit offers are read there.

Typical use (the paper's signal fit)::

    from vecampfit.fitter import Density, Fitter, Likelihood, Stage, read_parameter_file

    likelihood = Likelihood(read_parameter_file("parameters_signal.dat"),
                            precision="float64", vector_length=8)
    point = likelihood.add_point(signal_density)
    point.add_background(background_density, "BACKGROUND_FRACTION", background_parameters)
    point.load_normalization_file("mc_signal.root", "tree")
    point.load_data_file("data_signal.root", "tree")
    fitter = Fitter(likelihood, seed=1)
    fitter.run(Stage(release=["NR_A", "KSTM_A"], fix_all=True),
               Stage(release=["NR_P", "KSTM_P", "BACKGROUND_FRACTION"], hesse=True))
    fitter.write_results(parameters="parameters_signal_result.dat", text="results.txt",
                         root="signal_result.root")
    print(fitter.minuit.values["NR_A"], fitter.minuit.errors["NR_A"])

Events are prepared at the first evaluation (MIGRAD, HESSE, an explicit
:meth:`Likelihood.evaluate`), not when parameters are fixed or released.

Cached evaluation: :attr:`Fitter.minuit` minimizes :attr:`Fitter.cost`, the
likelihood restricted (:meth:`Likelihood.restricted`) to the parameters that
are free when a stage command (:meth:`~Fitter.migrad`, :meth:`~Fitter.hesse`,
:meth:`~Fitter.minos`, :meth:`~Fitter.run`) starts; with ``cache="auto"``
its calls use the cached component amplitudes when only couplings of the
signal densities are free.  Parameters fixed or released on the Minuit
object directly are followed too: a call in which a parameter outside the
restriction moved makes the cost restrict itself again to the parameters
Minuit has free.

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

Up to version 0.1 the fitter also built its likelihood (``Fitter(table,
precision=..., ...)``) and repeated the likelihood's and Minuit's attributes
(``fitter.add_point``, ``fitter.values``, ``fitter.covariance()``, ...).
Those still work and warn (:class:`DeprecationWarning`), naming what
replaced each.
"""

import os
import sys
import time
import warnings
import weakref
from dataclasses import dataclass

import numpy as np
from iminuit import Minuit

from . import results
from .errors import RestrictionError
from .likelihood import Likelihood
from .parameters import ParameterTable

__all__ = ["Fitter", "Stage"]

#: Arguments of the deprecated form ``Fitter(table, ...)``, given to the
#: :class:`Likelihood` it builds.
_LIKELIHOOD_ARGUMENTS = ("precision", "vector_length", "threads", "thread_policy", "extended",
                         "on_invalid", "unused_parameters", "cache", "release_normalization_events", "comm")


def _deprecated(old, new, stacklevel=3):
    warnings.warn(f"Fitter.{old} is deprecated: use {new}", DeprecationWarning,
                  stacklevel=stacklevel)


def _likelihood_attribute(name, attribute=None, replacement=None, *, settable=False):
    """A deprecated property of :class:`Fitter` that gives an attribute of
    its likelihood, warning that it is deprecated on each use.

    Parameters
    ----------
    name : str
        The property's name on the fitter.
    attribute : str, optional
        The likelihood's attribute (default: ``name``).
    replacement : str, optional
        What the warning says to use instead (default:
        ``fitter.likelihood.<attribute>``).
    settable : bool
        Whether setting the property sets the likelihood's attribute.

    Returns
    -------
    property
    """
    attribute = name if attribute is None else attribute
    replacement = f"fitter.likelihood.{attribute}" if replacement is None else replacement

    def get(self):
        _deprecated(name, replacement)
        return getattr(self.likelihood, attribute)

    def set(self, value):
        _deprecated(name, replacement)
        setattr(self.likelihood, attribute, value)

    return property(get, set if settable else None,
                    doc=f"Deprecated: ``fitter.likelihood.{attribute}``.")


@dataclass(frozen=True)
class Stage:
    """One stage of a fit: fix and release parameters, then run MIGRAD,
    HESSE and MINOS (:meth:`Fitter.run`).

    Parameters
    ----------
    release : sequence of str or int
        Parameters to release (names or 0-based indices), after ``fix_all``
        and ``fix``.
    fix : sequence of str or int
        Parameters to fix.
    fix_all : bool
        Fix every parameter first.
    migrad : bool
        Run MIGRAD (default True).
    ncall : int, optional
        Maximum number of calls of MIGRAD.
    hesse : bool
        Run HESSE after MIGRAD.
    minos : sequence of str or int, or bool
        Run MINOS for these parameters (True: every free parameter; False
        or empty: none).
    """

    release: tuple = ()
    fix: tuple = ()
    fix_all: bool = False
    migrad: bool = True
    ncall: int = None
    hesse: bool = False
    minos: object = ()

    def __post_init__(self):
        for name in ("release", "fix", "minos"):
            value = getattr(self, name)
            if name == "minos" and value is True:
                continue
            if value is False or value is None:
                value = ()
            elif isinstance(value, (bool, np.bool_)):
                raise TypeError(f"Stage.{name} must be names or indices, got {value!r}")
            elif isinstance(value, (str, int, np.integer)):
                value = (value,)
            object.__setattr__(self, name, tuple(value))
        for name in ("fix_all", "migrad", "hesse"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise TypeError(f"Stage.{name} must be True or False, got "
                                f"{getattr(self, name)!r}")


class _StageCost:
    """The cost Minuit minimizes in a :class:`Fitter`: the likelihood
    restricted to the parameters free at the last stage command, restricted
    again to those Minuit has free when a parameter outside moved.

    It refers to its fitter weakly: Minuit keeps the cost (and its ``grad``)
    in a C++ object that the garbage collector cannot look into, so a strong
    reference back would make fitter, Minuit and cost a cycle that is never
    freed, with the fitter's likelihood and events.  Once the fitter is gone
    (its Minuit object still in use) every parameter may move.
    """

    errordef = Likelihood.errordef

    def __init__(self, fitter):
        self._fitter = weakref.ref(fitter)
        self._likelihood = fitter.likelihood
        self.restricted = None

    @property
    def precision(self):
        return self._likelihood.precision

    @property
    def _parameters(self):
        return self._likelihood._parameters

    def _restrict(self):
        fitter = self._fitter()
        if fitter is not None:
            fitter._restrict()
        else:
            self.restricted = self._likelihood.restricted(self._likelihood.parameters.names)

    def _restricted(self):
        if self.restricted is None:
            self._restrict()
        return self.restricted

    def __call__(self, x):
        try:
            return self._restricted()(x)
        except RestrictionError:
            self._restrict()
            return self.restricted(x)

    def grad(self, x):
        try:
            return self._restricted().grad(x)
        except RestrictionError:
            self._restrict()
            return self.restricted.grad(x)


class Fitter:
    """The paper's command sequence on a likelihood: Minuit, stages, results.

    Parameters
    ----------
    likelihood : Likelihood
        The function to minimize, with its fit points and events (events
        may also be added after the fitter is made, before the first stage).
        The deprecated form ``Fitter(parameter_table, precision=...,
        vector_length=..., ...)`` builds it from a
        :class:`~vecampfit.fitter.ParameterTable` and the likelihood's
        arguments (``precision``, ``vector_length``, ``threads``,
        ``thread_policy``, ``extended``, ``on_invalid``, ``unused_parameters``, ``cache``,
        ``release_normalization_events``, ``comm``; see
        :class:`Likelihood`).
    seed : int, optional
        Seed of the random initial values (a non-negative integer); drawn
        from the operating system and printed if not given, so that every
        run can be repeated.  Over MPI ranks, rank 0's.
    randomize : bool
        Start from random values in :math:`(I - R, I + R)` (default True; R = 0
        keeps a parameter at I).
    use_gradient : bool, optional
        Give MIGRAD the analytic gradient (default: when available).
    strategy : {0, 1, 2}
        Minuit strategy (default 1; see the module description for 0 with
        an analytic gradient).
    verbose : bool
        Print the seed and a line per MIGRAD/HESSE/MINOS (on rank 0 only
        over MPI).

    Attributes
    ----------
    likelihood : Likelihood
        The function minimized.
    initial_values : numpy.ndarray
        The starting values (randomized or the table's).
    seed : int
    wall_time, cpu_time : float
        Seconds spent in MIGRAD, HESSE and MINOS (wall clock, CPU time of
        this process).

    Raises
    ------
    TypeError
        ``likelihood`` is neither a Likelihood nor a ParameterTable, or
        likelihood arguments are given with a Likelihood.
    ValueError
        A bad seed, strategy or ``use_gradient``.
    """

    def __init__(self, likelihood, *, seed=None, randomize=True, use_gradient=None, strategy=1,
                 verbose=True, **likelihood_arguments):
        unknown = [k for k in likelihood_arguments if k not in _LIKELIHOOD_ARGUMENTS]
        if unknown:
            raise TypeError(f"Fitter() got unexpected keyword argument(s) {', '.join(unknown)}")
        if isinstance(likelihood, ParameterTable):
            warnings.warn("Fitter(parameter_table, ...) is deprecated: build the likelihood "
                          "first, likelihood = Likelihood(parameter_table, precision=..., "
                          "vector_length=..., ...), add its fit points with "
                          "likelihood.add_point(...), then Fitter(likelihood, seed=...)",
                          DeprecationWarning, stacklevel=2)
            likelihood = Likelihood(likelihood, **likelihood_arguments)
        elif isinstance(likelihood, Likelihood):
            if likelihood_arguments:
                raise TypeError(f"Fitter(likelihood, ...): "
                                f"{', '.join(sorted(likelihood_arguments))} belong to the "
                                f"Likelihood (Likelihood(table, "
                                f"{', '.join(k + '=...' for k in sorted(likelihood_arguments))}))")
        else:
            raise TypeError(f"likelihood must be a vecampfit.fitter.Likelihood, got "
                            f"{type(likelihood).__name__}")
        for name, flag in (("randomize", randomize), ("verbose", verbose)):
            if not (isinstance(flag, (bool, np.bool_)) or
                    (isinstance(flag, (int, np.integer)) and flag in (0, 1))):
                raise TypeError(f"{name} must be True or False, got {flag!r}")
        self.likelihood = likelihood
        parameters = likelihood.parameters
        mpi = likelihood.mpi
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
        self._cost = _StageCost(self)
        self.wall_time = 0.0
        self.cpu_time = 0.0

    # -- Minuit ---------------------------------------------------------------

    @property
    def use_gradient(self):
        """Whether MIGRAD gets the analytic gradient."""
        if self._use_gradient is None:
            return self.likelihood.has_gradient
        return self._use_gradient

    @property
    def minuit(self):
        """The :class:`iminuit.Minuit` object minimizing :attr:`cost` (created
        on first use, with the initial values, the steps and limits of the
        parameter file, parameters of step 0 fixed, and the strategy; events
        are prepared at the first evaluation).  Read the results here:
        ``values``, ``errors``, ``covariance``, ``fval``, ``valid``,
        ``merrors``, ...

        Raises
        ------
        ValueError
            The likelihood has no fit point, or ``use_gradient=True`` and a
            signal density has no gradient function.
        """
        if self._minuit is None:
            lk = self.likelihood
            if not lk.points:
                raise ValueError("the fit has no fit point (likelihood.add_point)")
            if self._use_gradient and not lk.has_gradient:
                raise ValueError("use_gradient=True, but not every signal density has a gradient "
                                 "function")
            names = lk.parameters.names
            m = Minuit(self._cost, self.initial_values.copy(),
                       grad=self._cost.grad if self.use_gradient else False, name=names)
            for p in lk.parameters:
                if p.bounded:
                    m.limits[p.name] = (p.lower, p.upper)
                if p.step > 0:
                    m.errors[p.name] = p.step
                else:
                    m.fixed[p.name] = True
            m.strategy = self._strategy
            self._minuit = m
        return self._minuit

    @property
    def cost(self):
        """The cost function :attr:`minuit` minimizes: the likelihood
        restricted to the parameters free at the last stage command
        (a :class:`~vecampfit.fitter.likelihood.RestrictedLikelihood`; None
        before the first)."""
        return self._cost.restricted

    @property
    def free_parameters(self):
        """Names of the parameters free at the last stage command (None before
        the first)."""
        r = self._cost.restricted
        return None if r is None else r.free_parameters

    def _restrict(self):
        """Restrict the cost to the parameters Minuit has free now."""
        m = self.minuit
        free = [n for n in self.likelihood.parameters.names if not m.fixed[n]]
        self._cost.restricted = self.likelihood.restricted(free)

    # -- fix and release ------------------------------------------------------

    def _index(self, item):
        table = self.likelihood.parameters
        n = len(table)
        if isinstance(item, (int, np.integer)) and not isinstance(item, (bool, np.bool_)):
            if not 0 <= item < n:
                raise IndexError(f"parameter index {item} is out of range: the fit has {n} "
                                 f"parameters (0..{n - 1}) from {table.source}")
            return int(item)
        if isinstance(item, str):
            return table.index(item)
        raise TypeError(f"a parameter is a name or an index, got {item!r}")

    def _names(self, items):
        out = []
        for item in items:
            if isinstance(item, (list, tuple)):
                out.extend(self._names(item))
            else:
                out.append(self.likelihood.parameters[self._index(item)].name)
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
        return [self.likelihood.parameters[k].name for k in range(i, j + 1)]

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
        self._restrict()
        lk = self.likelihood
        t0, c0 = time.perf_counter(), time.process_time()
        calls0 = lk.n_calls
        result = call()
        dt, dc = time.perf_counter() - t0, time.process_time() - c0
        self.wall_time += dt
        self.cpu_time += dc
        if self.verbose:
            m = self.minuit
            print(f"{what}: F = {m.fval:.10g}, valid = {m.valid}, {lk.n_calls - calls0} calls, "
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

    def run(self, *stages):
        """Run stages one after the other (:class:`Stage`): in each, fix every
        parameter (``fix_all``), fix ``fix``, release ``release``, then run
        MIGRAD, HESSE and MINOS as asked.

        Parameters
        ----------
        *stages : Stage

        Returns
        -------
        iminuit.Minuit
        """
        for stage in stages:
            if not isinstance(stage, Stage):
                raise TypeError(f"a stage is a vecampfit.fitter.Stage, got {stage!r}")
        for stage in stages:
            if stage.fix_all:
                self.fix_all()
            if stage.fix:
                self.fix(*stage.fix)
            if stage.release:
                self.release(*stage.release)
            if stage.migrad:
                self.migrad(stage.ncall)
            if stage.hesse:
                self.hesse()
            if stage.minos:
                self.minos(*(() if stage.minos is True else stage.minos))
        return self.minuit

    # -- results --------------------------------------------------------------

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
        points = self.likelihood.points
        if density is not None and point is not None and (
                isinstance(point, (bool, np.bool_)) or not isinstance(point, (int, np.integer))
                or not 0 <= point < len(points)):
            raise IndexError(f"fit point {point!r} does not exist: the fit has {len(points)} "
                             f"point(s)" + (f" (0..{len(points) - 1})" if points else ""))
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

    # -- deprecated: the likelihood's and Minuit's attributes ----------------------

    parameters = _likelihood_attribute("parameters")
    points = _likelihood_attribute("points")

    def point(self, index):
        """Deprecated: ``fitter.likelihood.points[index]``."""
        _deprecated("point(index)", "fitter.likelihood.points[index]")
        n = len(self.likelihood.points)
        if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer)) \
                or not 0 <= index < n:
            raise IndexError(f"fit point {index!r} does not exist: the fit has {n} point(s)"
                             + (f" (0..{n - 1})" if n else ""))
        return self.likelihood.points[int(index)]

    precision = _likelihood_attribute(
        "precision", "density_precision",
        "fitter.likelihood.density_precision (the precision of the densities)")
    vector_length = _likelihood_attribute("vector_length")
    threads = _likelihood_attribute("threads", settable=True)
    extended = _likelihood_attribute("extended")
    n_calls = _likelihood_attribute("n_calls")
    has_gradient = _likelihood_attribute("has_gradient")

    def parameter_index(self, name):
        """Deprecated: ``fitter.likelihood.parameter_index(name)``."""
        _deprecated("parameter_index", "fitter.likelihood.parameter_index")
        return self.likelihood.parameter_index(name)

    def add_point(self, signal, *, normalization="mc", signal_yield=None):
        """Deprecated: ``fitter.likelihood.add_point(...)``."""
        _deprecated("add_point", "fitter.likelihood.add_point (or build the Likelihood first)")
        if self._minuit is not None:
            raise RuntimeError("fit points must be added before the fit starts")
        return self.likelihood.add_point(signal, normalization=normalization,
                                         signal_yield=signal_yield)

    def add_prior(self, name, central, sigma_minus, sigma_plus=None):
        """Deprecated: ``fitter.likelihood.add_prior(...)``."""
        _deprecated("add_prior", "fitter.likelihood.add_prior")
        self.likelihood.add_prior(name, central, sigma_minus, sigma_plus)

    def set_prior_function(self, function, gradient=None):
        """Deprecated: ``fitter.likelihood.set_prior_function(...)``."""
        _deprecated("set_prior_function", "fitter.likelihood.set_prior_function")
        self.likelihood.set_prior_function(function, gradient)

    def evaluate(self, params, gradient=False):
        """Deprecated: ``fitter.likelihood.evaluate(params, gradient)`` (or
        ``fitter.cost.evaluate`` with the restriction of the last stage)."""
        _deprecated("evaluate", "fitter.likelihood.evaluate")
        return self.likelihood.evaluate(params, gradient)

    @property
    def values(self):
        """Deprecated: ``fitter.minuit.values``."""
        _deprecated("values", "fitter.minuit.values (as an array: "
                    "vecampfit.fitter.results.values(fitter.minuit))")
        return results.values(self.minuit)

    @property
    def errors(self):
        """Deprecated: ``fitter.minuit.errors``."""
        _deprecated("errors", "fitter.minuit.errors (with 0 for fixed parameters: "
                    "vecampfit.fitter.results.errors(fitter.minuit))")
        return results.errors(self.minuit)

    def covariance(self, names=None):
        """Deprecated: ``fitter.minuit.covariance``."""
        _deprecated("covariance", "fitter.minuit.covariance (for some parameters, in their "
                    "order: vecampfit.fitter.results.covariance_matrix(fitter.minuit, names))")
        return results.covariance_matrix(self.minuit, names)
