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
value does not depend on the number of threads.
"""

import os

import numpy as np

from ._dispatch import kernels as _kernels
from .density import Density, DensityError
from .events import EventBuffer

__all__ = ["AsymmetricGaussianPrior", "Background", "FitPoint", "Likelihood", "LikelihoodError",
           "NORMALIZATIONS"]

#: Normalization methods of a fit point.
NORMALIZATIONS = ("mc", "grid", "formula", "none")

#: Events per chunk of the reduction (a chunk holds max(1, CHUNK_EVENTS // L) blocks).
CHUNK_EVENTS = 2048

#: Bytes of a cache line: rows of per-chunk partial sums are aligned and padded to it.
_CACHE_LINE = 64


def _chunk_partials(n_chunks, n_columns):
    """Zeroed (n_chunks, >= n_columns) float64 array whose rows start on cache lines.

    Chunks run on different threads; rows that shared a cache line would
    move it between the cores at every write (false sharing).
    """
    per_line = _CACHE_LINE // 8
    width = -(-n_columns // per_line) * per_line
    raw = np.zeros(n_chunks * width + per_line)
    start = (-raw.ctypes.data % _CACHE_LINE) // 8
    return raw[start:start + n_chunks * width].reshape(n_chunks, width)


class LikelihoodError(ValueError):
    """The likelihood cannot be computed: a density is NaN, infinite or
    negative, a normalization is not positive, or the argument of a
    logarithm is not positive.  The message names the fit point, the
    density, the event and the parameter values."""


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
        from ..statistics import asymmetric_gaussian_prior
        c, dc = asymmetric_gaussian_prior(p, self.central, self.sigma_minus, self.sigma_plus)
        return float(c), float(dc)


class Background:
    """A background source of a fit point (fixed parameters).

    Attributes
    ----------
    density : Density
    fraction : str
        Name of its fraction parameter (its yield in an extended fit).
    parameters : numpy.ndarray
        The background density's own parameters (fixed during the fit).
    """

    def __init__(self, density, fraction, parameters):
        self.density = density
        self.fraction = fraction
        self.parameters = np.asarray(parameters, dtype=np.float64).reshape(-1)
        self.data_values = None
        self.integral = 1.0
        self.normalized_data_values = None


class FitPoint:
    """One simultaneous-fit point: its signal density, backgrounds, events and
    normalization.  Created by :meth:`Likelihood.add_point`.

    Attributes
    ----------
    index : int
    signal : Density
    normalization : {"mc", "grid", "formula", "none"}
    backgrounds : list of Background
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
        signal.check_fit(lk.precision, lk.vector_length)
        self.data = {id(signal): EventBuffer(signal, lk.precision, lk.vector_length,
                                             f"data of fit point {index}")}
        self.norm = {id(signal): EventBuffer(signal, lk.precision, lk.vector_length,
                                             f"normalization events of fit point {index}")}
        self.prepared = False

    # -- set-up ---------------------------------------------------------------

    def _check_not_loaded(self, what):
        if any(b.n_events for b in self.data.values()) or \
                any(b.n_events for b in self.norm.values()):
            raise RuntimeError(f"fit point {self.index}: {what} must be set before events are "
                               f"loaded")

    def add_background(self, density, fraction, parameters=()):
        """Add a background source.

        Parameters
        ----------
        density : Density
            The background density; its parameters are fixed.
        fraction : str
            Name of the fit parameter that is this source's fraction
            :math:`f_B^{(k)}` (its yield :math:`N_B^{(k)}` in an extended fit).
        parameters : array_like
            The background density's parameters (e.g. from a background fit).

        Returns
        -------
        Background
        """
        self._check_not_loaded("backgrounds")
        if self.normalization == "formula":
            raise ValueError(f"fit point {self.index}: formula normalization is for fits "
                             f"without background (as in the paper)")
        if not isinstance(density, Density):
            raise TypeError("density must be a vecampfit.fitter.Density")
        self._likelihood.parameter_index(fraction)
        lk = self._likelihood
        density.check_fit(lk.precision, lk.vector_length)
        bg = Background(density, fraction, parameters)
        self.backgrounds.append(bg)
        k = len(self.backgrounds)
        self.data[id(density)] = self.data.get(id(density)) or EventBuffer(
            density, lk.precision, lk.vector_length, f"data of fit point {self.index} "
            f"(background {k})")
        if self.normalization in ("mc", "grid"):
            self.norm[id(density)] = self.norm.get(id(density)) or EventBuffer(
                density, lk.precision, lk.vector_length, f"normalization events of fit point "
                f"{self.index} (background {k})")
        return bg

    def set_integral_function(self, function, gradient=None):
        """Formula normalization: :math:`I(p) = \\int S(\\Phi, p)\\,d\\Phi`.

        Parameters
        ----------
        function : callable
            ``function(params) -> float`` (params: float64 array of all fit
            parameters).
        gradient : callable, optional
            ``gradient(params) -> array`` of :math:`\\partial I/\\partial p`
            (all parameters); needed for the analytic gradient.
        """
        if self.normalization != "formula":
            raise ValueError(f"fit point {self.index}: an integral function is only used with "
                             f"formula normalization (this point uses {self.normalization!r})")
        self.integral_function = function
        self.integral_gradient = gradient

    def add_data(self, records, weights=None):
        """Append data events (a chunk of event records, dict of arrays)."""
        if self.prepared:
            raise RuntimeError(f"fit point {self.index}: already prepared")
        for buf in self.data.values():
            buf.append(records, weights)

    def add_normalization_events(self, records, weights=None):
        """Append normalization events: MC events, or grid points with their
        weights (integration weight times Jacobian)."""
        if self.prepared:
            raise RuntimeError(f"fit point {self.index}: already prepared")
        if self.normalization not in ("mc", "grid"):
            raise ValueError(f"fit point {self.index}: {self.normalization!r} normalization "
                             f"takes no normalization events")
        if self.normalization == "grid" and weights is None:
            raise ValueError(f"fit point {self.index}: grid points need weights (integration "
                             f"weight times Jacobian)")
        for buf in self.norm.values():
            buf.append(records, weights)

    def load_data_file(self, path, tree="tree", branches=None, *, weight_branch=None,
                       map_records=None, step_size="100 MB"):
        """Load data events from a ROOT tree (in chunks); see :func:`vecampfit.root_io.iterate_events`."""
        from ..root_io import iterate_events
        for records, weights in iterate_events(path, tree, branches, weight_branch=weight_branch,
                                               map_records=map_records, step_size=step_size):
            self.add_data(records, weights)
        self.data_source = dict(path=os.fspath(path), tree=tree, branches=branches,
                                weight_branch=weight_branch, map_records=map_records)

    def load_normalization_file(self, path, tree="tree", branches=None, *, weight_branch=None,
                                map_records=None, step_size="100 MB"):
        """Load normalization events from a ROOT tree (in chunks)."""
        from ..root_io import iterate_events
        for records, weights in iterate_events(path, tree, branches, weight_branch=weight_branch,
                                               map_records=map_records, step_size=step_size):
            self.add_normalization_events(records, weights)

    # -- preparation ----------------------------------------------------------

    def prepare(self):
        """Freeze the buffers and compute the backgrounds (values at the data
        events, normalization)."""
        if self.prepared:
            return
        lk = self._likelihood
        for buf in self.data.values():
            buf.freeze()
        needs_norm = self.normalization in ("mc", "grid")
        for buf in self.norm.values():
            buf.freeze(require_events=needs_norm)
        if self.normalization == "formula" and self.integral_function is None:
            raise ValueError(f"fit point {self.index}: formula normalization needs an integral "
                             f"function (set_integral_function)")
        self.data_events = self.data[id(self.signal)]
        self.norm_events = self.norm[id(self.signal)]
        n_pad = self.data_events.n_blocks * lk.vector_length
        self.background_matrix = np.zeros((len(self.backgrounds), n_pad))
        for k, bg in enumerate(self.backgrounds):
            what = f"fit point {self.index}: background {k + 1} ({bg.density.name!r})"
            pbuf = lk._background_parameter_buffer(bg)
            values = lk._values(bg.density, self.data[id(bg.density)], bg.parameters, pbuf)
            lk._check_values(values[:self.data_events.n_events], what, "data", bg.parameters,
                             background=True)
            bg.data_values = values[:self.data_events.n_events].astype(np.float64)
            if needs_norm:
                nbuf = self.norm[id(bg.density)]
                nvalues = lk._values(bg.density, nbuf, bg.parameters, pbuf)[:nbuf.n_events]
                lk._check_values(nvalues, what, "normalization", bg.parameters, background=True)
                w = nbuf.padded_weights[:nbuf.n_events]
                bg.integral = float(np.dot(w, nvalues.astype(np.float64)))
                if not (bg.integral > 0 and np.isfinite(bg.integral)):
                    raise LikelihoodError(f"{what}: normalization integral is {bg.integral}")
            bg.normalized_data_values = bg.data_values / bg.integral
            self.background_matrix[k, :self.data_events.n_events] = bg.normalized_data_values
        self.prepared = True


