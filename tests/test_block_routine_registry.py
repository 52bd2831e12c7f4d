"""Tests of the registry of block routines (tools/block_routines.py).

The registry drives the generated numpy wrappers of vecampfit/_<module>.pyx
and the reference table docs/api/block_routines.rst.  Checked here: the table
is the generator's output and lists every registered routine; every routine
of the registry is declared in its .pxd (read with a regular expression of its
own, not the generator's parser) with the arguments the registry names, and
has its entry point; the generated wrappers (of real, complex and integer
arrays) give, on a padded last block, the values of numpy-level references
and the same bits as in a full block, and write nothing past the end of their
outputs.
"""

import importlib
import importlib.util
import os
import re

import numpy as np
import pytest
from scipy import special

from vecampfit import _build_config

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir)
TOOLS = os.path.join(ROOT, "tools")
L = _build_config.KERNEL_VECTOR_LENGTH
# Lengths with a partial last block (and one with no full block).
TAIL_SIZES = [3, 2 * L + 5, 5 * L - 1]


def _load(name):
    spec = importlib.util.spec_from_file_location("_test_" + name, os.path.join(TOOLS, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


registry = _load("block_routines")
generator = _load("generate_block_wrappers")


def _files(module):
    """(.pxd, kernel .pyx, kernel extension, generated .pxi) of a module of the registry.

    A module is vecampfit/<module>.pxd with its kernels in vecampfit/_<module>.pyx,
    or a package, vecampfit/<module>/__init__.pxd with vecampfit/<module>/_kernels.pyx.
    """
    if os.path.isdir(os.path.join(ROOT, "vecampfit", module)):
        return (f"vecampfit/{module}/__init__.pxd", f"vecampfit/{module}/_kernels.pyx",
                f"vecampfit.{module}._kernels", f"vecampfit/{module}/_kernels_blocks.pxi")
    return (f"vecampfit/{module}.pxd", f"vecampfit/_{module}.pyx", f"vecampfit._{module}",
            f"vecampfit/_{module}_blocks.pxi")


def _pxd_parameters(module, name):
    """The parameter names of ``cdef inline ... name(...)`` in the module's .pxd, or None."""
    with open(os.path.join(ROOT, _files(module)[0]), encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"^cdef inline \w+ " + name + r"\(([^)]*)\)", text, re.M)
    if m is None:
        return None
    return [p.split()[-1].lstrip("*") for p in m.group(1).split(",")]


# ---------------------------------------------------------------------------
# The registry, the .pxd files and the table
# ---------------------------------------------------------------------------

def test_docs_table_is_the_generated_one():
    with open(os.path.join(ROOT, "docs", "api", "block_routines.rst"), encoding="utf-8") as f:
        page = f.read()
    assert page == generator.render_docs(registry, os.path.join(ROOT, "vecampfit")), (
        "docs/api/block_routines.rst is out of date: run "
        "tools/generate_block_wrappers.py --docs docs/api/block_routines.rst")


def test_docs_table_lists_every_registered_routine():
    with open(os.path.join(ROOT, "docs", "api", "block_routines.rst"), encoding="utf-8") as f:
        page = f.read()
    sections = dict(re.findall(r"^vecampfit\.(\w+)\n-+\n(.*?)(?=^vecampfit\.|\Z)", page, re.M | re.S))
    entries = [(r.module, r.name, r.name + "_kernel") for r in registry.ROUTINES]
    entries += list(registry.HAND_WRITTEN)
    assert len(entries) == len(set(entries))
    for module, name, wrapper in entries:
        assert module in sections, module
        row = re.search(r"\* - ``" + name + r"``\n     - ``(.*?)``\n     - ``(\w+)``", sections[module])
        assert row is not None, f"{module}.{name} missing from the table"
        assert row.group(2) == wrapper
        assert re.search(r"\b" + name + r"\(", row.group(1))


@pytest.mark.parametrize("routine", registry.ROUTINES, ids=lambda r: f"{r.module}.{r.name}")
def test_registered_routine_is_declared_with_its_arguments_and_has_a_kernel(routine):
    parameters = _pxd_parameters(routine.module, routine.name)
    assert parameters is not None, f"{routine.name} is not declared in {_files(routine.module)[0]}"
    assert set(routine.arguments) <= set(parameters)
    kernels = importlib.import_module(_files(routine.module)[2])
    assert callable(getattr(kernels, routine.name + "_kernel"))


@pytest.mark.parametrize("entry", registry.HAND_WRITTEN, ids=lambda e: f"{e[0]}.{e[1]}")
def test_hand_written_routine_is_declared_and_has_its_wrapper(entry):
    module, name, wrapper = entry
    assert _pxd_parameters(module, name) is not None
    assert callable(getattr(importlib.import_module(_files(module)[2]), wrapper))


def test_kernel_files_include_their_generated_wrappers():
    for module in sorted({r.module for r in registry.ROUTINES}):
        _, pyx, _, pxi = _files(module)
        with open(os.path.join(ROOT, pyx), encoding="utf-8") as f:
            assert f'include "{pxi}"' in f.read(), module


def test_routines_are_registered_once():
    keys = [(r.module, r.name) for r in registry.ROUTINES]
    assert len(keys) == len(set(keys))
    assert not set(keys) & {(m, n) for m, n, _ in registry.HAND_WRITTEN}


def test_generator_rejects_an_input_without_padding():
    sig = generator.parse_pxd(os.path.join(ROOT, "vecampfit", "kinematics.pxd"))["decay_momentum"]
    with pytest.raises(ValueError, match="padding"):
        generator.wrapper(registry, registry.routine("kinematics", "decay_momentum", m0=registry.padded("1")),
                          sig)


# ---------------------------------------------------------------------------
# Generated wrappers on a padded last block
# ---------------------------------------------------------------------------

def _run(kernel, inputs, outputs):
    """Run ``kernel`` with each output a view of a longer array; check the guard stays."""
    guarded = [np.full((o.shape[0] + L,) + o.shape[1:], 12345.0, o.dtype) for o in outputs]
    views = [g[:o.shape[0]] for g, o in zip(guarded, outputs)]
    for v, o in zip(views, outputs):
        v[...] = o  # the initial contents, for arrays updated in place
    kernel(*inputs, *views)
    for g, o in zip(guarded, outputs):
        assert np.all(g[o.shape[0]:] == 12345.0), "written past the end of the output"
    return views


def _tail_in_full_block(kernel, inputs, outputs, n, array_inputs):
    """The outputs of the last partial block, recomputed with that block filled up.

    The tail's events are repeated until they fill whole blocks, so that no
    padding lane is used; the results must be the same to the bit.
    """
    start = (n // L) * L
    index = np.arange(start, n)
    index = np.resize(index, 2 * L)
    full_inputs = [np.ascontiguousarray(a[index]) if i in array_inputs else a
                   for i, a in enumerate(inputs)]
    full_outputs = [np.ascontiguousarray(o[index]) for o in outputs]
    kernel(*full_inputs, *full_outputs)
    return [o[: n - start] for o in full_outputs]


def _check_tail(kernel, inputs, outputs, array_inputs):
    n = outputs[0].shape[0]
    got = _run(kernel, inputs, outputs)
    expected_tail = _tail_in_full_block(kernel, inputs, outputs, n, array_inputs)
    start = (n // L) * L
    for g, e in zip(got, expected_tail):
        np.testing.assert_array_equal(g[start:], e)
    return got


def _rng(n):
    return np.random.default_rng(1000 + n)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", TAIL_SIZES)
def test_decay_momentum_tail(n, dtype):
    from vecampfit import _kinematics

    rng = _rng(n)
    m1 = rng.uniform(0.1, 0.5, n).astype(dtype)
    m2 = rng.uniform(0.1, 0.5, n).astype(dtype)
    m0 = (m1 + m2 + rng.uniform(0.1, 1.0, n)).astype(dtype)
    (q,) = _check_tail(_kinematics.decay_momentum_kernel, [m0, m1, m2], [np.empty(n, dtype)], {0, 1, 2})
    a, b, c = (x.astype(np.float64) for x in (m0, m1, m2))
    reference = np.sqrt((a**2 - (b + c) ** 2) * (a**2 - (b - c) ** 2)) / (2 * a)
    np.testing.assert_allclose(q, reference, rtol=50 * np.finfo(dtype).eps)
    q2, dq = _check_tail(_kinematics.decay_momentum_gradient_kernel, [m0, m1, m2],
                         [np.empty(n, dtype), np.empty(n, dtype)], {0, 1, 2})
    np.testing.assert_array_equal(q2, q)
    np.testing.assert_allclose(dq, (a**4 - (b**2 - c**2) ** 2) / (4 * a**3 * reference),
                               rtol=50 * np.finfo(dtype).eps)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", TAIL_SIZES)
def test_legendre_and_blatt_weisskopf_tail(n, dtype):
    from vecampfit import _high_energy_physics as k

    rng = _rng(n)
    x = rng.uniform(-1, 1, n).astype(dtype)
    for l in range(4):
        (p,) = _check_tail(k.legendre_kernel, [x, l], [np.empty(n, dtype)], {0})
        np.testing.assert_allclose(p, special.eval_legendre(l, x.astype(np.float64)),
                                   rtol=20 * np.finfo(dtype).eps, atol=20 * np.finfo(dtype).eps)
    q = rng.uniform(0.01, 2, n).astype(dtype)
    r = dtype(1.5)
    (f,) = _check_tail(k.blatt_weisskopf_kernel, [q, r, 1], [np.empty(n, dtype)], {0})
    z = (q.astype(np.float64) * float(r)) ** 2
    np.testing.assert_allclose(f, 1 / np.sqrt(1 + z), rtol=20 * np.finfo(dtype).eps)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", TAIL_SIZES)
def test_complex_multiply_and_absolute_value_tail(n, dtype):
    from vecampfit import _complex_vector as k

    rng = _rng(n)
    a_re, a_im, b_re, b_im = (rng.normal(size=n).astype(dtype) for _ in range(4))
    re, im = _check_tail(k.multiply_kernel, [a_re, a_im, b_re, b_im],
                         [np.empty(n, dtype), np.empty(n, dtype)], {0, 1, 2, 3})
    product = (a_re + 1j * a_im.astype(np.float64)) * (b_re + 1j * b_im.astype(np.float64))
    np.testing.assert_allclose(re + 1j * im.astype(np.float64), product, rtol=8 * np.finfo(dtype).eps,
                               atol=8 * np.finfo(dtype).eps)
    (r,) = _check_tail(k.absolute_value_kernel, [a_re, a_im], [np.empty(n, dtype)], {0, 1})
    np.testing.assert_allclose(r, np.hypot(a_re.astype(np.float64), a_im), rtol=4 * np.finfo(dtype).eps)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", TAIL_SIZES)
def test_vector4_boost_and_mass_tail(n, dtype):
    from vecampfit import _vector4 as k

    rng = _rng(n)
    p = rng.normal(size=(n, 4)).astype(dtype)
    p[:, 3] = np.sqrt(np.sum(p[:, :3].astype(np.float64) ** 2, axis=1) + 0.3**2) * 1.0
    (m,) = _check_tail(k.mass_kernel, [p], [np.empty(n, dtype)], {0})
    p64 = p.astype(np.float64)
    reference = np.sqrt(p64[:, 3] ** 2 - np.sum(p64[:, :3] ** 2, axis=1))
    np.testing.assert_allclose(m, reference, rtol=2000 * np.finfo(dtype).eps)
    beta = (rng.uniform(-0.5, 0.5, size=(n, 3)) / np.sqrt(3)).astype(dtype)
    (boosted,) = _check_tail(k.boost_kernel, [p, beta], [np.empty((n, 4), dtype)], {0, 1})
    b64 = beta.astype(np.float64)
    b2 = np.sum(b64**2, axis=1)
    gamma = 1 / np.sqrt(1 - b2)
    bp = np.sum(b64 * p64[:, :3], axis=1)
    e = gamma * (p64[:, 3] + bp)
    space = p64[:, :3] + (((gamma - 1) * bp / np.where(b2 > 0, b2, 1)) + gamma * p64[:, 3])[:, None] * b64
    np.testing.assert_allclose(boosted[:, 3], e, rtol=100 * np.finfo(dtype).eps)
    np.testing.assert_allclose(boosted[:, :3], space, rtol=100 * np.finfo(dtype).eps,
                               atol=100 * np.finfo(dtype).eps)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", TAIL_SIZES)
def test_interpolate_tail(n, dtype):
    from vecampfit import _interpolation as k

    rng = _rng(n)
    nodes = np.sort(rng.uniform(0, 10, 12)).astype(dtype)
    table = rng.normal(size=12).astype(dtype)
    x = rng.uniform(nodes[0], nodes[-1], n).astype(dtype)
    (y,) = _check_tail(k.interpolate_kernel, [x, nodes, table, 0], [np.empty(n, dtype)], {0})
    np.testing.assert_allclose(y, np.interp(x.astype(np.float64), nodes, table),
                               rtol=50 * np.finfo(dtype).eps, atol=50 * np.finfo(dtype).eps)


@pytest.mark.parametrize("n", TAIL_SIZES)
def test_k_matrix_pole_in_place_tail(n):
    from vecampfit import _high_energy_physics as k

    rng = _rng(n)
    s = rng.uniform(0.1, 3, n)
    k11 = rng.normal(size=n)
    before = k11.copy()
    m_pole, g = 1.1, 0.7
    (after,) = _check_tail(k.k_matrix_add_pole_1_kernel, [s, m_pole, g], [k11], {0})
    np.testing.assert_allclose(after, before + g * g / (m_pole**2 - s), rtol=1e-13)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", TAIL_SIZES)
def test_packed_matrix_solve_and_lu_tail(n, dtype):
    from vecampfit import _linear_algebra as k

    rng = _rng(n)
    ctype = np.complex64 if dtype == np.float32 else np.complex128
    a = (rng.normal(size=(n, 2, 2)) + 1j * rng.normal(size=(n, 2, 2)) + 3 * np.eye(2)).astype(ctype)
    b = (rng.normal(size=(n, 2)) + 1j * rng.normal(size=(n, 2))).astype(ctype)
    a_rows, b_rows = a.view(dtype).reshape(n, 8), b.view(dtype).reshape(n, 4)
    (x,) = _check_tail(k.solve_kernel, [a_rows, b_rows], [np.empty((n, 4), dtype)], {0, 1})
    expected = np.linalg.solve(a.astype(np.complex128), b.astype(np.complex128)[..., None])[..., 0]
    tol = 100 * np.finfo(dtype).eps
    np.testing.assert_allclose(x.view(ctype), expected, rtol=tol, atol=tol)
    lu, pivot = _check_tail(k.lu_decompose_kernel, [a_rows], [np.empty((n, 8), dtype), np.empty(n, dtype)],
                            {0})
    (det,) = _check_tail(k.lu_determinant_kernel, [lu, pivot], [np.empty((n, 2), dtype)], {0, 1})
    np.testing.assert_allclose(det.view(ctype)[:, 0], np.linalg.det(a.astype(np.complex128)),
                               rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", TAIL_SIZES)
def test_real_and_integer_blocks_tail(n, dtype):
    from vecampfit.real import _kernels as k

    rng = _rng(n)
    x = (rng.normal(size=n) * np.exp(rng.uniform(-20, 20, n))).astype(dtype)
    e = rng.integers(-40, 40, n).astype(np.int32)
    (scaled,) = _check_tail(k.ldexp_kernel, [x, e], [np.empty(n, dtype)], {0, 1})
    np.testing.assert_array_equal(scaled, np.ldexp(x, e))
    mantissa, exponent = _check_tail(k.frexp_kernel, [x], [np.empty(n, dtype), np.empty(n, np.int32)], {0})
    np.testing.assert_array_equal(mantissa, np.frexp(x)[0])
    np.testing.assert_array_equal(exponent, np.frexp(x)[1])
    (bits,) = _check_tail(k.to_bits_kernel, [x], [np.empty(n, np.int64)], {0})
    np.testing.assert_array_equal(bits, x.view(np.uint32 if dtype == np.float32 else np.int64))
    (real,) = _check_tail(k.int32_to_real_kernel, [e], [np.empty(n, dtype)], {0})
    np.testing.assert_array_equal(real, e.astype(dtype))


@pytest.mark.parametrize("n", TAIL_SIZES)
def test_integer_only_blocks_tail(n):
    from vecampfit.real import _kernels as k

    rng = _rng(n)
    v = rng.integers(-2 ** 63, 2 ** 63 - 1, n, dtype=np.int64)
    low, high = _check_tail(k.split_int64_kernel, [v], [np.empty(n, np.uint32), np.empty(n, np.int32)], {0})
    np.testing.assert_array_equal(low, (v & 0xFFFFFFFF).astype(np.uint32))
    np.testing.assert_array_equal(high, (v >> 32).astype(np.int32))
    (joined,) = _check_tail(k.join_int64_kernel, [low, high], [np.empty(n, np.int64)], {0, 1})
    np.testing.assert_array_equal(joined, v)
    x = v.view(np.float64)
    words = _check_tail(k.split_float64_kernel, [x], [np.empty(n, np.uint32), np.empty(n, np.uint32)], {0})
    np.testing.assert_array_equal(np.stack(words, axis=1), x.view(np.uint32).reshape(n, 2))
    (doubles,) = _check_tail(k.join_float64_kernel, words, [np.empty(n, np.float64)], {0, 1})
    np.testing.assert_array_equal(doubles.view(np.int64), v)
