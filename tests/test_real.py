"""Tests of vecampfit.real: bit-exact against numpy over special values and random bit patterns."""

import os

import numpy as np
import pytest

from vecampfit import real as vr
from vecampfit.model_compiler import compile_model

DTYPES = [np.float32, np.float64]
UINT = {np.float32: np.uint32, np.float64: np.uint64}


def special_values(dtype):
    fi = np.finfo(dtype)
    tiny_sub = np.nextafter(dtype(0), dtype(1))
    v = [0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.0, 3.0, 0.75, fi.max, -fi.max, fi.tiny, -fi.tiny,
         tiny_sub, -tiny_sub, fi.tiny - tiny_sub, fi.tiny / 2, 3 * tiny_sub, np.inf, -np.inf, np.nan,
         2.5, -2.5, 0.49999997, 4503599627370497.0, 8388609.0, 9.3e18, -9.3e18, 9.2e18, -9.2e18, 1e30]
    a = np.array(v, dtype=dtype)
    # NaNs with the sign bit and payloads
    bits = a.view(UINT[dtype])
    extra = np.array([0xFFC00000, 0x7F800001, 0xFF800001] if dtype == np.float32 else
                     [0xFFF8000000000000, 0x7FF0000000000001, 0xFFF0000000000001], dtype=UINT[dtype])
    return np.concatenate([bits, extra]).view(dtype)


