"""Tests of vecampfit.fitter._dispatch: the choice of the compiled likelihood
kernels for the CPU, checked against the CPU flags the operating system
reports, and the same likelihood from every kernel build this CPU runs."""

import os

import numpy as np
import pytest

from vecampfit.fitter import _dispatch, _kernels
from vecampfit.fitter import likelihood as likelihood_module

from test_fitter_likelihood import FITS, make, toy  # noqa: F401  (toy is a fixture)

# x86-64-v3 per the x86-64 psABI, as Linux names the flags in /proc/cpuinfo.
X86_64_V3_FLAGS = {"avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "abm", "movbe", "xsave"}


def cpuinfo_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return None


def available():
    """(module, target) of every kernel build that this CPU runs."""
    out = [_dispatch.select("baseline")]
    try:
        out.append(_dispatch.select("x86-64-v3"))
    except RuntimeError:
        pass
    return out


def test_cpu_check_agrees_with_the_operating_system():
    flags = cpuinfo_flags()
    if flags is None or os.uname().machine != "x86_64":
        pytest.skip("needs /proc/cpuinfo on x86-64")
    expected = X86_64_V3_FLAGS <= flags
    print(f"x86-64-v3 flags present: {expected}; kernels in use: {_dispatch.target}")
    assert _kernels.cpu_supports_x86_64_v3() == expected


def test_automatic_choice_is_the_best_the_cpu_runs():
    module, target = _dispatch.select("auto")
    builds = available()
    assert (module, target) == builds[-1]
    assert likelihood_module._kernels is _dispatch.kernels


def test_baseline_is_always_available():
    module, target = _dispatch.select("baseline")
    assert module is _kernels
    assert target in ("baseline", "native")


def test_unknown_choice_names_the_variable_and_the_choices(monkeypatch):
    with pytest.raises(ValueError, match="VECAMPFIT_FITTER_KERNELS.*auto, baseline, x86-64-v3"):
        _dispatch.select("avx9")
    monkeypatch.setenv("VECAMPFIT_FITTER_KERNELS", "sse1")
    with pytest.raises(ValueError, match="'sse1'"):
        _dispatch.select()


def test_x86_64_v3_on_request_or_a_clear_reason():
    try:
        module, target = _dispatch.select("x86-64-v3")
    except RuntimeError as e:
        assert "x86-64-v3" in str(e)
        assert "build" in str(e) or "CPU" in str(e)
        print(f"not available: {e}")
    else:
        assert target == "x86-64-v3"
        assert module.cpu_supports_x86_64_v3()


@pytest.mark.parametrize("fit", FITS)
def test_every_kernel_build_gives_the_paper_formula(toy, fit, monkeypatch):  # noqa: F811
    values = {}
    for module, target in available():
        monkeypatch.setattr(likelihood_module, "_kernels", module)
        for precision, tolerance in (("float64", 1e-12), ("float32", 1e-5)):
            lk, ref, p = make("block", toy, 8, fit, precision=precision, threads=2)
            value, grad = lk.evaluate(p, gradient=True)
            rel = abs(value - ref(p)) / abs(ref(p))
            print(f"{fit} {target} {precision}: relative difference to numpy {rel:.2e}")
            assert rel < tolerance
            values[target, precision] = value, grad
    for precision in ("float64",):
        got = [v for (t, pr), v in values.items() if pr == precision]
        for v, g in got[1:]:
            assert abs(v - got[0][0]) <= 1e-13 * abs(got[0][0])
            np.testing.assert_allclose(g, got[0][1], rtol=1e-10, atol=1e-12 * np.abs(got[0][1]).max())


def test_a_cpu_without_x86_64_v3_never_imports_those_kernels(monkeypatch):
    # Code compiled for x86-64-v3 may use AVX2 as soon as its module is
    # imported: on a CPU without it the module must not even be loaded.
    import sys

    name = "vecampfit.fitter._kernels_x86_64_v3"
    monkeypatch.setattr(_kernels, "cpu_supports_x86_64_v3", lambda: False)
    monkeypatch.delitem(sys.modules, name, raising=False)
    module, target = _dispatch.select("auto")
    assert module is _kernels and target in ("baseline", "native")
    assert name not in sys.modules
    with pytest.raises(RuntimeError, match="x86-64-v3: this (CPU does not support|build has no)"):
        _dispatch.select("x86-64-v3")
    assert name not in sys.modules
