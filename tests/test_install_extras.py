"""The README's first command installs what the examples import: every
third-party module that a program in examples/ imports comes from a core
dependency or from the extras that command installs, and the ``test`` extra
(the tests run the examples) has everything of the ``examples`` extra."""

import ast
import os
import re
import sys
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

if not (ROOT / "pyproject.toml").is_file() or not EXAMPLES.is_dir():
    pytest.skip("needs the source tree (pyproject.toml, examples/)", allow_module_level=True)


def load_pyproject():
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        tomllib = pytest.importorskip("tomli")
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)


def normalized(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_names(requirements):
    return {normalized(re.match(r"[A-Za-z0-9._-]+", r).group(0)) for r in requirements}


def third_party_imports():
    """{top-level module: [example file, ...]} for modules that are neither the
    standard library, vecampfit, nor a module of the examples themselves (an
    example may put another example's folder on ``sys.path``)."""
    found = {}
    # modules and folders of the examples (a program imports its siblings, and
    # examples/demo.py the folder of an example beside it)
    local = {p.name.split(".")[0] for p in EXAMPLES.rglob("*")}
    for path in sorted(EXAMPLES.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top in sys.stdlib_module_names or top in local or top == "vecampfit":
                    continue
                found.setdefault(top, []).append(os.path.relpath(path, ROOT))
    return found


def readme_install_extras():
    """The extras of the first ``pip install`` in the README (set of str)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    command = re.search(r"pip install ('?)\.(\[([^\]]*)\])?\1(\s|$)", text)
    assert command, "the README has no `pip install .` command"
    extras = command.group(3) or ""
    return {normalized(e) for e in extras.split(",") if e.strip()}


def test_readme_first_command_installs_what_the_examples_import():
    project = load_pyproject()["project"]
    extras = project.get("optional-dependencies", {})
    chosen = readme_install_extras()
    installed = requirement_names(project["dependencies"])
    for extra in chosen:
        assert extra in extras, f"README installs the extra {extra!r}, pyproject.toml has none"
        installed |= requirement_names(extras[extra])
    distributions = packages_distributions()
    missing = {}
    for module, files in third_party_imports().items():
        provided_by = {normalized(d) for d in distributions.get(module, [module])}
        if not provided_by & installed:
            missing[module] = files
    print(f"README extras: {sorted(chosen)}; third-party imports: {sorted(third_party_imports())}")
    assert not missing, (f"imported by the examples but not installed by the README's first "
                         f"command: {missing}")


def test_test_extra_has_what_the_examples_need():
    extras = load_pyproject()["project"]["optional-dependencies"]
    assert "examples" in extras
    assert requirement_names(extras["examples"]) <= requirement_names(extras["test"])
