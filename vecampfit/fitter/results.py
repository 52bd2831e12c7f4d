"""Result files of a fit: parameter file, text summary, ROOT files.

Every file is written to a temporary name in its target folder and moved into
place (``os.replace``), so an interrupted run never leaves a half-written
result.

The result ROOT file holds the trees

* ``fit`` (one entry): ``fval`` (:math:`\\mathcal{F}` at the minimum),
  ``edm``, ``valid``, ``accurate``, ``n_calls``, ``seed``;
* ``parameters`` (one entry per parameter): ``index``, ``value``, ``error``,
  ``fixed``, ``lower``, ``upper``; the names, in order, are the string
  ``parameter_names`` (one per line);
* ``error_matrix`` (one entry per parameter): ``row``, the covariance row
  (zeros for fixed parameters);
* ``eigen`` (one entry per free parameter): ``eigenvalue`` and
  ``eigenvector`` (in the space of all parameters) of the error matrix of
  the free parameters, eigenvalues ascending.

The density ROOT file holds, for each fit point ``a``, a tree ``data_a``
(and ``normalization_a`` for MC or grid normalization) with the event-buffer
fields, the weights, ``signal_density`` (:math:`S`), ``signal``
(:math:`f_S S / I_S`), ``background_k`` (:math:`f_B^{(k)} B^{(k)}/I_{B^{(k)}}`)
and ``total`` (their sum, the fitted probability density per unit
:math:`\\sum_j w_j`).
"""

import numpy as np
from scipy.linalg import eigh

from ..atomic_files import atomic_write_root, atomic_write_text
from .parameters import write_parameter_file

__all__ = ["covariance_matrix", "errors", "values", "write_result_parameters",
           "write_result_text", "write_result_root", "write_density_root"]


def values(minuit):
    """The parameter values of a Minuit object (float64 array, in its order).

    Parameters
    ----------
    minuit : iminuit.Minuit
    """
    return np.array(minuit.values, dtype=np.float64)


def errors(minuit):
    """The errors of the free parameters of a Minuit object, 0 for fixed
    parameters (float64 array, in its order; Minuit itself keeps the step
    of a fixed parameter as its error).

    Parameters
    ----------
    minuit : iminuit.Minuit
    """
    m = minuit
    return np.array([0.0 if m.fixed[k] else m.errors[k] for k in range(len(m.values))])


