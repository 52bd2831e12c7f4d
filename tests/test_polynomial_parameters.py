"""Tests of the vecampfit-polynomial-parameters command.

The command's output is compiled outside the package, as a user's model is
(vecampfit.model_compiler.compile_model), and its values and gradients are
compared with an independent numpy evaluation of the same polynomial.
"""

import math
import os
import subprocess
import sys
import tempfile

import numpy as np
import numpy.polynomial.chebyshev as cheb
import pytest

from vecampfit.model_compiler import compile_model
from vecampfit.polynomial_parameters import exponents, number_of_terms

from numeric_checks import central_difference

COMMAND = "vecampfit-polynomial-parameters"


def run(args, cwd=None, check=True):
    """Run the command as ``python -m`` (the module form of the console script).

    The command runs outside the source tree (``python -m`` puts the working
    directory first on ``sys.path``, and the source tree's ``vecampfit`` is not
    the built package).
    """
    proc = subprocess.run([sys.executable, "-m", "vecampfit.polynomial_parameters", *args],
                          capture_output=True, text=True, cwd=cwd or tempfile.gettempdir())
    if check and proc.returncode != 0:
        raise AssertionError(f"{args}: exit {proc.returncode}\n{proc.stderr}")
    return proc


# name, arguments, dimensions, basis, ranges, variable gradient
CASES = [
    ("mono23", ["2", "3"], 3, "monomial", None, True),
    ("paper", ["2", "7", "--minimum-order=1", "--preprocessor-order"], 7, "monomial", None, False),
    ("cheb82", ["8", "2", "--basis", "chebyshev", "--ranges", "0.3:1.9,-1.5:2.5"], 2, "chebyshev",
     [(0.3, 1.9), (-1.5, 2.5)], True),
    ("cheb27", ["2", "7", "--basis=chebyshev"], 7, "chebyshev", None, False),
    ("mono31", ["3", "1", "--minimum-order=2"], 1, "monomial", None, True),
    ("const", ["0", "2"], 2, "monomial", None, False),
]

WRAPPER = """
def eval_{name}(floating[:, ::1] x, floating[::1] c, floating[::1] out, floating[:, ::1] grad,
                floating[:, ::1] vgrad, floating[::1] out2):
    cdef Py_ssize_t n = x.shape[1], b, i, d, k
    cdef floating xb[{dims} * VECTOR_LENGTH]
    cdef floating ob[VECTOR_LENGTH]
    cdef floating ob2[VECTOR_LENGTH]
    cdef floating gb[{terms} * VECTOR_LENGTH]
    cdef floating vb[{dims} * VECTOR_LENGTH]
    for b in range(0, n, VECTOR_LENGTH):
        for d in range({dims}):
            for i in range(VECTOR_LENGTH):
                xb[d * VECTOR_LENGTH + i] = x[d, b + i]
        {name}(ob, xb, &c[0])
        {name}_gradient(ob2, gb, {vgrad_arg}xb, &c[0])
        for i in range(VECTOR_LENGTH):
            out[b + i] = ob[i]
            out2[b + i] = ob2[i]
            for k in range({terms}):
                grad[k, b + i] = gb[k * VECTOR_LENGTH + i]
            for d in range({vdims}):
                vgrad[d, b + i] = vb[d * VECTOR_LENGTH + i]
"""


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    """Generate every case into a model folder of its own (outside the package)."""
    folder = tmp_path_factory.mktemp("polynomial_model")
    parts = ["from cython cimport floating", "from vecampfit.block cimport VECTOR_LENGTH"]
    for name, args, dims, _basis, _ranges, vgrad in CASES:
        extra = ["--name", name, "--prefix", name.upper(),
                 "--subroutine", f"{name}.pxd", "--gradient", f"{name}.pxd"]
        if vgrad:
            extra.append("--variable-gradient")
        run(args + extra, cwd=folder)
        terms = len(exponents(int(args[0]), dims, _minimum_order(args)))
        parts.append(f"from {name} cimport {name}, {name}_gradient")
        parts.append(WRAPPER.format(name=name, dims=dims, terms=terms,
                                    vgrad_arg="vb, " if vgrad else "", vdims=dims if vgrad else 0))
    (folder / "polynomial_model.pyx").write_text("\n".join(parts))
    return folder


def _minimum_order(args):
    for a in args:
        if a.startswith("--minimum-order="):
            return int(a.split("=")[1])
    return 0


@pytest.fixture(scope="module")
def compiled(model_dir, model_cache):
    return compile_model(model_dir / "polynomial_model.pyx", (1, 4), build_dir=model_cache)


