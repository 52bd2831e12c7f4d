"""Fit fractions and interference fractions of isobar models, with errors.

With :math:`Y_k = c_k X_k` the term of component ``k`` and a normalization
sample of events ``j`` with weights :math:`w_j` (Monte Carlo events
uniform in phase space with weight 1, or grid points with their
integration weights),

.. math::

    D = \\sum_j w_j \\Big|\\sum_k Y_{kj}\\Big|^2,\\qquad
    F_{kk} = \\frac{1}{D} \\sum_j w_j |Y_{kj}|^2,\\qquad
    F_{kl} = \\frac{2}{D} \\sum_j w_j\\, \\mathrm{Re}(Y_{kj} \\overline{Y_{lj}})
    \\quad (k \\ne l),

so that :math:`\\sum_k F_{kk} + \\sum_{k<l} F_{kl} = 1`: the fit fractions
on the diagonal, the interference fractions off it (symmetric matrix).

Two uncertainties are reported separately:

* from the fit: :math:`\\sigma^2(F) = J V J^T`, ``V`` the parameters'
  covariance matrix and ``J`` the derivatives of ``F`` by the parameters
  (central differences of the component amplitudes);
* from the finite normalization sample (Monte Carlo events drawn
  independently): with :math:`F = N/D`, :math:`N = \\sum_j w_j n_j`, the
  delta method gives
  :math:`\\sigma^2_{norm}(F) = \\sum_j w_j^2 (n_j - F d_j)^2 / D^2`,
  :math:`d_j = |\\sum_k Y_{kj}|^2`.  It does not apply to a grid, whose error
  is not statistical.
"""

import numpy as np

from ..fractions import covariance_matrix

__all__ = ["FitFractions", "component_densities", "fit_fractions", "unit_normalization"]


class FitFractions:
    """Fit fractions, interference fractions and their uncertainties.

    Attributes
    ----------
    components : tuple of str
        Component keys, the order of the matrix rows.
    matrix : numpy.ndarray
        (K, K): fit fractions on the diagonal, interference fractions off it.
    errors : numpy.ndarray or None
        (K, K) uncertainties from the covariance matrix.
    normalization_errors : numpy.ndarray
        (K, K) statistical uncertainties from the normalization sample.
    """

    def __init__(self, components, matrix, errors, normalization_errors):
        self.components = tuple(components)
        self.matrix = matrix
        self.errors = errors
        self.normalization_errors = normalization_errors

    @property
    def fractions(self):
        """Fit fractions, component key -> value."""
        return dict(zip(self.components, np.diag(self.matrix)))

    @property
    def total(self):
        """Sum of the fit fractions."""
        return float(np.trace(self.matrix))

    def table(self, labels=None, normalization_errors=True):
        """Text table of the fit fractions in percent: one line per
        component (its key, its label, the fraction, its error from the
        covariance matrix, and its error from the normalization sample),
        then their sum.

        Parameters
        ----------
        labels : dict of str to str, optional
            Component key -> label, printed after the key.
        normalization_errors : bool
            Print the column of errors from the normalization sample (leave
            it out for a grid, whose error is not statistical).

        Returns
        -------
        str
        """
        labels = labels or {}
        head = f"{'component':24s} {'fraction %':>11s} {'fit err':>9s}"
        lines = [head + (f" {'norm err':>9s}" if normalization_errors else "")]
        for k, c in enumerate(self.components):
            e = f"{100 * self.errors[k, k]:9.3f}" if self.errors is not None else f"{'-':>9s}"
            name = f"{c} {labels.get(c, '')}".strip()
            line = f"{name:24s} {100 * self.matrix[k, k]:11.3f} {e}"
            if normalization_errors:
                line += f" {100 * self.normalization_errors[k, k]:9.3f}"
            lines.append(line)
        lines.append(f"{'sum':24s} {100 * self.total:11.3f}")
        return "\n".join(lines)

    def summary(self):
        """One line: every component's fit fraction and its error from the
        covariance matrix, in percent (``"A 12.30 +- 0.41, B ... %"``)."""
        return ", ".join(f"{c} {100 * self.matrix[k, k]:.2f}"
                         + (f" +- {100 * self.errors[k, k]:.2f}" if self.errors is not None
                            else "")
                         for k, c in enumerate(self.components)) + " %"


