"""Tests of vecampfit.fitter.components: the cached evaluation of a density
with components gives the full path's F and gradient (to 1e-10 relative),
with backgrounds, weights, extended fits and two fit points; the cache is
rebuilt when a parameter that is not a coupling changes; fits with the
cache reach the full path's minimum."""

import numpy as np
import pytest

from iminuit import Minuit

from vecampfit.fitter import (Density, DensityError, FitParameter, Fitter, Likelihood,
                              ParameterTable, RestrictionError, Stage)
from vecampfit.fitter.components import Components
from vecampfit.fitter.results import errors, values
from vecampfit.model_compiler import compile_model

from numeric_checks import central_difference

P0 = {"M1": 0.77, "G1": 0.15, "M2": 1.3, "G2": 0.2, "A2": 0.8, "P2": 60.0, "R3": 0.3,
      "I3": -0.4}
COUPLINGS = ("A2", "P2", "R3", "I3")


@pytest.fixture(scope="module")
def model(model_cache, models_dir):
    return compile_model(f"{models_dir}/component_model.pyx", [4], build_dir=model_cache)[4]


def reference(m, p):
    """S = |X1 + A2 e^(i P2) X2 + (R3 + i I3)|^2, written here independently."""
    x1 = 1 / (p["M1"] ** 2 - m ** 2 - 1j * p["M1"] * p["G1"])
    x2 = 1 / (p["M2"] ** 2 - m ** 2 - 1j * p["M2"] * p["G2"])
    a = x1 + p["A2"] * np.exp(1j * np.deg2rad(p["P2"])) * x2 + (p["R3"] + 1j * p["I3"])
    return np.abs(a) ** 2


def table(extra=()):
    return ParameterTable([FitParameter(n, v, 0.01) for n, v in P0.items()]
                          + [FitParameter(n, v, 0.01, lo, hi) for n, v, lo, hi in extra])


RNG = np.random.default_rng(11)
M_DATA = RNG.uniform(0.5, 1.6, 3001)
M_MC = RNG.uniform(0.4, 1.7, 20003)
W_DATA = RNG.uniform(0.5, 1.5, M_DATA.size)
W_MC = RNG.uniform(0.5, 2.0, M_MC.size)


def flat(name="flat"):
    return Density(lambda ev, p: np.ones_like(ev["m"]), parameters=[], event_fields=["m"],
                   name=name)


def build(model, kind, cache, precision="float64"):
    sig = Density.from_model(model, precision)
    if kind == "background":
        lk = Likelihood(table([("FB", 0.2, 0, 1)]), vector_length=4, threads=2, cache=cache,
                        precision=precision)
        pt = lk.add_point(sig)
        pt.add_background(flat(), "FB")
        pt.add_data({"m": M_DATA}, W_DATA)
        pt.add_normalization_events({"m": M_MC}, W_MC)
        x = np.array(list(P0.values()) + [0.2])
    elif kind == "extended":
        lk = Likelihood(table([("NS", 2500, 0, 0), ("NB", 500, 0, 0)]), vector_length=4,
                        threads=1, cache=cache, extended=True, precision=precision)
        pt = lk.add_point(sig, signal_yield="NS")
        pt.add_background(flat(), "NB")
        pt.add_data({"m": M_DATA})
        pt.add_normalization_events({"m": M_MC})
        x = np.array(list(P0.values()) + [2500.0, 500.0])
    else:   # two fit points sharing the signal parameters, each with its background fraction
        lk = Likelihood(table([("FA", 0.1, 0, 1), ("FB", 0.3, 0, 1)]), vector_length=4,
                        threads=2, cache=cache, precision=precision)
        for frac, sl in (("FA", slice(0, 1500)), ("FB", slice(1500, None))):
            pt = lk.add_point(sig)
            pt.add_background(flat(frac), frac)
            pt.add_data({"m": M_DATA[sl]}, W_DATA[sl])
            pt.add_normalization_events({"m": M_MC[sl.start or 0:(sl.stop or 30000) * 5]})
        x = np.array(list(P0.values()) + [0.1, 0.3])
    return lk, x


