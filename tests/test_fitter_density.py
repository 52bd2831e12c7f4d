"""Tests of vecampfit.fitter.density: the model protocol (a compiled model
describes itself, constants are inputs of the filler), the guard zones
behind every buffer a density writes, the Python form's checks, and
densities from ctypes and cffi."""

import ctypes
import os
import shutil
import subprocess

import numpy as np
import pytest

from vecampfit.fitter import (Density, DensityError, EventBufferError, Likelihood, FitParameter,
                              ParameterTable)
from vecampfit.model_compiler import compile_model


@pytest.fixture(scope="module")
def protocol(model_cache, models_dir):
    return compile_model(f"{models_dir}/protocol_model.pyx", [4, 8], build_dir=model_cache)


X = np.linspace(-2, 3, 37)          # not a multiple of L: padded blocks are exercised


def scaled(x, mu, scale):
    return scale * np.exp(-(x - mu) ** 2 / 2)


def test_from_model_reads_what_the_module_declares(protocol):
    d = Density.from_model(protocol[4], "float64", model="scaled")
    assert d.parameters == ("mu",)
    assert d.event_fields == ("x",)
    assert d.constants == {"SCALE": 1.0}
    assert d.parameter_buffer_size == 2
    assert d.vector_length == 4 and d.precision == "float64" and d.has_gradient
    assert d.name.endswith(".scaled")
    # A dict of compiled modules: the vector length picks one.
    assert Density.from_model(protocol, "float32", model="scaled", vector_length=8).vector_length == 8
    with pytest.raises(DensityError, match=r"vector lengths \[4, 8\]: give vector_length="):
        Density.from_model(protocol, "float64", model="scaled")
    with pytest.raises(DensityError, match=r"holds the models \[.*'scaled'.*\]: give model="):
        Density.from_model(protocol[4], "float64")
    with pytest.raises(DensityError, match="holds no model 'gauss'"):
        Density.from_model(protocol[4], "float64", model="gauss")
    with pytest.raises(DensityError, match="holds no vector_length 16"):
        Density.from_model(protocol, "float64", model="scaled", vector_length=16)
    with pytest.raises(DensityError, match="offers precision.*not 'float16'"):
        Density.from_model(protocol[4], "float16", model="scaled")
    with pytest.raises(DensityError, match="does not define vecampfit_model"):
        Density.from_model(np, "float64")


def test_from_model_renames_parameters_and_constants(protocol):
    """One module under other names: the density evaluates as the module with the new names
    for parameters and constants; names that are not the module's are refused."""
    d = Density.from_model(protocol[4], "float64", model="scaled",
                           rename={"mu": "mu_2", "SCALE": "SCALE_2"}, constants={"SCALE_2": 2.5})
    assert d.parameters == ("mu_2",) and d.constants == {"SCALE_2": 2.5}
    np.testing.assert_allclose(d.evaluate({"x": X}, [0.3]), scaled(X, 0.3, 2.5), rtol=1e-15)
    with pytest.raises(DensityError, match="has no constant 'SCALE'"):
        Density.from_model(protocol[4], "float64", model="scaled", rename={"SCALE": "S"},
                           constants={"SCALE": 2.0})
    with pytest.raises(DensityError, match=r"rename names \['sigma'\]"):
        Density.from_model(protocol[4], "float64", model="scaled", rename={"sigma": "s"})
    with pytest.raises(DensityError, match="two parameters or constants one name"):
        Density.from_model(protocol[4], "float64", model="scaled", rename={"mu": "SCALE"})


@pytest.mark.parametrize("what,message", [
    ("parameters", r"declares 2 parameters in Python \(mu, sigma\) but 1 in C"),
    ("fields", r"declares 2 event fields in Python .* but 1 in C"),
    ("constants", r"declares 0 constants in Python .* but 1 in C"),
])
def test_python_names_must_agree_with_the_c_counts(protocol, what, message):
    with pytest.raises(ValueError, match=message):
        protocol[4].mismatched_description(what)


