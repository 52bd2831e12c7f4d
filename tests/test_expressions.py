"""vecampfit.expressions: canonical forms, derivatives against sympy and finite
differences, the amplitude pieces against mpmath, scipy and closed forms,
the K-matrix at its poles, formula strings, and the printers."""

import math

import mpmath
import numpy as np
import pytest
import sympy

from vecampfit import expressions as ex
from vecampfit import high_energy_physics as hep

from numeric_checks import central_difference

RNG = np.random.default_rng(20261127)


# ---------------------------------------------------------------------------
# Canonical form
# ---------------------------------------------------------------------------

def test_canonical_form_merges_equal_terms_and_factors():
    x, y = ex.parameter("x"), ex.event("y")
    assert x + x == 2 * x
    assert x * y == y * x
    assert x * x * x == ex.power(x, 3)
    assert x * ex.power(x, -1) == ex.num(1)
    assert (x + y) - (y + x) == ex.num(0)
    assert ex.power(ex.sqrt(x), 2) == x
    assert ex.power(x * y, 2) == ex.power(x, 2) * ex.power(y, 2)
    # A non-integer power of a product does not distribute (sign rules).
    assert ex.sqrt(x * y).op == "pow"
    assert ex.sqrt(x * y) != ex.sqrt(x) * ex.sqrt(y)
    assert hash(x + y) == hash(y + x)


def test_dependency_classes():
    p, c, e = ex.parameter("p"), ex.constant("c"), ex.event("e")
    assert ex.num(2).dependency == "number"
    assert (p * c + 1).dependency == "parameter"
    assert (e * c).dependency == "event"
    assert (e * p).dependency == "mixed"
    assert (e * p).parameters == frozenset({"p"})


def test_node_identity_does_not_depend_on_the_process():
    """Digests (and so the order of arguments and the generated source) are
    content hashes, not Python's randomized string hashes."""
    x = ex.parameter("x") + ex.event("y")
    assert x.digest.hex() == (ex.event("y") + ex.parameter("x")).digest.hex()
    assert len(x.digest) == 16


# ---------------------------------------------------------------------------
# Derivatives against sympy
# ---------------------------------------------------------------------------

FORMULAS = [
    "exp(-a*x) * sin(b*x) + log(a + x^2)",
    "(a*x + b)^3 / (1 + a^2*x^2)",
    "sqrt(a^2 + x^2) * cos(b) - x^(-2) * a",
    "(a + x)^2.5 * exp(b)",
]


@pytest.mark.parametrize("formula", FORMULAS)
def test_derivative_equals_sympy(formula):
    sym = {n: sympy.Symbol(n, real=True) for n in ("a", "b", "x")}
    ref = sympy.sympify(formula.replace("^", "**"), locals=sym)
    e = ex.parse(formula, symbols={"x": ex.event("x")})
    points = {"a": 0.7, "b": -1.3, "x": np.linspace(0.2, 2.5, 11)}
    worst = 0.0
    for name in ("a", "b"):
        d = ex.derivative(e, name)
        fn = sympy.lambdify([sym["a"], sym["b"], sym["x"]], sympy.diff(ref, sym[name]), "numpy")
        want = fn(points["a"], points["b"], points["x"])
        got = ex.evaluate(d, points)
        assert np.all(np.abs(got.imag) == 0)
        err = np.max(np.abs(got.real - want) / np.maximum(1, np.abs(want)))
        worst = max(worst, err)
    print(f"{formula}: largest relative difference to sympy {worst:.1e}")
    assert worst < 1e-13


def test_derivative_of_a_lineshape_against_central_differences():
    """The Flatte lineshape and the K-matrix, differentiated by every
    parameter, against central differences at random points, some below the
    second channel's threshold."""
    s = ex.event("s")
    p = {n: ex.parameter(n) for n in ("m0", "g1", "g2", "b", "beta")}
    flatte = ex.flatte(s, p["m0"], p["g1"], p["g2"], (0.1396, 0.1396), (0.4937, 0.4937))
    kmat = ex.k_matrix(s, [p["m0"]], [[p["g1"]]], [ex.ComplexExpr(p["beta"], 0.3)], [[p["b"]]],
                       [ex.phase_space_factor(s, 0.1396, 0.1396)])
    values = {"m0": 0.98, "g1": 0.33, "g2": 0.9, "b": 0.4, "beta": 1.1,
              "s": RNG.uniform(0.3, 1.6, 200)}
    for expr in (flatte, kmat):
        for name in sorted(expr.re.parameters | expr.im.parameters):
            got = ex.evaluate(ex.derivative(expr, name), values)
            fd = central_difference(lambda v: ex.evaluate(expr, v), values, name, 1e-6)
            err = np.max(np.abs(got - fd)) / np.max(np.abs(fd))
            assert err < 1e-7, (name, err)