def test_components_and_couplings(model):
    d = Density.from_model(model, "float64")
    comp = d.components
    assert comp.names == ("X1", "X2", "X3") and comp.n_components == 3
    assert [d.parameters[k] for k in comp.coupling_parameters] == list(COUPLINGS)
    p = np.array(list(P0.values()))
    c = comp.couplings(p)
    np.testing.assert_allclose(c, [1, 0.8 * np.exp(1j * np.pi / 3), 0.3 - 0.4j], rtol=1e-15)
    # The Jacobian against finite differences of the couplings.
    jac = comp.coupling_jacobian(p)
    for j in range(p.size):
        np.testing.assert_allclose(
            jac[:, j], central_difference(comp.couplings, p, j, 1e-6 * max(1, abs(p[j]))), atol=1e-8)
    np.testing.assert_allclose(d.evaluate({"m": M_DATA}, p), reference(M_DATA, P0), rtol=1e-13)
    with pytest.raises(DensityError, match="coupling parameter 'A9' is not a parameter \\(or "
                                           "constant\\)"):
        Components(["a"], [("polar_radians", "A9", "P2")], comp.function, d.parameters)
    with pytest.raises(DensityError, match="the coupling's two parameters are both 'R3'"):
        Components(["a"], [("cartesian", "R3", "R3")], comp.function, d.parameters)
    # A fixed magnitude and a scale, given as a number or as a model constant.
    fixed = Components(["a", "b"], [("polar_degrees", "MAG", "P2", 0.5),
                                    ("cartesian", "R3", 0.25, "N")],
                       comp.function, d.parameters, constants={"N": 3.0, "MAG": 2.0})
    np.testing.assert_allclose(fixed.couplings(p), [np.exp(1j * np.pi / 3), 3 * (0.3 + 0.25j)],
                               rtol=1e-15)
    jf = fixed.coupling_jacobian(p)
    assert set(np.flatnonzero(np.abs(jf).sum(axis=0))) == {5, 6}
    np.testing.assert_allclose(jf[0, 5], 1j * np.exp(1j * np.pi / 3) * np.pi / 180, rtol=1e-15)
    np.testing.assert_allclose(jf[1, 6], 3.0, rtol=1e-15)
    with pytest.raises(DensityError, match="scale 'M' is not a constant of the model"):
        Components(["a"], [("cartesian", "R3", "I3", "M")], comp.function, d.parameters)
    # A phase shared by two components: its derivative is the sum of both.
    shared = Components(["a", "b", "c"], [("polar_degrees", "A2", "P2"),
                                          ("polar_degrees", "R3", "P2"), ("fixed", 1, 0)],
                        comp.function, d.parameters)
    jac = shared.coupling_jacobian(p)
    np.testing.assert_allclose(jac[:, 5], central_difference(shared.couplings, p, 5, 1e-6),
                               atol=1e-8)
    with pytest.raises(DensityError, match="is not \\(form, a, b\\[, scale\\]\\)"):
        Components(["a"], [("exponential", "R3", "I3")], comp.function, d.parameters)


def test_polar_forms_say_their_unit(model):
    """"polar_degrees" and "polar_radians" read the phase in their unit; the old
    spelling "polar" (radians in the fitter, degrees in the isobar layer) is
    read as radians with a warning that names both."""
    d = Density.from_model(model, "float64")
    p = np.array(list(P0.values()))
    p[d.parameters.index("P2")] = 0.5
    radians = Components(["a"], [("polar_radians", "A2", "P2")], d.components.function,
                         d.parameters)
    degrees = Components(["a"], [("polar_degrees", "A2", "P2")], d.components.function,
                         d.parameters)
    assert radians.couplings(p)[0] == 0.8 * np.exp(0.5j)
    np.testing.assert_allclose(degrees.couplings(p)[0], 0.8 * np.exp(0.5j * np.pi / 180),
                               rtol=1e-15)
    with pytest.warns(DeprecationWarning, match="'polar' is deprecated: it means a phase in "
                                                "radians here and in degrees in the isobar layer"):
        old = Components(["a"], [("polar", "A2", "P2")], d.components.function, d.parameters)
    assert old.couplings(p)[0] == radians.couplings(p)[0]
    np.testing.assert_array_equal(old.coupling_jacobian(p), radians.coupling_jacobian(p))


@pytest.mark.parametrize("kind", ["background", "extended", "two_points"])
def test_cached_path_equals_the_full_path(model, kind):
    full, x = build(model, kind, "never")
    cached, _ = build(model, kind, "always")
    cost = cached.restricted(list(COUPLINGS) + [n for n in full.parameters.names if n not in P0])
    rng = np.random.default_rng(5)
    for trial in range(3):
        y = x.copy()
        for name in COUPLINGS:
            y[full.parameter_index(name)] *= rng.uniform(0.7, 1.3)
        v_full, g_full = full.evaluate(y, gradient=True)
        v_cached, g_cached = cost.evaluate(y, gradient=True)
        rel = abs(v_cached - v_full) / abs(v_full)
        free = [full.parameter_index(n) for n in cost.free_parameters]
        grel = np.max(np.abs(g_cached[free] - g_full[free])) / np.max(np.abs(g_full[free]))
        print(f"{kind}: F full {v_full:.12g}, cached relative difference {rel:.1e}, gradient "
              f"{grel:.1e}")
        assert rel < 1e-10
        assert grel < 1e-9
    # One cache of the data amplitudes per point and one matrix per
    # normalization sample, built once for the three parameter points.
    ev = cached.signal_evaluator(cached.points[0].signal, True, cost.free_parameters)
    assert ev.rebuilds == 2 * len(cached.points)