def _matrix(x, c, w):
    """Fraction matrix and normalization-sample errors from X (K, n), c (K,), w (n,)."""
    y = c[:, None] * x
    a = y.sum(axis=0)
    d = np.abs(a) ** 2
    den = float(np.dot(w, d))
    if not den > 0:
        raise ValueError("fit fractions: the integral of |A|^2 over the normalization sample "
                         "is not positive")
    k = len(c)
    m = np.empty((k, k))
    err = np.empty((k, k))
    for i in range(k):
        for j in range(i, k):
            n = (y[i] * y[j].conj()).real * (1 if i == j else 2)
            f = float(np.dot(w, n)) / den
            m[i, j] = m[j, i] = f
            err[i, j] = err[j, i] = np.sqrt(np.dot(w * w, (n - f * d) ** 2)) / den
    return m, err


def _gram(x, w):
    """G_kl = sum_e w_e X_k(e) conj(X_l(e)) of component amplitudes X (K, n)."""
    return (x * w) @ x.conj().T


def _matrix_from_gram(g, c):
    """The fraction matrix of :func:`_matrix` from the Gram matrix ``g``:
    :math:`F_{kl} = (2 - \\delta_{kl})\\,\\mathrm{Re}(c_k \\bar c_l G_{kl}) / \\mathrm{Re}(c^T G \\bar c)`,
    no pass over the events (the Jacobian's coupling derivatives)."""
    t = (c[:, None] * c.conj()[None, :] * g).real
    den = float(t.sum())
    if not den > 0:
        raise ValueError("fit fractions: the integral of |A|^2 over the normalization sample "
                         "is not positive")
    return t * (2 - np.eye(len(c))) / den


def component_densities(model, records, params=None, constants=None):
    """Each component's term alone and the whole density at events.

    .. math::

        S_k = |c_k X_k|^2, \\qquad S = \\Big|\\sum_k c_k X_k\\Big|^2,

    so that :math:`S_k / S` is the share of component ``k`` at an event
    (the interference terms make :math:`\\sum_k S_k \\ne S` in general).
    Projection plots weight the fit's events with it
    (:func:`vecampfit.plotting.projection`); the fit fractions are its
    integrals, :math:`F_{kk} = \\sum_j w_j S_{kj} / \\sum_j w_j S_j`.

    Parameters
    ----------
    model : CompiledIsobarModel or IsobarModel
        Evaluated in numpy (the declared model).
    records : dict of array_like
        Event records, as for the density.
    params : dict or array_like, optional
        Parameter values (default: the model's starting values); a dict
        may hold other parameters of the fit, which are ignored.
    constants : dict, optional

    Returns
    -------
    components : dict of str to numpy.ndarray
        Component key -> :math:`S_k` per event (the density's unit).
    total : numpy.ndarray
        :math:`S` per event.
    """
    declared = getattr(model, "model", model)
    values = declared.values()
    if params is not None:
        if isinstance(params, dict):
            # Other parameters of the fit (background fractions) are not the model's.
            values.update({k: float(v) for k, v in params.items() if k in values})
        else:
            names = declared.parameter_names()
            p = np.asarray(params, dtype=np.float64).reshape(-1)
            if p.size != len(names):
                raise ValueError(f"params: {p.size} values for the model's {len(names)} "
                                 f"parameters {names}")
            values.update(zip(names, p.tolist()))
    x = declared.component_amplitudes(records, values, constants)
    c = declared.couplings(values, constants)
    terms = {k: c[k] * x[k] for k in x}
    a = sum(terms.values())
    return ({k: t.real ** 2 + t.imag ** 2 for k, t in terms.items()}, a.real ** 2 + a.imag ** 2)


