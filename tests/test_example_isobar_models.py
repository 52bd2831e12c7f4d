"""The D0 -> K- pi+ pi0 (CLEO) and GenFit3K models re-declared with
vecampfit.isobar (examples/*/isobar_model*.py) against the hand-written
densities (benchmarks/dz_handwritten, benchmarks/genfit3k_handwritten): values
and gradients in float64 at L = 1, 4, 8 (every length in the slow test), on
the examples' events and at random parameter points."""

import os

import numpy as np
import pytest

import genfit3k_reference as reference
import handwritten
from vecampfit import generation
from vecampfit.isobar import fit_fractions

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DZ = os.path.join(ROOT, "examples", "dz_kmpippiz")
G3K = os.path.join(ROOT, "examples", "laura_genfit3k")
LENGTHS = (1, 4, 8)
ALL_LENGTHS = (1, 2, 4, 8, 16, 32, 64)
# Values agree event by event; a gradient entry is compared on the scale of
# its parameter's row (the largest |dS/dp| over the events): an entry near a
# zero crossing has no relative precision of its own in either density.
RTOL = 1e-12


def _generated(isobar_model, model_cache):
    """The model of an example's isobar_model*.py, compiled for LENGTHS."""
    return isobar_model.build().compile(LENGTHS, directory=os.path.join(model_cache, "isobar"),
                                        build_dir=model_cache)


def _count_lines(path):
    with open(path) as f:
        return sum(1 for _ in f)


def test_declarations_are_at_most_40_lines():
    for path in ((DZ, "isobar_model.py"), (G3K, "isobar_model3k.py")):
        assert _count_lines(os.path.join(*path)) <= 40


def _compare(hand, gen, hand_buffer, gen_buffer, names, x):
    xd = dict(zip(names, x))
    xg = np.array([xd[n] for n in gen.parameters])
    vh, gh = hand.evaluate(hand_buffer, x, True)
    vg, gg = gen.evaluate(gen_buffer, xg, True)
    gh = gh[[list(names).index(n) for n in gen.parameters]]
    np.testing.assert_allclose(vg, vh, rtol=RTOL, atol=0)
    scale = np.max(np.abs(gh), axis=1, keepdims=True)
    assert np.all(np.abs(gg - gh) <= RTOL * scale), \
        f"largest gradient difference {np.max(np.abs(gg - gh) / np.where(scale > 0, scale, 1))}"
    return vh


# ---------------------------------------------------------------------------
# D0 -> K- pi+ pi0
# ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def dz(model_cache):
    import common
    import dz_reference as hand_model
    import isobar_model
    lengths = LENGTHS
    hand = handwritten.compile_signal(lengths, build_dir=model_cache)
    gen = _generated(isobar_model, model_cache)
    m = hand_model.MASSES
    ev = generation.phase_space(m["md"], [m["km"], m["pip"], m["piz"]], 3000, seed=11)
    records = {"km_momentum": ev.momenta[0], "pip_momentum": ev.momenta[1],
               "pi0_momentum": ev.momenta[2]}
    s1, s2 = hand_model.dalitz_variables(records)
    return dict(common=common, hand_model=hand_model, hand=hand, gen=gen, lengths=lengths,
                records={"m2_km_pip": s1, "m2_km_piz": s2}, weights=ev.weights)


def test_dz_same_parameters_and_starting_values(dz):
    names = dz["hand_model"].parameter_names()
    assert sorted(dz["gen"].parameters) == sorted(names)
    assert dz["gen"].model.values() == pytest.approx(dz["hand_model"].default_parameters())


def test_dz_values_and_gradients_equal_hand_written(dz):
    names = dz["hand_model"].parameter_names()
    x0 = np.array([dz["hand_model"].default_parameters()[n] for n in names])
    rng = np.random.default_rng(5)
    for length in dz["lengths"]:
        hand = handwritten.signal_density(dz["hand"], length, "float64")
        gen = dz["gen"].density("float64", length)
        hb = hand.event_buffer(dz["records"], records=True)
        gb = gen.event_buffer(dz["records"], records=True)
        for trial in range(3):
            x = x0 if trial == 0 else x0 * (1 + 0.05 * rng.standard_normal(len(x0)))
            _compare(hand, gen, hb, gb, names, x)