def test_the_cache_follows_the_other_parameters(model):
    full, x = build(model, "background", "never")
    cached, _ = build(model, "background", "always")
    for name, factor in (("M1", 1.01), ("G2", 0.9)):
        x[full.parameter_index(name)] *= factor
        assert cached.evaluate(x)[0] == pytest.approx(full.evaluate(x)[0], rel=1e-10)
    # Everything free (no Fitter): value calls recompute the moved component at
    # the normalization events (built once: 3 components, then G2's); their
    # data term takes the full path.
    ev = cached.signal_evaluator(cached.points[0].signal)
    assert ev.partial and ev.rebuilds == 1
    assert ev.component_evaluations == 3 + 1
    # Without single-component functions the whole cache is rebuilt.
    cached._cached.clear()
    cached.points[0].signal.components.depends = None
    try:
        for name, factor in (("M1", 1.01), ("G2", 0.9)):
            x[full.parameter_index(name)] *= factor
            assert cached.evaluate(x)[0] == pytest.approx(full.evaluate(x)[0], rel=1e-10)
        ev = cached.signal_evaluator(cached.points[0].signal)
        assert not ev.partial and ev.rebuilds == 4
    finally:
        cached.points[0].signal.components._set_partial(
            [("M1", "G1"), ("M2", "G2"), ()], cached.points[0].signal.components._single,
            cached.points[0].signal.parameters, "component_model")
    # "auto" uses the cache only when the call is told that nothing but
    # couplings of the density is free.
    auto, _ = build(model, "background", "auto")
    assert auto.signal_evaluator(auto.points[0].signal) is auto._evaluator(auto.points[0].signal)
    assert auto.signal_evaluator(auto.points[0].signal, free=["A2", "P2", "FB"]) is not \
        auto._evaluator(auto.points[0].signal)
    # A mass free: the full path ("always" recomputes the moved components
    # for value calls).
    free = ["A2", "P2", "M1"]
    sig = auto.points[0].signal
    assert auto.signal_evaluator(sig, True, free) is auto._evaluator(sig)
    assert auto.signal_evaluator(sig, False, free) is auto._evaluator(sig)
    auto.cache = "always"
    assert auto.signal_evaluator(sig, True, free) is auto._evaluator(sig)
    assert auto.signal_evaluator(sig, False, free).partial
    with pytest.raises(ValueError, match="cache must be 'auto', 'always' or 'never'"):
        Likelihood(table(), cache="yes")


def _background_fit(model, cache, free, **options):
    """MIGRAD and HESSE of the signal and a flat background (fraction FB) on the
    unweighted data M_DATA, normalized on M_MC, with the parameters free
    released, the cache setting cache and the further Fitter options: the
    values, the errors and F at the minimum."""
    f = Fitter(Likelihood(table([("FB", 0.2, 0, 1)]), vector_length=4, threads=1, cache=cache),
               seed=3, verbose=False, **options)
    pt = f.likelihood.add_point(Density.from_model(model, "float64"))
    pt.add_background(flat(), "FB")
    pt.add_data({"m": M_DATA})
    pt.add_normalization_events({"m": M_MC})
    f.fix_all()
    f.release(*free)
    f.migrad(hesse=True)
    assert f.minuit.valid
    return values(f.minuit), errors(f.minuit), f.minuit.fval


def _assert_fit_reaches_the_full_minimum(model, cache, free, label, f_tolerance,
                                         value_tolerance, **options):
    """The fit of :func:`_background_fit` with the cache setting cache (called label in the
    printout) against the fit on the full path (cache "never"): F agrees to f_tolerance and
    the free values to value_tolerance times their errors.  Returns the errors of the full
    and of the other fit and the mask of the free parameters."""
    (v0, e0, f0), (v1, e1, f1) = [_background_fit(model, c, free, **options)
                                  for c in ("never", cache)]
    moved = e0 > 0
    print(f"F {f0:.10f} (full) {f1:.10f} ({label}); largest difference of the values "
          f"{np.max(np.abs(v1 - v0)[moved] / e0[moved]):.1e} errors")
    assert abs(f1 - f0) < f_tolerance
    assert np.all(np.abs(v1 - v0)[moved] < value_tolerance * e0[moved])
    return e0, e1, moved


def test_a_fit_with_the_cache_reaches_the_full_minimum(model):
    """A fit of the couplings and the background fraction: the cached fit and
    the fit on the full path end at the same values, to 1e-4 of the errors."""
    e0, e1, free = _assert_fit_reaches_the_full_minimum(model, "auto", [*COUPLINGS, "FB"],
                                                        "cached", 1e-6, 1e-4)
    # The couplings are weakly determined here (uniform pseudo-data: A2 = 0.8
    # +- 2.2) and F is far from parabolic over HESSE's steps, so HESSE's
    # errors move by a few 1e-4 with rounding-level differences of F (F of
    # the two paths agrees to 1e-16 relative at points near the minimum).
    np.testing.assert_allclose(e1[free], e0[free], rtol=5e-3)