def random_values(dtype, n, seed):
    rng = np.random.default_rng(seed)
    u = UINT[dtype]
    bits = rng.integers(0, np.iinfo(u).max, n, dtype=u, endpoint=True)
    # a quarter subnormal: exponent field 0
    nbits = 32 if dtype == np.float32 else 64
    frac_mask = u((1 << (23 if dtype == np.float32 else 52)) - 1)
    sign = u(1) << u(nbits - 1)
    bits[: n // 4] &= frac_mask | sign
    # a quarter moderate numbers (for rounding and integer conversion)
    q = n // 2 - n // 4
    moderate = (rng.normal(size=q) * np.exp(rng.uniform(-5, 45, q))).astype(dtype).view(u)
    bits[n // 4: n // 2] = moderate
    return np.concatenate([special_values(dtype), bits.view(dtype)])


def same_bits(a, b):
    """Equal bit patterns, except that any NaN equals any NaN."""
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    nan = np.isnan(a) if a.dtype.kind == "f" else np.zeros(a.shape, bool)
    assert np.array_equal(np.isnan(b) if b.dtype.kind == "f" else nan, nan)
    if a.dtype.kind == "f":
        u = UINT[a.dtype.type]
        return np.array_equal(a[~nan].view(u), b[~nan].view(u))
    return np.array_equal(a, b)


@pytest.mark.parametrize("dtype", DTYPES)
def test_classification_and_sign(dtype):
    x = random_values(dtype, 20000, 1)
    assert np.array_equal(vr.is_finite(x), np.isfinite(x))
    assert np.array_equal(vr.is_infinite(x), np.isinf(x))
    assert np.array_equal(vr.is_nan(x), np.isnan(x))
    assert np.array_equal(vr.sign_bit(x), np.signbit(x))
    expect = np.where(np.isfinite(x), vr.REAL_FINITE, np.where(np.isinf(x), vr.REAL_INFINITE, vr.REAL_NAN))
    assert np.array_equal(vr.classify(x), expect) and vr.classify(x).dtype == np.int32
    rng = np.random.default_rng(2)
    s = rng.integers(0, 2, x.size)
    u = UINT[dtype]
    top = u(1) << u(np.dtype(u).itemsize * 8 - 1)
    want = ((x.view(u) & ~top) | (s.astype(u) * top)).view(dtype)
    assert np.array_equal(vr.set_sign_bit(x, s).view(u), want.view(u))
    assert np.array_equal(vr.set_sign_bit(x, True).view(u), (x.view(u) | top))


@pytest.mark.parametrize("dtype", DTYPES)
def test_frexp_ldexp_against_numpy(dtype):
    x = random_values(dtype, 20000, 3)
    m, e = vr.frexp(x)
    with np.errstate(invalid="ignore"):
        mr, er = np.frexp(x)
    assert m.dtype == dtype and e.dtype == np.int32
    assert same_bits(m, mr) and np.array_equal(e, er)
    assert same_bits(vr.get_mantissa(x), mr) and np.array_equal(vr.get_exponent(x), er)
    rng = np.random.default_rng(4)
    span = 330 if dtype == np.float32 else 2300
    n = rng.integers(-span, span, x.size).astype(np.int32)
    n[:5] = [2 ** 31 - 1, -2 ** 31, 0, 1, -1]
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        assert same_bits(vr.ldexp(x, n), np.ldexp(x, n))
        # scaling into and within the subnormal range, rounded once
        y = x[np.isfinite(x) & (x != 0)][:3000]
        for k in (-1, -20, -24, -25, -53, -54, -140, -149, -150, -1074, -1075, -1100):
            assert same_bits(vr.ldexp(y, k), np.ldexp(y, k)), k
        e2 = rng.integers(-span, span, x.size)
        assert same_bits(vr.set_exponent(x, e2), np.ldexp(mr, e2.astype(np.int32)))


@pytest.mark.parametrize("dtype", DTYPES)
def test_fields_and_bits(dtype):
    x = random_values(dtype, 20000, 5)
    u = UINT[dtype]
    p = 23 if dtype == np.float32 else 52
    ebits = 8 if dtype == np.float32 else 11
    bits = x.view(u)
    frac_mask = (1 << p) - 1
    assert np.array_equal(vr.to_bits(x), bits) and vr.to_bits(x).dtype == u
    assert np.array_equal(vr.from_bits(bits, dtype).view(u), bits)
    assert np.array_equal(vr.exponent_field(x), ((bits >> u(p)) & u((1 << ebits) - 1)).astype(np.int32))
    assert np.array_equal(vr.mantissa_field(x), (bits & u(frac_mask)).astype(np.int64))
    rng = np.random.default_rng(6)
    ef = rng.integers(0, 1 << ebits, x.size)
    mf = rng.integers(0, 1 << p, x.size)
    want_e = (bits & ~u(((1 << ebits) - 1) << p)) | (ef.astype(u) << u(p))
    want_m = (bits & ~u(frac_mask)) | mf.astype(u)
    assert np.array_equal(vr.set_exponent_field(x, ef).view(u), want_e)
    assert np.array_equal(vr.set_mantissa_field(x, mf).view(u), want_m)


@pytest.mark.parametrize("dtype", DTYPES)
def test_integer_conversions(dtype):
    rng = np.random.default_rng(7)
    n = np.concatenate([rng.integers(-2 ** 63, 2 ** 63 - 1, 5000, dtype=np.int64),
                        rng.integers(-2 ** 30, 2 ** 30, 5000, dtype=np.int64),
                        np.array([0, 1, -1, 2 ** 24 + 1, 2 ** 53 + 1, 2 ** 63 - 1, -2 ** 63], dtype=np.int64)])
    assert np.array_equal(vr.integer_to_real(n, dtype).view(UINT[dtype]), n.astype(dtype).view(UINT[dtype]))
    n32 = n.astype(np.int32)
    assert np.array_equal(vr.integer_to_real(n32, dtype), n32.astype(dtype))
    x = random_values(dtype, 20000, 8)
    inrange = np.isfinite(x) & (np.abs(x) < 2.0 ** 63)
    assert np.array_equal(vr.real_to_integer(x[inrange]), x[inrange].astype(np.int64))
    assert np.array_equal(vr.nearest_integer(x[inrange]), np.rint(x[inrange]).astype(np.int64))
    # ties to even
    assert np.array_equal(vr.nearest_integer(np.array([0.5, 1.5, 2.5, -0.5, -1.5], dtype)), [0, 2, 2, 0, -2])
    sat = np.array([np.inf, -np.inf, np.nan, 1e30, -1e30], dtype)
    lim = [2 ** 63 - 1, -2 ** 63, 0, 2 ** 63 - 1, -2 ** 63]
    assert np.array_equal(vr.real_to_integer(sat), lim) and np.array_equal(vr.nearest_integer(sat), lim)


def test_transfer_int64_float64_real128():
    rng = np.random.default_rng(9)
    n = np.concatenate([rng.integers(-2 ** 63, 2 ** 63 - 1, 3001, dtype=np.int64),
                        np.array([0, -1, 2 ** 32, -2 ** 32, 2 ** 63 - 1, -2 ** 63], dtype=np.int64)])
    low, high = vr.split_int64(n)
    assert low.dtype == np.uint32 and high.dtype == np.int32
    assert np.array_equal(low, (n & 0xFFFFFFFF).astype(np.uint32)) and np.array_equal(high, (n >> 32).astype(np.int32))
    assert np.array_equal(vr.join_int64(low, high), n)
    x = random_values(np.float64, 3000, 10)
    lo, hi = vr.split_float64(x)
    pairs = x.view(np.uint32).reshape(-1, 2)     # little-endian: low word first
    assert np.array_equal(lo, pairs[:, 0]) and np.array_equal(hi, pairs[:, 1])
    assert np.array_equal(vr.join_float64(lo, hi).view(np.uint64), x.view(np.uint64))
    ld = np.concatenate([np.array([1, -2, 0.1, 1e-300, 1e300], dtype=np.longdouble) / np.longdouble(3),
                         np.array([1, 0, np.inf], dtype=np.longdouble)])
    lo, hi = vr.split_real128(ld)
    assert np.array_equal(vr.join_real128(lo, hi), ld)
    if vr.REAL128_FORMAT == "x87_extended":
        assert (lo[5], hi[5]) == (0x8000000000000000, 0x3FFF)          # 1.0
        assert (lo[7], hi[7]) == (0x8000000000000000, 0x7FFF)          # inf
        assert np.all(hi < 2 ** 16)
        m, e = np.frexp(ld[:5])
        assert np.array_equal(hi[:5] & 0x7FFF, (e - 1 + 16383).astype(np.uint64))


@pytest.mark.parametrize("n", [0, 1, 7, 8, 9, 1001])
def test_any_length_and_shape(n):
    x = random_values(np.float64, 2000, n)[:n]
    assert vr.frexp(x)[0].shape == (n,)
    with np.errstate(over="ignore", invalid="ignore"):
        assert same_bits(vr.ldexp(x, 3), np.ldexp(x, 3))
    y = np.arange(12, dtype=np.float32).reshape(3, 4) - 5.5
    assert np.array_equal(vr.get_exponent(y), np.frexp(y)[1]) and vr.get_exponent(y).shape == (3, 4)
    assert vr.sign_bit(np.float32(-0.0)) and vr.frexp(3.0) == (0.75, 2)


def test_bad_input():
    with pytest.raises(TypeError, match="x must be a float32 or float64"):
        vr.frexp(np.arange(4))
    with pytest.raises(TypeError, match="x must be"):
        vr.is_nan(np.ones(3, np.complex128))
    with pytest.raises(ValueError, match="n has shape"):
        vr.ldexp(np.ones(4), np.ones(3, np.int32))
    with pytest.raises(TypeError, match="n must be an integer"):
        vr.ldexp(np.ones(4), np.ones(4))
    with pytest.raises(TypeError, match="dtype must be"):
        vr.integer_to_real(np.arange(3), np.int32)
    with pytest.raises(TypeError, match="bits must be"):
        vr.from_bits(np.ones(3))
    with pytest.raises(TypeError, match="longdouble"):
        vr.split_real128(np.ones(3))
    with pytest.raises(TypeError, match="float64"):
        vr.split_float64(np.ones(3, np.float32))


def test_user_model_cimports_real(model_cache, models_dir):
    mods = compile_model(os.path.join(models_dir, "real_user_model.pyx"), [1, 4, 16], build_dir=model_cache)
    for L, mod in mods.items():
        assert mod.vector_length() == L
        for dtype in DTYPES:
            x = random_values(dtype, 999, 11)
            rng = np.random.default_rng(12)
            n = rng.integers(-300, 300, x.size).astype(np.int32)
            m = np.empty_like(x)
            s = np.empty_like(x)
            e = np.empty(x.size, np.int32)
            kind = np.empty(x.size, np.int32)
            bits = np.empty(x.size, np.int64)
            rnd = np.empty(x.size, np.int64)
            mod.run(x, n, m, e, s, kind, bits, rnd)
            with np.errstate(over="ignore", under="ignore", invalid="ignore"):
                mr, er = np.frexp(x)
                assert same_bits(m, mr) and np.array_equal(e, er) and same_bits(s, np.ldexp(x, n))
            assert np.array_equal(kind, vr.classify(x))
            assert np.array_equal(bits.astype(UINT[dtype]), x.view(UINT[dtype]))
            ok = np.isfinite(x) & (np.abs(x) < 2.0 ** 62)
            assert np.array_equal(rnd[ok], np.rint(x[ok]).astype(np.int64))
        lo, hi, same = mod.real128_halves(1.0)
        assert same
        ref = vr.split_real128(np.longdouble(1.0))
        assert (lo, hi) == (int(ref[0]), int(ref[1]))
