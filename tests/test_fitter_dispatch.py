"""Tests of vecampfit.fitter._dispatch: the choice of the compiled likelihood
kernels for the CPU, checked against the CPU flags the operating system
reports, and the same likelihood from every kernel build this CPU runs."""

import importlib.util
import os

import numpy as np
import pytest

from vecampfit import _build_config
from vecampfit.fitter import _dispatch, _kernels
from vecampfit.fitter import _evaluation as evaluation_module

from test_fitter_likelihood import FITS, make

# x86-64-v3 per the x86-64 psABI, as Linux names the flags in /proc/cpuinfo:
# the level includes x86-64-v2 (and the baseline, which every x86-64 CPU has).
# LZCNT is "abm" in /proc/cpuinfo, SSE3 is "pni".  The operating system's
# support for the AVX registers (OSXSAVE) is not listed as a flag, but Linux
# removes avx, avx2, fma and f16c from the list when it does not enable them.
X86_64_V2_FLAGS = {"cx16", "lahf_lm", "popcnt", "pni", "sse4_1", "sse4_2", "ssse3"}
X86_64_V3_FLAGS = X86_64_V2_FLAGS | {"avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "abm", "movbe",
                                     "xsave"}
V3_MODULE = "vecampfit.fitter._kernels_x86_64_v3"


def cpuinfo_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return None


def cpu_reports_x86_64_v3():
    """What the operating system says about this CPU: True or False (skip if unknown)."""
    flags = cpuinfo_flags()
    if flags is None or os.uname().machine != "x86_64":
        pytest.skip("needs /proc/cpuinfo on x86-64")
    return X86_64_V3_FLAGS <= flags


def v3_kernels_built():
    return importlib.util.find_spec(V3_MODULE) is not None


def baseline_target():
    return "native" if _build_config.NATIVE else "baseline"


def available():
    """(module, target) of every kernel build that this CPU runs."""
    out = [_dispatch.select("baseline")]
    try:
        out.append(_dispatch.select("x86-64-v3"))
    except RuntimeError:
        pass
    return out


def test_cpu_check_agrees_with_the_operating_system():
    expected = cpu_reports_x86_64_v3()
    print(f"x86-64-v3 flags present: {expected}; kernels in use: {_dispatch.target}")
    assert _kernels.cpu_supports_x86_64_v3() == expected


def test_automatic_choice_follows_the_cpu_flags():
    # The x86-64-v3 kernels exactly when the build has them and
    # /proc/cpuinfo lists every flag of that level; the baseline otherwise.
    v3 = v3_kernels_built() and cpu_reports_x86_64_v3()
    expected = "x86-64-v3" if v3 else baseline_target()
    for module, target in (_dispatch.select("auto"), (_dispatch.kernels, _dispatch.target)):
        assert target == expected
        assert module.__name__ == (V3_MODULE if v3 else "vecampfit.fitter._kernels")
    assert evaluation_module._kernels is _dispatch.kernels


def test_automatic_choice_ignores_a_missing_build(monkeypatch):
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == V3_MODULE else real_find_spec(name, *a))
    module, target = _dispatch.select("auto")
    assert module is _kernels and target == baseline_target()
    with pytest.raises(RuntimeError, match="this build has no x86-64-v3 kernels"):
        _dispatch.select("x86-64-v3")


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


def test_x86_64_v3_on_request_exactly_when_the_cpu_has_it(monkeypatch):
    cpu = cpu_reports_x86_64_v3()
    built = v3_kernels_built()
    for how in ("argument", "environment"):
        if how == "environment":
            monkeypatch.setenv("VECAMPFIT_FITTER_KERNELS", "x86-64-v3")
        call = (lambda: _dispatch.select("x86-64-v3")) if how == "argument" else _dispatch.select
        if built and cpu:
            module, target = call()
            assert target == "x86-64-v3" and module.__name__ == V3_MODULE
        else:
            reason = "this CPU does not support x86-64-v3" if built else "this build has no"
            with pytest.raises(RuntimeError, match=f"VECAMPFIT_FITTER_KERNELS=x86-64-v3: {reason}"):
                call()


@pytest.mark.parametrize("fit", FITS)
def test_every_kernel_build_gives_the_paper_formula(toy_models, fit, monkeypatch):
    values = {}
    for module, target in available():
        monkeypatch.setattr(evaluation_module, "_kernels", module)
        for precision, tolerance in (("float64", 1e-12), ("float32", 1e-5)):
            lk, ref, p = make("block", toy_models, 8, fit, precision=precision, threads=2)
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
