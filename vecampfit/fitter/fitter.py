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

The :class:`iminuit.Minuit` object is :attr:`Fitter.minuit`; everything iminuit
offers (``minos``, ``fixed``, ``limits``, ``strategy``, ...) works on it.

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

from .likelihood import Likelihood
from .parameters import ParameterTable

__all__ = ["Fitter"]


class Fitter(Likelihood):
    """Unbinned maximum-likelihood fit: likelihood, Minuit, results.

    Parameters
    ----------
    parameters : ParameterTable
        Fit parameters (e.g. :func:`read_parameter_file`).
    precision : {"float64", "float32"}
    vector_length : int
    threads : int, optional
        OpenMP threads (default: all CPUs available to this process).
    extended : bool
        Extended fit (yields as parameters).
    seed : int, optional
        Seed of the random initial values; drawn from the operating system
        and printed if not given, so that every run can be repeated.
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
    verbose : bool
        Print the seed and a line per MIGRAD/HESSE call.
    """

    def __init__(self, parameters, *, precision="float64", vector_length=8, threads=None,
                 extended=False, seed=None, randomize=True, use_gradient=None, strategy=1,
                 on_invalid="raise", verbose=True):
        if not isinstance(parameters, ParameterTable):
            raise TypeError(f"parameters must be a ParameterTable (read_parameter_file), got "
                            f"{type(parameters).__name__}")
        super().__init__(parameters, precision=precision, vector_length=vector_length,
                         threads=threads, extended=extended, on_invalid=on_invalid)
        self.verbose = verbose
        if seed is None:
            seed = int.from_bytes(os.urandom(4), "little")
        self.seed = int(seed)
        if verbose:
            print(f"Random seed: {self.seed}")
        rng = np.random.default_rng(self.seed)
        self.initial_values = parameters.randomized_values(rng) if randomize else parameters.values
        self._use_gradient = use_gradient
        self._strategy = strategy
        self._minuit = None
        self._cache_x = None
        self._cache = None
        self.wall_time = 0.0
        self.cpu_time = 0.0

    # -- the function Minuit sees -----------------------------------------------

    def fcn(self, x):
        """:math:`\\mathcal{F}(x)` (the value of a cached gradient call is reused)."""
        x = np.asarray(x, dtype=np.float64)
        if self._cache_x is not None and np.array_equal(x, self._cache_x):
            return self._cache[0]
        value, _ = self.evaluate(x)
        return value

    def grad(self, x):
        """:math:`\\partial\\mathcal{F}/\\partial x` (computes and caches the value too)."""
        x = np.asarray(x, dtype=np.float64)
        if self._cache_x is not None and np.array_equal(x, self._cache_x) \
                and self._cache[1] is not None:
            return self._cache[1]
        value, g = self.evaluate(x, gradient=True)
        self._cache_x = x.copy()
        self._cache = (value, g)
        return g

    @property
    def use_gradient(self):
        """Whether MIGRAD gets the analytic gradient."""
        if self._use_gradient is None:
            return self.has_gradient
        return self._use_gradient

    @property
    def minuit(self):
        """The :class:`iminuit.Minuit` object (created on first use; data are
        prepared then)."""
        if self._minuit is None:
            from iminuit import Minuit
            self.prepare()
            if self._use_gradient and not self.has_gradient:
                raise ValueError("use_gradient=True, but not every signal density has a gradient "
                                 "function")
            grad = self.grad if self.use_gradient else None
            m = Minuit(self.fcn, self.initial_values.copy(), grad=grad,
                       name=self.parameters.names)
            m.errordef = Minuit.LEAST_SQUARES  # F = -2 ln L: one unit is one sigma
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

    def _names(self, items):
        out = []
        for item in items:
            if isinstance(item, (list, tuple)):
                out.extend(self._names(item))
            elif isinstance(item, (int, np.integer)):
                out.append(self.parameters[int(item)].name)
            else:
                self.parameter_index(item)
                out.append(item)
        return out

    def fix(self, *names):
        """Fix parameters (names or indices)."""
        for n in self._names(names):
            self.minuit.fixed[n] = True

    def release(self, *names):
        """Release parameters (names or indices)."""
        for n in self._names(names):
            self.minuit.fixed[n] = False

    def fix_all(self):
        """Fix every parameter."""
        self.minuit.fixed = True

    def release_all(self):
        """Release every parameter."""
        self.minuit.fixed = False

    def _range(self, first, last):
        i = first if isinstance(first, (int, np.integer)) else self.parameter_index(first)
        j = last if isinstance(last, (int, np.integer)) else self.parameter_index(last)
        if not 0 <= i <= j < len(self.parameters):
            raise IndexError(f"parameter range {first}..{last} is empty or out of range")
        return [self.parameters[k].name for k in range(i, j + 1)]

    def fix_range(self, first, last):
        """Fix parameters ``first`` to ``last`` inclusive (names or 0-based indices)."""
        for n in self._range(first, last):
            self.minuit.fixed[n] = True

    def release_range(self, first, last):
        """Release parameters ``first`` to ``last`` inclusive."""
        for n in self._range(first, last):
            self.minuit.fixed[n] = False

    # -- minimization ---------------------------------------------------------

    def _timed(self, what, call):
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
        """Run MIGRAD (and HESSE after it if ``hesse``); returns the Minuit object."""
        m = self.minuit
        self._timed("MIGRAD", lambda: m.migrad(ncall=ncall, iterate=iterate))
        if hesse:
            self.hesse()
        return m

    def hesse(self, ncall=None):
        """Run HESSE (error matrix from numerical second derivatives)."""
        m = self.minuit
        self._timed("HESSE", lambda: m.hesse(ncall=ncall))
        return m

    def minos(self, *names, cl=None, ncall=None):
        """Run MINOS for the given (default: all free) parameters."""
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
        """
        from . import results
        if parameters is not None:
            results.write_result_parameters(self, parameters)
        if text is not None:
            results.write_result_text(self, text)
        if root is not None:
            results.write_result_root(self, root)
        if density is not None:
            results.write_density_root(self, density, point=point)
