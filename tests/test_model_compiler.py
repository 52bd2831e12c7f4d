"""Tests of vecampfit.model_compiler: the path a user's own Cython model takes."""

import os

import numpy as np
import pytest

from vecampfit import _build_config, get_include
from vecampfit.model_compiler import ModelCompileError, compile_model


def test_include_dir_has_block_header():
    assert os.path.isfile(os.path.join(get_include(), "vecampfit", "block.h"))


def test_compile_for_several_lengths_and_both_precisions(models_dir, model_cache):
    lengths = (1, 4, 16)
    mods = compile_model(os.path.join(models_dir, "block_model.pyx"), lengths,
                         build_dir=model_cache)
    assert sorted(mods) == list(lengths)
    rng = np.random.default_rng(1)
    z = rng.normal(size=32) + 1j * rng.normal(size=32)
    for length, mod in mods.items():
        assert mod.vector_length() == length
        assert mod.__name__ == f"block_model_L{length}"
        re, im = mod.square(np.ascontiguousarray(z.real), np.ascontiguousarray(z.imag))
        # Multiplying two doubles and one subtraction: within 1 ulp of the
        # exact product for these magnitudes; compare with numpy's square.
        np.testing.assert_allclose(np.array(re) + 1j * np.array(im), z * z, rtol=1e-15, atol=1e-15)
        re32, im32 = mod.square(z.real.astype(np.float32), z.imag.astype(np.float32))
        z32 = z.astype(np.complex64)
        np.testing.assert_allclose(np.array(re32) + 1j * np.array(im32), z32 * z32, rtol=1e-6, atol=1e-6)


def test_cache_is_reused(models_dir, model_cache):
    src = os.path.join(models_dir, "block_model.pyx")
    first = compile_model(src, [2], build_dir=model_cache)[2]
    second = compile_model(src, [2], build_dir=model_cache)[2]
    assert first.__file__ == second.__file__


def test_default_lengths_are_the_configured_ones(models_dir, model_cache):
    mods = compile_model(os.path.join(models_dir, "block_model.pyx"), build_dir=model_cache)
    assert tuple(sorted(mods)) == tuple(sorted(_build_config.VECTOR_LENGTHS))


def test_bad_inputs(models_dir, model_cache, tmp_path):
    src = os.path.join(models_dir, "block_model.pyx")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        compile_model(os.path.join(models_dir, "missing.pyx"), [4], build_dir=model_cache)
    txt = tmp_path / "model.txt"
    txt.write_text("x")
    with pytest.raises(ValueError, match="not a .pyx file"):
        compile_model(txt, [4], build_dir=model_cache)
    for bad in (0, -4, 2.5, True):
        with pytest.raises(ValueError, match="not a positive integer"):
            compile_model(src, [bad], build_dir=model_cache)
    with pytest.raises(ValueError, match="identifier"):
        compile_model(src, [4], name="not-an-identifier", build_dir=model_cache)
    with pytest.raises(ModelCompileError, match="broken_model.pyx"):
        compile_model(os.path.join(models_dir, "broken_model.pyx"), [4], build_dir=model_cache)
