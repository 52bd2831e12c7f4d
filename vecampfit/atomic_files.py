"""Writing files atomically: a file appears complete under its name, or not at all.

Every file that vecampfit writes (parameter files, result and density files,
ROOT trees) is first written under a temporary name in the target folder,
``NAME.partial-PID`` (``-2``, ``-3``, ... appended if that name is taken),
and then moved onto ``NAME`` with :func:`os.replace`, which replaces the
name in one step.  Readers therefore see either the old file or the
complete new one, never a half-written file.

The temporary file

* is created with the permissions of a normal new file, ``0o666`` less the
  process's umask (not the ``0o600`` of :func:`tempfile.mkstemp`); when
  ``NAME`` exists already, the new file gets the mode of the old one;
* is not hidden (no leading dot), and its name says what it is and which
  process wrote it, so that a leftover (after ``kill -9`` or a power cut)
  can be recognized and removed;
* is removed on any exception raised while writing, ``KeyboardInterrupt``
  included, and on ``SIGTERM`` while the write is under way: in the main
  thread, when ``SIGTERM`` has its default action, a handler is installed
  for the duration of the write; it removes the temporary file, restores
  the default action and sends ``SIGTERM`` again, so that the process ends
  as it would have without the write.  A ``SIGTERM`` handler the program
  installed itself is left in place (an exception it raises removes the
  temporary file like any other).

The data are flushed to disk (``fsync``) before the move, and the folder
after it, so that after a crash the name holds the old or the new content.

This module uses nothing else from vecampfit.
"""

import contextlib
import os
import signal
import stat
import threading

__all__ = ["PARTIAL_SUFFIX", "atomic_write", "atomic_write_root", "atomic_write_text",
           "partial_file"]

#: What follows the target's name in the name of its temporary file
#: (then the process id).
PARTIAL_SUFFIX = ".partial-"


class _Terminated(BaseException):
    """Raised by the temporary SIGTERM handler to unwind the write."""


def _raise_terminated(signum, frame):
    raise _Terminated(signum)


@contextlib.contextmanager
def _signals_blocked():
    """Hold SIGINT and SIGTERM back in the main thread (where the platform can)."""
    if (not hasattr(signal, "pthread_sigmask")
            or threading.current_thread() is not threading.main_thread()):
        yield
        return
    held = {signal.SIGINT, signal.SIGTERM}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


@contextlib.contextmanager
def _removal_on_sigterm():
    """Turn SIGTERM into an exception for the duration of the block.

    Only in the main thread (Python runs signal handlers there) and only if
    SIGTERM has its default action, which would end the process without
    any cleanup.  When the block ends by SIGTERM, the default action is
    restored and the signal sent again.
    """
    if (not hasattr(signal, "SIGTERM")
            or threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL):
        yield
        return
    try:
        signal.signal(signal.SIGTERM, _raise_terminated)
        yield
    except _Terminated:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.raise_signal(signal.SIGTERM)
        raise  # reached only if the signal is blocked
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _check_folder(path):
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise FileNotFoundError(f"cannot write {path}: folder {folder} does not exist")
    return folder


def _create_partial(path):
    """Create the temporary file beside ``path`` (mode 0o666 & ~umask); return its name."""
    base = f"{path}{PARTIAL_SUFFIX}{os.getpid()}"
    tmp, n = base, 1
    while True:
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            n += 1
            tmp = f"{base}-{n}"
            continue
        os.close(fd)
        return tmp


def _fsync(path, directory=False):
    flags = os.O_RDONLY | (getattr(os, "O_DIRECTORY", 0) if directory else 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        if directory:  # folders cannot be opened on some systems
            return
        raise
    try:
        os.fsync(fd)
    except OSError:
        if not directory:
            raise
    finally:
        os.close(fd)


@contextlib.contextmanager
def partial_file(path):
    """Context manager giving the temporary name under which to write ``path``.

    The block writes the complete file under the name it receives.  When
    the block ends normally, the file is flushed to disk, given the mode of
    an existing ``path`` (if any) and moved onto ``path``.  When it ends by
    an exception (``KeyboardInterrupt`` included) or, in the main thread,
    by ``SIGTERM``, the temporary file is removed and ``path`` is left as
    it was.

    Parameters
    ----------
    path : str or os.PathLike
        Final name of the file.

    Yields
    ------
    str
        Name of the temporary file, ``path + ".partial-" + PID`` (with a
        counter appended if that name exists), in the same folder.  It
        exists, empty, when the block starts; the writer may open it for
        writing or replace it.

    Raises
    ------
    FileNotFoundError
        If the folder of ``path`` does not exist.
    IsADirectoryError
        If ``path`` is a folder.

    Examples
    --------
    >>> with partial_file("numbers.txt") as tmp:  # doctest: +SKIP
    ...     numpy.savetxt(tmp, numbers)
    """
    path = os.fspath(path)
    folder = _check_folder(path)
    if os.path.isdir(path):
        raise IsADirectoryError(f"cannot write {path}: it is a folder")
    with _removal_on_sigterm():
        # No signal between creating the temporary file and knowing its name.
        with _signals_blocked():
            tmp = _create_partial(path)
        try:
            yield tmp
            _fsync(tmp)
            try:
                mode = stat.S_IMODE(os.stat(path).st_mode)
            except FileNotFoundError:
                pass
            else:
                os.chmod(tmp, mode)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise
    _fsync(folder, directory=True)


def atomic_write(path, write):
    """Write ``path`` atomically with ``write(temporary_name)``.

    Parameters
    ----------
    path : str or os.PathLike
        Final name of the file.
    write : callable
        ``write(name)`` writes the complete file under ``name`` (a str, the
        temporary name; see :func:`partial_file`).  Its return value is
        returned.

    Returns
    -------
    object
        What ``write`` returned.

    Raises
    ------
    FileNotFoundError
        If the folder of ``path`` does not exist.
    Exception
        Whatever ``write`` raises; ``path`` is then unchanged and the
        temporary file removed.
    """
    with partial_file(path) as tmp:
        return write(tmp)


def atomic_write_text(path, text, encoding="utf-8"):
    """Write a text file atomically (see the module description).

    Parameters
    ----------
    path : str or os.PathLike
        Final name of the file.
    text : str
        Complete content.
    encoding : str
        Text encoding (default UTF-8).

    Raises
    ------
    FileNotFoundError
        If the folder of ``path`` does not exist.
    """
    def write(tmp):
        with open(tmp, "w", encoding=encoding) as f:
            f.write(text)

    atomic_write(path, write)


def atomic_write_root(path, write):
    """Create a ROOT file atomically with uproot (see the module description).

    Parameters
    ----------
    path : str or os.PathLike
        Final name of the file.
    write : callable
        ``write(file)`` fills the file; ``file`` is the writable file of
        :func:`uproot.recreate`, closed when ``write`` returns.

    Raises
    ------
    FileNotFoundError
        If the folder of ``path`` does not exist.
    Exception
        Whatever ``write`` or uproot raise; ``path`` is then unchanged.
    """
    import uproot

    def create(tmp):
        with uproot.recreate(tmp) as f:
            write(f)

    atomic_write(path, create)
