"""Compile a user's Cython model against vecampfit's ``.pxd`` files.

A density written in Cython uses vecampfit's block routines, which work on
``L`` events at once with ``L`` a compile-time constant (``VECTOR_LENGTH`` in
:mod:`vecampfit.block`).  The model file is therefore compiled once per
vector length; within one compilation both precisions are available through
Cython fused types.  :func:`compile_model` does this with the include paths
and compiler flags of the installed vecampfit (OpenMP, ``-fno-math-errno``,
``-march=native`` for the machine it runs on), caches the result, and
imports the modules.

The model lives in the user's own folder; nothing in vecampfit's build has to
be edited.  Sibling ``.pxd`` and ``.pxi`` files of the model are found (the
model's folder is on the Cython include path) and are part of the cache key.

Each cached module has a record of its size and SHA-256 beside it
(``MODULE.so.sha256``), written when the module is moved into the cache; a
module that does not match its record (truncated or damaged) is rebuilt,
never loaded.  Errors of Cython and of the C compiler name the model's own
file and line, not the temporary copy that is compiled.
"""

import contextlib
import hashlib
import importlib.util
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile

from . import _build_config, get_include_dirs
from .atomic_files import atomic_write, atomic_write_text

__all__ = ["ModelCompileError", "compile_model", "default_cache_dir", "module_for_length"]


class ModelCompileError(RuntimeError):
    """A model file could not be translated by Cython or compiled by the C compiler."""


_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

_CYTHON_DIRECTIVES = {
    "language_level": 3,
    "boundscheck": False,
    "wraparound": False,
    "cdivision": True,
    "initializedcheck": False,
    "embedsignature": True,
}


def default_cache_dir():
    """Return the directory where compiled models are cached.

    Returns
    -------
    str
        ``$VECAMPFIT_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/vecampfit/models``
        (``~/.cache/vecampfit/models`` when ``XDG_CACHE_HOME`` is unset).
    """
    env = os.environ.get("VECAMPFIT_CACHE_DIR")
    if env:
        return os.path.abspath(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "vecampfit", "models")


def _package_parent():
    """Directory that contains the installed ``vecampfit`` package (for cimport)."""
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _compile_args(native, openmp, extra):
    args = ["-O3", "-fno-math-errno", "-Wno-unused-function", "-Wno-unreachable-code"]
    if _build_config.C_COMPILER == "gcc":
        # gcc completely unrolls the short fixed-length lane loops before the
        # loop vectorizer runs, and the unrolled code then vectorizes only in
        # part; keep the loops for the vectorizer.
        args.append("--param=max-completely-peel-times=1")
        # A density is built from ``cdef inline`` routines called inside one
        # loop over the lanes; one call that gcc leaves out of line (its
        # default budget for an inline function is small) stops the
        # vectorization of the whole loop.
        args.append("--param=max-inline-insns-single=1000")
    if native:
        args.append("-march=native")
    if openmp:
        args.append("-fopenmp")
    args.extend(extra)
    return args


def _cpu_fingerprint():
    """Identify this machine's CPU, so that models tuned for it are not reused elsewhere."""
    try:
        with open("/proc/cpuinfo") as f:
            lines = [line for line in f if line.startswith(("model name", "flags"))]
        return "".join(sorted(set(lines)))
    except OSError:
        return platform.machine() + platform.processor()


def _cache_key(source, include_dirs, length, compile_args, link_args):
    import Cython

    h = hashlib.sha256()
    for item in (
        _cpu_fingerprint(),
        _build_config.VERSION,
        sys.version,
        sysconfig.get_config_var("EXT_SUFFIX") or "",
        Cython.__version__,
        str(length),
        " ".join(compile_args),
        " ".join(link_args),
    ):
        h.update(item.encode())
        h.update(b"\0")
    with open(source, "rb") as f:
        h.update(f.read())
    # Declarations the model may cimport or include from its own folder and
    # from the extra include directories, and vecampfit's own declarations.
    folders = [os.path.dirname(source), *include_dirs, os.path.dirname(os.path.abspath(__file__)),
               *get_include_dirs()]
    for folder in folders:
        for root, _dirs, files in os.walk(folder):
            for fname in sorted(files):
                if fname.endswith((".pxd", ".pxi", ".h")):
                    path = os.path.join(root, fname)
                    h.update(path.encode())
                    with open(path, "rb") as f:
                        h.update(f.read())
            if root == folder and folder == os.path.dirname(source):
                # Do not descend into a user's whole tree below the model.
                _dirs[:] = []
    return h.hexdigest()[:20]


#: Suffix of the record (size and SHA-256) kept beside each cached module.
_RECORD_SUFFIX = ".sha256"

