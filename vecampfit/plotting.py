"""Plots of a fit in the conventions of particle physics: projections of the
data with the fit, its main components and a pull panel, and Dalitz-plot
histograms.

The functions take plain numpy arrays, so that any model can use them (the
isobar layer, a hand-written Cython density, a numpy function): the values
of a variable at the data events, and at the events that describe the fit
(normalization Monte Carlo events or the points of a grid) with a weight
per event for the whole fit and for each component,

.. math::

    w_k^\\text{fit} = v_k \\, \\frac{S(x_k)}{I_S}, \\qquad
    w_k^{(c)} = v_k \\, \\frac{|c_c X_c(x_k)|^2}{I_S},

where :math:`v_k` is the event's weight in the normalization sum (1 for
unweighted MC, the quadrature weight for a grid).  The density files of
:meth:`vecampfit.fitter.Fitter.write_results` hold :math:`S / I_S` per
normalization event in ``total``, and the fit fractions of
:func:`vecampfit.isobar.fit_fractions` are built from the same component
terms.

* :func:`projection` histograms one variable: data counts :math:`n_i`, the
  fit's expectation :math:`\\mu_i` scaled to the number of data events, the
  components' expectations with the same scale, and the pulls
  :math:`(n_i - \\mu_i)/\\sqrt{\\mu_i}`;
* :func:`plot_projections` draws projections side by side: data as points
  with Poisson error bars, the fit as a step histogram, the components as
  dashed steps, a pull panel under each;
* :func:`projection_panels` and :func:`draw_projection` are its parts, for
  figures laid out otherwise: the panels, and one projection drawn into
  them;
* :func:`plot_dalitz` draws a two-dimensional histogram with a colour bar
  and a title.

Figures are made with matplotlib's Agg canvas (no display and no global
state of :mod:`matplotlib.pyplot`), returned for further changes and
written to the paths given.  matplotlib is imported when a figure is made:
the rest of vecampfit does not need it (``pip install vecampfit[examples]``).
"""

import os
from dataclasses import dataclass, field

import numpy as np

__all__ = ["Projection", "draw_projection", "plot_dalitz", "plot_projections", "projection",
           "projection_panels", "pulls"]

#: Colours of the components, in order (matplotlib's tab10 without the
#: fit's blue and the data's black).
COMPONENT_COLORS = ("tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown",
                    "tab:pink", "tab:olive", "tab:cyan", "tab:gray")


def pulls(data, expected):
    """Pulls of histogram counts against the expectation.

    .. math::

        r_i = \\frac{n_i - \\mu_i}{\\sqrt{\\mu_i}}

    (the Poisson standard deviation of the expectation), 0 in bins with
    :math:`\\mu_i \\le 0`.

    Parameters
    ----------
    data : array_like
        Counts :math:`n_i` (events per bin).
    expected : array_like
        Expectations :math:`\\mu_i` (events per bin), same shape.

    Returns
    -------
    numpy.ndarray
        :math:`r_i` (float64, dimensionless).

    Raises
    ------
    ValueError
        The shapes differ.
    """
    n = np.asarray(data, dtype=np.float64)
    mu = np.asarray(expected, dtype=np.float64)
    if n.shape != mu.shape:
        raise ValueError(f"data and expected counts must have the same shape, got {n.shape} "
                         f"and {mu.shape}")
    out = np.zeros(n.shape)
    ok = mu > 0
    out[ok] = (n[ok] - mu[ok]) / np.sqrt(mu[ok])
    return out


@dataclass
class Projection:
    """One variable histogrammed: data, fit, components (:func:`projection`).

    Attributes
    ----------
    edges : numpy.ndarray
        Bin edges (``bins + 1``, in the unit of the variable).
    data : numpy.ndarray
        Data counts :math:`n_i` (sum of the data weights per bin).
    data_errors : numpy.ndarray
        Their errors, :math:`\\sqrt{\\sum_{j \\in i} u_j^2}` for data
        weights :math:`u_j` (:math:`\\sqrt{n_i}` for unweighted data).
    fit : numpy.ndarray
        Expected events per bin :math:`\\mu_i` of the fit.
    components : dict of str to numpy.ndarray
        Expected events per bin of each component, with the fit's scale.
    label : str
        Axis label of the variable (with its unit).
    """

    edges: np.ndarray
    data: np.ndarray
    data_errors: np.ndarray
    fit: np.ndarray
    components: dict = field(default_factory=dict)
    label: str = ""

    @property
    def centers(self):
        """Bin centres."""
        return 0.5 * (self.edges[1:] + self.edges[:-1])

    @property
    def pulls(self):
        """:math:`(n_i - \\mu_i)/\\sqrt{\\mu_i}` per bin (:func:`pulls`)."""
        return pulls(self.data, self.fit)

    def chi2(self, minimum=0.0):
        """Pearson's :math:`\\chi^2 = \\sum_i (n_i - \\mu_i)^2/\\mu_i` over the
        bins with :math:`\\mu_i >` ``minimum``, and the number of those bins.

        Returns
        -------
        chi2 : float
        bins : int
        """
        use = self.fit > max(minimum, 0.0)
        return float(np.sum(self.pulls[use] ** 2)), int(np.count_nonzero(use))