class Likelihood:
    """The function :math:`\\mathcal{F}(p)` to minimize (module description).

    Parameters
    ----------
    parameters : ParameterTable
        All fit parameters (signal parameters, fractions or yields).
    precision : {"float64", "float32"}
        Precision of the densities; sums are always accumulated in float64.
    vector_length : int
        ``L`` of the block densities.
    threads : int, optional
        OpenMP threads for block densities (default: the CPUs this process
        may run on).
    extended : bool
        Extended maximum-likelihood fit (yields instead of fractions).
    on_invalid : {"raise", "large"}
        On a NaN, infinite or negative density, or a non-positive
        normalization: raise :class:`LikelihoodError` (default), or return a
        large value (``LARGE_VALUE``) so that MIGRAD steps back.
    """

    LARGE_VALUE = 1e30

    def __init__(self, parameters, *, precision="float64", vector_length=8, threads=None,
                 extended=False, on_invalid="raise"):
        if precision not in ("float32", "float64"):
            raise ValueError(f"precision must be 'float32' or 'float64', got {precision!r}")
        if int(vector_length) < 1:
            raise ValueError(f"vector_length must be positive, got {vector_length}")
        if on_invalid not in ("raise", "large"):
            raise ValueError(f"on_invalid must be 'raise' or 'large', got {on_invalid!r}")
        self.parameters = parameters
        self.precision = precision
        self.dtype = np.dtype(precision)
        self.vector_length = int(vector_length)
        self.threads = threads
        self.extended = bool(extended)
        self.on_invalid = on_invalid
        self.points = []
        self.priors = []
        self.user_prior = None
        self.user_prior_gradient = None
        self._buffers = {}
        self.n_calls = 0

    # -- configuration --------------------------------------------------------

    @property
    def threads(self):
        """Number of OpenMP threads used by block densities."""
        return self._threads

    @threads.setter
    def threads(self, n):
        if n is None:
            try:
                n = len(os.sched_getaffinity(0))
            except AttributeError:
                n = os.cpu_count() or 1
        n = int(n)
        if n < 1:
            raise ValueError(f"threads must be >= 1, got {n}")
        self._threads = n

    def parameter_index(self, name):
        """Index of a parameter (KeyError naming close names if unknown)."""
        return self.parameters.index(name)

    def add_point(self, signal, *, normalization="mc", signal_yield=None):
        """Add a fit point.

        Parameters
        ----------
        signal : Density
        normalization : {"mc", "grid", "formula", "none"}
        signal_yield : str, optional
            Extended fits: name of the signal-yield parameter of this point.

        Returns
        -------
        FitPoint
        """
        if self.extended:
            if signal_yield is None:
                raise ValueError("an extended fit needs the name of the signal-yield parameter")
            self.parameter_index(signal_yield)
        elif signal_yield is not None:
            raise ValueError("signal_yield is for extended fits (Likelihood(extended=True))")
        point = FitPoint(self, len(self.points), signal, normalization, signal_yield)
        self.points.append(point)
        return point

    def add_prior(self, name, central, sigma_minus, sigma_plus=None):
        """Add an asymmetric-Gaussian prior (see :class:`AsymmetricGaussianPrior`)."""
        self.parameter_index(name)
        self.priors.append(AsymmetricGaussianPrior(name, central, sigma_minus, sigma_plus))

    def set_prior_function(self, function, gradient=None):
        """User prior :math:`C(p)`: ``function(params) -> float``, optional
        ``gradient(params) -> array``."""
        self.user_prior = function
        self.user_prior_gradient = gradient

    def prepare(self):
        """Freeze all event buffers and compute the backgrounds."""
        if not self.points:
            raise ValueError("the likelihood has no fit point")
        for p in self.points:
            p.prepare()

    @property
    def has_gradient(self):
        """True if every signal density has a gradient function (and every
        formula normalization an integral gradient), and the user prior has a
        gradient if set."""
        ok = all(p.signal.has_gradient and (p.normalization != "formula"
                                            or p.integral_gradient is not None)
                 for p in self.points)
        return ok and (self.user_prior is None or self.user_prior_gradient is not None)

    # -- helpers --------------------------------------------------------------

    def _chunk_blocks(self):
        return max(1, CHUNK_EVENTS // self.vector_length)

    def _parameter_buffer(self, density, params_t):
        """Fill the density's parameter buffer for these parameters; return (array, address)."""
        size = density.parameter_buffer_size
        buf = self._buffers.get(id(density))
        if buf is None or buf.shape[0] != max(size, 1):
            buf = np.zeros(max(size, 1), dtype=self.dtype)
            self._buffers[id(density)] = buf
        fill = density.fill_parameter_buffer
        if fill is not None:
            if density.fill_parameter_buffer_pointer:
                _kernels.fill_parameter_buffer(density.fill_parameter_buffer_pointer, buf,
                                               params_t)
            else:
                fill(params_t, buf[:size])
        return buf

    def _background_parameter_buffer(self, bg):
        params = np.ascontiguousarray(bg.parameters if bg.parameters.size else np.zeros(1),
                                      dtype=self.dtype)
        size = bg.density.parameter_buffer_size
        buf = np.zeros(max(size, 1), dtype=self.dtype)
        fill = bg.density.fill_parameter_buffer
        if fill is not None:
            if bg.density.fill_parameter_buffer_pointer:
                _kernels.fill_parameter_buffer(bg.density.fill_parameter_buffer_pointer, buf,
                                               params)
            else:
                fill(params, buf[:size])
        return buf

    def _values(self, density, buffer, params, pbuf):
        """Density values at all events of ``buffer`` (padded length for block form)."""
        params_t = np.ascontiguousarray(params if np.size(params) else np.zeros(1),
                                        dtype=self.dtype)
        if density.kind == "python":
            v = np.asarray(density.function(buffer.fields, params_t), dtype=np.float64)
            if v.shape != (buffer.n_events,):
                raise DensityError(f"{density.name}: returned shape {v.shape}, expected "
                                   f"({buffer.n_events},)")
            return v
        out = np.empty(buffer.n_blocks * self.vector_length, dtype=self.dtype)
        _kernels.density_values(buffer.blocks, buffer.n_events, self.vector_length, params_t,
                                pbuf.ctypes.data, density.function_pointer, out,
                                self._chunk_blocks(), self.threads)
        return out

    def _describe(self, params):
        names = self.parameters.names
        if len(params) != len(names):
            return np.array2string(np.asarray(params), precision=10)
        return ", ".join(f"{n}={v:.10g}" for n, v in zip(names, params))

    def _check_values(self, values, what, where, params, background=False):
        bad = ~np.isfinite(values) | (values < 0)
        if np.any(bad):
            j = int(np.flatnonzero(bad)[0])
            pdesc = (np.array2string(np.asarray(params), precision=10) if background
                     else self._describe(params))
            raise LikelihoodError(f"{what}: density is {values[j]} at {where} event {j} "
                                  f"(parameters: {pdesc})")

    def _fail(self, message):
        if self.on_invalid == "raise":
            raise LikelihoodError(message)
        return None

    # -- evaluation -----------------------------------------------------------

    def _normalization(self, point, x, xt, pbuf, n_grad, want_gradient):
        """I_S and (if wanted) G = dI_S/dp[:n_grad] for one point."""
        what = f"fit point {point.index}: signal density {point.signal.name!r}"
        if point.normalization == "none":
            return 1.0, np.zeros(n_grad)
        if point.normalization == "formula":
            integral = float(point.integral_function(x.copy()))
            g = np.zeros(n_grad)
            if want_gradient:
                gi = np.asarray(point.integral_gradient(x.copy()), dtype=np.float64)
                g = gi
            if not (integral > 0 and np.isfinite(integral)):
                return self._fail(f"{what}: integral function is {integral} (parameters: "
                                  f"{self._describe(x)})"), None
            return integral, g
        buf = point.norm_events
        dens = point.signal
        if dens.kind == "python":
            if want_gradient:
                v, gr = dens.gradient(buf.fields, xt)
                gr = np.asarray(gr, dtype=np.float64)[:n_grad]
            else:
                v, gr = dens.function(buf.fields, xt), None
            v = np.asarray(v, dtype=np.float64)
            bad = ~np.isfinite(v) | (v < 0)
            if np.any(bad):
                j = int(np.flatnonzero(bad)[0])
                return self._fail(f"{what}: density is {v[j]} at normalization event {j} "
                                  f"(parameters: {self._describe(x)})"), None
            w = buf.padded_weights[:buf.n_events]
            integral = float(np.dot(w, v))
            g = gr @ w if want_gradient else np.zeros(n_grad)
        else:
            cb = self._chunk_blocks()
            n_chunks = (buf.n_blocks + cb - 1) // cb
            ng = n_grad if want_gradient else 0
            partials = _chunk_partials(n_chunks, 1 + ng)
            bad = np.empty(n_chunks, dtype=np.intp)
            _kernels.normalization_sums(
                buf.blocks, buf.n_events, self.vector_length, xt, pbuf.ctypes.data,
                dens.function_pointer, dens.gradient_pointer if want_gradient else 0, ng,
                buf.padded_weights if buf.weights is not None else np.zeros(0), partials, bad,
                cb, self.threads)
            message = self._kernel_problem(bad, dens, buf, xt, pbuf, x, what, "normalization")
            if message:
                return self._fail(message), None
            sums = partials.sum(axis=0)[:1 + ng]
            integral = float(sums[0])
            g = sums[1:] if want_gradient else np.zeros(n_grad)
        if not (integral > 0 and np.isfinite(integral)):
            return self._fail(f"{what}: normalization integral is {integral} (parameters: "
                              f"{self._describe(x)})"), None
        return integral, g

    def _kernel_problem(self, bad, dens, buf, xt, pbuf, x, what, where, term=None):
        if np.any(bad == -2):
            raise MemoryError(f"{what}: could not allocate work arrays in the likelihood kernel")
        hit = bad[bad >= 0]
        if hit.size == 0:
            return None
        j = int(hit.min())
        b = j // self.vector_length
        out = np.empty(self.vector_length, dtype=self.dtype)
        _kernels.density_values(buf.blocks[b:b + 1], self.vector_length, self.vector_length, xt,
                                pbuf.ctypes.data, dens.function_pointer, out, 1, 1)
        v = out[j % self.vector_length]
        if np.isfinite(v) and v >= 0:
            return (f"{what}: the likelihood argument is not positive at {where} event {j} "
                    f"(signal density {v}{term or ''}; parameters: {self._describe(x)})")
        return f"{what}: density is {v} at {where} event {j} (parameters: {self._describe(x)})"

    def _fractions(self, point, x):
        """(f_S, f_B array, yields or None)."""
        nb = len(point.backgrounds)
        if self.extended:
            ns = x[self.parameter_index(point.signal_yield)]
            nbk = np.array([x[self.parameter_index(bg.fraction)] for bg in point.backgrounds])
            total = ns + nbk.sum()
            return ns / total, nbk / total, (ns, nbk, total)
        fb = np.array([x[self.parameter_index(bg.fraction)] for bg in point.backgrounds]) \
            if nb else np.zeros(0)
        return 1.0 - fb.sum(), fb, None

    def evaluate(self, params, gradient=False):
        """:math:`\\mathcal{F}` and, if asked, its gradient.

        Parameters
        ----------
        params : array_like
            All fit parameters (float64).
        gradient : bool
            Also compute :math:`\\partial\\mathcal{F}/\\partial p` (needs
            gradient functions, see :attr:`has_gradient`).

        Returns
        -------
        value : float
        grad : numpy.ndarray or None

        Raises
        ------
        LikelihoodError
            See the class description (with ``on_invalid="raise"``).
        """
        x = np.array(params, dtype=np.float64).reshape(-1)
        n = len(self.parameters)
        if x.shape != (n,):
            raise ValueError(f"expected {n} parameters, got {x.shape[0]}")
        if gradient and not self.has_gradient:
            raise ValueError("the analytic gradient needs a density-with-gradient function for "
                             "every signal (and an integral gradient for formula normalization)")
        for p in self.points:
            if not p.prepared:
                self.prepare()
                break
        self.n_calls += 1
        xt = x.astype(self.dtype)
        total = 0.0
        grad = np.zeros(n) if gradient else None
        pbufs = {}
        for point in self.points:
            dens = point.signal
            if id(dens) not in pbufs:
                pbufs[id(dens)] = self._parameter_buffer(dens, xt)
            pbuf = pbufs[id(dens)]
            n_grad = min(dens.n_gradient_parameters or n, n)
            integral, g_norm = self._normalization(point, x, xt, pbuf, n_grad, gradient)
            if g_norm is None:
                return self.LARGE_VALUE, (np.zeros(n) if gradient else None)
            f_s, f_b, yields = self._fractions(point, x)
            scale = f_s / integral
            r = self._data_sums(point, x, xt, pbuf, scale, f_b, n_grad, gradient)
            if r is None:
                return self.LARGE_VALUE, (np.zeros(n) if gradient else None)
            value, c1, cb, a = r
            total += value
            data = point.data_events
            if yields is not None:
                ns, nbk, ntot = yields
                total += 2 * (ntot - data.weight_sum * np.log(ntot))
            if not gradient:
                continue
            # Signal parameters: (f_S / I_S) (A - G c1 / I_S).
            grad[:n_grad] += (f_s / integral) * (a - g_norm[:n_grad] * c1 / integral)
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
                grad += np.asarray(self.user_prior_gradient(x.copy()), dtype=np.float64)
        return float(total), grad

    def _data_sums(self, point, x, xt, pbuf, scale, f_b, n_grad, gradient):
        dens = point.signal
        buf = point.data_events
        what = f"fit point {point.index}: signal density {dens.name!r}"
        nb = len(point.backgrounds)
        if dens.kind == "python":
            if gradient:
                v, gr = dens.gradient(buf.fields, xt)
                gr = np.asarray(gr, dtype=np.float64)[:n_grad]
            else:
                v, gr = dens.function(buf.fields, xt), None
            v = np.asarray(v, dtype=np.float64)
            nev = buf.n_events
            term = scale * v
            if nb:
                term = term + f_b @ point.background_matrix[:, :nev]
            bad = ~np.isfinite(v) | (v < 0) | ~(term > 0) | ~np.isfinite(term)
            if np.any(bad):
                j = int(np.flatnonzero(bad)[0])
                if np.isfinite(v[j]) and v[j] >= 0:
                    msg = (f"{what}: the likelihood argument is {term[j]} at data event {j} "
                           f"(signal density {v[j]}; parameters: {self._describe(x)})")
                else:
                    msg = (f"{what}: density is {v[j]} at data event {j} (parameters: "
                           f"{self._describe(x)})")
                return self._fail(msg)
            w = buf.padded_weights[:nev]
            value = float(np.sum(-2 * w * np.log(term)))
            r = -2 * w / term
            c1 = float(np.dot(r, v))
            cb = point.background_matrix[:, :nev] @ r if nb else np.zeros(0)
            a = gr @ r if gradient else None
            return value, c1, cb, a
        cb_ = self._chunk_blocks()
        n_chunks = (buf.n_blocks + cb_ - 1) // cb_
        ng = n_grad if gradient else 0
        partials = _chunk_partials(n_chunks, 2 + nb + ng)
        bad = np.empty(n_chunks, dtype=np.intp)
        _kernels.data_sums(
            buf.blocks, buf.n_events, self.vector_length, xt, pbuf.ctypes.data,
            dens.function_pointer, dens.gradient_pointer if gradient else 0, ng,
            buf.padded_weights if buf.weights is not None else np.zeros(0),
            point.background_matrix, scale, np.ascontiguousarray(f_b, dtype=np.float64),
            partials, bad, cb_, self.threads)
        message = self._kernel_problem(bad, dens, buf, xt, pbuf, x, what, "data")
        if message:
            return self._fail(message)
        sums = partials.sum(axis=0)[:2 + nb + ng]
        return float(sums[0]), float(sums[1]), sums[2:2 + nb], (sums[2 + nb:] if gradient
                                                                 else None)

    def signal_values(self, point, params, where="data"):
        """Signal density at the data (or normalization) events of a point
        (float64 array), for result files and plots."""
        x = np.asarray(params, dtype=np.float64)
        xt = x.astype(self.dtype)
        pbuf = self._parameter_buffer(point.signal, xt)
        buf = point.data_events if where == "data" else point.norm_events
        return np.asarray(self._values(point.signal, buf, xt, pbuf)[:buf.n_events],
                          dtype=np.float64)
