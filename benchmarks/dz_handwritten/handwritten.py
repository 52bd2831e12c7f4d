"""The hand-written D0 -> K- pi+ pi0 signal density (signal_density.pyx) for the benchmarks.

The CLEO model of examples/dz_kmpippiz written by hand against vecampfit's
.pxd files: the reference against which the benchmarks measure the density
that vecampfit.isobar generates from the example's isobar_model.py.  Its
event buffer holds the pair masses and breakup momenta of
``tests/dz_reference.py`` (the numpy twin), its constants the D0 and
final-state masses (GeV, PDG 2024).
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests"))

import dz_reference  # noqa: E402
from vecampfit.fitter import Density  # noqa: E402
from vecampfit.model_compiler import compile_model  # noqa: E402

SOURCE = os.path.join(HERE, "signal_density.pyx")
#: The module's constants from dz_reference.MASSES.
CONSTANTS = {"M_D": dz_reference.MASSES["md"], "M_KM": dz_reference.MASSES["km"],
             "M_PIP": dz_reference.MASSES["pip"], "M_PIZ": dz_reference.MASSES["piz"]}


def compile_signal(vector_lengths, build_dir=None, verbose=False):
    """The compiled modules of signal_density.pyx, vector length -> module."""
    return compile_model(SOURCE, list(vector_lengths), build_dir=build_dir, verbose=verbose)


def fill_event_buffer(records, constants):
    """Event-buffer fields of event records (momenta or squared masses) at
    the masses of ``constants`` (clipped at the Dalitz-plot edge)."""
    masses = {"md": constants["M_D"], "km": constants["M_KM"], "pip": constants["M_PIP"],
              "piz": constants["M_PIZ"]}
    return dz_reference.record_fields(records, masses)


def signal_density(modules, vector_length, precision, gradient=True):
    """The hand-written density for the fitter (block form)."""
    return Density.from_model(modules[vector_length], precision, constants=CONSTANTS,
                              gradient=gradient, fill_event_buffer=fill_event_buffer,
                              name="signal (hand-written)")