def unit_normalization(model, records, weights=None, params=None, constants=None):
    """Scale constants that give every component unit integral.

    A coupling declared with a constant scale,
    ``Cartesian(re, im, scale=Constant("N_K", 1.0))``, is
    :math:`c_k = n_k (\\mathrm{re} + i\\,\\mathrm{im})`.  With

    .. math::

        n_k = \\Big(\\sum_j w_j |X_k(x_j)|^2\\Big)^{-1/2}

    over a normalization sample (MC events of weight 1 per unit phase
    space, or the points and weights of a grid) the term
    :math:`|n_k X_k|^2` integrates to one, so that :math:`|\\mathrm{re} +
    i\\,\\mathrm{im}|^2` is the integral of the component alone: the
    convention of Laura++, which normalizes every component so.  The
    constants are computed once (at ``params``, usually the starting
    values); a fit that moves masses or widths keeps them fixed.

    Parameters
    ----------
    model : CompiledIsobarModel or IsobarModel
        Evaluated in numpy (the declared model).
    records : dict of array_like
        Normalization events or grid points (event records).
    weights : array_like, optional
        Their weights :math:`w_j` (default 1).
    params : dict or array_like, optional
        Parameter values (default: the model's starting values).
    constants : dict, optional
        Other constants (masses) for the evaluation.

    Returns
    -------
    dict of str to float
        Scale-constant name -> :math:`n_k`, for every component whose
        coupling has a scale; pass it as ``constants`` to the density.

    Raises
    ------
    ValueError
        No component has a scale constant, the weights do not match the
        records, or a component's integral is not positive (a component
        that vanishes on the sample).
    """
    declared = getattr(model, "model", model)
    scaled = [c for c in declared.components if c.scale is not None]
    if not scaled:
        raise ValueError(f"model {declared.name!r}: no coupling has a scale constant "
                         f"(Cartesian(..., scale=Constant('N_<key>', 1.0)))")
    values = declared.values()
    if params is not None:
        if isinstance(params, dict):
            values.update({k: float(v) for k, v in params.items() if k in values})
        else:
            values.update(zip(declared.parameter_names(),
                              np.asarray(params, dtype=np.float64).tolist()))
    x = declared.component_amplitudes(records, values, constants)
    n = len(next(iter(x.values())))
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    if w.shape != (n,):
        raise ValueError(f"weights: expected shape ({n},), got {w.shape}")
    out = {}
    for c in scaled:
        integral = float(np.dot(w, x[c.key].real ** 2 + x[c.key].imag ** 2))
        if not integral > 0:
            raise ValueError(f"component {c.key!r}: the integral of |X|^2 over the sample is "
                             f"{integral!r}, not positive")
        out[c.scale.name] = 1 / np.sqrt(integral)
    return out


def fit_fractions(model, records, weights=None, params=None, covariance=None,
                  covariance_names=None, constants=None, relative_step=1e-5):
    """Fit fractions and interference fractions of an isobar model.

    Parameters
    ----------
    model : CompiledIsobarModel or IsobarModel
        A compiled model (its component kernel, fast) or the declared model
        (numpy evaluation).
    records : dict of array_like
        Normalization events (event records, as for the density).
    weights : array_like, optional
        Event weights (default 1).
    params : dict or array_like, optional
        Parameter values (default: the model's starting values).
    covariance : array_like, optional
        Covariance matrix of the parameters named by ``covariance_names``
        (default: all model parameters, in order).
    covariance_names : sequence of str, optional
    constants : dict, optional
    relative_step : float
        Step of the central differences, relative to :math:`\\max(|p|, 1)`.

    Returns
    -------
    FitFractions
    """
    declared = getattr(model, "model", model)
    names = declared.parameter_names()
    values = declared.values()
    if params is not None:
        if isinstance(params, dict):
            values.update({k: float(v) for k, v in params.items()})
        else:
            values.update(zip(names, np.asarray(params, dtype=np.float64).tolist()))

    compiled = hasattr(model, "modules")

    def components(vals):
        if compiled:
            # The compiled kernel's X_k include the couplings' constant scales.
            return model.component_amplitudes(records, vals, constants)
        d = declared.component_amplitudes(records, vals, constants)
        return np.array([d[c.key] for c in declared.components])

    def couplings(vals):
        cs = declared.couplings(vals, constants, scale=not compiled)
        return np.array([cs[c.key] for c in declared.components])

    x = components(values)
    w = np.ones(x.shape[1]) if weights is None else np.asarray(weights, dtype=np.float64)
    if w.shape != (x.shape[1],):
        raise ValueError(f"weights: expected shape ({x.shape[1]},), got {w.shape}")
    m, norm_err = _matrix(x, couplings(values), w)
    errors = None
    if covariance is not None:
        cov, cov_names = covariance_matrix(covariance, covariance_names or names, values)
        jac = np.zeros((len(cov_names),) + m.shape)
        gram = _gram(x, w)
        for k, p in enumerate(cov_names):
            if not np.any(cov[k]):
                continue
            h = relative_step * max(abs(values[p]), 1.0)
            out = []
            shape_param = any(p in c.parameter_names() for c in declared.components)
            for sign in (1, -1):
                v = dict(values)
                v[p] = values[p] + sign * h
                # a coupling moves the fractions through the Gram matrix alone
                out.append(_matrix_from_gram(_gram(components(v), w) if shape_param else gram,
                                             couplings(v)))
            jac[k] = (out[0] - out[1]) / (2 * h)
        errors = np.sqrt(np.maximum(np.einsum("kij,kl,lij->ij", jac, cov, jac), 0))
    return FitFractions([c.key for c in declared.components], m, errors, norm_err)