# ---------------------------------------------------------------------------
# Amplitude pieces against independent references
# ---------------------------------------------------------------------------

def test_blatt_weisskopf_polynomials_are_spherical_hankel_functions():
    """P_l(z^2) = z^(2l+2) |h_l(z)|^2 (spherical Hankel function, mpmath at
    50 digits), for l = 0..9, and the library's block routine for l <= 5."""
    mpmath.mp.dps = 50
    worst = 0.0
    for l in range(10):
        for z in (0.3, 1.0, 2.7, 6.1):
            h2 = mpmath.pi / (2 * z) * (mpmath.besselj(l + 0.5, z) ** 2
                                        + mpmath.bessely(l + 0.5, z) ** 2)
            want = float(mpmath.mpf(z) ** (2 * l + 2) * h2)
            got = float(ex.evaluate(ex.blatt_weisskopf_polynomial(ex.num(z * z), l), {}))
            worst = max(worst, abs(got / want - 1))
    print(f"Blatt-Weisskopf polynomials against mpmath: {worst:.1e}")
    assert worst < 1e-14
    q = np.linspace(0.01, 2.0, 50)
    for l in range(6):
        got = ex.evaluate(ex.blatt_weisskopf(ex.event("q2"), 1.7, l), {"q2": q * q})
        np.testing.assert_allclose(got, hep.blatt_weisskopf(q, 1.7, l), rtol=1e-14)


def test_square_roots_on_the_physical_sheet_and_the_principal_branch():
    x = np.array([-4.0, -0.25, 0.0, 0.25, 9.0])
    got = ex.evaluate(ex.sqrt_physical(ex.event("x")), {"x": x})
    np.testing.assert_array_equal(got, np.sqrt(x + 0j))
    z = RNG.normal(size=(2, 100)) * 3
    z[1, :10] = 0.0          # on the cut: sqrt(-|x| + 0i) = +i sqrt|x|
    w = ex.complex_sqrt(ex.ComplexExpr(ex.event("re"), ex.event("im")))
    got = ex.evaluate(w, {"re": z[0], "im": z[1]})
    np.testing.assert_allclose(got, np.sqrt(z[0] + 1j * z[1]), rtol=1e-15, atol=1e-15)


def test_bachelor_momentum_is_the_breakup_momentum_of_the_parent():
    """p^2 of c in the parent frame, the polynomial in s, against the
    breakup momentum of sqrt(S) -> sqrt(s) m_c in mpmath (50 digits) over a
    D0 -> (K- pi+) pi0 Dalitz plot up to its edges: relative 1e-14 away
    from the edge, absolute 5e-16 GeV^2 (the rounding of the constants
    (M -+ m_c)^2) everywhere."""
    mpmath.mp.dps = 50
    big, mc = mpmath.mpf(1.86484) ** 2, 0.1349768
    lo, hi = (0.493677 + 0.13957039) ** 2, (1.86484 - mc) ** 2
    s = np.concatenate([np.linspace(lo, hi, 2001), [hi, hi * (1 - 1e-15)]])
    got = ex.evaluate(ex.bachelor_momentum_squared(ex.constant("M"), ex.event("s"),
                                                   ex.constant("mc")),
                      {"M": 1.86484, "s": s, "mc": mc})
    want = np.array([float(((big - (mpmath.sqrt(mpmath.mpf(v)) + mc) ** 2)
                            * (big - (mpmath.sqrt(mpmath.mpf(v)) - mc) ** 2))
                           / (4 * big)) for v in s])
    err = np.abs(got - want)
    print(f"largest relative error {np.max(err[want > 1e-3] / want[want > 1e-3]):.2e}, "
          f"largest absolute error {err.max():.2e} GeV^2")
    assert np.all(err[want > 1e-3] <= 1e-14 * want[want > 1e-3])
    assert err.max() <= 5e-16
    assert abs(got[-2]) <= 5e-16        # p = 0 at the edge


