"""Timing, reporting and command-line helpers shared by the benchmark scripts.

Every benchmark measures wall time (``time.perf_counter``, s) and, where the
machine is shared, the CPU time of the process (``time.process_time``, s, all
threads), and writes a Markdown report; the helpers here do each of these
once for all of them.
"""

import argparse
import os
import platform
import statistics
import time


def timed(f):
    """Wall time and process CPU time (s) of one call of ``f()``.

    Returns
    -------
    (wall, cpu) : tuple of float
        ``perf_counter`` and ``process_time`` differences around the call; the
        CPU time counts every thread of the process, so ``cpu / wall`` is about
        the number of busy threads.
    """
    c0, t0 = time.process_time(), time.perf_counter()
    f()
    return time.perf_counter() - t0, time.process_time() - c0


def best_time(f, repeat):
    """The shortest wall time (s) of ``repeat`` calls of ``f()``: on a shared
    machine the minimum is the measurement least disturbed by other work.

    Returns ``inf`` for ``repeat = 0``.
    """
    return min((timed(f)[0] for _ in range(repeat)), default=float("inf"))


def interleaved_samples(cases, repeat):
    """The cases timed one after another, ``repeat`` rounds: every case sees
    the same state of a shared machine.

    Parameters
    ----------
    cases : dict
        Label -> callable of no arguments; timed in the dict's order in every
        round.
    repeat : int
        Number of rounds.

    Returns
    -------
    wall, cpu : dict
        Label -> list of the ``repeat`` wall times and process CPU times (s)
        of its calls, in the order they were taken (see :func:`timed`).
    """
    wall = {k: [] for k in cases}
    cpu = {k: [] for k in cases}
    for _ in range(repeat):
        for k, f in cases.items():
            w, c = timed(f)
            wall[k].append(w)
            cpu[k].append(c)
    return wall, cpu


def medians(samples):
    """Label -> median of its list of times (s), for the dicts of
    :func:`interleaved_samples`."""
    return {k: statistics.median(v) for k, v in samples.items()}


def minima(samples):
    """Label -> shortest of its list of times (s), for the dicts of
    :func:`interleaved_samples`: the best round of each case."""
    return {k: min(v) for k, v in samples.items()}


def load_average():
    """The load averages over 1, 5 and 15 minutes, as ``"0.52 0.61 0.70"``,
    for the reports (the machine is shared with other work)."""
    return " ".join(f"{v:.2f}" for v in os.getloadavg())


def processor():
    """The processor's name as the platform reports it, else the machine type
    (``x86_64``), for the reports; :func:`cpu_description` adds the vector
    extensions."""
    return platform.processor() or platform.machine()


def peak_memory_mb():
    """The peak resident memory (MB, 2^20 bytes) of this process: its
    high-water mark VmHWM from /proc/self/status, else ``ru_maxrss``.

    Read in the process that did the work: ``ru_maxrss`` of a child, read by
    a large parent, would report the parent's size.
    """
    try:
        with open("/proc/self/status") as status:
            return [int(line.split()[1]) / 1024 for line in status
                    if line.startswith("VmHWM:")][0]
    except (OSError, IndexError):
        import resource
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def write_report(text, path, mode="w"):
    """Print a report and, when ``path`` is given, write it there (its folder
    created if missing; ``mode="a"`` appends)."""
    print(text)
    if path:
        folder = os.path.dirname(os.path.abspath(path))
        os.makedirs(folder, exist_ok=True)
        with open(path, mode) as f:
            f.write(text)


def benchmark_parser(doc, *, data=None, mc=None, repeat=None, portable=False, **defaults):
    """The command line of a benchmark: described by the first paragraph of
    its docstring ``doc``, with the options every benchmark names alike.

    Parameters
    ----------
    doc : str
        The module's docstring.
    data, mc : int, optional
        Defaults of ``--data`` (data events) and ``--mc`` (normalization MC
        events); the option is left out when ``None``.
    repeat : int, optional
        Default of ``--repeat`` (calls or rounds timed); left out when ``None``.
    portable : bool
        Whether to offer ``--portable``: models compiled without
        ``-march=native``.
    **defaults
        Further options taking a value, ``name=default`` for ``--name`` (an
        underscore in the name stands for a dash); the type is that of the
        default (str for ``None``).

    Returns
    -------
    argparse.ArgumentParser
        The caller adds its own options.
    """
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    for name, default in (("data", data), ("mc", mc), ("repeat", repeat)):
        if default is not None:
            ap.add_argument(f"--{name}", type=int, default=default)
    if portable:
        ap.add_argument("--portable", action="store_true", help="compile without -march=native")
    for name, default in defaults.items():
        kind = {} if default is None or isinstance(default, str) else {"type": type(default)}
        ap.add_argument("--" + name.replace("_", "-"), default=default, **kind)
    return ap


def cpu_description():
    """The CPU model and its vector extensions (from /proc/cpuinfo where there
    is one), for benchmark reports: the same code sits at different distances
    from its limit on different hosts."""
    model, flags = None, set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                key = key.strip()
                if key == "model name" and model is None:
                    model = value.strip()
                elif key == "flags" and not flags:
                    flags = set(value.split())
    except OSError:
        pass
    wanted = ("sse4_2", "avx", "avx2", "fma", "avx512f", "avx512dq", "avx512vl")
    ext = [f for f in wanted if f in flags]
    return f"{model or processor()}" + (f" ({', '.join(ext)})" if ext else "")
