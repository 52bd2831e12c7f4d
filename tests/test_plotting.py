"""vecampfit.plotting: the histogram numbers of a projection, and figures
written to PNG files and read back."""

import numpy as np
import pytest

from vecampfit import plotting

pytest.importorskip("matplotlib")
from matplotlib.image import imread  # noqa: E402


@pytest.fixture
def toy():
    """A Gaussian peak on a flat background: data drawn from it, and
    uniform 'normalization events' weighted by the two components."""
    rng = np.random.default_rng(3)
    n_data = 4000
    data = np.concatenate([rng.normal(1.0, 0.1, int(0.6 * n_data)),
                           rng.uniform(0.0, 2.0, int(0.4 * n_data))])
    mc = rng.uniform(0.0, 2.0, 200000)
    peak = np.exp(-0.5 * ((mc - 1.0) / 0.1) ** 2) / (0.1 * np.sqrt(2 * np.pi)) * 0.6
    flat = np.full(mc.size, 0.5 * 0.4)
    return data, mc, peak, flat


def test_projection_counts_scale_and_pulls(toy):
    data, mc, peak, flat = toy
    p = plotting.projection(data, mc, peak + flat, bins=40, range=(0, 2),
                            components={"peak": peak, "flat": flat}, label="m [GeV]")
    edges = np.linspace(0, 2, 41)
    np.testing.assert_array_equal(p.edges, edges)
    np.testing.assert_array_equal(p.data, np.histogram(data, edges)[0])
    np.testing.assert_allclose(p.data_errors, np.sqrt(p.data))
    # The fit is scaled to the number of data events over all fit events.
    assert p.fit.sum() == pytest.approx(data.size, rel=1e-12)
    scale = data.size / np.sum(peak + flat)
    np.testing.assert_allclose(p.fit, np.histogram(mc, edges, weights=(peak + flat) * scale)[0])
    # Components on the same scale, adding up to the fit.
    np.testing.assert_allclose(p.components["peak"] + p.components["flat"], p.fit, rtol=1e-10)
    np.testing.assert_allclose(p.components["flat"],
                               np.histogram(mc, edges, weights=flat * scale)[0])
    np.testing.assert_allclose(p.pulls, (p.data - p.fit) / np.sqrt(p.fit))
    chi2, nbins = p.chi2()
    assert nbins == 40 and chi2 == pytest.approx(np.sum(p.pulls ** 2))
    # The model describes the data: chi2 per bin near 1; a flat fit does not.
    assert chi2 / nbins < 2
    flat_fit = plotting.projection(data, mc, flat, bins=40, range=(0, 2))
    assert flat_fit.chi2()[0] / 40 > 10
    np.testing.assert_allclose(p.centers, 0.5 * (edges[1:] + edges[:-1]))


def test_projection_weights_errors_and_no_normalization():
    data = np.array([0.1, 0.2, 0.7, 0.9])
    u = np.array([2.0, 1.0, 3.0, 0.5])
    p = plotting.projection(data, [0.25, 0.75], [10.0, 30.0], bins=2, range=(0, 1),
                            data_weights=u, normalize=False)
    np.testing.assert_array_equal(p.data, [3.0, 3.5])
    np.testing.assert_allclose(p.data_errors, [np.sqrt(5.0), np.sqrt(9.25)])
    np.testing.assert_array_equal(p.fit, [10.0, 30.0])
    q = plotting.projection(data, [0.25, 0.75], [10.0, 30.0], bins=[0, 0.5, 1],
                            data_weights=u)
    np.testing.assert_allclose(q.fit, [6.5 * 0.25, 6.5 * 0.75])


def test_pulls_are_zero_where_nothing_is_expected():
    np.testing.assert_allclose(plotting.pulls([4, 1, 9], [4, 0, 4]), [0, 0, 2.5])
    with pytest.raises(ValueError, match="same shape"):
        plotting.pulls([1, 2], [1, 2, 3])


@pytest.mark.parametrize("kwargs, message", [
    (dict(fit_weights=[1.0]), "expected 2"),
    (dict(fit_weights=[np.nan, 1.0]), "not finite"),
    (dict(fit_weights=[0.0, 0.0]), "sum to zero"),
    (dict(bins=0), "positive integer"),
    (dict(bins=[1.0, 0.5]), "increasing"),
    (dict(range=(1.0, 1.0)), "upper > lower"),
    (dict(components={"a": [1.0]}), "component 'a'"),
])
def test_projection_errors_name_the_cause(kwargs, message):
    args = dict(data=[0.1, 0.5], fit_values=[0.2, 0.6], fit_weights=[1.0, 2.0], bins=4)
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        plotting.projection(**args)


def _blue_columns(image, colour=(0.12, 0.47, 0.71), tol=0.08):
    """Columns of an RGB(A) image that hold pixels of ``colour`` (tab:blue)."""
    rgb = image[..., :3]
    return np.any(np.all(np.abs(rgb - np.array(colour)) < tol, axis=-1), axis=0)