def _vector(name, values, n=None):
    a = np.asarray(values, dtype=np.float64)
    if a.ndim != 1:
        raise ValueError(f"{name} must be one value per event (1-D), got shape {a.shape}")
    if n is not None and a.size != n:
        raise ValueError(f"{name} has {a.size} values, expected {n} (one per event)")
    return a


def projection(data, fit_values, fit_weights, *, bins=50, range=None, data_weights=None,
               components=None, normalize=True, label=""):
    """Histogram one variable for the data and the fit.

    Parameters
    ----------
    data : array_like
        The variable at the data events (1-D).
    fit_values : array_like
        The variable at the events that describe the fit (normalization MC
        events or grid points).
    fit_weights : array_like
        Weight of each of those events in the fit, :math:`w_k^\\text{fit}`
        (the module description).
    bins : int or array_like
        Number of equal bins over ``range``, or the edges.
    range : (float, float), optional
        Limits of the histogram (default: from the smallest to the largest
        value of data and fit events).
    data_weights : array_like, optional
        Weights of the data events (default 1).
    components : dict of str to array_like, optional
        Per component, its weight :math:`w_k^{(c)}` at each fit event, on
        the scale of ``fit_weights``.
    normalize : bool
        Scale the fit and the components so that the fit's sum over all fit
        events equals the data's (sum of the data weights): the expectation
        of a fit that describes the shape.  With False the weights are taken
        as expected events.
    label : str
        Axis label of the variable.

    Returns
    -------
    Projection

    Raises
    ------
    ValueError
        Arrays that are not 1-D or whose lengths differ, non-finite weights,
        a fit whose weights sum to zero with ``normalize``, or bad bins.
    """
    x = _vector("data", data)
    y = _vector("fit_values", fit_values)
    w = _vector("fit_weights", fit_weights, y.size)
    u = np.ones(x.size) if data_weights is None else _vector("data_weights", data_weights,
                                                              x.size)
    comps = {str(k): _vector(f"component {k!r}", v, y.size)
             for k, v in (components or {}).items()}
    for name, a in [("fit_weights", w), ("data_weights", u)] + list(comps.items()):
        if not np.all(np.isfinite(a)):
            raise ValueError(f"{name}: {np.count_nonzero(~np.isfinite(a))} weights are not "
                             f"finite")
    if np.ndim(bins) == 0:
        if int(bins) != bins or bins < 1:
            raise ValueError(f"bins must be a positive integer or edges, got {bins!r}")
        if range is None:
            both = np.concatenate([x, y])
            if both.size == 0:
                raise ValueError("no events: give range=")
            range = (float(both.min()), float(both.max()))
        lo, hi = range
        if not hi > lo:
            raise ValueError(f"range must have upper > lower, got {range!r}")
        edges = np.linspace(lo, hi, int(bins) + 1)
    else:
        edges = np.asarray(bins, dtype=np.float64)
        if edges.ndim != 1 or edges.size < 2 or np.any(np.diff(edges) <= 0):
            raise ValueError("bin edges must be increasing, at least two")
    scale = 1.0
    if normalize:
        total = float(np.sum(w))
        if total == 0:
            raise ValueError("the fit weights sum to zero: nothing to normalize to the data")
        scale = float(np.sum(u)) / total
    n = np.histogram(x, edges, weights=u)[0]
    err = np.sqrt(np.histogram(x, edges, weights=u * u)[0])
    mu = np.histogram(y, edges, weights=w * scale)[0]
    parts = {k: np.histogram(y, edges, weights=v * scale)[0] for k, v in comps.items()}
    return Projection(edges=edges, data=n, data_errors=err, fit=mu, components=parts,
                      label=label)


def _figure(figsize):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    fig = Figure(figsize=figsize)
    FigureCanvasAgg(fig)
    return fig


def _save(fig, path, dpi):
    if path is None:
        return
    paths = [path] if isinstance(path, (str, os.PathLike)) else list(path)
    for p in paths:
        folder = os.path.dirname(os.fspath(p))
        if folder and not os.path.isdir(folder):
            raise FileNotFoundError(f"cannot write {os.fspath(p)!r}: folder {folder!r} does "
                                    f"not exist")
        fig.savefig(p, dpi=dpi)


