"""Tests of vecampfit.model_compiler: the path a user's own Cython model takes."""

import os
import subprocess
import sys

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


SMALL_MODEL = """\
# A model that needs nothing of vecampfit: quick to compile.
from vecampfit.block cimport VECTOR_LENGTH


def answer():
    return 42 + 0 * VECTOR_LENGTH
"""


def identity(path):
    """What changes when a file is written anew: inode and modification time."""
    st = os.stat(path)
    return st.st_ino, st.st_mtime_ns


def test_cache_is_reused_and_force_rebuilds(tmp_path):
    src = tmp_path / "small_model.pyx"
    src.write_text(SMALL_MODEL)
    cache = tmp_path / "cache"
    path = compile_model(src, [2], build_dir=cache)[2].__file__
    built = identity(path)
    second = compile_model(src, [2], build_dir=cache)[2]
    assert second.__file__ == path
    assert identity(path) == built  # not rebuilt
    assert second.answer() == 42
    compile_model(src, [2], build_dir=cache, force=True)
    assert identity(path) != built  # rebuilt and moved into place anew
    rebuilt = identity(path)
    # A changed source is another cache entry; the old one stays as it was.
    src.write_text(SMALL_MODEL.replace("42", "43"))
    other = compile_model(src, [2], build_dir=cache)[2].__file__
    assert other != path and identity(path) == rebuilt


def test_included_files_come_from_each_compile_s_own_folders(tmp_path):
    """Two models compiled in one process, each ``include``-ing a file from
    a folder only its own ``include_dirs`` names: both are found (Cython's
    dependency tree of the first compile must not decide the second's)."""
    script = f"""
import os, sys
from vecampfit.model_compiler import compile_model
root = {str(tmp_path)!r}
for value in (1, 2):
    models = os.path.join(root, f"models{{value}}")
    code = os.path.join(root, f"code{{value}}")
    os.makedirs(models)
    os.makedirs(code)
    with open(os.path.join(code, f"piece{{value}}.pxi"), "w") as f:
        f.write(f"PIECE = {{value}}\\n")
    with open(os.path.join(models, f"model{{value}}.pyx"), "w") as f:
        f.write(f"include 'piece{{value}}.pxi'\\n\\ndef piece():\\n    return PIECE\\n")
    module = compile_model(os.path.join(models, f"model{{value}}.pyx"), [1],
                           build_dir=os.path.join(root, "cache"), include_dirs=[code])[1]
    assert module.piece() == value, module.piece()
print("both found")
"""
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "both found" in run.stdout


CYTHON_ERROR_MODEL = """\
# A model with a Cython error on line 7.
from vecampfit.block cimport VECTOR_LENGTH


def length():
    cdef int n = VECTOR_LENGTH
    return n +* 2
"""

C_ERROR_MODEL = """\
# Cython translates this model, the C compiler rejects it (line 12): the C
# function takes a struct, its declaration says double.
cdef extern from *:
    \"\"\"
    struct vecampfit_test_pair { double a, b; };
    static double vecampfit_test_first(struct vecampfit_test_pair p) { return p.a; }
    \"\"\"
    double vecampfit_test_first(double x)


def first(double x):
    return vecampfit_test_first(x)
"""


@pytest.mark.parametrize("text,line,who", [(CYTHON_ERROR_MODEL, 7, "Cython could not translate"),
                                           (C_ERROR_MODEL, 12, "the C compiler failed on")])
def test_errors_name_the_model_file_and_line(tmp_path, text, line, who, capfd):
    src = tmp_path / "faulty_model.pyx"
    src.write_text(text)
    cache = tmp_path / "cache"
    with pytest.raises(ModelCompileError) as info:
        compile_model(src, [4], build_dir=cache)
    message = str(info.value)
    print(message)
    assert message.startswith(f"{who} {src} (vector length 4)")
    assert f"{src}:{line}:" in message
    # The temporary copies (faulty_model_L4.pyx and .c in the cache) appear nowhere.
    for copy in ("faulty_model_L4.pyx", "faulty_model_L4.c", str(cache)):
        assert copy not in message
    out, err = capfd.readouterr()
    assert "faulty_model_L4.pyx" not in err
    # Nothing is left in the cache but the empty folder.
    assert os.listdir(cache) == []