#: At most this many lines of compiler output go into an exception message.
_MAX_MESSAGE_LINES = 200


def _digest(path):
    """(size in bytes, SHA-256 hex digest) of a file."""
    h = hashlib.sha256()
    size = 0
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
            size += len(block)
    return size, h.hexdigest()


def _record_text(size, digest):
    return f"{size} {digest}\n"


def _cached_module_is_intact(path):
    """True if ``path`` and its record exist and the file has the recorded size and SHA-256.

    A module that was truncated or corrupted after it was built (a full
    disk, a copy interrupted, a damaged cache) must not be loaded: mapping
    a truncated shared library can end the process with SIGBUS.
    """
    try:
        with open(path + _RECORD_SUFFIX, encoding="ascii") as f:
            recorded = f.read()
        if os.path.getsize(path) != int(recorded.split()[0]):
            return False
        return _record_text(*_digest(path)) == recorded
    except (OSError, ValueError, IndexError):
        return False


def _install_module(built, final_path):
    """Move a built module into the cache with its record (size, SHA-256).

    The module is copied to a temporary name and moved into place in one
    step; the record is written after it.  A module without a matching
    record is rebuilt, never loaded.
    """
    with contextlib.suppress(FileNotFoundError):
        os.unlink(final_path + _RECORD_SUFFIX)
    record = {}

    def copy(tmp):
        shutil.copyfile(built, tmp)
        record["size"], record["digest"] = _digest(tmp)

    atomic_write(final_path, copy)
    atomic_write_text(final_path + _RECORD_SUFFIX, _record_text(record["size"], record["digest"]))


def _load(module_name, path):
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ModelCompileError(f"cannot load compiled model {path!r}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _user_paths(text, replacements):
    """Compiler output with the temporary copies' paths replaced by the user's files.

    ``replacements`` maps the absolute path of each copy to the user's file.
    A copy named by any path that ends in its work folder and file name
    (relative to the working folder, as Cython gives it when the build
    folder is under it, or through a symbolic link) and its bare file name
    (as Cython's ``#line`` directives may give it) are replaced too.
    """
    for copy, original in replacements.items():
        text = text.replace(copy, original)
        tail = os.path.join(os.path.basename(os.path.dirname(copy)), os.path.basename(copy))
        text = re.sub(r"(?<![^\s\"'(])[^\s\"'():]*" + re.escape(os.sep + tail) + r"(?![\w.])"
                      + "|" + r"(?<![^\s\"'(])" + re.escape(tail) + r"(?![\w.])",
                      lambda _m, o=original: o, text)
        text = re.sub(r"(?<![\w./\\-])" + re.escape(os.path.basename(copy)) + r"(?=[:\"'(),\s]|$)",
                      lambda _m, o=original: o, text, flags=re.MULTILINE)
    return text


def _message_lines(text):
    lines = text.strip("\n").splitlines()
    if len(lines) > _MAX_MESSAGE_LINES:
        lines = lines[:_MAX_MESSAGE_LINES] + [f"... ({len(lines) - _MAX_MESSAGE_LINES} more lines)"]
    return "\n".join(lines)


class _CompilerFailed(Exception):
    """A compiler or linker command that exited with an error."""


def _capturing_build_ext(verbose, output):
    """setuptools' ``build_ext`` whose compiler and linker output is collected in
    ``output`` (a list of str) instead of going to the terminal."""
    from setuptools.command.build_ext import build_ext

    def spawn(cmd, **kwargs):
        if verbose:
            print(" ".join(cmd), file=sys.stderr)
        run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             errors="replace", env=kwargs.get("env"))
        output.append(run.stdout)
        if run.returncode != 0:
            raise _CompilerFailed(f"{os.path.basename(cmd[0])} exited with status "
                                  f"{run.returncode}")

    class CapturingBuildExt(build_ext):
        def build_extensions(self):
            self.compiler.spawn = spawn
            if getattr(self, "shlib_compiler", None) is not None:
                self.shlib_compiler.spawn = spawn
            super().build_extensions()

    return CapturingBuildExt


def _forget_dependency_tree():
    """Make the next ``cythonize`` look up ``include`` files in its own include path.

    ``cythonize`` keeps the dependency tree of a process (which resolves the
    ``include`` statements of a model before it is translated) in a module
    global, made with the include path of the first call: a second model
    that ``include``s a file from another folder would be refused with
    "'x.pxi' not found".  Dropping the tree makes every call build its own.
    """
    from Cython.Build import Dependencies
    if hasattr(Dependencies, "_dep_tree"):
        Dependencies._dep_tree = None