def _moves(x, index, rng):
    """A sequence of parameter points as Minuit's numerical derivatives and
    line searches make them: one parameter stepped away and back, several
    moved at once, couplings only, and returns to earlier points."""
    names = ["M1", "G1", "M2", "G2"]
    points = [x.copy()]
    base = x.copy()
    for step in range(4):
        for name in names + list(COUPLINGS):
            for sign in (1, -1):
                y = base.copy()
                y[index(name)] *= 1 + sign * 1e-3 * (step + 1)
                points.append(y)
        points.append(base.copy())
        base = base.copy()
        for name in names[:2 + step % 3] + list(COUPLINGS[:2]):     # a line-search step
            base[index(name)] *= rng.uniform(0.97, 1.03)
        points.append(base.copy())
    return points


@pytest.mark.parametrize("kind", ["background", "extended", "two_points"])
def test_partial_recomputation_equals_the_full_path(model, kind):
    """With masses and widths free, value calls recompute only the components
    whose parameters moved, and give the full path's F to 1e-10 relative at
    every point of a numerical-derivative and line-search sequence."""
    full, x = build(model, kind, "never")
    cached, _ = build(model, kind, "always")
    # No free parameters given: every parameter may move.
    sig = cached.points[0].signal
    ev = cached.signal_evaluator(sig)
    assert ev.partial
    worst = 0.0
    for y in _moves(x, full.parameter_index, np.random.default_rng(8)):
        v_full, v_cached = full.evaluate(y)[0], cached.evaluate(y)[0]
        worst = max(worst, abs(v_cached - v_full) / abs(v_full))
        assert abs(v_cached - v_full) <= 1e-10 * abs(v_full), (y, v_full, v_cached)
    print(f"{kind}: largest relative difference of F over the sequence {worst:.1e}; "
          f"{ev.component_evaluations} component evaluations")


def test_a_moved_width_recomputes_its_component_only(model):
    cached, x = build(model, "background", "always")
    sig = cached.points[0].signal
    ev = cached.signal_evaluator(sig)
    cached.evaluate(x)
    n0 = ev.component_evaluations
    assert n0 == 3                          # all three components at the MC events
    g1 = cached.parameter_index("G1")
    y = x.copy()
    y[g1] *= 1.01
    cached.evaluate(y)
    assert ev.component_evaluations == n0 + 1     # X_1 at the MC events, in one pass
    cached.evaluate(x)                      # back: the base is still x
    assert ev.component_evaluations == n0 + 1
    y2 = x.copy()
    y2[cached.parameter_index("P2")] += 1
    cached.evaluate(y2)                     # couplings only: nothing recomputed
    assert ev.component_evaluations == n0 + 1
    y3 = y2.copy()
    y3[g1] *= 1.01
    assert cached.evaluate(y3)[0] == pytest.approx(build(model, "background", "never")[0]
                                                   .evaluate(y3)[0], rel=1e-10)
    # A component and the couplings moved: the full path (nothing recomputed).
    assert ev.component_evaluations == n0 + 1
    # A line-search point (both resonances moved): the full path, then the
    # base moves there (all components, one pass) at the next step near it.
    z = x.copy()
    z[g1] *= 1.02
    z[cached.parameter_index("G2")] *= 1.02
    cached.evaluate(z)
    assert ev.component_evaluations == n0 + 1
    z2 = z.copy()
    z2[cached.parameter_index("M2")] *= 1.001
    cached.evaluate(z2)
    assert ev.component_evaluations == n0 + 1 + 3 + 1


def test_a_fit_of_masses_with_numerical_gradient_reaches_the_full_minimum(model):
    """Masses, widths and couplings free, Minuit's numerical gradient: the
    fit recomputing only moved components ends where the full path does."""
    _assert_fit_reaches_the_full_minimum(model, "always", ["M1", "G1", "G2", *COUPLINGS, "FB"],
                                         "partial", 1e-5, 1e-2, use_gradient=False)


def test_bad_component_dependencies(model):
    d = Density.from_model(model, "float64")
    comp = d.components
    assert comp.partial and [list(x) for x in comp.depends] == [[0, 1], [2, 3], []]
    args = (comp.names, [("fixed", 1, 0), ("polar_degrees", "A2", "P2"),
                         ("cartesian", "R3", "I3")], comp.function, d.parameters)
    with pytest.raises(DensityError, match="component X2 depends on 'M9', which is not a "
                                           "parameter"):
        Components(*args, depends=[(), ("M9",), ()], single=comp._single)
    with pytest.raises(DensityError, match="component X1 depends on 'A2', a coupling's"):
        Components(*args, depends=[("A2",), (), ()], single=comp._single)
    with pytest.raises(DensityError, match="2 dependency lists and 3 single"):
        Components(*args, depends=[(), ()], single=comp._single)
    with pytest.raises(DensityError, match="both depends and single"):
        Components(*args, depends=[(), (), ()])
    # A parameter no component declares moves everything.
    undeclared = Components(*args, depends=[("M1",), ("M2", "G2"), ()], single=comp._single)
    assert [d.parameters[k] for k in undeclared.undeclared_parameters] == ["G1"]


