"""Tests of vecampfit.atomic_files: a file appears complete under its name or
not at all, with the permissions of a normal new file, and no temporary file
is left after an exception or SIGTERM."""

import os
import signal
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

from vecampfit.atomic_files import (PARTIAL_SUFFIX, atomic_write, atomic_write_root,
                                    atomic_write_text, partial_file)


@pytest.fixture
def umask():
    """Set the process umask for one test, restore it afterwards."""
    saved = os.umask(0o022)
    os.umask(saved)
    yield lambda mask: os.umask(mask)
    os.umask(saved)


def mode(path):
    return os.stat(path).st_mode & 0o777


@pytest.mark.parametrize("mask", [0o022, 0o002, 0o077, 0o027])
def test_new_file_has_the_permissions_of_a_normal_new_file(tmp_path, umask, mask):
    umask(mask)
    atomic_write_text(tmp_path / "results.txt", "x\n")
    # What open() would give a new file: 0o666 less the umask (mkstemp gives 0o600).
    assert mode(tmp_path / "results.txt") == 0o666 & ~mask
    assert (tmp_path / "results.txt").read_text() == "x\n"


def test_existing_file_keeps_its_mode(tmp_path, umask):
    umask(0o022)
    path = tmp_path / "results.txt"
    path.write_text("old\n")
    for m in (0o640, 0o600, 0o664, 0o444):
        os.chmod(path, m)
        atomic_write_text(path, f"new {m:o}\n")
        assert mode(path) == m
        assert path.read_text() == f"new {m:o}\n"


def test_temporary_name_says_what_it_is_and_is_not_hidden(tmp_path):
    path = tmp_path / "results.txt"
    seen = []

    def write(tmp):
        seen.append(tmp)
        assert os.path.exists(tmp)
        assert not path.exists()  # nothing under the final name while writing
        with open(tmp, "w") as f:
            f.write("complete\n")

    atomic_write(path, write)
    (tmp,) = seen
    assert os.path.dirname(tmp) == str(tmp_path)
    assert os.path.basename(tmp) == f"results.txt{PARTIAL_SUFFIX}{os.getpid()}"
    assert not os.path.basename(tmp).startswith(".")
    assert os.listdir(tmp_path) == ["results.txt"]


def test_a_taken_temporary_name_is_not_reused(tmp_path):
    path = tmp_path / "results.txt"
    taken = tmp_path / f"results.txt{PARTIAL_SUFFIX}{os.getpid()}"
    taken.write_text("someone else's\n")
    with partial_file(path) as tmp:
        assert tmp == f"{taken}-2"
        with open(tmp, "w") as f:
            f.write("mine\n")
    assert path.read_text() == "mine\n"
    assert taken.read_text() == "someone else's\n"
    assert sorted(os.listdir(tmp_path)) == sorted(["results.txt", taken.name])


@pytest.mark.parametrize("error", [ValueError("bad value"), KeyboardInterrupt(), SystemExit(3)])
def test_exception_while_writing_leaves_the_old_file_and_no_temporary(tmp_path, error):
    path = tmp_path / "results.txt"
    path.write_text("old\n")

    def write(tmp):
        with open(tmp, "w") as f:
            f.write("half")
        raise error

    with pytest.raises(type(error)):
        atomic_write(path, write)
    assert path.read_text() == "old\n"
    assert os.listdir(tmp_path) == ["results.txt"]


def test_failed_first_write_leaves_nothing(tmp_path):
    def write(f):
        f.mktree("tree", {"x": np.float64})
        raise RuntimeError("stop")

    with pytest.raises(RuntimeError, match="stop"):
        atomic_write_root(tmp_path / "out.root", write)
    assert os.listdir(tmp_path) == []


def test_missing_folder_is_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="folder .*missing does not exist"):
        atomic_write_text(tmp_path / "missing" / "results.txt", "x")
    with pytest.raises(IsADirectoryError, match="is a folder"):
        atomic_write_text(tmp_path, "x")


def test_root_file_is_written_and_readable(tmp_path, umask):
    import uproot

    umask(0o002)
    path = tmp_path / "out.root"

    def write(f):
        f.mktree("tree", {"x": np.float64})
        f["tree"].extend({"x": np.arange(5.0)})

    atomic_write_root(path, write)
    assert mode(path) == 0o664
    with uproot.open(path) as f:
        np.testing.assert_array_equal(f["tree"]["x"].array(library="np"), np.arange(5.0))
    assert os.listdir(tmp_path) == ["out.root"]