def reference(terms, basis, ranges, x, c):
    """Independent numpy evaluation: value, dP/dc and dP/dx, x of shape (D, n)."""
    v = x.copy()
    scale = np.ones(x.shape[0])
    if ranges is not None:
        for d, (lo, hi) in enumerate(ranges):
            v[d] = (2 * x[d] - hi - lo) / (hi - lo)
            scale[d] = 2 / (hi - lo)

    def b(k, t):
        if basis == "monomial":
            return t ** k
        unit = np.zeros(k + 1)
        unit[k] = 1
        return cheb.chebval(t, unit)

    def db(k, t):
        if k == 0:
            return np.zeros_like(t)
        if basis == "monomial":
            return k * t ** (k - 1)
        unit = np.zeros(k + 1)
        unit[k] = 1
        return cheb.chebval(t, cheb.chebder(unit))

    basis_products = np.array([np.prod([b(k, v[d]) for d, k in enumerate(e)], axis=0) for e in terms])
    value = c @ basis_products
    dx = np.zeros_like(x)
    for ci, e in zip(c, terms):
        for d in range(x.shape[0]):
            factor = db(e[d], v[d])
            for dd, k in enumerate(e):
                if dd != d:
                    factor = factor * b(k, v[dd])
            dx[d] += ci * factor * scale[d]
    return value, basis_products, dx, np.abs(c) @ np.abs(basis_products)


def evaluate(module, name, x, c, dims, n_terms, vgrad):
    n = x.shape[1]
    out = np.zeros(n, x.dtype)
    out2 = np.zeros(n, x.dtype)
    grad = np.zeros((n_terms, n), x.dtype)
    vg = np.zeros((dims if vgrad else 1, n), x.dtype)
    getattr(module, f"eval_{name}")(x, c, out, grad, vg, out2)
    return out, grad, vg, out2


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_values_and_gradients_against_numpy(compiled, case):
    name, args, dims, basis, ranges, vgrad = case
    order, mino = int(args[0]), _minimum_order(args)
    terms = exponents(order, dims, mino)
    rng = np.random.default_rng(abs(hash(name)) % 2**32)
    n = 64
    if ranges is None:
        x = rng.uniform(-1, 1, size=(dims, n))
    else:
        x = np.array([rng.uniform(lo, hi, size=n) for lo, hi in ranges])
    c = rng.normal(size=len(terms))
    value, dc, dx, scale = reference(terms, basis, ranges, x, c)
    worst = 0.0
    for length, module in compiled.items():
        out, grad, vg, out2 = evaluate(module, name, x, c, dims, len(terms), vgrad)
        rel = np.max(np.abs(out - value) / scale)
        worst = max(worst, rel)
        assert rel < 1e-12, (name, length, rel)
        np.testing.assert_array_equal(out2, out)
        np.testing.assert_allclose(grad, dc, rtol=1e-13, atol=1e-13 * np.max(np.abs(dc)))
        if vgrad:
            np.testing.assert_allclose(vg, dx, rtol=1e-11, atol=1e-11 * np.max(np.abs(dx)))
        # float32 specialization: same formula in single precision.
        out32, grad32, _, _ = evaluate(module, name, x.astype(np.float32), c.astype(np.float32),
                                       dims, len(terms), vgrad)
        assert np.max(np.abs(out32 - value) / scale) < 2e-5
    # Finite differences: the value is linear in the coefficients, and smooth in x.
    module = compiled[4]
    _, grad, vg, _ = evaluate(module, name, x, c, dims, len(terms), vgrad)
    h = 1e-6
    for k in range(len(terms)):
        fd = central_difference(lambda cc: evaluate(module, name, x, cc, dims, len(terms), vgrad)[0],
                                c, k, h)
        np.testing.assert_allclose(fd, grad[k], rtol=1e-7, atol=1e-7 * (1 + np.max(np.abs(grad[k]))))
    if vgrad:
        for d in range(dims):
            fd = central_difference(lambda xx: evaluate(module, name, xx, c, dims, len(terms), vgrad)[0],
                                    x, d, h)
            np.testing.assert_allclose(fd, vg[d], rtol=1e-6, atol=1e-6 * (1 + np.max(np.abs(vg[d]))))
    print(f"{name}: {len(terms)} terms, largest value error {worst:.2e} (relative to sum |c_e b_e|)")