def test_normalization_events_released_after_the_matrix(model):
    """With release_normalization_events, the normalization buffer is freed
    once the cached matrix is built: F stays the full path's, the buffer's
    fields are gone, and a later need of the events is an error that says
    why."""
    full, x = build(model, "background", "never")
    f = Fitter(Likelihood(table([("FB", 0.2, 0, 1)]), vector_length=4, threads=1, cache="auto",
                          release_normalization_events=True), seed=3, verbose=False)
    pt = f.likelihood.add_point(Density.from_model(model, "float64"))
    pt.add_background(flat(), "FB")
    pt.add_data({"m": M_DATA}, W_DATA)
    pt.add_normalization_events({"m": M_MC}, W_MC)
    lk = f.likelihood
    free = list(COUPLINGS) + ["FB"]
    y = x.copy()
    y[lk.parameter_index("P2")] += 5
    assert lk.evaluate(y, free=free)[0] == pytest.approx(full.evaluate(y)[0], rel=1e-12)
    buf = lk.points[0].norm_events
    assert buf.released and buf._blocks is None
    assert lk.evaluate(x, free=free)[0] == pytest.approx(full.evaluate(x)[0], rel=1e-12)
    with pytest.raises(ValueError, match="normalization.*released \\(release_normalization_"
                                         "events=True: freed once the cached matrix of fit "
                                         "point 0"):
        y[lk.parameter_index("M1")] *= 1.01     # not a coupling: the matrix needs the events
        lk.evaluate(y, free=free)
    # Kept by default.
    kept, _ = build(model, "background", "auto")
    kept.evaluate(x, free=list(COUPLINGS) + ["FB"])
    assert not kept.points[0].norm_events.released


def test_partial_pass_names_a_component_that_is_not_finite(model):
    """The one-pass normalization after a width moved names the component and
    the first normalization event at which it is not finite (an event value
    spoiled after the cache was built, so that only that pass meets it)."""
    cached, x = build(model, "background", "always")
    cached.on_invalid = "raise"
    cached.evaluate(x)
    blocks = cached.points[0].norm_events.blocks
    blocks.setflags(write=True)
    blocks[3, 1] = np.nan                   # one field, L = 4: normalization event 13
    y = x.copy()
    y[cached.parameter_index("G1")] *= 1.01
    with pytest.raises(DensityError, match=r"component X1 .*not finite at normalization event 13\b"):
        cached.evaluate(y)


@pytest.mark.parametrize("partial", [True, False])
def test_a_nan_parameter_on_the_cached_path_is_named(model, partial):
    """A NaN mass on the cached path: the message names the parameter and
    its value, as the full path does, not only an event."""
    cached, x = build(model, "background", "always")
    # All free: the one-pass partial normalization meets the NaN; couplings
    # only: the component function recomputes every component.
    free = (list(cached.parameters.names) if partial else
            [n for n in cached.parameters.names if n[0] in "APRIF"])
    cached.on_invalid = "raise"
    cached.evaluate(x, free=free)
    y = x.copy()
    y[cached.parameter_index("M1")] = np.nan
    with pytest.raises(DensityError, match=r"component X1 .*not finite|component X1 is nan") \
            as err:
        cached.evaluate(y, free=free)
    assert "M1=nan" in str(err.value) and "not finite: M1)" in str(err.value)
    assert "G1=" in str(err.value)


def test_the_cache_is_decided_by_the_call_not_by_a_fitter(model):
    """One likelihood, three callers: a plain call takes the full path, the
    restricted cost of the couplings the cached one, whatever a Fitter built
    on the same likelihood did before; a restricted cost refuses a move of
    another parameter, naming it."""
    lk, x = build(model, "background", "auto")
    sig = lk.points[0].signal
    free = list(COUPLINGS) + ["FB"]
    cost = lk.restricted(free)
    assert cost.free_parameters == tuple(free)
    f = Fitter(lk, seed=3, verbose=False, randomize=False)
    f.run(Stage(fix_all=True, release=free))
    assert f.free_parameters == tuple(free)
    # After the Fitter's fit: the plain call still takes the full path.
    assert lk.signal_evaluator(sig) is lk._evaluator(sig)
    assert lk.signal_evaluator(sig, free=cost.free_parameters) is not lk._evaluator(sig)
    full, _ = build(model, "background", "never")
    y = x.copy()
    y[lk.parameter_index("P2")] += 3
    v_full = full.evaluate(y)[0]
    assert lk.evaluate(y)[0] == v_full                      # the same path, the same bits
    assert cost.evaluate(y)[0] == pytest.approx(v_full, rel=1e-12)
    z = y.copy()
    z[lk.parameter_index("M1")] *= 1.01
    with pytest.raises(RestrictionError, match=r"parameter\(s\) M1 moved, but this cost is "
                                               r"restricted to the free parameters A2, P2"):
        cost(z)
    with pytest.raises(KeyError, match="did you mean M1"):
        lk.restricted(["m1"])
    with pytest.raises(TypeError, match="sequence of names, got 'A2'"):
        lk.restricted("A2")