def test_breit_wigner_equals_the_library_routines():
    ma, mb, m0, g0, r = 0.4937, 0.1396, 0.8955, 0.0473, 1.5
    m = np.linspace(ma + mb + 1e-3, 1.8, 200)
    q = np.sqrt((m * m - (ma + mb) ** 2) * (m * m - (ma - mb) ** 2)) / (2 * m)
    q0 = math.sqrt((m0 ** 2 - (ma + mb) ** 2) * (m0 ** 2 - (ma - mb) ** 2)) / (2 * m0)
    for l in range(4):
        for ps, fn in ((False, hep.breit_wigner_q_f_nophsp), (True, hep.breit_wigner_q_f)):
            e = ex.breit_wigner(ex.event("s"), m0, g0, ma, mb, l, r, phase_space=ps)
            got = ex.evaluate(e, {"s": m * m})
            np.testing.assert_allclose(got, fn(m, q, q0, m0, g0, r, l), rtol=1e-13)


def _k_matrix_mp(s, masses, g, beta, b, rho):
    """(I - i K rho)^-1 P in mpmath, written from the definition (every input
    converted first: a product of float couplings rounded in float64 would
    spoil the cancellation of the double pole)."""
    mp = mpmath.mpf
    masses = [mp(m) for m in masses]
    g = [[mp(x) for x in row] for row in g]
    beta = [mpmath.mpc(x) for x in beta]
    b = [[mp(x) for x in row] for row in b]
    n = len(rho)
    K = mpmath.matrix(n, n)
    P = mpmath.matrix(n, 1)
    for i in range(n):
        for j in range(n):
            K[i, j] = b[i][j] + sum(gr[i] * gr[j] / (m * m - s) for m, gr in zip(masses, g))
        P[i] = sum(bt * gr[i] / (m * m - s) for m, gr, bt in zip(masses, g, beta))
    D = mpmath.eye(n) - 1j * K * mpmath.diag(rho)
    return (mpmath.inverse(D) * P)[0]


@pytest.mark.parametrize("channels", [1, 2])
def test_k_matrix_equals_the_definition_and_is_finite_at_its_poles(channels):
    mpmath.mp.dps = 40
    mpi, mk = 0.13957, 0.493677
    masses, g = [0.98, 1.45, 1.7], [[0.4, 0.6], [0.7, -0.2], [0.3, 0.5]]
    beta = [complex(1.0, 0.2), complex(-0.4, 0.7), complex(0.2, -0.3)]
    b = [[0.3, 0.1], [0.1, -0.2]]
    s_ev = ex.event("s")
    rho = [ex.phase_space_factor(s_ev, mpi, mpi), ex.phase_space_factor(s_ev, mk, mk)][:channels]
    e = ex.k_matrix(s_ev, masses, [row[:channels] for row in g], beta,
                    [row[:channels] for row in b[:channels]], rho)

    def rho_mp(s, m):
        return mpmath.sqrt((1 - 4 * mpmath.mpf(m) ** 2 / s) + 0j)
    s = np.array([0.5, 0.9, 1.2, 2.0, 2.6])
    got = ex.evaluate(e, {"s": s})
    for k, sv in enumerate(s):
        rr = [rho_mp(mpmath.mpf(sv), m) for m in (mpi, mk)][:channels]
        want = complex(_k_matrix_mp(mpmath.mpf(sv), masses, [r[:channels] for r in g], beta,
                                    [row[:channels] for row in b[:channels]], rr))
        assert abs(got[k] - want) <= 1e-13 * abs(want), (sv, got[k], want)
    # Exactly at each pole: finite, and the limit of the definition (taken 1e-30
    # GeV^2 away, at 100 digits: det K cancels 60 of them there).
    mpmath.mp.dps = 100
    for m in masses:
        at = ex.evaluate(e, {"s": np.array([m * m])})[0]
        assert np.isfinite(at)
        sv = mpmath.mpf(m) ** 2 + mpmath.mpf("1e-30")
        rr = [rho_mp(sv, mm) for mm in (mpi, mk)][:channels]
        want = complex(_k_matrix_mp(sv, masses, [r[:channels] for r in g], beta,
                                    [row[:channels] for row in b[:channels]], rr))
        assert abs(at - want) <= 1e-12 * abs(want), (m, at, want)