def test_paper_call_with_compile_time_order(model_dir, model_cache, capfd):
    """The paper's call: orders 1 and 2 generated, order 1 active when compiled with -DPOLYNOMIAL_ORDER=1."""
    proc = run(["2", "7", "--minimum-order=1", "--preprocessor-order", "--subroutine"])
    assert "cdef inline void polynomial(" in proc.stdout
    assert "#define POLYNOMIAL_ORDER 2" in proc.stdout
    capfd.readouterr()
    mods = compile_model(model_dir / "polynomial_model.pyx", (4,), name="polynomial_order1",
                         build_dir=model_cache, extra_compile_args=["-DPOLYNOMIAL_ORDER=1"], force=True)
    err = capfd.readouterr().err
    # The generated code compiles without warnings (Cython's and the C compiler's).
    assert "warning" not in err.lower(), err
    terms = exponents(2, 7, 1)
    rng = np.random.default_rng(7)
    x = rng.uniform(-1, 1, size=(7, 16))
    c = rng.normal(size=len(terms))
    out, grad, _, _ = evaluate(mods[4], "paper", x, c, 7, len(terms), False)
    first = [i for i, e in enumerate(terms) if sum(e) == 1]
    second = [i for i, e in enumerate(terms) if sum(e) == 2]
    assert len(first) == 7 and len(second) == 28
    expected = c[first] @ x  # first order: sum_d c_d x_d
    np.testing.assert_allclose(out, expected, rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(grad[first], x, rtol=0, atol=0)
    assert np.all(grad[second] == 0)


@pytest.mark.parametrize("order,dims,mino", [(0, 1, 0), (2, 7, 0), (2, 7, 1), (2, 7, 2), (8, 2, 0),
                                             (8, 2, 3), (3, 4, 1), (5, 3, 5)])
def test_number_of_terms(order, dims, mino):
    terms = exponents(order, dims, mino)
    expected = math.comb(order + dims, dims) - (math.comb(mino - 1 + dims, dims) if mino else 0)
    assert len(terms) == expected == number_of_terms(order, dims, mino)
    assert len(set(terms)) == len(terms)
    assert all(mino <= sum(e) <= order and len(e) == dims for e in terms)
    proc = run([str(order), str(dims), f"--minimum-order={mino}", "--python-definitions"])
    ns = {}
    exec(proc.stdout, ns)
    assert len(ns["NAMES"]) == expected
    assert ns["NAMES"][0] == "P_" + "_".join(str(k) for k in terms[0])


def test_definitions_parameter_file_and_release_code(tmp_path):
    run(["2", "3", "--minimum-order=0", "--parameter-file", "p.dat", "--release-code", "rel.py",
         "--python-definitions", "defs.py", "--definitions", "defs.pxd", "--step=0.01",
         "--random-change=0.5"], cwd=tmp_path)
    lines = (tmp_path / "p.dat").read_text().splitlines()
    assert len(lines) == 10
    rows = [line.split() for line in lines]
    assert rows[0][0] == "P_0_0_0" and float(rows[0][1]) == 1.0
    assert all(len(r) == 6 for r in rows)
    assert all(float(r[1]) == 0.0 for r in rows[1:])
    assert all(float(r[2]) == 0.01 and float(r[5]) == 0.5 for r in rows)
    assert "P_1_0_1 = 6" in (tmp_path / "defs.pxd").read_text()
    ns = {}
    exec((tmp_path / "defs.py").read_text(), ns)
    assert ns["P_1_0_1"] == ns["INDEX"]["P_1_0_1"] == 6
    assert ns["EXPONENTS"][6] == (1, 0, 1) and ns["ORDERS"][6] == 2

    class Fit:
        def __init__(self):
            self.released = []

        def release(self, name):
            self.released.append(name)

    ns = {}
    exec((tmp_path / "rel.py").read_text(), ns)
    fit = Fit()
    assert ns["release_polynomial_parameters"](fit, 1, 1) == ["P_1_0_0", "P_0_1_0", "P_0_0_1"]
    assert fit.released == ["P_1_0_0", "P_0_1_0", "P_0_0_1"]

    # An iminuit.Minuit: released through its `fixed` view.
    from iminuit import Minuit

    names = ns["NAMES"]
    m = Minuit(lambda p: float(np.sum(np.asarray(p) ** 2)), np.zeros(len(names)), name=names)
    m.fixed = True
    ns["release_polynomial_parameters"](m, 2, 2)
    assert [m.fixed[n] for n in names] == [sum(e) != 2 for e in exponents(2, 3)]


def test_console_script_and_help():
    script = os.path.join(os.path.dirname(sys.executable), COMMAND)
    assert os.path.exists(script), f"{COMMAND} is not installed next to {sys.executable}"
    proc = subprocess.run([script, "1", "2", "--subroutine"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "cdef inline void polynomial(" in proc.stdout
    help_text = run(["--help"]).stdout
    for option in ("--minimum-order", "--preprocessor-order", "--basis", "--ranges", "--subroutine",
                   "--gradient", "--variable-gradient", "--definitions", "--python-definitions",
                   "--parameter-file", "--release-code", "--step", "--random-change"):
        assert option in help_text


@pytest.mark.parametrize("args,message", [
    (["-1", "2"], "ORDER must be >= 0"),
    (["2", "0"], "DIMENSIONS must be >= 1"),
    (["2", "3", "--basis", "legendre"], "invalid choice"),
    (["two", "3"], "invalid int value"),
    (["2", "3", "--minimum-order=3"], "--minimum-order"),
    (["2", "2", "--ranges", "0:1"], "1 ranges given for 2 dimensions"),
    (["2", "1", "--ranges", "1:0"], "MIN < MAX"),
    (["2", "1", "--active-order", "1"], "needs --preprocessor-order"),
    (["2", "1", "--variable-gradient"], "needs --gradient"),
    (["2", "1", "--name", "not-valid"], "not an identifier"),
    (["2", "1", "--subroutine", "--parameter-file"], "cannot share"),
    # Values the fitter's parameter-file reader refuses are refused here.
    (["2", "1", "--parameter-file", "--step", "nan"], "--step must be finite and >= 0"),
    (["2", "1", "--parameter-file", "--step=-1e-3"], "--step must be finite and >= 0"),
    (["2", "1", "--parameter-file", "--random-change", "inf"], "--random-change must be finite"),
    (["2", "1", "--parameter-file", "--constant-initial", "nan"],
     "--constant-initial must be a finite number"),
    (["2", "1", "--max-terms", "0"], "--max-terms must be >= 1"),
    (["3", "3", "--max-terms", "19"], "has 20 terms"),
])
def test_invalid_arguments_exit_with_usage(args, message):
    proc = run(args, check=False)
    assert proc.returncode == 2
    assert "usage:" in proc.stderr
    assert message in proc.stderr


def test_a_huge_polynomial_is_refused_with_its_number_of_terms():
    """Order 40 in 40 variables has C(80, 40) terms: refused at once, saying
    how many, instead of running without bound."""
    proc = subprocess.run([sys.executable, "-m", "vecampfit.polynomial_parameters", "40", "40"],
                          capture_output=True, text=True, cwd=tempfile.gettempdir(), timeout=60)
    assert proc.returncode == 2
    assert f"has {math.comb(80, 40):,} terms" in proc.stderr
    assert "above the limit of 10,000" in proc.stderr and "--max-terms" in proc.stderr
    from vecampfit.polynomial_parameters import PolynomialSpec
    with pytest.raises(ValueError, match=r"has 1,820 terms, above the limit of 1,000"):
        PolynomialSpec(12, 4, max_terms=1000)
    assert len(PolynomialSpec(12, 4, max_terms=1820).terms) == 1820


def test_output_into_a_missing_folder_names_the_path_and_writes_nothing(tmp_path):
    good = tmp_path / "a.pxi"
    missing = tmp_path / "no such folder" / "b.dat"
    proc = run(["2", "2", "--subroutine", str(good), "--parameter-file", str(missing)],
               check=False)
    assert proc.returncode == 2
    assert f"--parameter-file {missing}: the folder {missing.parent} does not exist" in proc.stderr
    assert "Traceback" not in proc.stderr and ".tmp" not in proc.stderr
    assert list(tmp_path.iterdir()) == []        # the good output is not written either
    proc = run(["2", "2", "--subroutine", str(tmp_path)], check=False)
    assert proc.returncode == 2 and f"--subroutine {tmp_path}: is a folder" in proc.stderr


def test_generated_code_writes_the_tools_output_for_a_model(tmp_path, capsys):
    """generated_code: a file from the tool's standard output equals the command's output,
    a file from an option's FILE ({} in the arguments) is written there, and arguments the
    tool refuses raise naming the file."""
    from vecampfit.polynomial_parameters import generated_code, main
    arguments = "2 2 --subroutine --gradient --basis chebyshev --ranges 0.39:2.99,0.39:2.99"
    folder = generated_code({"a.pxi": arguments, "b.pxd": "2 3 --subroutine {}"},
                            tmp_path / "code")
    assert main(arguments.split()) == 0
    assert (tmp_path / "code" / "a.pxi").read_text() == capsys.readouterr().out
    assert "cdef inline void" in (tmp_path / "code" / "b.pxd").read_text()
    assert folder == str(tmp_path / "code")
    with pytest.raises(RuntimeError, match=r"\(for c\.pxi\)"):
        generated_code({"c.pxi": "2 3 --basis nonsense"}, tmp_path / "code")
