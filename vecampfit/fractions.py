"""Fractions of any density whose amplitude is linear in some parameters,
with errors from the fit's covariance matrix.

A model's component (a resonance, a decay channel, a group of partial
waves) is, for many models, what remains of the density when the
parameters of the other components are set to zero: the amplitude is
linear in its couplings (or in the real and imaginary parts of its waves).
With :math:`P_c` the diagonal projection that sets those parameters to
zero, the fraction of component ``c`` over a normalization sample
(phase-space events :math:`x_k` with weights :math:`w_k`, or the points of a
grid) is

.. math::

    F_c = \\frac{\\sum_k w_k\\, S(x_k; P_c p)}{\\sum_k w_k\\, S(x_k; p)},

its derivatives by the parameters (from the density's analytic gradient)

.. math::

    \\frac{\\partial F_c}{\\partial p} = \\frac{P_c \\sum_k w_k \\nabla S(x_k; P_c p)
        - F_c \\sum_k w_k \\nabla S(x_k; p)}{\\sum_k w_k\\, S(x_k; p)},

and its error :math:`\\sigma_F^2 = J C J^T` with the covariance matrix ``C``
of the fit.  This works for every :class:`~vecampfit.fitter.Density` with a
gradient (a numpy function, a Cython model, the isobar layer); for isobar
models :func:`vecampfit.isobar.fit_fractions` also gives the interference
fractions and the error from the finite normalization sample.
"""

from dataclasses import dataclass, field

import numpy as np

__all__ = ["Fractions", "covariance_matrix", "fractions"]


def covariance_matrix(covariance, names, known, owner="the model"):
    """A fit's covariance matrix checked against the parameters it is for.

    Parameters
    ----------
    covariance : array_like
        (n, n) covariance of the fit parameters ``names`` (units: those of
        the parameters, squared).
    names : sequence of str
        The parameters of the rows and columns, in order.
    known : container of str
        The parameters of the model.
    owner : str
        The model, for the messages.

    Returns
    -------
    cov : numpy.ndarray
        float64, (n, n).
    names : list of str

    Raises
    ------
    ValueError
        A matrix of the wrong shape, or a name that is not a parameter of
        the model (named).
    """
    names = list(names)
    cov = np.asarray(covariance, dtype=np.float64)
    if cov.shape != (len(names), len(names)):
        raise ValueError(f"covariance: expected shape ({len(names)}, {len(names)}), "
                         f"got {cov.shape}")
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"covariance names {unknown} are not parameters of {owner}")
    return cov, names


@dataclass
class Fractions:
    """Fractions of components with their errors (:func:`fractions`).

    Attributes
    ----------
    values : dict of str to float
        Component -> :math:`F_c`.
    errors : dict of str to float
        Component -> :math:`\\sigma_F` (0 without a covariance matrix).
    jacobian : dict of str to numpy.ndarray
        Component -> :math:`\\partial F_c / \\partial p` over all fit
        parameters (in the order of ``parameter_names``).
    """

    values: dict = field(default_factory=dict)
    errors: dict = field(default_factory=dict)
    jacobian: dict = field(default_factory=dict)

    def __getitem__(self, component):
        """``(fraction, error)`` of a component."""
        return self.values[component], self.errors[component]


def fractions(density, events, parameter_names, values, components, covariance=None,
              weights=None):
    """Fractions of components of a density, with errors.

    Parameters
    ----------
    density : vecampfit.fitter.Density
        The signal density, with its gradient.
    events : dict or event buffer
        Normalization events, as for ``density.evaluate`` (records or
        event-buffer fields).
    parameter_names : sequence of str
        Names of all fit parameters (the rows of ``covariance``); the
        density's parameters are taken from them by name.
    values : array_like
        Values of all fit parameters.
    components : dict of str to sequence of str
        Component -> the density's parameters set to zero to leave that
        component alone (the couplings, or real and imaginary parts, of the
        other components).
    covariance : array_like, optional
        Covariance matrix of all fit parameters (zero rows for fixed ones).
    weights : array_like, optional
        Weights :math:`w_k` of the events (default 1).

    Returns
    -------
    Fractions

    Raises
    ------
    ValueError
        A density without a gradient function, a parameter of the density
        missing from ``parameter_names``, a name to set to zero that is not
        a parameter of the density, shapes that do not fit, or a density
        whose sum over the events is not positive.
    """
    if not density.has_gradient:
        raise ValueError(f"density {density.name!r} has no gradient function: the errors of "
                         f"the fractions need it")
    table = list(parameter_names)
    names = list(density.parameters)
    missing = [n for n in names if n not in table]
    if missing:
        raise ValueError(f"parameters {missing} of density {density.name!r} are not among "
                         f"parameter_names")
    index = [table.index(n) for n in names]
    x = np.asarray(values, dtype=np.float64).reshape(-1)
    if x.size != len(table):
        raise ValueError(f"values: {x.size} values for {len(table)} parameters")
    cov = None
    if covariance is not None:
        cov = np.asarray(covariance, dtype=np.float64)
        if cov.shape != (len(table), len(table)):
            raise ValueError(f"covariance: expected shape ({len(table)}, {len(table)}), got "
                             f"{cov.shape}")
    p = x[index]
    s, g = density.evaluate(events, p, gradient=True)
    s = np.asarray(s, dtype=np.float64)
    w = np.ones(s.size) if weights is None else np.asarray(weights, dtype=np.float64)
    if w.shape != s.shape:
        raise ValueError(f"weights: expected shape {s.shape}, got {w.shape}")
    total = float(np.dot(w, s))
    if not total > 0:
        raise ValueError(f"the density's sum over the events is {total!r}, not positive")
    g_total = np.asarray(g, dtype=np.float64) @ w
    out = Fractions()
    for comp, zero in components.items():
        zero = [zero] if isinstance(zero, str) else list(zero)
        unknown = [n for n in zero if n not in names]
        if unknown:
            raise ValueError(f"component {comp!r}: {unknown} are not parameters of density "
                             f"{density.name!r}")
        keep = np.array([0.0 if n in zero else 1.0 for n in names])
        sc, gc = density.evaluate(events, p * keep, gradient=True)
        frac = float(np.dot(w, np.asarray(sc, dtype=np.float64))) / total
        j = np.zeros(x.size)
        j[index] = (keep * (np.asarray(gc, dtype=np.float64) @ w) - frac * g_total) / total
        out.values[comp] = frac
        out.errors[comp] = 0.0 if cov is None else float(np.sqrt(max(j @ cov @ j, 0.0)))
        out.jacobian[comp] = j
    return out