def test_projection_figure_written_and_read_back(toy, tmp_path):
    data, mc, peak, flat = toy
    projections = [plotting.projection(data, mc, peak + flat, bins=30, range=(0, 2),
                                       components={"peak": peak, "flat": flat},
                                       label=r"$m$ [GeV]"),
                   plotting.projection(data ** 2, mc ** 2, peak + flat, bins=30,
                                       components={"peak": peak}, label=r"$m^2$ [GeV$^2$]")]
    paths = [tmp_path / "projections.png", tmp_path / "projections.pdf"]
    fig = plotting.plot_projections(projections, paths, title="toy fit",
                                    component_labels={"peak": "Gaussian"}, dpi=50,
                                    panel_size=(4, 4))
    image = imread(paths[0])
    assert image.shape[:2] == (200, 400)            # 8 x 4 inches at 50 dpi
    assert paths[1].read_bytes().startswith(b"%PDF")
    # Two projections, each with its pull panel.
    axes = fig.get_axes()
    assert len(axes) == 4
    assert fig._suptitle.get_text() == "toy fit"
    top, bottom = axes[0], axes[1]
    assert bottom.get_ylabel() == "pull" and bottom.get_xlabel() == r"$m$ [GeV]"
    assert top.get_ylabel() == "events / 0.0667 GeV"
    legend = [t.get_text() for t in top.get_legend().get_texts()]
    assert legend == ["fit", "Gaussian", "flat", "data"]
    # The pull bars are the projection's pulls.
    heights = [b.get_height() for b in bottom.patches]
    np.testing.assert_allclose(heights, projections[0].pulls)
    # The fit is drawn (tab:blue) across the image, not in one corner only.
    blue = _blue_columns(image)
    assert blue[:200].sum() > 25 and blue[200:].sum() > 25


def test_dalitz_plot_has_colour_bar_and_title(tmp_path):
    rng = np.random.default_rng(8)
    x, y = rng.uniform(0, 3, 5000), rng.uniform(0, 2, 5000)
    path = tmp_path / "dalitz.png"
    fig, counts = plotting.plot_dalitz(x, y, path, bins=(30, 20), range=((0, 3), (0, 2)),
                                       xlabel="m2 12", ylabel="m2 23", title="toy Dalitz plot",
                                       dpi=40, size=(5, 4))
    np.testing.assert_array_equal(counts, np.histogram2d(x, y, bins=(30, 20),
                                                         range=((0, 3), (0, 2)))[0])
    main, bar = fig.get_axes()
    assert main.get_title() == "toy Dalitz plot"
    assert bar.get_ylabel() == "events / bin"
    image = imread(path)
    assert image.shape[:2] == (160, 200)
    # Coloured (viridis), not only white and black.
    rgb = image[..., :3]
    assert np.any((np.ptp(rgb, axis=-1) > 0.3))
    weighted = plotting.plot_dalitz(x, y, bins=10, weights=np.full(x.size, 0.5), log=True)[1]
    assert weighted.sum() == pytest.approx(2500)


def test_plots_refuse_bad_input(tmp_path):
    with pytest.raises(ValueError, match="no projection"):
        plotting.plot_projections([])
    with pytest.raises(TypeError, match="Projection"):
        plotting.plot_projections([{"edges": [0, 1]}])
    p = plotting.projection([0.5], [0.5], [1.0], bins=2, range=(0, 1))
    with pytest.raises(FileNotFoundError, match="does not exist"):
        plotting.plot_projections(p, tmp_path / "missing" / "p.png")
    with pytest.raises(ValueError, match="expected 2"):
        plotting.plot_dalitz([1, 2], [1])
    with pytest.raises(ValueError, match="no events"):
        plotting.plot_dalitz([], [])


def test_projection_panels_and_one_projection_drawn_into_them():
    fig, panels = plotting.projection_panels(2, (8, 4), left=0.1)
    assert len(panels) == 2 and fig.get_axes() == [a for pair in panels for a in pair]
    top, bottom = panels[1]
    assert bottom.get_shared_x_axes().joined(top, bottom)
    edges = np.linspace(0.0, 2.0, 5)
    data, fit = np.array([0.0, 9.0, 25.0, 4.0]), np.array([1.0, 9.0, 16.0, 0.0])
    plotting.draw_projection(top, bottom, edges, data, fit, {"a": fit / 2, "b": fit / 4},
                             labels={"a": "A"}, xlabel="m [GeV]")
    # data points only where there are entries, with sqrt(n) errors
    points = top.containers[0]
    x, y = points.lines[0].get_data()
    np.testing.assert_allclose(x, [0.75, 1.25, 1.75])
    np.testing.assert_allclose(y, [9.0, 25.0, 4.0])
    # fit and components as step histograms, components dashed in order of the colours
    steps = [p for p in top.patches]
    assert [s.get_label() for s in steps] == ["fit", "A", "b"]
    assert steps[1].get_linestyle() == "--"
    from matplotlib.colors import to_rgba
    assert [s.get_edgecolor() for s in steps[1:]] == [to_rgba(c)
                                                      for c in plotting.COMPONENT_COLORS[:2]]
    # pulls (n - mu)/sqrt(mu), 0 where nothing is expected; symmetric range of at least 3
    heights = [b.get_height() for b in bottom.patches]
    np.testing.assert_allclose(heights, [-1.0, 0.0, 2.25, 0.0])
    assert bottom.get_ylim() == (-3.0, 3.0)
    assert bottom.get_xlim() == (0.0, 2.0)
    assert bottom.get_xlabel() == "m [GeV]" and bottom.get_ylabel() == "pull"
    assert not any(t.get_visible() and t.get_text() for t in top.get_xticklabels())
    # a larger pull widens the range by 10 %
    top, bottom = panels[0]
    plotting.draw_projection(top, bottom, edges, np.array([1.0, 9.0, 41.0, 4.0]), fit,
                             data_errors=np.ones(4), xerr=True)
    assert bottom.get_ylim() == pytest.approx((-6.875, 6.875))
    assert len(top.patches) == 1