def _unit_of(label):
    """The unit in square brackets at the end of an axis label ('' if none)."""
    if label.endswith("]") and "[" in label:
        return label[label.rindex("[") + 1:-1]
    return ""


def plot_projections(projections, path=None, *, component_labels=None, title=None,
                     fit_label="fit", data_label="data", log=False, dpi=120, panel_size=(5, 5)):
    """Projections side by side, each with a pull panel under it.

    Upper panel: data as points with their error bars (Poisson,
    :math:`\\sqrt{n_i}` for unweighted data), the fit as a step histogram,
    each component as a dashed step histogram; the y axis is events per
    bin.  Lower panel: the pulls :math:`(n_i - \\mu_i)/\\sqrt{\\mu_i}` as
    bars, with lines at 0 and :math:`\\pm 2`.

    Parameters
    ----------
    projections : Projection or sequence of Projection
    path : str, os.PathLike or sequence of them, optional
        Files to write (the format from the extension: ``.png``, ``.pdf``,
        ...).
    component_labels : dict of str to str, optional
        Legend labels of the components (default: their keys).
    title : str, optional
        Title of the figure.
    fit_label, data_label : str
        Legend labels.
    log : bool
        Logarithmic y axis of the upper panels.
    dpi : int
        Resolution of raster files (dots per inch).
    panel_size : (float, float)
        Width and height of one projection (inches).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        No projection.
    TypeError
        Something else than a :class:`Projection`.
    FileNotFoundError
        The folder of ``path`` does not exist.
    """
    if isinstance(projections, Projection):
        projections = [projections]
    projections = list(projections)
    if not projections:
        raise ValueError("no projection to plot")
    for p in projections:
        if not isinstance(p, Projection):
            raise TypeError(f"a projection is a vecampfit.plotting.Projection, got "
                            f"{type(p).__name__}")
    labels = dict(component_labels or {})
    n = len(projections)
    fig, panels = projection_panels(n, (panel_size[0] * n, panel_size[1]))
    for k, (p, (top, bottom)) in enumerate(zip(projections, panels)):
        draw_projection(top, bottom, p.edges, p.data, p.fit, p.components,
                        data_errors=p.data_errors, xerr=True, labels=labels,
                        data_label=data_label, fit_label=fit_label, fit_zorder=2, xlabel=p.label)
        e = p.edges
        width = e[1] - e[0]
        unit = _unit_of(p.label)
        equal = np.allclose(np.diff(e), width)
        top.set_ylabel(f"events / {width:.3g} {unit}".rstrip() if equal else "events / bin")
        if log:
            top.set_yscale("log")
        else:
            top.set_ylim(bottom=0)
        if k == 0:
            top.legend(frameon=False, fontsize="small")
    if title:
        fig.suptitle(title)
    _save(fig, path, dpi)
    return fig


def projection_panels(n, figsize, **grid):
    """A figure for ``n`` projections side by side, each with a pull panel under it.

    Parameters
    ----------
    n : int
        Number of projections.
    figsize : (float, float)
        Width and height of the figure (inches).
    **grid
        Further arguments of :meth:`matplotlib.figure.Figure.add_gridspec`
        (margins ``left``, ``right``, ``bottom``, ``top``); the upper panels
        are three times as high as the pull panels.

    Returns
    -------
    fig : matplotlib.figure.Figure
        On matplotlib's Agg canvas.
    panels : list of (matplotlib.axes.Axes, matplotlib.axes.Axes)
        Per projection its upper panel and its pull panel, which shares
        the upper panel's x axis.
    """
    fig = _figure(figsize)
    spec = fig.add_gridspec(2, n, height_ratios=(3, 1), hspace=0.05, wspace=0.3, **grid)
    panels = []
    for k in range(n):
        top = fig.add_subplot(spec[0, k])
        panels.append((top, fig.add_subplot(spec[1, k], sharex=top)))
    return fig, panels


