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