def test_constants_are_per_density_not_per_module(protocol):
    """Two densities from one compiled module with different constants, used
    alternately, each keep their own (a C global would be shared)."""
    one = Density.from_model(protocol[4], "float64", model="scaled")
    three = Density.from_model(protocol[4], "float64", model="scaled", constants={"SCALE": 3.0})
    for _ in range(2):
        np.testing.assert_allclose(one.evaluate({"x": X}, [0.4]), scaled(X, 0.4, 1.0), rtol=1e-15)
        np.testing.assert_allclose(three.evaluate({"x": X}, [0.4]), scaled(X, 0.4, 3.0),
                                   rtol=1e-15)
    assert one.constants == {"SCALE": 1.0} and three.constants == {"SCALE": 3.0}
    with pytest.raises(DensityError, match="has no constant 'SCALES'.*SCALE"):
        Density.from_model(protocol[4], "float64", model="scaled", constants={"SCALES": 2.0})
    # The same two densities as signals of two fits in one process.
    values = []
    for dens in (one, three, one):
        lk = Likelihood(ParameterTable([FitParameter("mu", 0.4, 0.1)]), vector_length=4, threads=1)
        pt = lk.add_point(dens, normalization="none")
        pt.add_data({"x": X})
        values.append(lk.evaluate([0.4])[0])
    assert values[0] == values[2]
    assert values[1] == pytest.approx(values[0] - 2 * X.size * np.log(3.0), rel=1e-13)


def test_evaluate_gradient_and_parameter_buffer(protocol):
    d = Density.from_model(protocol[8], "float64", model="scaled", constants={"SCALE": 2.0})
    v, g = d.evaluate({"x": X}, [0.3], gradient=True)
    np.testing.assert_allclose(v, scaled(X, 0.3, 2.0), rtol=1e-15)
    np.testing.assert_allclose(g[0], scaled(X, 0.3, 2.0) * (X - 0.3), rtol=1e-14, atol=1e-300)
    assert g.shape == (1, X.size)
    np.testing.assert_array_equal(d.parameter_buffer([0.3]), [2.0, 0.3])
    with pytest.raises(DensityError, match=r"2 parameter values given, the density has 1 \(mu\)"):
        d.evaluate({"x": X}, [0.3, 1.0])
    with pytest.raises(EventBufferError, match="needs event field 'x'"):
        d.evaluate({"y": X}, [0.3])
    # A buffer laid out for another vector length or precision is refused
    # (the density would read beyond its blocks).
    other = Density.from_model(protocol[4], "float64", model="scaled").event_buffer({"x": X})
    with pytest.raises(DensityError, match="laid out for float64 L=4, the density is compiled "
                                           "for float64 L=8"):
        d.evaluate(other, [0.3])
    single = Density.from_model(protocol[8], "float32", model="scaled").event_buffer({"x": X})
    with pytest.raises(DensityError, match="laid out for float32 L=8"):
        d.evaluate(single, [0.3])


@pytest.mark.parametrize("model,gradient,message", [
    ("long_fill", False, "filler wrote beyond the 2 elements"),
    ("long_gradient", True, r"wrote beyond .* gradient values its 1 parameters \(mu\)"),
    ("long_values", False, "wrote beyond the 4 values of a block"),
])
def test_writing_beyond_a_declared_buffer_is_an_error_naming_the_density(protocol, model,
                                                                          gradient, message):
    d = Density.from_model(protocol[4], "float64", model=model)
    with pytest.raises(DensityError, match=message) as err:
        d.evaluate({"x": X}, [0.3], gradient=gradient)
    assert model in str(err.value)
    # The same inside a fit, in the data and normalization sums.
    lk = Likelihood(ParameterTable([FitParameter("mu", 0.3, 0.1)]), vector_length=4, threads=2)
    pt = lk.add_point(d)
    pt.add_data({"x": X})
    pt.add_normalization_events({"x": X})
    with pytest.raises(DensityError, match=message):
        lk.evaluate([0.3], gradient=gradient)


def _scaled_likelihood(density, weights, threads):
    lk = Likelihood(ParameterTable([FitParameter("mu", 0.3, 0.1)]), vector_length=4,
                    threads=threads)
    pt = lk.add_point(density)
    pt.add_data({"x": X[::2]})
    pt.add_normalization_events({"x": X}, weights=weights)
    return lk


