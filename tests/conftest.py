"""Shared pytest configuration for vecampfit's tests."""

import os
import sys

import pytest


@pytest.fixture(scope="session")
def model_cache(tmp_path_factory):
    """Directory for models compiled during the test session.

    ``VECAMPFIT_TEST_CACHE_DIR`` reuses a directory across sessions (handy
    while developing); by default every session compiles afresh.
    """
    env = os.environ.get("VECAMPFIT_TEST_CACHE_DIR")
    if env:
        os.makedirs(env, exist_ok=True)
        return env
    return str(tmp_path_factory.mktemp("models"))


MODELS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")


@pytest.fixture(scope="session")
def models_dir():
    """Folder with the Cython model files that the tests compile as a user would."""
    return MODELS_DIR


TOY_MODEL = os.path.join(MODELS_DIR, "fitter_toy_model.pyx")


@pytest.fixture(scope="session")
def toy_models(model_cache):
    """The fitter's toy model (``tests/models/fitter_toy_model.pyx``, densities
    ``gauss`` and ``linear``) compiled for L = 1, 4 and 8: ``{L: module}``."""
    from vecampfit.model_compiler import compile_model
    return compile_model(TOY_MODEL, [1, 4, 8], build_dir=model_cache)


@pytest.fixture(scope="session")
def toy_model_l8(model_cache):
    """The fitter's toy model compiled for L = 8 alone: the module (the same
    compiled module as ``toy_models[8]``, from the cache, when both are used)."""
    from vecampfit.model_compiler import compile_model
    return compile_model(TOY_MODEL, [8], build_dir=model_cache)[8]


# Reference implementations shared by several test modules (tests/*_reference.py)
# are imported by name.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

#: The examples whose modules the tests import.  Their programs import their
#: siblings by name (``import common`` in examples/dz_kmpippiz), as they do
#: when run as scripts; the tests import them the same way, with these
#: folders on the path.  No two of them hold a module of the same name
#: (tests/test_example_modules.py), so that each name means one module.  The
#: tests of other examples run their programs as subprocesses
#: (tests/test_example_lc_pkpi.py).
EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")
EXAMPLE_FOLDERS = [os.path.join(EXAMPLES, d) for d in ("dz_kmpippiz", "epem_kkpipi",
                                                       "laura_genfit3k", "protocol", "tutorial")]
for _folder in EXAMPLE_FOLDERS:
    if _folder not in sys.path:
        sys.path.append(_folder)
#: The densities written by hand (the references of the generated ones), kept
#: with the benchmarks that time them: ``import handwritten`` (D0 -> K- pi+ pi0),
#: ``import genfit3k_handwritten``.
for _folder in ("dz_handwritten", "genfit3k_handwritten"):
    sys.path.append(os.path.join(os.path.dirname(EXAMPLES), "benchmarks", _folder))


@pytest.fixture(autouse=True)
def every_thread_asked_for(monkeypatch):
    """Likelihoods use every thread a test asks for, however busy the machine
    that runs the tests: tests that compare one thread with two must run two.
    The choice itself is tested in ``test_fitter_threads.py``."""
    from vecampfit.fitter import _threads, likelihood

    class IdleMachine(_threads.CoreShare):
        def __init__(self, threads, policy="share"):
            super().__init__(threads, policy, count=lambda: 1, applies=True)

    monkeypatch.setattr(likelihood, "CoreShare", IdleMachine)
