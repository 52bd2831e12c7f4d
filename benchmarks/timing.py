"""Timing helper shared by the benchmark scripts."""

import time


def best_time(f, repeat):
    """The shortest wall time (s) of ``repeat`` calls of ``f()``: on a shared
    machine the minimum is the measurement least disturbed by other work."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t0)
    return best


def cpu_description():
    """The CPU model and its vector extensions (from /proc/cpuinfo where there
    is one), for benchmark reports: the same code sits at different distances
    from its limit on different hosts."""
    import platform
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
    return f"{model or platform.processor() or platform.machine()}" + (
        f" ({', '.join(ext)})" if ext else "")