# ---------------------------------------------------------------------------
# Formula strings
# ---------------------------------------------------------------------------

def test_formula_equals_the_built_in_flatte():
    mpi, mk = 0.13957, 0.493677
    s = ex.event("s")
    f = ex.parse("1/(m0^2 - s - i*m0*(g1^2*rho(s, mpi, mpi) + g2^2*rho(s, mK, mK)))",
                 symbols={"s": s, "mpi": mpi, "mK": mk})
    b = ex.flatte(s, ex.parameter("m0"), ex.parameter("g1") ** 2, ex.parameter("g2") ** 2,
                  (mpi, mpi), (mk, mk))
    v = {"m0": 0.98, "g1": 0.6, "g2": 0.9, "s": np.linspace(0.1, 2.0, 100)}
    np.testing.assert_allclose(ex.evaluate(f, v), ex.evaluate(b, v), rtol=1e-15)
    for name in ("m0", "g1", "g2"):
        np.testing.assert_allclose(ex.evaluate(ex.derivative(f, name), v),
                                   ex.evaluate(ex.derivative(b, name), v), rtol=1e-14)


def test_formula_errors_name_the_formula_and_place():
    with pytest.raises(ex.FormulaError, match=r"'1/\(m0\^2 - s'.*syntax error"):
        ex.parse("1/(m0^2 - s")
    with pytest.raises(ex.FormulaError, match=r"column 5: unknown function 'sqr'"):
        ex.parse("1 + sqr(s)")
    with pytest.raises(ex.FormulaError, match=r"rho takes 3 argument\(s\), got 2"):
        ex.parse("rho(s, 0.1)")
    with pytest.raises(ex.FormulaError, match=r"BitXor|BitOr|not supported"):
        ex.parse("a | b")
    with pytest.raises(ex.FormulaError, match="complex base takes integer exponents"):
        ex.parse("(a + i*b)^0.5")
    with pytest.raises(ex.FormulaError, match="orbital angular momentum must be an integer"):
        ex.parse("blatt_weisskopf(q2, r, 1.5)")


def test_unknown_names_become_parameters_in_order():
    seen = []
    ex.parse("g1*x + g2*exp(g1)", unknown=lambda n: seen.append(n) or ex.parameter(n))
    assert seen == ["g1", "x", "g2", "g1"]


# ---------------------------------------------------------------------------
# The printer
# ---------------------------------------------------------------------------

def _print(expr, leaf=None):
    lines, names = [], iter(range(1000))
    printer = ex.CythonPrinter(leaf or (lambda n: n.data if n.op in ("par", "event") else None),
                               lambda hint: f"{hint}{next(names)}", lines.append)
    return printer.code(expr), lines


def test_printer_computes_each_node_once_and_one_reciprocal_per_base():
    x, y = ex.parameter("x"), ex.event("y")
    d = x * x + y
    expr = ex.add(ex.power(d, -1), ex.power(d, -2), ex.power(d, -3) * x)
    out, lines = _print(expr)
    text = "\n".join(lines)
    assert text.count("1 /") == 1, text            # one division for d^-1, d^-2, d^-3
    assert sum(line.split(" = ")[1] == "x * x" for line in lines) == 1
    # The printed statements evaluate to the expression.
    env = {"x": 0.7, "y": 1.9}
    for line in lines:
        name, rhs = line.split(" = ", 1)
        env[name] = eval(rhs.replace("<floating> ", "float"), {}, env)
    assert abs(eval(out, {}, env) - ex.evaluate(expr, env)) < 1e-14