@pytest.mark.parametrize("weighted", [False, True])
def test_the_gradient_sum_adds_what_the_gradient_function_writes(protocol, weighted):
    """A model's density_gradient_sum serves the normalization sums of a
    gradient call; the likelihood is then the same as from its
    density_gradient, to the last bit, for one and two threads."""
    with_sum = Density.from_model(protocol[4], "float64", model="scaled")
    assert with_sum.gradient_sum_pointer != 0
    fns = protocol[4].vecampfit_model()["scaled"]["functions"]["float64"]
    without = Density(fns["density"], fns["density_gradient"], parameters=["mu"],
                      event_fields=["x"], parameter_buffer_size=2,
                      fill_parameter_buffer=fns["fill_parameter_buffer"],
                      constants={"SCALE": 1.0}, name="without its sum")
    assert without.gradient_sum_pointer == 0
    weights = np.linspace(0.5, 1.5, X.size) if weighted else None
    results = []
    for d in (with_sum, without):
        for threads in (1, 2):
            results.append(_scaled_likelihood(d, weights, threads).evaluate([0.7], gradient=True))
    for f, g in results[1:]:
        assert f == results[0][0]
        np.testing.assert_array_equal(g, results[0][1])
    # and the gradient is that of the formula: d/dmu of
    # -2 sum_data ln(S / I) with I = sum_norm w S
    w = np.ones(X.size) if weights is None else weights
    s = scaled(X, 0.7, 1.0)
    integral, d_integral = np.sum(w * s), np.sum(w * s * (X - 0.7))
    xd = X[::2]
    expected = -2 * np.sum(xd - 0.7) + 2 * xd.size * d_integral / integral
    print("gradient", results[0][1][0], "formula", expected)
    assert results[0][1][0] == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("model,message", [
    ("sum_without_factor", r"sum_without_factor: its gradient-sum function "
                           r"\(density_gradient_sum\) does not add factor\[i\] times what its "
                           r"gradient function writes: row 0 \(d/dmu\) differs in the block of "
                           r"4 events starting at event 0 of"),
    ("sum_other_value", r"sum_other_value: its gradient-sum function .* the density value "
                        r"differs"),
    ("long_sum", r"long_sum: the density wrote beyond"),
])
def test_a_gradient_sum_that_disagrees_with_the_gradient_is_an_error(protocol, model, message):
    """Checked once per event buffer, before the sums use it: a sum that
    ignores its factors, writes another value or adds a row the density
    does not declare."""
    d = Density.from_model(protocol[4], "float64", model=model)
    lk = _scaled_likelihood(d, None, 2)
    with pytest.raises(DensityError, match=message):
        lk.evaluate([0.3], gradient=True)
    # values alone do not use it
    assert np.isfinite(lk.evaluate([0.3])[0])


def test_a_gradient_sum_needs_a_block_density_with_a_block_gradient(protocol):
    fns = protocol[4].vecampfit_model()["scaled"]
    f64 = fns["functions"]["float64"]
    sums = fns["gradient_sums"]
    common = dict(parameters=["mu"], event_fields=["x"], parameter_buffer_size=2,
                  fill_parameter_buffer=f64["fill_parameter_buffer"], name="lonely sum")
    with pytest.raises(DensityError, match="lonely sum: gradient_sum is a block function given "
                                           "with a block density and its block gradient"):
        Density(f64["density"], gradient_sum=sums["float64"], **common)
    with pytest.raises(DensityError, match="lonely sum: density is float64 but its gradient sum "
                                           "is float32"):
        Density(f64["density"], f64["density_gradient"], gradient_sum=sums["float32"], **common)
    with pytest.raises(DensityError, match=r"expected a density_gradient_sum function, got a "
                                           r"density_gradient"):
        Density(f64["density"], f64["density_gradient"], gradient_sum=f64["density_gradient"],
                **common)


def test_a_raw_density_with_sizes_one_too_small_is_caught(protocol):
    """Sizes given by hand to the constructor (functions from elsewhere): a
    parameter buffer or a parameter list one too short is caught by the
    guard zones instead of corrupting memory."""
    fns = protocol[4].vecampfit_model()["scaled"]["functions"]["float64"]
    short_buffer = Density(fns["density"], parameters=["mu"], event_fields=["x"],
                           parameter_buffer_size=1, fill_parameter_buffer=fns["fill_parameter_buffer"],
                           constants={"SCALE": 1.0}, name="short buffer")
    with pytest.raises(DensityError, match="short buffer: the parameter-buffer filler wrote beyond "
                                           "the 1 elements"):
        short_buffer.evaluate({"x": X}, [0.3])
    # A gradient function that writes two rows, given one parameter.
    two_rows = protocol[4].vecampfit_model()["long_gradient"]["functions"]["float64"]
    one_row = Density(fns["density"], two_rows["density_gradient"], parameters=["mu"],
                      event_fields=["x"], parameter_buffer_size=2,
                      fill_parameter_buffer=fns["fill_parameter_buffer"], constants={"SCALE": 1.0},
                      name="one row")
    with pytest.raises(DensityError, match="one row: the density wrote beyond"):
        one_row.evaluate({"x": X}, [0.3], gradient=True)
    with pytest.raises(DensityError, match="needs a fill_parameter_buffer function"):
        Density(fns["density"], parameters=["mu"], event_fields=["x"], parameter_buffer_size=2)