def test_dz_float32_close_to_hand_written(dz):
    hand = handwritten.signal_density(dz["hand"], 8, "float32")
    gen = dz["gen"].density("float32", 8)
    names = dz["hand_model"].parameter_names()
    x = np.array([dz["hand_model"].default_parameters()[n] for n in names])
    vh = hand.evaluate(hand.event_buffer(dz["records"], records=True), x)
    vg = gen.evaluate(gen.event_buffer(dz["records"], records=True),
                      [dict(zip(names, x))[n] for n in gen.parameters])
    np.testing.assert_allclose(vg, vh, rtol=2e-4)


def test_dz_fit_fractions_against_independent_numpy(dz):
    """Fit fractions at the CLEO values from the layer against the example's own
    numpy model (tests/dz_reference.py), one component at a time by zeroing the others."""
    hm = dz["hand_model"]
    names = hm.parameter_names()
    x0 = dict(hm.default_parameters())
    fields = hm.record_fields(dz["records"])
    w = dz["weights"]
    keys = [r[0] for r in hm.RESONANCES] + ["NR"]

    def fractions(values):
        def amp(only=None):
            v = dict(values)
            if only is not None:
                for k in keys:
                    if k != only:
                        v[f"{k}_A"] = 0.0
            return hm.amplitude(fields, [v[n] for n in names], hm.MASSES)
        total = np.dot(w, np.abs(amp()) ** 2)
        comps = {k: amp(k) for k in keys}
        f = np.array([[np.dot(w, (comps[a] * comps[b].conj()).real) * (1 if a == b else 2)
                       for b in keys] for a in keys]) / total
        return f, comps, amp()

    ref, comps, a = fractions(x0)
    # Covariance over a few parameters (shape and coupling), symmetric positive definite.
    cov_names = ["RHOP1_M", "KSTM1_G", "KSTZ1_A", "KSTZ1_P", "NR_A"]
    rng = np.random.default_rng(3)
    b = rng.standard_normal((5, 5)) * 1e-3
    cov = b @ b.T
    jac = []
    for n in cov_names:
        h = 1e-5 * max(abs(x0[n]), 1)
        up, dn = dict(x0), dict(x0)
        up[n] += h
        dn[n] -= h
        jac.append((fractions(up)[0] - fractions(dn)[0]) / (2 * h))
    jac = np.array(jac)
    ref_err = np.sqrt(np.einsum("kij,kl,lij->ij", jac, cov, jac))
    d = np.abs(a) ** 2
    den = np.dot(w, d)
    ref_norm = np.array([[np.sqrt(np.dot(w * w, ((comps[p] * comps[q].conj()).real
                                                 * (1 if p == q else 2) - ref[i, j] * d) ** 2))
                          / den for j, q in enumerate(keys)] for i, p in enumerate(keys)])

    ff = fit_fractions(dz["gen"], dz["records"], w, covariance=cov, covariance_names=cov_names)
    assert ff.components == tuple(keys)
    np.testing.assert_allclose(ff.matrix, ref, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(ff.errors, ref_err, rtol=1e-4, atol=1e-10)
    np.testing.assert_allclose(ff.normalization_errors, ref_norm, rtol=1e-9, atol=1e-14)
    assert np.trace(ff.matrix) + np.sum(np.triu(ff.matrix, 1)) == pytest.approx(1, abs=1e-12)
    labels = {c.key: c.label for c in dz["gen"].model.components}
    text = ff.table(labels)
    print(text)
    # The table: key, label, fraction, fit error, normalization error (percent), then the sum.
    lines = text.splitlines()
    assert len(lines) == len(keys) + 2 and lines[-1].split() == ["sum", f"{100 * ff.total:.3f}"]
    for k, (key, line) in enumerate(zip(keys, lines[1:])):
        parts = line.split()
        assert parts[0] == key and line.startswith(f"{key} {labels[key]}")
        assert [float(v) for v in parts[-3:]] == pytest.approx(
            [100 * ff.matrix[k, k], 100 * ff.errors[k, k], 100 * ff.normalization_errors[k, k]],
            abs=6e-4)
    grid = ff.table(normalization_errors=False).splitlines()
    assert "norm err" not in grid[0] and "norm err" in lines[0]
    for k, line in enumerate(grid[1:-1]):
        assert [float(v) for v in line.split()[-2:]] == pytest.approx(
            [100 * ff.matrix[k, k], 100 * ff.errors[k, k]], abs=6e-4)
    summary = ff.summary().split(", ")
    assert len(summary) == len(keys) and summary[-1].endswith(" %")
    assert summary[0] == f"{keys[0]} {100 * ff.matrix[0, 0]:.2f} +- {100 * ff.errors[0, 0]:.2f}"


def test_dz_fractions_of_any_density_equal_the_layers_fit_fractions(dz):
    """vecampfit.fractions with the components' magnitudes set to zero in
    turn gives the layer's fit fractions (the diagonal of
    isobar.fit_fractions) on the generated density, and its analytic
    Jacobian the errors that the layer finds by central differences."""
    from vecampfit.fractions import fractions
    model = dz["gen"].model
    d = dz["gen"].density("float64", 4)
    table = list(d.parameters)
    x0 = model.values()
    x = np.array([x0[n] for n in table])
    keys = [c.key for c in model.components]
    components = {k: [f"{o}_A" for o in keys if o != k] for k in keys}
    cov_names = ["RHOP1_M", "KSTM1_G", "KSTZ1_A", "KSTZ1_P", "NR_A", "KST0M_P"]
    rng = np.random.default_rng(4)
    b = rng.standard_normal((6, 6)) * 1e-3
    cov = np.zeros((len(table), len(table)))
    idx = [table.index(n) for n in cov_names]
    cov[np.ix_(idx, idx)] = b @ b.T
    w = dz["weights"]
    events = d.event_buffer(dz["records"], records=True)
    f = fractions(d, events, table, x, components, covariance=cov, weights=w)
    ref = fit_fractions(dz["gen"], dz["records"], w, covariance=b @ b.T,
                        covariance_names=cov_names)
    for k, key in enumerate(keys):
        assert f.values[key] == pytest.approx(ref.matrix[k, k], rel=1e-10), key
        assert f[key][1] == pytest.approx(ref.errors[k, k], rel=2e-4), key
        assert f.jacobian[key].shape == (len(table),)
    # Without a covariance matrix the errors are 0; an unknown name is refused.
    assert fractions(d, events, table, x, {"NR": components["NR"]}).errors["NR"] == 0
    with pytest.raises(ValueError, match="not parameters of density"):
        fractions(d, events, table, x, {"NR": ["XYZ_A"]})
    with pytest.raises(ValueError, match="covariance"):
        fractions(d, events, table, x, components, covariance=np.eye(3))


# ---------------------------------------------------------------------------
# GenFit3K
# ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def g3k(model_cache):
    import genfit3k_handwritten as hw
    import isobar_model3k
    from vecampfit.root_io import read_events
    lengths = LENGTHS
    hand = hw.compile_density(lengths, build_dir=model_cache)
    gen = _generated(isobar_model3k, model_cache)
    records, _ = read_events(os.path.join(G3K, "data", "toys_expt_0-9.root"), "toys",
                             ["m13Sq", "m23Sq"])
    return dict(hw=hw, hand=hand, gen=gen, lengths=lengths,
                records={k: np.asarray(v[:4000], dtype=np.float64) for k, v in records.items()})


def test_g3k_values_and_gradients_equal_hand_written(g3k):
    hw = g3k["hw"]
    names = list(hw.PARAMETER_NAMES)
    assert sorted(g3k["gen"].parameters) == sorted(names)
    # Component normalizations other than 1 so that the constants are exercised.
    norm = {"PHI": 0.7, "F2": 1.3, "NR": 2.1}
    consts = {f"N_{k}": v for k, v in norm.items()}
    x0 = np.array([reference.GENERATED[n] for n in names])
    coefficient = np.array([n.endswith(("_RE", "_IM")) for n in names])
    rng = np.random.default_rng(7)
    for length in g3k["lengths"]:
        hand = hw.signal_density(g3k["hand"][length], "float64", norm)
        gen = g3k["gen"].density("float64", length, constants=consts)
        hb = hand.event_buffer(g3k["records"], records=True)
        gb = gen.event_buffer(g3k["records"], records=True)
        for trial in range(3):
            x = x0 if trial == 0 else (x0 * (1 + 0.002 * rng.standard_normal(len(x0)))
                                       + 0.3 * rng.standard_normal(len(x0)) * coefficient)
            _compare(hand, gen, hb, gb, names, x)


def test_g3k_hand_written_density_equals_the_numpy_reference(g3k):
    """The hand-written density against the reference's formulas (so that the
    comparison above compares two correct densities)."""
    hw = g3k["hw"]
    norm = {"PHI": 0.7, "F2": 1.3, "NR": 2.1}
    d = hw.signal_density(g3k["hand"][4], "float64", norm)
    r = g3k["records"]
    x = dict(reference.GENERATED, F2_M=1.52, NR_IM=0.3)
    got = d.evaluate(d.event_buffer(r, records=True), [x[n] for n in hw.PARAMETER_NAMES])
    ref = reference.density(r["m13Sq"], r["m23Sq"], x, norm)
    np.testing.assert_allclose(got[:len(ref)], ref, rtol=1e-12)


def test_g3k_unit_normalization_equals_the_numpy_integrals(g3k):
    """vecampfit.isobar.unit_normalization: n_k = 1/sqrt(sum w |X_k|^2) of
    each scaled coupling, equal to the numpy integrals of |X(13) + X(23)|^2
    (tests/genfit3k_reference.py) at the generated values and at moved
    masses and widths and kaon mass."""
    from vecampfit.isobar import unit_normalization
    records = g3k["records"]
    w = np.linspace(0.5, 1.5, len(records["m13Sq"]))
    model = g3k["gen"].model
    for scale, kaon in ((1.0, 1.0), (1.01, 1.0), (1.0, 0.999)):
        y = {n: v * (scale if n.endswith(("_M", "_G")) else 1)
             for n, v in reference.GENERATED.items()}
        m = dict(reference.MASSES, M_KP=reference.MASSES["M_KP"] * kaon,
                 M_KM=reference.MASSES["M_KM"] * kaon)
        ref = reference.component_integrals(y, records, w, m)
        n = unit_normalization(model, records, w, params=y, constants=m)
        assert sorted(n) == ["N_F2", "N_NR", "N_PHI"]
        for k in ("PHI", "F2", "NR"):
            assert n[f"N_{k}"] == pytest.approx(1 / np.sqrt(ref[k]), rel=1e-12), (scale, k)
    with pytest.raises(ValueError, match="weights"):
        unit_normalization(model, records, w[:-1])
    with pytest.raises(ValueError, match="no coupling has a scale"):
        from vecampfit.isobar import Cartesian, IsobarModel
        bare = IsobarModel(("B+", 5.27934), [("K+", 0.493677), ("K+", 0.493677), ("K-", 0.493677)],
                           variables={"m13Sq": (0, 2), "m23Sq": (1, 2)})
        bare.add_nonresonant("NR", Cartesian(1.0, 0.0))
        unit_normalization(bare, records)


def test_g3k_fit_fractions_equal_the_example(g3k):
    """The layer's fit fractions equal those of the model's numpy formulas
    (tests/genfit3k_reference.py)."""
    records = g3k["records"]
    w = np.full(len(records["m13Sq"]), 0.25)
    norm = {"PHI": 0.7, "F2": 1.3, "NR": 2.1}
    ref = reference.fit_fractions(reference.GENERATED, records, w, norm)
    ff = fit_fractions(g3k["gen"], records, w, params=reference.GENERATED,
                       constants={f"N_{k}": v for k, v in norm.items()})
    for k in ("PHI", "F2", "NR"):
        assert ff.fractions[k] == pytest.approx(ref[k], rel=1e-11)


def test_dz_generated_events_in_the_example_layout(dz, tmp_path):
    """Events generated from the declared model are written as the example's
    files (tree "tree", km_momentum[4], pip_momentum[4], pi0_momentum[4],
    float32) and read back by the example's own code and by both densities."""
    from vecampfit.isobar import generate_events
    from vecampfit.root_io import read_events
    model = dz["gen"].model
    path = str(tmp_path / "data_signal.root")
    generate_events(model, 3000, seed=2, compiled=dz["gen"], path=path,
                    momentum_dtype=np.float32)
    records, _ = read_events(path, "tree", list(dz["common"].BRANCHES))
    assert all(records[b].dtype == np.float32 and records[b].shape == (3000, 4)
               for b in dz["common"].BRANCHES)
    hand = handwritten.signal_density(dz["hand"], 4, "float64")
    gen = dz["gen"].density("float64", 4)
    names = dz["hand_model"].parameter_names()
    x = dict(dz["hand_model"].default_parameters())
    vh = hand.evaluate(hand.event_buffer(records, records=True), [x[n] for n in names])
    vg = gen.evaluate(gen.event_buffer(records, records=True), [x[n] for n in gen.parameters])
    np.testing.assert_allclose(vg, vh, rtol=1e-12)
    # The events follow |A|^2: the mean density over them exceeds the phase-space mean.
    assert np.mean(vh) > 1.5 * np.average(
        gen.evaluate(gen.event_buffer(dz["records"], records=True),
                     [x[n] for n in gen.parameters]), weights=dz["weights"])


@pytest.mark.slow
def test_both_models_equal_hand_written_at_every_length(dz, g3k, model_cache):
    extra = [length for length in ALL_LENGTHS if length not in LENGTHS]
    hm = dz["hand_model"]
    hand = handwritten.compile_signal(extra, build_dir=model_cache)
    gen = dz["gen"].model.compile(extra, directory=os.path.join(model_cache, "isobar"),
                                  build_dir=model_cache)
    names = hm.parameter_names()
    x = np.array([hm.default_parameters()[n] for n in names])
    hw = g3k["hw"]
    g_hand = hw.compile_density(extra, build_dir=model_cache)
    g_gen = g3k["gen"].model.compile(extra, directory=os.path.join(model_cache, "isobar"),
                                     build_dir=model_cache)
    norm = {"PHI": 0.7, "F2": 1.3, "NR": 2.1}
    gx = np.array([reference.GENERATED[n] for n in hw.PARAMETER_NAMES])
    for length in extra:
        h = handwritten.signal_density(hand, length, "float64")
        d = gen.density("float64", length)
        _compare(h, d, h.event_buffer(dz["records"], records=True),
                 d.event_buffer(dz["records"], records=True), names, x)
        h = hw.signal_density(g_hand[length], "float64", norm)
        d = g_gen.density("float64", length, constants={f"N_{k}": v for k, v in norm.items()})
        _compare(h, d, h.event_buffer(g3k["records"], records=True),
                 d.event_buffer(g3k["records"], records=True), list(hw.PARAMETER_NAMES), gx)


def test_g3k_cached_likelihood_equals_the_full_one(g3k):
    """The generated module describes its components (couplings RE + i IM, the
    constant normalizations inside X_k): the fitter's cached evaluation gives
    the full evaluation's value and gradient."""
    from vecampfit.fitter import Likelihood
    from vecampfit.kinematics import dalitz_inside
    model = g3k["gen"].model
    norm = {f"N_{k}": v for k, v in {"PHI": 0.7, "F2": 1.3, "NR": 2.1}.items()}
    d = g3k["gen"].density("float64", 4, constants=norm)
    assert d.components is not None and d.components.names == ("PHI", "F2", "NR")
    records = g3k["records"]
    rng = np.random.default_rng(17)
    mc = {"m13Sq": rng.permutation(records["m13Sq"]), "m23Sq": rng.permutation(records["m23Sq"])}
    ok = dalitz_inside(mc["m13Sq"], mc["m23Sq"], 5.27934, 0.493677, 0.493677, 0.493677)
    mc = {k: v[ok] for k, v in mc.items()}
    values = {}
    for cache in ("never", "auto"):
        table = model.parameter_table()
        lik = Likelihood(table, vector_length=4, cache=cache)
        point = lik.add_point(g3k["gen"].density("float64", 4, constants=norm))
        point.add_data(records)
        point.add_normalization_events(mc)
        cost = lik.restricted([n for n in table.names if n.endswith(("_RE", "_IM"))])
        x = np.array(table.values)
        x[table.index("F2_RE")], x[table.index("NR_IM")] = 0.4, -0.3
        values[cache] = (cost(x), cost.grad(x))
        assert bool(lik._cached) == (cache == "auto")   # the cached path was taken
    assert values["auto"][0] == pytest.approx(values["never"][0], rel=1e-12)
    free = [model.parameter_names().index(n) for n in model.parameter_names()
            if n.endswith(("_RE", "_IM"))]
    np.testing.assert_allclose(values["auto"][1][free], values["never"][1][free], rtol=1e-9)


def _component_amplitudes(d, buf, x):
    """X_k of every component at the events of ``buf`` from the density's
    component function (complex, shape (K, n))."""
    from vecampfit.fitter._evaluation import CachedEvaluator
    ev = CachedEvaluator(d, np.float64, buf.vector_length)
    p = d.parameter_vector(np.asarray(x, dtype=np.float64), np.float64)
    pbuf = d.fill_buffer(d.new_parameter_buffer(np.float64), p)
    return ev._amplitudes(buf, buf.blocks, p, pbuf, 1)[:, :buf.n_events]


@pytest.mark.parametrize("which", ["dz", "g3k", "dz_hand"])
def test_declared_dependencies_are_exactly_what_moves_a_component(which, dz, g3k):
    """Each parameter that is not a coupling's moves only components whose
    declared dependencies name it (checked by moving it): a component
    recomputed too rarely would give a wrong F.  A declared parameter that
    moves nothing (the radius of a spin-0 resonance, whose Blatt-Weisskopf
    factor is 1) costs a recomputation only; those are listed."""
    if which == "dz_hand":      # the hand-written density of the benchmarks
        d = handwritten.signal_density(dz["hand"], 4, "float64")
        start = dz["hand_model"].default_parameters()
    else:
        gen = (dz if which == "dz" else g3k)["gen"]
        d = gen.density("float64", 4)
        start = gen.model.values()
    records = g3k["records"] if which == "g3k" else dz["records"]
    comp = d.components
    assert comp.partial and not comp.undeclared_parameters.size
    buf = d.event_buffer(records, records=True)
    x0 = np.array([start[n] for n in d.parameters])
    ref = _component_amplitudes(d, buf, x0)
    idle = []
    for k in comp.other_parameters:
        x = x0.copy()
        x[k] = x[k] * 1.001 + 1e-4
        moved = np.any(_component_amplitudes(d, buf, x) != ref, axis=1)
        declared = np.array([k in dep for dep in comp.depends])
        assert not np.any(moved & ~declared), (d.parameters[k], moved, declared)
        assert np.any(moved) or d.parameters[k].endswith("_R"), d.parameters[k]
        idle += [f"{d.parameters[k]} ({comp.names[j]})" for j in np.flatnonzero(declared & ~moved)]
    print(f"{which}: declared but without effect: {', '.join(idle) or 'none'}")


def test_dz_partial_recomputation_equals_the_full_likelihood(dz):
    """Masses and widths free, value calls: the likelihood recomputing only
    the components that moved (one at a time, two at a time: the rows of
    the normalization matrix; many: all) equals the full one to 1e-10."""
    from vecampfit.fitter import Likelihood
    model = dz["gen"].model
    table = model.parameter_table()
    rng = np.random.default_rng(23)
    mc = {k: rng.permutation(v) for k, v in dz["records"].items()}
    # the permuted pairs that are still inside the Dalitz plot
    ok = np.ones(len(next(iter(mc.values()))), dtype=bool)
    ok[model.kinematics(mc).outside()] = False
    mc = {k: v[ok] for k, v in mc.items()}
    liks = {}
    for cache in ("never", "always"):
        lik = Likelihood(table, vector_length=4, cache=cache, unused_parameters="ignore")
        point = lik.add_point(dz["gen"].density("float64", 4))
        point.add_data(dz["records"])
        point.add_normalization_events(mc)
        liks[cache] = lik
    costs = {cache: lik.restricted(list(table.names)) for cache, lik in liks.items()}
    d = liks["always"].points[0].signal
    comp = d.components
    assert liks["always"].signal_evaluator(d).partial
    x0 = np.array(table.values)
    others = [d.parameters[k] for k in comp.other_parameters]
    # One parameter of one component alone, per component.
    own = [[d.parameters[k] for k in dep if sum(k in e for e in comp.depends) == 1]
           for dep in comp.depends]
    own = [o[0] for o in own if o]
    assert len(own) >= 4
    movers = ([[n] for n in others] + [own[:2], own[1:3], own[:4], others, [others[0]]])
    worst = 0.0
    for names in movers:
        for sign in (1, -1, 0):
            x = x0.copy()
            for n in names:
                x[table.index(n)] *= 1 + sign * 2e-3
            f_full, f_part = costs["never"](x), costs["always"](x)
            worst = max(worst, abs(f_part - f_full) / abs(f_full))
            assert f_part == pytest.approx(f_full, rel=1e-10), names
        x0 = x
    print(f"largest relative difference {worst:.1e} over {len(movers) * 3} points")