def test_breit_wigner_and_flatte_derivatives_equal_sympy():
    """The derived gradient of the Breit-Wigner (with and without phase-space
    factor, L = 0..3, with the radius free) and of the Flatte lineshape
    against sympy's derivative of the same formulas written here, at random
    points including the neighbourhood of the second channel's threshold."""
    sm = {n: sympy.Symbol(n, positive=True) for n in ("m0", "g0", "r", "s")}
    ma, mb = 0.493677, 0.13957
    s_vals = np.concatenate([RNG.uniform((ma + mb) ** 2 + 1e-3, 3.0, 40),
                             [(ma + mb) ** 2 + 1e-9]])
    point = {"m0": 0.8955, "g0": 0.0473, "r": 1.7}

    def q2(s):
        return (s - (ma + mb) ** 2) * (s - (ma - mb) ** 2) / (4 * s)

    def poly(x, l):
        return [1, 1 + x, 9 + 3 * x + x ** 2, 225 + 45 * x + 6 * x ** 2 + x ** 3][l]
    worst = 0.0
    for l in range(4):
        for ps in (False, True):
            s, m0, g0, r = sm["s"], sm["m0"], sm["g0"], sm["r"]
            f = 1 / sympy.sqrt(poly(q2(s) * r ** 2, l))
            f0 = 1 / sympy.sqrt(poly(q2(m0 ** 2) * r ** 2, l))
            width = g0 * (q2(s) / q2(m0 ** 2)) ** sympy.Rational(2 * l + 1, 2) * m0 \
                / sympy.sqrt(s) * f ** 2 / f0 ** 2
            ref = (f / f0) / (m0 ** 2 - s - sympy.I * m0 * width)
            if ps:
                ref = ref * (q2(s) / q2(m0 ** 2)) ** sympy.Rational(l, 2)
            e = ex.breit_wigner(ex.event("s"), ex.parameter("m0"), ex.parameter("g0"), ma, mb,
                                l, ex.parameter("r"), phase_space=ps)
            for name in ("m0", "g0", "r"):
                fn = sympy.lambdify([sm["m0"], sm["g0"], sm["r"], sm["s"]],
                                    sympy.diff(ref, sm[name]), "numpy")
                want = fn(point["m0"], point["g0"], point["r"], s_vals)
                got = ex.evaluate(ex.derivative(e, name), dict(point, s=s_vals))
                err = np.max(np.abs(got - want) / np.maximum(np.abs(want), 1e-300))
                worst = max(worst, err)
    print(f"Breit-Wigner derivatives against sympy: {worst:.1e}")
    assert worst < 1e-11
    # Flatte across the K K-bar threshold.
    mpi, mk = 0.13957, 0.493677
    s = sympy.Symbol("s", positive=True)
    g1, g2, m0 = (sympy.Symbol(n, positive=True) for n in ("g1", "g2", "m0"))

    def rho(m):
        return sympy.sqrt(1 - 4 * m ** 2 / s)
    ref = 1 / (m0 ** 2 - s - sympy.I * m0 * (g1 * rho(mpi) + g2 * rho(mk)))
    e = ex.flatte(ex.event("s"), ex.parameter("m0"), ex.parameter("g1"), ex.parameter("g2"),
                  (mpi, mpi), (mk, mk))
    # 1 - 4 mK^2/s cancels near the threshold (in the reference too): 1e-4 GeV^2 away.
    s_vals = np.concatenate([np.linspace(0.2, 1.5, 50), 4 * mk ** 2 + np.array([-1e-4, 1e-4])])
    point = {"m0": 0.98, "g1": 0.165, "g2": 0.695}
    for name in ("m0", "g1", "g2"):
        fn = sympy.lambdify([m0, g1, g2, s], sympy.diff(ref, {"m0": m0, "g1": g1, "g2": g2}[name]),
                            modules=[{"sqrt": lambda x: np.sqrt(x + 0j)}, "numpy"])
        want = fn(point["m0"], point["g1"], point["g2"], s_vals)
        got = ex.evaluate(ex.derivative(e, name), dict(point, s=s_vals))
        np.testing.assert_allclose(got, want, rtol=1e-11, err_msg=name)


def test_formula_error_columns_are_those_of_the_formula_as_written():
    """Powers written ^ (two characters for Python's parser) and non-ASCII
    names (several UTF-8 bytes) do not shift the reported column."""
    with pytest.raises(ex.FormulaError, match=r"column 13: unknown function 'sqr'") as e:
        ex.parse("a^2 + b^3 + sqr(s)")
    assert e.value.column == 13
    with pytest.raises(ex.FormulaError) as e:
        ex.parse("αβ^2 + rho(s, 1)")
    assert e.value.column == 8 and "rho takes 3 argument(s)" in str(e.value)
    with pytest.raises(ex.FormulaError) as e:
        ex.parse("x^2 + (y")
    assert "syntax error" in str(e.value)
    # The innermost place is named once.
    with pytest.raises(ex.FormulaError) as e:
        ex.parse("1 + exp(2 * (a + i*b)^0.5)")
    assert str(e.value).count("column") == 1 and e.value.column == 13