def _c_density_library(tmp_path, name="density", n_written=4):
    """A density in C (S = 1 + mu x over blocks of 4, the function named
    density) that writes the first n_written values of each block, compiled
    with the system compiler into tmp_path/lib<name>.so: the library's path."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    src = tmp_path / f"{name}.c"
    src.write_text(
        "void density(double *out, const void *ev, const double *p, const void *pb) {\n"
        "    const double *x = (const double *) ev;\n"
        f"    for (int i = 0; i < {n_written}; i++) out[i] = 1.0 + p[0] * x[i];\n"
        "}\n")
    lib = tmp_path / f"lib{name}.so"
    subprocess.run([cc, "-O2", "-shared", "-fPIC", str(src), "-o", str(lib)], check=True)
    return str(lib)


def _ctypes_density(path):
    """The function density of the library at path through ctypes, with the
    signature of a float64 density declared."""
    f = ctypes.CDLL(path).density
    f.restype = None
    f.argtypes = [ctypes.POINTER(ctypes.c_double), ctypes.c_void_p,
                  ctypes.POINTER(ctypes.c_double), ctypes.c_void_p]
    return f


def test_ctypes_and_cffi_densities(tmp_path):
    path = _c_density_library(tmp_path)
    f = _ctypes_density(path)
    x = np.linspace(0, 1, 11)
    # The signature records no vector length: it must be given.
    with pytest.raises(DensityError, match="does not record the vector length.*vector_length="):
        Density(f, parameters=["mu"], event_fields=["x"])
    d = Density(f, parameters=["mu"], event_fields=["x"], vector_length=4, name="ctypes")
    np.testing.assert_allclose(d.evaluate({"x": x}, [0.5]), 1 + 0.5 * x, rtol=1e-15)
    lk = Likelihood(ParameterTable([FitParameter("mu", 0.5, 0.1)]), vector_length=4, threads=1)
    pt = lk.add_point(d)
    pt.add_data({"x": x})
    pt.add_normalization_events({"x": x})
    ref = np.sum(-2 * np.log((1 + 0.5 * x) / np.sum(1 + 0.5 * x)))
    assert lk.evaluate([0.5])[0] == pytest.approx(ref, rel=1e-13)
    with pytest.raises(DensityError, match="vector length 4, the fitter uses 8"):
        Likelihood(ParameterTable([FitParameter("mu", 0.5, 0.1)]), vector_length=8).add_point(d)
    cffi = pytest.importorskip("cffi")
    ffi = cffi.FFI()
    ffi.cdef("void density(double *, const void *, const double *, const void *);")
    clib = ffi.dlopen(path)
    dc = Density(clib.density, parameters=["mu"], event_fields=["x"], vector_length=4,
                 name="cffi")
    np.testing.assert_allclose(dc.evaluate({"x": x}, [0.25]), 1 + 0.25 * x, rtol=1e-15)


def test_python_densities_get_read_only_events_and_checked_results():
    def writes(events, p):
        events["x"][0] = 0.0
        return np.ones_like(events["x"])

    x = np.linspace(0, 1, 9)
    with pytest.raises(ValueError, match="read-only"):
        Density(writes, parameters=[], event_fields=["x"]).evaluate({"x": x}, [])

    d = Density(lambda ev, p: np.ones(3), parameters=[], event_fields=["x"], name="short")
    with pytest.raises(DensityError, match=r"short: returned values of shape \(3,\), expected \(9,\)"):
        d.evaluate({"x": x}, [])

    def bad_gradient(ev, p):
        # One row for two parameters: broadcasting would hide the mistake.
        return np.ones_like(ev["x"]), np.ones((1, ev["x"].size))

    g = Density(lambda ev, p: np.ones_like(ev["x"]), bad_gradient, parameters=["a", "b"],
                event_fields=["x"], name="gradient rows")
    with pytest.raises(DensityError, match=r"gradient rows: returned a gradient of shape "
                                           r"\(1, 9\), expected \(2, 9\)"):
        g.evaluate({"x": x}, [1.0, 2.0], gradient=True)
    lk = Likelihood(ParameterTable([FitParameter("a", 1, 0.1), FitParameter("b", 2, 0.1)]))
    pt = lk.add_point(g)
    pt.add_data({"x": x})
    pt.add_normalization_events({"x": x})
    with pytest.raises(DensityError, match="gradient rows"):
        lk.evaluate([1.0, 2.0], gradient=True)
    nan = Density(lambda ev, p: np.ones_like(ev["x"]),
                  lambda ev, p: (np.ones_like(ev["x"]), np.full((1, ev["x"].size), np.nan)),
                  parameters=["a"], event_fields=["x"], name="nan gradient")
    with pytest.raises(DensityError, match="nan gradient: gradient with respect to a is nan"):
        nan.evaluate({"x": x}, [1.0], gradient=True)


def test_names_and_sizes_are_checked_when_the_density_is_made():
    f = lambda ev, p: ev["x"]  # noqa: E731
    with pytest.raises(DensityError, match=r"parameters name\(s\) \['a'\] given twice"):
        Density(f, parameters=["a", "a"], event_fields=["x"])
    with pytest.raises(DensityError, match="not the string 'ab'"):
        Density(f, parameters="ab", event_fields=["x"])
    with pytest.raises(DensityError, match="event_fields is empty"):
        Density(f, parameters=[], event_fields=[])
    with pytest.raises(DensityError, match="constant C is not finite"):
        Density(f, parameters=[], event_fields=["x"], constants={"C": np.nan})
    with pytest.raises(DensityError, match="parameter_buffer_size must be a non-negative integer"):
        Density(f, parameters=[], event_fields=["x"], parameter_buffer_size=2.5)
    with pytest.raises(DensityError, match="vector_length must be an integer"):
        Density(f, parameters=[], event_fields=["x"], vector_length=4.0)


def test_a_gradient_row_never_written_is_an_error_naming_the_density_and_row(protocol,
                                                                             monkeypatch):
    """A gradient function that writes fewer rows than the density declares
    parameters: the rows it never writes would reach the minimizer as
    whatever was in memory.  The first evaluation of each event buffer
    finds them; later evaluations do not look again."""
    fns = protocol[4].vecampfit_model()["scaled"]["functions"]["float64"]
    d = Density(fns["density"], fns["density_gradient"], parameters=["mu", "sigma"],
                event_fields=["x"], parameter_buffer_size=2,
                fill_parameter_buffer=fns["fill_parameter_buffer"], constants={"SCALE": 1.0},
                name="one row written")
    message = (r"one row written: its gradient function never wrote gradient row 1 "
               r"\(d/dsigma.*at event 0 .*declares 2 parameters \(mu, sigma\)")
    with pytest.raises(DensityError, match=message):
        d.evaluate({"x": X}, [0.3, 1.0], gradient=True)
    # Values alone are complete: no error.
    np.testing.assert_allclose(d.evaluate({"x": X}, [0.3, 1.0]), scaled(X, 0.3, 1.0),
                               rtol=1e-15)
    table = ParameterTable([FitParameter("mu", 0.3, 0.1), FitParameter("sigma", 1.0, 0.1)])
    lk = Likelihood(table, vector_length=4, threads=2)
    pt = lk.add_point(d)
    pt.add_data({"x": X})
    pt.add_normalization_events({"x": X})
    with pytest.raises(DensityError, match=message.replace("at event 0 ", "at event 0 of ")):
        lk.evaluate([0.3, 1.0], gradient=True)

    # A complete gradient: checked once per event buffer, then never again.
    from vecampfit.fitter._dispatch import kernels
    calls = []
    real = kernels.unwritten_values

    def counting(*args):
        calls.append(args[2])
        return real(*args)

    monkeypatch.setattr(kernels, "unwritten_values", counting)
    good = Density.from_model(protocol[4], "float64", model="scaled")
    lk = Likelihood(ParameterTable([FitParameter("mu", 0.3, 0.1)]), vector_length=4, threads=2)
    pt = lk.add_point(good)
    pt.add_data({"x": X})
    pt.add_normalization_events({"x": X})
    first = lk.evaluate([0.3], gradient=True)
    assert len(calls) == 2          # the data and the normalization events
    for mu in (0.31, 0.32, 0.3):
        lk.evaluate([mu], gradient=True)
    assert len(calls) == 2
    assert lk.evaluate([0.3], gradient=True)[0] == first[0]


def test_a_density_value_never_written_is_an_error(tmp_path):
    """A C density that writes 3 of the 4 values of a block (the fourth
    would be whatever the work array held)."""
    f = _ctypes_density(_c_density_library(tmp_path, "short", 3))
    d = Density(f, parameters=["mu"], event_fields=["x"], vector_length=4, name="three of four")
    x = np.linspace(0, 1, 11)
    with pytest.raises(DensityError, match=r"three of four: its function never wrote the "
                                           r"density value at event 3 .*all 4 values"):
        d.evaluate({"x": x}, [0.5])
    lk = Likelihood(ParameterTable([FitParameter("mu", 0.5, 0.1)]), vector_length=4, threads=1)
    pt = lk.add_point(d)
    pt.add_data({"x": x})
    pt.add_normalization_events({"x": x})
    with pytest.raises(DensityError, match="three of four: its function never wrote"):
        lk.evaluate([0.5])