@pytest.mark.parametrize("text,line,who", [(CYTHON_ERROR_MODEL, 7, "Cython could not translate"),
                                           (C_ERROR_MODEL, 12, "the C compiler failed on")])
def test_errors_name_the_model_file_with_the_build_folder_under_the_working_folder(
        tmp_path, monkeypatch, text, line, who, capfd):
    """Cython names the copy relative to the working folder when the build
    folder is under it (cache/..._L4-xxxx/..._L4.pyx): still the user's file."""
    src = tmp_path / "faulty_model.pyx"
    src.write_text(text)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ModelCompileError) as info:
        compile_model("faulty_model.pyx", [4], build_dir="cache")
    message = str(info.value)
    print(message)
    assert f"faulty_model.pyx:{line}:" in message
    for copy in ("faulty_model_L4.pyx", "faulty_model_L4.c", "cache/", "cache" + os.sep):
        assert copy not in message
    out, err = capfd.readouterr()
    assert "faulty_model_L4" not in err


TRUNCATE_AND_RELOAD = """\
import os, sys
from vecampfit.model_compiler import compile_model
module = compile_model(sys.argv[1], [2], build_dir=sys.argv[2])[2]
print(module.answer(), module.__file__, flush=True)
"""


@pytest.mark.parametrize("damage", ["truncate", "flip"])
def test_damaged_cached_module_is_rebuilt(tmp_path, damage):
    # Loading a truncated shared library can end the process with SIGBUS:
    # each load runs in its own process.
    src = tmp_path / "small_model.pyx"
    src.write_text(SMALL_MODEL)
    cache = tmp_path / "cache"

    def run():
        r = subprocess.run([sys.executable, "-c", TRUNCATE_AND_RELOAD, str(src), str(cache)],
                           capture_output=True, text=True, timeout=600, cwd=tmp_path)
        assert r.returncode == 0, f"exit {r.returncode}: {r.stderr[-2000:]}"
        answer, path = r.stdout.split()
        assert answer == "42"
        return path

    path = run()
    size = os.path.getsize(path)
    if damage == "truncate":
        os.truncate(path, size // 2)
    else:  # same size, other bytes
        with open(path, "r+b") as f:
            f.seek(size // 2)
            block = f.read(64)
            f.seek(size // 2)
            f.write(bytes(b ^ 0xFF for b in block))
    damaged = identity(path)
    assert run() == path
    assert os.path.getsize(path) == size
    assert identity(path) != damaged  # rebuilt


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


def test_a_build_dir_that_is_a_file_is_named(tmp_path):
    src = tmp_path / "tiny.pyx"
    src.write_text("def f():\n    return 1\n")
    not_a_folder = tmp_path / "cache"
    not_a_folder.write_text("")
    with pytest.raises(NotADirectoryError, match=f"build_dir {not_a_folder} is a file"):
        compile_model(src, [4], build_dir=not_a_folder)


FLAG_MODEL = """\
cdef extern from *:
    \"\"\"
    #ifndef VECAMPFIT_TEST_FLAG
    #define VECAMPFIT_TEST_FLAG 0
    #endif
    \"\"\"
    int VECAMPFIT_TEST_FLAG


def flag():
    return VECAMPFIT_TEST_FLAG
"""


def test_compile_args_from_the_environment(tmp_path, monkeypatch):
    """VECAMPFIT_COMPILE_ARGS reaches the compiler of every model (after the
    function's own arguments) and is part of the cache key."""
    src = tmp_path / "flag_model.pyx"
    src.write_text(FLAG_MODEL)
    cache = tmp_path / "cache"
    monkeypatch.delenv("VECAMPFIT_COMPILE_ARGS", raising=False)
    plain = compile_model(src, [1], build_dir=cache)[1]
    assert plain.flag() == 0
    monkeypatch.setenv("VECAMPFIT_COMPILE_ARGS", "-DVECAMPFIT_TEST_FLAG=7 -O2")
    flagged = compile_model(src, [1], build_dir=cache)[1]
    assert flagged.flag() == 7 and flagged.__file__ != plain.__file__