def _build_one(source, module_name, length, workdir, include_path, c_include_dirs,
               compile_args, link_args, verbose):
    """Translate and compile one vector length into ``workdir``; return the .so path.

    Cython's and the compiler's messages name the user's files, not the
    copies in ``workdir``; they are part of the :class:`ModelCompileError`
    on failure and go to standard error on success (warnings).
    """
    from Cython.Build import cythonize
    from setuptools import Distribution, Extension

    pyx = os.path.join(workdir, module_name + ".pyx")
    shutil.copyfile(source, pyx)
    # The generated C file is deleted with the work folder: say what it was.
    replacements = {pyx: source,
                    os.path.join(workdir, module_name + ".c"): f"<C code generated from {source}>"}
    # Files the model ``include``s are looked up next to the translated copy
    # first: put the model's sibling .pxi files there too.
    folder = os.path.dirname(os.path.abspath(source))
    for fname in os.listdir(folder):
        if fname.endswith(".pxi"):
            shutil.copyfile(os.path.join(folder, fname), os.path.join(workdir, fname))
            replacements[os.path.join(workdir, fname)] = os.path.join(folder, fname)
    ext = Extension(
        module_name,
        [pyx],
        include_dirs=c_include_dirs,
        define_macros=[("VECAMPFIT_VECTOR_LENGTH", str(length))],
        extra_compile_args=compile_args,
        extra_link_args=link_args,
    )
    listing = os.path.join(workdir, module_name + ".lis")

    def cython_messages():
        try:
            with open(listing, encoding="utf-8", errors="replace") as f:
                return _user_paths(f.read(), replacements)
        except FileNotFoundError:
            return ""

    _forget_dependency_tree()
    try:
        # Errors and warnings go to the listing file (not the terminal), so
        # that their paths can be mapped to the user's files; #line
        # directives let the C compiler name the user's file and line too.
        exts = cythonize(
            [ext],
            include_path=include_path,
            compiler_directives=_CYTHON_DIRECTIVES,
            quiet=not verbose,
            force=True,
            use_listing_file=True,
            errors_to_stderr=False,
            emit_linenums=True,
        )
    except Exception as exc:
        messages = cython_messages() or _user_paths(str(exc), replacements)
        raise ModelCompileError(
            f"Cython could not translate {source} (vector length {length}):\n"
            f"{_message_lines(messages)}"
        ) from None
    warnings = cython_messages()
    if warnings.strip():
        print(warnings.strip("\n"), file=sys.stderr)
    output = []
    dist = Distribution({"name": module_name, "ext_modules": exts})
    dist.script_args = []
    cmd = _capturing_build_ext(verbose, output)(dist)
    cmd.build_lib = workdir
    cmd.build_temp = os.path.join(workdir, "build")
    cmd.inplace = False
    cmd.verbose = verbose
    cmd.ensure_finalized()
    try:
        cmd.run()
    except Exception as exc:
        messages = _user_paths("".join(output), replacements)
        reason = _user_paths(str(exc), replacements)
        raise ModelCompileError(
            f"the C compiler failed on {source} (vector length {length}): {reason}\n"
            f"{_message_lines(messages)}"
        ) from exc
    compiler_warnings = _user_paths("".join(output), replacements)
    if compiler_warnings.strip():
        print(compiler_warnings.strip("\n"), file=sys.stderr)
    built = cmd.get_ext_fullpath(module_name)
    if not os.path.exists(built):
        raise ModelCompileError(f"compiling {source!r} produced no module at {built!r}")
    return built