def test_minuit_on_a_restricted_likelihood_is_the_fitters_fit(model):
    """The stage runner is Minuit on the restricted likelihood: the same start,
    steps, limits and free parameters give the same fit, bit for bit, and a
    parameter released on Minuit directly is followed (the cost restricts
    itself again instead of giving a gradient without the mass)."""
    free = list(COUPLINGS) + ["FB"]
    lk, _ = build(model, "background", "auto")
    f = Fitter(lk, seed=3, verbose=False)
    f.run(Stage(fix_all=True, release=free, hesse=True))
    other, _ = build(model, "background", "auto")
    cost = other.restricted(free)
    m = Minuit(cost, f.initial_values, grad=cost.grad, name=other.parameters.names)
    for p in other.parameters:
        m.errors[p.name] = p.step
        if p.bounded:
            m.limits[p.name] = p.limits
    m.fixed = True
    for n in free:
        m.fixed[n] = False
    m.migrad()
    m.hesse()
    assert m.fval == f.minuit.fval
    np.testing.assert_array_equal(np.array(m.values), values(f.minuit))
    np.testing.assert_array_equal(np.array(m.covariance), np.array(f.minuit.covariance))
    assert other.n_calls == lk.n_calls
    # A mass released on the Minuit object itself.
    f.minuit.fixed["M1"] = False
    f.minuit.migrad()
    assert f.free_parameters == tuple(sorted(free + ["M1"], key=lk.parameters.names.index))
    assert f.minuit.valid and f.minuit.values["M1"] != 0.77