def draw_projection(top, bottom, edges, data, fit, components=None, *, data_errors=None,
                    xerr=False, labels=None, data_label="data", fit_label="fit",
                    fit_zorder=None, xlabel=""):
    """Draw one projection: data, fit and components above, the pulls below.

    Upper panel: the data as points with error bars (bins with no entries
    are not drawn), the fit as a step histogram, each component as a dashed
    step histogram in the colours of :data:`COMPONENT_COLORS`, in order;
    its x tick labels are hidden.  Lower panel: the pulls
    :math:`(n_i - \\mu_i)/\\sqrt{\\mu_i}` (:func:`pulls`) as bars, with lines
    at 0 and :math:`\\pm 2`, the y range symmetric and at least
    :math:`\\pm 3`.  The y label, limits and legend of the upper panel are
    left to the caller.

    Parameters
    ----------
    top, bottom : matplotlib.axes.Axes
        The two panels (:func:`projection_panels`).
    edges : numpy.ndarray
        Bin edges (``bins + 1``, in the unit of the variable).
    data : numpy.ndarray
        Data counts :math:`n_i` per bin.
    fit : numpy.ndarray
        Expected events :math:`\\mu_i` per bin.
    components : dict of str to numpy.ndarray, optional
        Expected events per bin of each component.
    data_errors : numpy.ndarray, optional
        Errors of the data counts (default :math:`\\sqrt{n_i}`).
    xerr : bool
        Draw the bin widths as horizontal error bars of the data points.
    labels : dict of str to str, optional
        Legend labels of the components (default: their keys).
    data_label, fit_label : str
        Legend labels.
    fit_zorder : float, optional
        Drawing order of the fit (matplotlib's ``zorder``; default:
        matplotlib's, the fit under components drawn after it).
    xlabel : str
        Axis label of the variable, under the pull panel.
    """
    e = np.asarray(edges)
    c = 0.5 * (e[1:] + e[:-1])
    shown = data > 0
    errors = np.sqrt(data) if data_errors is None else data_errors
    width = {"xerr": 0.5 * np.diff(e)[shown], "elinewidth": 1} if xerr else {}
    top.errorbar(c[shown], data[shown], yerr=errors[shown], fmt="o", ms=3, color="k",
                 label=data_label, zorder=3, **width)
    top.stairs(fit, e, color="tab:blue", lw=1.5, label=fit_label,
               **({} if fit_zorder is None else {"zorder": fit_zorder}))
    labels = labels or {}
    for j, (name, h) in enumerate((components or {}).items()):
        top.stairs(h, e, color=COMPONENT_COLORS[j % len(COMPONENT_COLORS)], ls="--", lw=1.2,
                   label=labels.get(name, name))
    top.tick_params(labelbottom=False)
    r = pulls(data, fit)
    bottom.bar(c, r, width=np.diff(e), color="tab:blue", alpha=0.6)
    bottom.axhline(0, color="k", lw=0.8)
    for s in (-2, 2):
        bottom.axhline(s, color="k", lw=0.6, ls=":")
    lim = max(3.0, float(np.max(np.abs(r))) * 1.1 if r.size else 3.0)
    bottom.set_ylim(-lim, lim)
    bottom.set_ylabel("pull")
    bottom.set_xlabel(xlabel)
    bottom.set_xlim(e[0], e[-1])


def plot_dalitz(x, y, path=None, *, bins=100, range=None, weights=None, xlabel="", ylabel="",
                title="Dalitz plot", colorbar_label="events / bin", log=False, cmap="viridis",
                dpi=120, size=(6, 5.5)):
    """A two-dimensional histogram with a colour bar and a title.

    Empty bins are left white.

    Parameters
    ----------
    x, y : array_like
        The two variables per event (e.g. :math:`m^2_{12}`, :math:`m^2_{23}`
        in GeV\\ :sup:`2`).
    path : str, os.PathLike or sequence of them, optional
        Files to write.
    bins : int or (int, int)
        Bins per axis.
    range : ((float, float), (float, float)), optional
        Limits of the axes (default: from the data).
    weights : array_like, optional
        Event weights (e.g. :math:`w_k^\\text{fit}` to draw the fitted
        density from normalization events).
    xlabel, ylabel, title, colorbar_label : str
    log : bool
        Logarithmic colour scale.
    cmap : str
        matplotlib colour map.
    dpi : int
    size : (float, float)
        Figure size (inches).

    Returns
    -------
    fig : matplotlib.figure.Figure
    counts : numpy.ndarray
        The histogram, shape ``(bins_x, bins_y)`` (as :func:`numpy.histogram2d`).

    Raises
    ------
    ValueError
        x, y (and weights) of different lengths, or no events.
    FileNotFoundError
        The folder of ``path`` does not exist.
    """
    a = _vector("x", x)
    b = _vector("y", y, a.size)
    w = None if weights is None else _vector("weights", weights, a.size)
    if a.size == 0:
        raise ValueError("no events to histogram")
    counts, ex, ey = np.histogram2d(a, b, bins=bins, range=range, weights=w)
    from matplotlib.colors import LogNorm
    fig = _figure(size)
    ax = fig.add_subplot()
    shown = np.where(counts > 0, counts, np.nan)
    norm = LogNorm(vmin=max(np.nanmin(shown), 1e-300)) if log and np.any(counts > 0) else None
    mesh = ax.pcolormesh(ex, ey, shown.T, cmap=cmap, norm=norm)
    fig.colorbar(mesh, ax=ax, label=colorbar_label)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    fig.tight_layout()
    _save(fig, path, dpi)
    return fig, counts