def test_sigterm_handler_only_during_the_write(tmp_path):
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signal handlers live in the main thread")
    previous = signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        during = []
        atomic_write(tmp_path / "a.txt", lambda tmp: during.append(signal.getsignal(signal.SIGTERM)))
        assert during[0] is not signal.SIG_DFL  # the cleanup handler
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
        with pytest.raises(ValueError):
            atomic_write(tmp_path / "a.txt", lambda tmp: (_ for _ in ()).throw(ValueError()))
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL

        # A handler of the program's own is left in place.
        def own(signum, frame):
            raise SystemExit(1)

        signal.signal(signal.SIGTERM, own)
        during.clear()
        atomic_write(tmp_path / "a.txt", lambda tmp: during.append(signal.getsignal(signal.SIGTERM)))
        assert during == [own]
        assert signal.getsignal(signal.SIGTERM) is own
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_write_from_another_thread(tmp_path):
    errors = []

    def run():
        try:
            atomic_write_text(tmp_path / "t.txt", "from a thread\n")
        except BaseException as exc:  # reported to the main thread
            errors.append(exc)

    t = threading.Thread(target=run)
    t.start()
    t.join()
    assert not errors
    assert (tmp_path / "t.txt").read_text() == "from a thread\n"


WRITER = textwrap.dedent("""
    import sys, time
    from vecampfit.atomic_files import atomic_write

    def write(tmp):
        with open(tmp, "w") as f:
            f.write("half of the new content")
            f.flush()
        print("writing", tmp, flush=True)
        time.sleep(120)

    atomic_write(sys.argv[1], write)
    print("finished", flush=True)
""")


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="POSIX signals")
def test_sigterm_during_the_write_removes_the_temporary_file(tmp_path):
    path = tmp_path / "results.txt"
    path.write_text("old\n")
    # The child runs outside the source tree: ``python -c`` puts the working
    # directory first on sys.path, and the source tree's package is not built.
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE,
                            text=True, cwd=tmp_path)
    try:
        line = proc.stdout.readline()
        assert line.startswith("writing "), line
        tmp = line.split(" ", 1)[1].strip()
        assert os.path.exists(tmp) and os.path.basename(tmp).startswith("results.txt.partial-")
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    # The process ends by SIGTERM, as it would have without the write ...
    assert proc.returncode == -signal.SIGTERM
    assert "finished" not in out
    # ... and leaves the old file, and nothing else.
    assert os.listdir(tmp_path) == ["results.txt"]
    assert path.read_text() == "old\n"


def imported_modules(module_name):
    """Absolute names of the modules a module imports anywhere in its source
    (function bodies included); ``from . import x`` counts as the package."""
    import ast
    import importlib

    module = importlib.import_module(module_name)
    package = module_name.rsplit(".", 1)[0]
    with open(module.__file__, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module
            names.add(target)
            names.update(f"{target}.{alias.name}" for alias in node.names)
    return names


def test_atomic_writing_sits_below_the_modules_that_write_files():
    # No import cycles root_io <-> fitter.results or fitter.parameters <->
    # fitter.results: atomic writing needs nothing else of vecampfit.
    assert not {m for m in imported_modules("vecampfit.atomic_files")
                if m.startswith("vecampfit")}
    assert "vecampfit.atomic_files" in imported_modules("vecampfit.root_io")
    assert not {m for m in imported_modules("vecampfit.root_io")
                if m.startswith("vecampfit.fitter")}
    assert "vecampfit.atomic_files" in imported_modules("vecampfit.fitter.parameters")
    assert "vecampfit.fitter.results" not in imported_modules("vecampfit.fitter.parameters")
    assert "vecampfit.atomic_files" in imported_modules("vecampfit.fitter.results")


def test_writing_a_tree_does_not_load_the_fitter(tmp_path):
    code = textwrap.dedent(f"""
        import sys
        import numpy as np
        from vecampfit.root_io import read_events, write_tree
        write_tree({str(tmp_path / "t.root")!r}, {{"x": np.arange(3.0)}})
        read_events({str(tmp_path / "t.root")!r})
        print(sorted(m for m in sys.modules if m.startswith("vecampfit.fitter")))
    """)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"
