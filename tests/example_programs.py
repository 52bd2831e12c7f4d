"""Running the programs of an example folder as a user does, and reading what
they write: the step programs (``generate.py``, ``fit.py``, ``plot.py``,
``run.py``) of ``examples/d0_rho_kstar`` and ``examples/lc_pkpi``.

The programs run as subprocesses from a folder outside the source tree (a
script's folder, not the working folder, is first on its ``sys.path``, so the
installed vecampfit is the one imported).
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")


def run_program(example, program, args, cwd, timeout=300):
    """Run ``examples/<example>/<program>.py`` with ``args`` from the folder
    ``cwd`` on one OpenMP thread; its standard output (it must succeed)."""
    env = dict(os.environ, OMP_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, os.path.join(EXAMPLES, example, program + ".py"),
                           *args], capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=timeout)
    assert proc.returncode == 0, f"{program} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def help_test(example, programs=("generate", "fit", "plot", "run")):
    """The test that each program of an example prints its usage with
    ``--directory`` (assign it to a ``test_...`` name of the test module)."""
    @pytest.mark.parametrize("program", programs)
    def test_programs_have_help(program, tmp_path):
        out = run_program(example, program, ["--help"], tmp_path)
        assert "usage:" in out and "--directory" in out

    return test_programs_have_help


def generate_and_fit(example, work, model_cache, vector_length, generate_args, fit_args):
    """Run ``generate.py`` and ``fit.py`` of an example from ``work`` into
    ``work/out`` on one thread.

    Returns
    -------
    work : pathlib.Path
    shared : list of str
        The options both programs were given (folder, model cache, vector
        length, threads), for the next program.
    truth : dict
        The generation's parameter values (``truth.json``).
    result : dict
        The fit's result (``fit_result.json``).
    out : str
        What ``fit.py`` printed.
    """
    shared = ["--directory", str(work / "out"), "--model-cache", model_cache,
              "--vector-length", str(vector_length), "--threads", "1"]
    gen = run_program(example, "generate", shared + generate_args, work)
    fit = run_program(example, "fit", shared + fit_args, work)
    print(gen, fit)
    with open(work / "out" / "truth.json") as f:
        truth = json.load(f)["values"]
    with open(work / "out" / "fit_result.json") as f:
        result = json.load(f)
    return work, shared, truth, result, fit


def printed_chi2(out):
    """``label: chi2 = X ...`` lines of a plot program's output: label -> X."""
    return {line.split(":")[0]: float(line.split("chi2 = ")[1].split()[0])
            for line in out.splitlines() if "chi2 =" in line}


def check_fit(truth, result, free):
    """The fit of ``free`` converged and recovers the truth: pulls below 4,
    and the errors are the square roots of the error matrix's diagonal."""
    assert result["valid"]
    assert result["free"] == free
    pulls = {n: (result["values"][n] - truth[n]) / result["errors"][n] for n in free}
    print("pulls: " + ", ".join(f"{n} {p:+.2f}" for n, p in pulls.items()))
    print(f"fit time {result['fit_wall_time']:.2f} s")
    assert all(abs(p) < 4 for p in pulls.values()), pulls
    cov = np.array(result["covariance"])
    assert np.allclose(np.sqrt(np.diag(cov)), [result["errors"][n] for n in free], rtol=1e-6)