def covariance_matrix(minuit, names=None):
    """The error matrix of a fit, zero in the rows and columns of fixed
    parameters (and everywhere before HESSE or MIGRAD gave one).

    Parameters
    ----------
    minuit : iminuit.Minuit
    names : sequence of str, optional
        The parameters of the rows and columns, in this order (default:
        every parameter of the fit, in its order).

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
    m = minuit
    all_names = list(m.parameters)
    names = all_names if names is None else list(names)
    index = {n: k for k, n in enumerate(all_names)}
    missing = [n for n in names if n not in index]
    if missing:
        raise ValueError(f"{', '.join(map(repr, missing))} not parameters of the fit "
                         f"(its parameters: {', '.join(all_names)})")
    out = np.zeros((len(names), len(names)))
    if m.covariance is None:
        return out
    c = np.array(m.covariance, dtype=np.float64)
    rows = [j for j, n in enumerate(names) if not m.fixed[index[n]]]
    full = [index[names[j]] for j in rows]
    out[np.ix_(rows, rows)] = c[np.ix_(full, full)]
    return out


def write_result_parameters(fitter, path):
    """Parameter file with the fitted values as initial values."""
    write_parameter_file(path, fitter.likelihood.parameters, values(fitter.minuit))


def result_text(fitter):
    """The text summary of a fit (str)."""
    m = fitter.minuit
    lk = fitter.likelihood
    errs = errors(m)
    lines = [f"F = {m.fval:.12g}" if m.fval is not None else "F = (not minimized)",
             f"EDM = {m.fmin.edm:.4g}" if m.fmin is not None else "EDM = -",
             f"valid = {m.valid}, accurate = {m.accurate}",
             f"calls = {lk.n_calls}, seed = {fitter.seed}",
             f"precision = {lk.density_precision}, vector length = {lk.vector_length}, "
             f"threads = {lk.threads}, gradient = {fitter.use_gradient}",
             ""]
    width = max(len(n) for n in lk.parameters.names)
    lines.append(f"{'parameter':<{width}} {'value':>22} {'error':>14}  status")
    for k, p in enumerate(lk.parameters):
        status = "fixed" if m.fixed[k] else "free"
        lines.append(f"{p.name:<{width}} {m.values[k]:>22.15g} {errs[k]:>14.6g}  {status}")
    return "\n".join(lines) + "\n"


def write_result_text(fitter, path):
    """Text summary: F, status, parameters, errors (no error matrix)."""
    atomic_write_text(path, result_text(fitter))


def write_result_root(fitter, path):
    """ROOT file with F, parameters, errors, error matrix and its eigen-decomposition."""
    m = fitter.minuit
    lk = fitter.likelihood
    n = len(lk.parameters)
    cov = covariance_matrix(m)
    free = np.array([not m.fixed[k] for k in range(n)])
    idx = np.flatnonzero(free)
    if idx.size:
        w, v = eigh(cov[np.ix_(idx, idx)])
        vectors = np.zeros((idx.size, n))
        vectors[:, idx] = v.T
    else:
        w, vectors = np.zeros(0), np.zeros((0, n))
    params = list(lk.parameters)

    def write(f):
        f["parameter_names"] = "\n".join(p.name for p in params)
        f.mktree("fit", {"fval": np.float64, "edm": np.float64, "valid": np.int32,
                         "accurate": np.int32, "n_calls": np.int64, "seed": np.int64})
        f["fit"].extend({
            "fval": np.array([m.fval if m.fval is not None else np.nan]),
            "edm": np.array([m.fmin.edm if m.fmin is not None else np.nan]),
            "valid": np.array([int(m.valid)], dtype=np.int32),
            "accurate": np.array([int(m.accurate)], dtype=np.int32),
            "n_calls": np.array([lk.n_calls], dtype=np.int64),
            "seed": np.array([fitter.seed], dtype=np.int64)})
        f.mktree("parameters", {"index": np.int32, "value": np.float64, "error": np.float64,
                                "fixed": np.int32, "lower": np.float64, "upper": np.float64})
        f["parameters"].extend({
            "index": np.arange(n, dtype=np.int32), "value": values(m),
            "error": errors(m),
            "fixed": np.array([int(m.fixed[k]) for k in range(n)], dtype=np.int32),
            "lower": np.array([p.lower for p in params]),
            "upper": np.array([p.upper for p in params])})
        f.mktree("error_matrix", {"row": np.dtype((np.float64, (n,)))})
        f["error_matrix"].extend({"row": cov})
        f.mktree("eigen", {"eigenvalue": np.float64,
                           "eigenvector": np.dtype((np.float64, (n,)))})
        if idx.size:
            f["eigen"].extend({"eigenvalue": w, "eigenvector": vectors})

    atomic_write_root(path, write)


def density_columns(fitter, point, where="data"):
    """Density values per event of a fit point at the fitted values (dict
    of float64 arrays): ``signal_density``, ``signal``, ``background_k``,
    ``total``; see :meth:`Likelihood.density_columns`."""
    return fitter.likelihood.density_columns(point, values(fitter.minuit), where,
                                             free=fitter.free_parameters)


def write_density_root(fitter, path, point=None):
    """ROOT file with the density values next to the event fields (module
    description); ``point`` None writes every fit point."""
    points = fitter.likelihood.points if point is None else [fitter.likelihood.points[point]]

    def write(f):
        for p in points:
            sets = [("data", p.data_events)]
            if p.normalization in ("mc", "grid"):
                sets.append(("normalization", p.norm_events))
            for where, buf in sets:
                cols = {name: np.asarray(buf.field(name)) for name in p.signal.event_fields}
                cols["weight"] = np.asarray(buf.weight_array(), dtype=np.float64)
                cols.update(density_columns(fitter, p, where))
                name = f"{where}_{p.index}"
                f.mktree(name, {k: v.dtype for k, v in cols.items()})
                f[name].extend(cols)

    atomic_write_root(path, write)