def compile_model(source, vector_lengths=None, *, name=None, build_dir=None,
                  include_dirs=(), extra_compile_args=(), extra_link_args=(),
                  native=True, openmp=None, force=False, verbose=False):
    """Compile a Cython model file once per vector length and import it.

    Parameters
    ----------
    source : str or os.PathLike
        Path of the ``.pyx`` file.  It may ``cimport`` vecampfit's modules
        (``from vecampfit.block cimport VECTOR_LENGTH, complex_vector``) and
        ``.pxd`` files from its own folder.
    vector_lengths : iterable of int, optional
        Lengths ``L`` to compile for; default: the lengths this vecampfit was
        configured with (``vecampfit._build_config.VECTOR_LENGTHS``).
    name : str, optional
        Base module name; default: the file's stem.  The module for length
        ``L`` is named ``f"{name}_L{L}"``.
    build_dir : str, optional
        Cache directory; default :func:`default_cache_dir`.
    include_dirs : iterable of str
        Extra directories for both Cython (``cimport``) and C (``#include``).
    extra_compile_args, extra_link_args : iterable of str
        Extra compiler and linker arguments.  The environment variable
        ``VECAMPFIT_COMPILE_ARGS`` adds its arguments (split like a shell
        command line) after these, for every model a process compiles: for
        example ``-march=x86-64-v3`` (the same instructions on every node of
        a cluster) or ``-mno-avx512f``.
    native : bool
        Tune for this CPU (``-march=native``, default True): a model is
        compiled on the machine that runs it, and the cache key includes
        the CPU, so a cache shared between machines never serves code tuned
        for another CPU.
    openmp : bool, optional
        Compile with OpenMP; default: as vecampfit itself was built.
    force : bool
        Recompile even if a cached module exists.  A cached module whose
        size or SHA-256 differs from the record written beside it when it
        was built (a truncated or damaged file) is recompiled in any case.
    verbose : bool
        Show Cython's and the compiler's command lines.

    Returns
    -------
    dict of int to module
        The imported module for each vector length.

    Raises
    ------
    FileNotFoundError
        If ``source`` does not exist.
    ValueError
        If ``source`` is not a ``.pyx`` file, ``name`` is not an identifier,
        or a vector length is not a positive integer.
    ModelCompileError
        If Cython or the C compiler fails; the message names the file and
        the vector length and holds Cython's or the compiler's messages,
        which name the model's own file and line (not the temporary copy
        that is compiled).
    """
    source = os.path.abspath(os.fspath(source))
    if not os.path.isfile(source):
        raise FileNotFoundError(f"model source {source!r} does not exist")
    if not source.endswith(".pyx"):
        raise ValueError(f"model source {source!r} is not a .pyx file")
    if name is None:
        name = os.path.splitext(os.path.basename(source))[0]
    if not _IDENTIFIER.match(name):
        raise ValueError(f"model name {name!r} is not a Python identifier")
    if vector_lengths is None:
        vector_lengths = _build_config.VECTOR_LENGTHS
    lengths = []
    for length in vector_lengths:
        if isinstance(length, bool) or not isinstance(length, int) or length < 1:
            raise ValueError(f"vector length {length!r} is not a positive integer")
        if length not in lengths:
            lengths.append(length)
    if not lengths:
        raise ValueError("vector_lengths is empty")
    if openmp is None:
        openmp = _build_config.OPENMP
    include_dirs = [os.path.abspath(d) for d in include_dirs]
    compile_args = _compile_args(native, openmp, list(extra_compile_args)
                                 + shlex.split(os.environ.get("VECAMPFIT_COMPILE_ARGS", "")))
    link_args = (["-fopenmp"] if openmp else []) + list(extra_link_args)
    include_path = [_package_parent(), os.path.dirname(source), *include_dirs]
    c_include_dirs = [*get_include_dirs(), os.path.dirname(source), *include_dirs]
    cache = os.path.abspath(build_dir) if build_dir is not None else default_cache_dir()
    if os.path.exists(cache) and not os.path.isdir(cache):
        raise NotADirectoryError(f"build_dir {cache} is a file, not a folder (compiled models "
                                 f"are kept in a folder)")
    os.makedirs(cache, exist_ok=True)
    ext_suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"

    modules = {}
    for length in lengths:
        module_name = f"{name}_L{length}"
        key = _cache_key(source, include_dirs, length, compile_args, link_args)
        final_dir = os.path.join(cache, f"{module_name}-{key}")
        final_path = os.path.join(final_dir, module_name + ext_suffix)
        if force or not _cached_module_is_intact(final_path):
            workdir = tempfile.mkdtemp(prefix=module_name + "-", dir=cache)
            try:
                built = _build_one(source, module_name, length, workdir, include_path,
                                   c_include_dirs, compile_args, link_args, verbose)
                os.makedirs(final_dir, exist_ok=True)
                _install_module(built, final_path)
            finally:
                shutil.rmtree(workdir, ignore_errors=True)
        modules[length] = _load(module_name, final_path)
    return modules


def module_for_length(modules, vector_length, owner):
    """The compiled module of one vector length.

    Parameters
    ----------
    modules : dict of int to module
        Modules by vector length (what :func:`compile_model` returns).
    vector_length : int or None
        The vector length L (lanes per block); None: the longest compiled.
    owner : str
        The model's name, for the message.

    Returns
    -------
    module

    Raises
    ------
    ValueError
        The model is not compiled for ``vector_length`` (the message lists
        the lengths it is compiled for).
    """
    if vector_length is None:
        vector_length = max(modules)
    if vector_length not in modules:
        raise ValueError(f"model {owner!r} is not compiled for vector length "
                         f"{vector_length} (compiled: {sorted(modules)})")
    return modules[vector_length]
