"""Tests of vecampfit._openmp: how the library's idle OpenMP threads wait."""

import json
import os
import subprocess
import sys
import time

import pytest

from vecampfit import _openmp
from vecampfit._openmp import MARKER, SPIN_SECONDS, WaitPolicy, configure, spin_count
from vecampfit._pause import spin_seconds


def test_a_spin_where_the_library_counts_its_helpers():
    env = {"PATH": "/bin"}
    wait = configure(env, can_count=True, turn_seconds=25e-9)
    n = round(SPIN_SECONDS / 25e-9)
    assert env == {"PATH": "/bin", "GOMP_SPINCOUNT": str(n), MARKER: f"{n}:{SPIN_SECONDS!r}"}
    assert wait.kind == "spin" and wait.spin_seconds == pytest.approx(SPIN_SECONDS)


def test_helpers_sleep_where_it_cannot_count():
    env = {}
    assert configure(env, can_count=False) == WaitPolicy("passive", 0.0)
    assert env == {"OMP_WAIT_POLICY": "passive"}


@pytest.mark.parametrize("env, kind", [
    ({"OMP_WAIT_POLICY": "active"}, "user"),
    ({"OMP_WAIT_POLICY": "PASSIVE"}, "passive"),
    ({"GOMP_SPINCOUNT": "1000"}, "user"),
    ({"OMP_WAIT_POLICY": "passive", "GOMP_SPINCOUNT": "1000"}, "user"),
    # a spin count of the user's that a marker of another count does not claim
    ({"GOMP_SPINCOUNT": "9000", MARKER: "8000:0.0002"}, "user"),
])
def test_the_users_choice_is_kept(env, kind):
    before = {k: v for k, v in env.items() if k != MARKER}
    wait = configure(env, can_count=True, turn_seconds=25e-9)
    assert wait.kind == kind
    assert wait.spin_seconds == (0.0 if kind == "passive" else None)
    assert env == before


def test_a_child_process_measures_the_turn_again():
    # the environment of a parent whose library chose 8000 turns
    env = {"GOMP_SPINCOUNT": "8000", MARKER: "8000:0.0002"}
    wait = configure(env, can_count=True, turn_seconds=50e-9)
    assert env["GOMP_SPINCOUNT"] == str(round(SPIN_SECONDS / 50e-9)) and wait.kind == "spin"
    assert env[MARKER].startswith(env["GOMP_SPINCOUNT"] + ":")
    # a child that cannot count its helpers lets them sleep
    env = {"GOMP_SPINCOUNT": "8000", MARKER: "8000:0.0002"}
    assert configure(env, can_count=False).kind == "passive"
    assert env == {"OMP_WAIT_POLICY": "passive"}


def test_spin_count_bounds():
    assert spin_count(2e-4, 25e-9) == 8000
    assert spin_count(2e-4, 3e-8) == 6667            # the nearest count
    assert spin_count(2e-4, 1e-15) == _openmp.MAX_SPIN_COUNT
    assert spin_count(2e-4, 1e-3) == _openmp.MIN_SPIN_COUNT
    for bad in (0.0, -1e-9, float("nan")):
        with pytest.raises(ValueError, match="turn_seconds must be positive"):
            spin_count(2e-4, bad)


def test_spin_seconds_measures_the_loop():
    with pytest.raises(ValueError, match="turns must be at least 0"):
        spin_seconds(-1)
    assert 0 <= spin_seconds(0) < 1e-3
    # the loop's own clock against the caller's: the same time for a long loop
    n = 200_000
    best = None
    for _ in range(5):
        t0 = time.perf_counter()
        inner = spin_seconds(n)
        outer = time.perf_counter() - t0
        r = inner / outer
        best = r if best is None or abs(1 - r) < abs(1 - best) else best
    print(f"one turn: {inner / n * 1e9:.2f} ns; inner / outer time {best:.4f}")
    assert 0.9 < best <= 1.0 + 1e-6
    assert spin_seconds(10 * n) > 5 * spin_seconds(n)


HELPER_SPIN = r"""
import json, os, sys, time
import numpy as np
import vecampfit._openmp as openmp
from vecampfit.fitter._dispatch import select

kernels = select()[0]
chunk, n = 2048, 4096
x = np.ones((1, 2 * n))

def region():
    rows, bad = np.zeros((2, 2)), np.zeros(2, dtype=np.intp)
    kernels.cached_data_rows(x, np.array([1.0, 0.0]), 1.0, np.zeros((0, n)), np.zeros(0),
                             np.zeros(0), False, n, chunk, rows, bad, 2)

def tasks():
    return set(os.listdir("/proc/self/task"))

def runtime(tid):
    with open(f"/proc/self/task/{tid}/schedstat") as f:
        return int(f.read().split()[0]) * 1e-9

before = tasks()
region()
helpers = sorted(tasks() - before)
time.sleep(0.05)
spun = []
for _ in range(5):
    region()
    start = [runtime(t) for t in helpers]
    time.sleep(0.05)
    spun.append(max(runtime(t) - s for t, s in zip(helpers, start)))
print(json.dumps({"wait": list(openmp.WAIT), "helpers": len(helpers), "spun": sorted(spun)}))
"""


@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="needs /proc")
@pytest.mark.parametrize("policy", [None, "passive"])
def test_an_idle_helper_spins_for_the_time_chosen(policy, tmp_path):
    # After a two-thread region the helper's time on a CPU grows by about
    # its spin and then stops (it sleeps): measured from the kernel's
    # per-thread run time in a fresh process, whose OpenMP runtime reads
    # the environment the library sets.
    env = {k: v for k, v in os.environ.items()
           if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", MARKER)}
    if policy:
        env["OMP_WAIT_POLICY"] = policy
    out = subprocess.run([sys.executable, "-c", HELPER_SPIN], env=env, cwd=tmp_path,
                         capture_output=True, text=True, check=True).stdout
    r = json.loads(out.strip().splitlines()[-1])
    print(r)
    assert r["helpers"] == 1
    median = r["spun"][2]
    kind, seconds = r["wait"]
    if policy == "passive":
        assert kind == "passive" and median < 0.25 * SPIN_SECONDS
    elif kind == "spin":
        assert 0.5 * seconds < median < 10 * seconds
    else:
        pytest.skip(f"the library lets helpers wait as {kind!r} here")