def _cached_data_rows(x, c, scale, bg, f, w, gradient, n, ce, n_columns, threads, *channels):
    """_kernels.cached_data_rows of the complex components x and couplings c into new arrays
    of n_columns columns per chunk of ce events: (rows, index of the first invalid event of
    each chunk or -1)."""
    from vecampfit.fitter._dispatch import kernels
    n_chunks = -(-n // ce)
    rows = np.empty((n_chunks, n_columns))
    bad = np.empty(n_chunks, dtype=np.intp)
    kernels.cached_data_rows(x.view(np.float64), c.view(np.float64), scale, bg, f, w, gradient,
                             n, ce, rows, bad, threads, *channels)
    return rows, bad


def _assert_cached_data_rows_equal(ref, x, c, scale, bg, f, w, n, ce, *channels):
    """The rows of :func:`_cached_data_rows` with the gradient columns equal the numpy rows ref
    to 1e-13 relative, on 1 thread and on 2 bit for bit, with no invalid event."""
    out = {}
    for threads in (1, 2):
        rows, bad = _cached_data_rows(x, c, scale, bg, f, w, True, n, ce, ref.shape[1], threads,
                                      *channels)
        assert np.all(bad == -1)
        out[threads] = rows
    err = np.max(np.abs(out[1] - ref) / np.maximum(np.abs(ref), 1e-300))
    print(f"largest relative difference to numpy {err:.1e}")
    assert err < 1e-13
    assert np.array_equal(out[1], out[2])


def test_the_fused_cached_data_kernel_against_numpy_and_across_threads():
    """_kernels.cached_data_rows: the per-chunk sums of -2 w ln t, r S, r B and
    X r conj(A) equal a numpy evaluation to 1e-13, do not depend on the number
    of threads (bit for bit), and name the first event whose argument is not positive."""
    from vecampfit.fitter._reduction import chunk_sums
    rng = np.random.default_rng(8)
    K, n, nb, ce = 7, 10_003, 2, 1024
    x = rng.normal(size=(K, n)) + 1j * rng.normal(size=(K, n))
    c = rng.normal(size=K) + 1j * rng.normal(size=K)
    bg = rng.uniform(0.5, 2.0, size=(nb, n))
    f = np.array([0.2, 0.1])
    w = rng.uniform(0.5, 1.5, size=n)
    scale = 0.7
    a = c @ x
    s = np.abs(a) ** 2
    t = scale * s + f @ bg
    r = -2 * w / t
    cols = [-2 * w * np.log(t), r * s, bg[0] * r, bg[1] * r]
    v = x * (r * a.conj())
    ref = np.hstack([chunk_sums(cols, n, ce), chunk_sums(list(v.real), n, ce),
                     chunk_sums(list(v.imag), n, ce)])
    _assert_cached_data_rows_equal(ref, x, c, scale, bg, f, w, n, ce)
    # an argument that is not positive: its event is named
    bg2 = bg.copy()
    bg2[:, 5000] = -1e9
    _, bad = _cached_data_rows(x, c, scale, bg2, f, np.zeros(0), False, n, ce, 4, 2)
    assert bad[5000 // ce] == 5000 and np.sum(bad >= 0) == 1


def test_the_cached_value_call_sums_logarithms_over_the_whole_double_range():
    """The value call of _kernels.cached_data_rows takes the logarithms of
    unweighted events as logarithms of products of mantissas plus exponents
    times ln 2: its -2 sum ln t per chunk equals math.fsum of numpy's
    logarithms within eps sum |ln t|, for t from subnormal (1e-320) to
    1e308; the rows after the first are 0; 1 and 2 threads agree bit for bit."""
    import math
    rng = np.random.default_rng(21)
    K, n, ce = 3, 20_011, 2048
    t_wanted = 10.0 ** rng.uniform(-320, 308, size=n)
    t_wanted[:50] = 10.0 ** rng.uniform(-323, -308, size=50)     # subnormal
    t_wanted[50:100] = rng.uniform(1, 2, size=50) * 2.0 ** 1022   # near the largest double
    x = np.zeros((K, n), dtype=np.complex128)
    x[0] = np.sqrt(t_wanted)
    c = np.array([1.0, 0.4 - 0.2j, 1.5j])
    t = x[0].real * x[0].real       # what the kernel forms (the other components are 0)
    assert np.all(t > 0) and np.sum(t < np.finfo(float).tiny) >= 20
    rows = {}
    for threads in (1, 2):
        rows[threads], bad = _cached_data_rows(x, c, 1.0, np.zeros((0, 1)), np.zeros(0),
                                               np.zeros(0), False, n, ce, 2, threads)
        assert np.all(bad == -1)
    assert np.array_equal(rows[1], rows[2])
    assert np.all(rows[1][:, 1] == 0)
    logs = np.log(t)
    worst = 0.0
    for k in range(rows[1].shape[0]):
        part = logs[k * ce:(k + 1) * ce]
        ref = -2 * math.fsum(part)
        # in units of the rounding of a sum of logarithms: eps sum |ln t|
        err = abs(rows[1][k, 0] - ref) / (2 * np.finfo(float).eps * np.sum(np.abs(part)))
        worst = max(worst, err)
    print(f"largest difference to fsum of numpy's logarithms: {worst:.3f} eps sum |ln t|")
    assert worst < 1
    # the gradient call's first row: the same logarithms
    rows_g, _ = _cached_data_rows(x, c, 1.0, np.zeros((0, 1)), np.zeros(0), np.zeros(0), True,
                                  n, ce, 2 + 2 * K, 1)
    assert np.array_equal(rows_g[:, 0], rows[1][:, 0])


@pytest.mark.parametrize("ce", [512, 500])
def test_the_fused_cached_data_kernel_with_channels(ce):
    """_kernels.cached_data_rows with H channels (S = sum_h |sum_k c_k X_kh|^2, X stored in
    blocks of events, channel_blocks): the per-chunk sums equal a numpy evaluation to 1e-13 and do not depend on the
    number of threads; an invalid event is named."""
    from vecampfit.fitter._reduction import chunk_sums
    rng = np.random.default_rng(9)
    K, H, n = 5, 3, 7_001
    x = rng.normal(size=(K, H, n)) + 1j * rng.normal(size=(K, H, n))
    c = rng.normal(size=K) + 1j * rng.normal(size=K)
    bg = rng.uniform(0.5, 2.0, size=(1, n))
    f = np.array([0.3])
    scale = 1.3
    a = np.einsum("k,khn->hn", c, x)
    s = np.sum(np.abs(a) ** 2, axis=0)
    t = scale * s + f @ bg
    r = -2 / t
    cols = [-2 * np.log(t), r * s, bg[0] * r]
    v = np.einsum("khn,hn->kn", x, r * a.conj())
    ref = np.hstack([chunk_sums(cols, n, ce), chunk_sums(list(v.real), n, ce),
                     chunk_sums(list(v.imag), n, ce)])
    from vecampfit.fitter._evaluation import channel_blocks, channel_columns
    blocks = channel_blocks(x.reshape(K * H, n), K, H)
    assert blocks.flags.c_contiguous and blocks.ctypes.data % 64 == 0   # starts on a cache line
    assert np.array_equal(channel_columns(blocks, K, H, n), x)
    flat = blocks.reshape(blocks.shape[0], -1)
    _assert_cached_data_rows_equal(ref, flat, c, scale, bg, f, np.zeros(0), n, ce, H)
    bg2 = bg.copy()
    bg2[0, 3000] = -1e9
    _, bad = _cached_data_rows(flat, c, scale, bg2, f, np.zeros(0), False, n, ce, 3, 1, H)
    assert bad[3000 // ce] == 3000 and np.sum(bad >= 0) == 1
    with pytest.raises(ValueError, match="wrong shape"):
        _cached_data_rows(flat, c, scale, bg, f, np.zeros(0), False, n, ce, 3, 1, H + 1)


def test_the_fused_cached_data_kernel_with_channel_weights():
    """_kernels.cached_data_rows with channel weights (S = sum_(h, h', e) Re[w_e A_h
    conj(A_h')], a polarized parent's density matrix on two of four channels): the sums,
    the couplings' gradient terms sum_h X_kh r conj(G_h) and the weights' terms
    r sum A_h conj(A_h') equal a numpy evaluation written here to 1e-13, the same for 1 and
    2 threads bit for bit; pairs out of range are refused."""
    from vecampfit.fitter._dispatch import kernels
    from vecampfit.fitter._evaluation import channel_blocks
    from vecampfit.fitter._reduction import chunk_sums
    rng = np.random.default_rng(12)
    K, H, n, ce = 6, 4, 5_003, 512
    x = rng.normal(size=(K, H, n)) + 1j * rng.normal(size=(K, H, n))
    c = rng.normal(size=K) + 1j * rng.normal(size=K)
    # channels (lambda, g): 0 = (+, +), 1 = (-, +), 2 = (+, -), 3 = (-, -);
    # weights e: (+, +), (-, -), (+, -), (-, +) of a Hermitian 2 x 2 matrix
    p = np.array([0.2, -0.3, 0.5])
    w = np.array([(1 + p[2]) / 2, (1 - p[2]) / 2, (p[0] - 1j * p[1]) / 2,
                  (p[0] + 1j * p[1]) / 2])
    pairs = np.array([(0, 0, 0), (1, 1, 1), (0, 1, 2), (1, 0, 3),
                      (2, 2, 0), (3, 3, 1), (2, 3, 2), (3, 2, 3)], dtype=np.intp)
    a = np.einsum("k,khn->hn", c, x)
    z = a[pairs[:, 0]] * np.conj(a[pairs[:, 1]])
    s = np.real(w[pairs[:, 2]] @ z)
    assert np.all(s > 0)
    t = 1.1 * s
    r = -2 / t
    gc = np.zeros_like(a)
    for h, h2, e in pairs:
        gc[h] += w[e] * np.conj(a[h2])
    v = np.einsum("khn,hn->kn", x, r * gc)
    q = np.zeros((4, n), dtype=complex)
    for j, (h, h2, e) in enumerate(pairs):
        q[e] += r * z[j]
    ref = np.hstack([chunk_sums([-2 * np.log(t), r * s], n, ce),
                     chunk_sums(list(v.real), n, ce), chunk_sums(list(v.imag), n, ce),
                     chunk_sums(list(q.real), n, ce), chunk_sums(list(q.imag), n, ce)])
    flat = channel_blocks(x.reshape(K * H, n), K, H)
    flat = flat.reshape(flat.shape[0], -1)
    n_chunks = -(-n // ce)
    out = {}
    for threads in (1, 2):
        rows = np.empty((n_chunks, 2 + 2 * K + 8))
        bad = np.empty(n_chunks, dtype=np.intp)
        kernels.cached_data_rows(flat.view(np.float64), c.view(np.float64), 1.1,
                                 np.zeros((0, 1)), np.zeros(0), np.zeros(0), True, n, ce, rows,
                                 bad, threads, H, pairs, w.view(np.float64))
        assert np.all(bad == -1)
        out[threads] = rows
    # relative to each column's largest sum (the diagonal weights' Im sums, zero in the
    # kernel and rounding in numpy, relative to the sums' scale)
    scale = np.maximum(np.max(np.abs(ref), axis=0), 1e-3 * np.max(np.abs(ref)))
    err = np.max(np.abs(out[1] - ref) / scale)
    print(f"largest difference to numpy, relative to the column {err:.1e}")
    assert err < 1e-13
    assert np.array_equal(out[1], out[2])
    wrong = pairs.copy()
    wrong[3, 1] = H
    with pytest.raises(ValueError, match="pair 3 out of range"):
        kernels.cached_data_rows(flat.view(np.float64), c.view(np.float64), 1.1,
                                 np.zeros((0, 1)), np.zeros(0), np.zeros(0), True, n, ce, rows,
                                 bad, 1, H, wrong, w.view(np.float64))


@pytest.mark.parametrize("shape, dtype", [((7,), np.float64), ((3, 5, 8), np.float32),
                                          ((1000, 4), np.complex128), ((0, 3), np.float64)])
def test_aligned_arrays_start_on_a_cache_line(shape, dtype):
    """aligned_empty (the storage of event buffers and stored amplitudes): the requested
    shape and type, C-contiguous, writable, the data at a multiple of 64 bytes (or the
    given offset past one)."""
    from vecampfit.fitter._reduction import aligned_empty
    for offset in (0, 32):
        for _ in range(8):        # whatever the allocator's offset
            a = aligned_empty(shape, dtype, offset=offset)
            assert a.shape == shape and a.dtype == dtype and a.flags.c_contiguous
            assert a.flags.writeable and (a.size == 0 or a.ctypes.data % 64 == offset)
            a[...] = 1
