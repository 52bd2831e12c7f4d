"""The compiled likelihood kernels for this CPU.

A portable build carries the kernels twice: for the baseline of the
architecture (``_kernels``) and, on x86-64, for the x86-64-v3 level
(``_kernels_x86_64_v3``: AVX2 and FMA).  The best one that the CPU runs is
chosen at import.  The environment variable ``VECAMPFIT_FITTER_KERNELS``
overrides the choice: ``baseline`` or ``x86-64-v3`` (an error if the
build lacks them or the CPU cannot run them); ``auto`` (default) chooses.
Both compute the same sums in the same order, but the compiler may contract
a product and a sum into one fused multiply-add in the x86-64-v3 kernels, so
values may differ in the last bits between the two.
"""

import importlib
import importlib.util
import os

from .._build_config import NATIVE
from . import _kernels as _baseline

#: Name of the target of ``_kernels``: the build machine's CPU in a native build.
_BASELINE_TARGET = "native" if NATIVE else "baseline"

#: Accepted values of VECAMPFIT_FITTER_KERNELS.
CHOICES = ("auto", "baseline", "x86-64-v3")


def select(choice=None):
    """(module, target) of the kernels for ``choice`` (default: the environment).

    The target is ``"x86-64-v3"``, ``"baseline"`` or, in a native build
    (whose ``_kernels`` are tuned for the build machine), ``"native"``.

    Raises
    ------
    ValueError
        ``choice`` is not one of :data:`CHOICES`.
    RuntimeError
        ``x86-64-v3`` was asked for and the build lacks those kernels or
        the CPU cannot run them.
    """
    if choice is None:
        choice = os.environ.get("VECAMPFIT_FITTER_KERNELS", "auto") or "auto"
    if choice not in CHOICES:
        raise ValueError(f"VECAMPFIT_FITTER_KERNELS must be one of {', '.join(CHOICES)}, "
                         f"got {choice!r}")
    if choice == "baseline":
        return _baseline, _BASELINE_TARGET
    # The CPU is asked first: the x86-64-v3 module may use AVX2 from the
    # moment it is imported.
    name = f"{__package__}._kernels_x86_64_v3"
    built = importlib.util.find_spec(name) is not None
    if built and _baseline.cpu_supports_x86_64_v3():
        return importlib.import_module(name), "x86-64-v3"
    if choice == "x86-64-v3":
        reason = ("this CPU does not support x86-64-v3" if built else
                  "this build has no x86-64-v3 kernels (a native build or another "
                  "architecture)")
        raise RuntimeError(f"VECAMPFIT_FITTER_KERNELS=x86-64-v3: {reason}")
    return _baseline, _BASELINE_TARGET


kernels, target = select()
