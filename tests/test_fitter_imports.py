"""The modules of vecampfit.fitter import each other one way: every import of
a vecampfit module stands at the top of its module (none inside a function
or class), the graph of those imports has no cycle, and no module takes a
name from the package root (``from .. import x``; ``from ..root_io import
y`` names the module it needs).  The files are read with ``ast``, so a
violation is found without importing anything."""

import ast
import pathlib

import pytest

import vecampfit.fitter

FITTER = pathlib.Path(vecampfit.fitter.__file__).parent

#: Imports that may stand inside a function: optional dependencies only.
OPTIONAL = {"mpi4py"}


def _sources():
    return {p.stem: p.read_text() for p in sorted(FITTER.glob("*.py"))}


def _imports(tree):
    """(node, inside a function or class) for every import statement."""
    out = []

    def visit(node, inside):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                out.append((child, inside))
            visit(child, inside or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                      ast.ClassDef, ast.Lambda)))

    visit(tree, False)
    return out


def _targets(node):
    """Modules of vecampfit an import statement names ("fitter.x" for the
    fitter's own modules, "vecampfit.y" for others, "vecampfit" for the root)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.split(".")[0] == "vecampfit"]
    if node.level == 0:
        return [node.module] if node.module and node.module.split(".")[0] == "vecampfit" else []
    if node.level == 1:
        if node.module:
            return ["fitter." + node.module.split(".")[0]]
        return ["fitter." + a.name for a in node.names]
    return ["vecampfit." + node.module if node.module else "vecampfit"]


def import_graph(sources):
    """{module: set of fitter modules it imports at its top} and the list of
    (module, line, statement) of imports that break the rules."""
    graph, bad = {}, []
    for name, text in sources.items():
        graph[name] = set()
        for node, inside in _imports(ast.parse(text)):
            targets = _targets(node)
            where = (name, node.lineno, ast.unparse(node))
            if inside:
                top = (node.names[0].name if isinstance(node, ast.Import) else node.module or "")
                if targets or top.split(".")[0] not in OPTIONAL:
                    bad.append(where + ("inside a function or class",))
                continue
            for t in targets:
                if t == "vecampfit":
                    bad.append(where + ("a name from the package root",))
                elif t.startswith("fitter."):
                    graph[name].add(t[len("fitter."):])
    return graph, bad


def find_cycle(graph):
    """One cycle of the graph as a list of modules (first == last), or None."""
    state = {}

    def visit(node, path):
        state[node] = "open"
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                return path[path.index(nxt):] + [nxt] if nxt in path else [node, nxt]
            if nxt not in state:
                found = visit(nxt, path + [nxt])
                if found:
                    return found
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node, [node])
            if found:
                return found
    return None


def test_every_fitter_import_is_at_the_top_and_names_a_module():
    graph, bad = import_graph(_sources())
    assert not bad, "\n".join(f"{m}.py:{line}: {stmt} ({why})" for m, line, stmt, why in bad)


def test_the_fitter_import_graph_has_no_cycle():
    graph, _ = import_graph(_sources())
    print("\n".join(f"{m} -> {', '.join(sorted(t)) or '-'}" for m, t in sorted(graph.items())))
    cycle = find_cycle(graph)
    assert cycle is None, f"import cycle: {' -> '.join(cycle)}"
    # The layers: the exceptions and the reduction import nothing of the
    # fitter; the kernels' dispatch nothing but the compiled kernels.
    assert graph["errors"] == set() and graph["_reduction"] == set()
    assert graph["_dispatch"] <= {"_kernels"}


@pytest.mark.parametrize("source, message", [
    ("def f():\n    from .events import EventBuffer\n", "inside a function"),
    ("class C:\n    from . import likelihood\n", "inside a function or class"),
    ("def f():\n    import vecampfit.root_io\n", "inside a function"),
    ("from .. import _build_config\n", "package root"),
])
def test_the_checks_find_what_they_forbid(source, message):
    _, bad = import_graph({"x": source})
    assert bad and message in bad[0][3]
    # Optional dependencies may be imported where they are needed.
    assert import_graph({"x": "def f():\n    from mpi4py import MPI\n"})[1] == []


def test_a_cycle_is_found():
    graph, _ = import_graph({"a": "from .b import x\n", "b": "from .c import y\n",
                             "c": "from . import a\n"})
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    graph, _ = import_graph({"a": "from .b import x\n", "b": "import numpy\n"})
    assert find_cycle(graph) is None
