"""The examples' folders as the tests and users import and run them: one
module per name across the folders the tests import (conftest puts them on
the path), and every program of those folders runs as a script from any
folder, its siblings found without changes to the path."""

import os
import subprocess
import sys
from collections import defaultdict

import pytest

from conftest import EXAMPLE_FOLDERS, EXAMPLES


def _modules(folder):
    return sorted(f[:-3] for f in os.listdir(folder) if f.endswith(".py"))


def _programs():
    out = []
    for folder in EXAMPLE_FOLDERS:
        for name in _modules(folder):
            with open(os.path.join(folder, name + ".py")) as f:
                if 'if __name__ == "__main__":' in f.read():
                    out.append(os.path.relpath(os.path.join(folder, name + ".py"), EXAMPLES))
    return out


def test_no_two_example_folders_hold_a_module_of_the_same_name():
    where = defaultdict(list)
    for folder in EXAMPLE_FOLDERS:
        for name in _modules(folder):
            where[name].append(os.path.basename(folder))
    shared = {name: folders for name, folders in where.items() if len(folders) > 1}
    assert not shared, f"module names in several example folders: {shared}"
    assert {"common", "fit_signal", "common_kkpipi", "genfit3k"} <= set(where)


PROGRAMS = _programs()


def test_the_programs_are_found():
    for program in ("dz_kmpippiz/fit_signal.py", "epem_kkpipi/fit_signal_kkpipi.py",
                    "laura_genfit3k/fit3k.py", "tutorial/fit_peak.py"):
        assert program in PROGRAMS


@pytest.mark.parametrize("program", [p for p in PROGRAMS if p != "protocol/fit_lifetime.py"])
def test_program_runs_as_a_script_from_another_folder(program, tmp_path):
    """``python examples/<folder>/<program>.py --help`` from an unrelated
    folder, with nothing of the examples on PYTHONPATH."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([sys.executable, os.path.join(EXAMPLES, program), "--help"],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "usage:" in proc.stdout
