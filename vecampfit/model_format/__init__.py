"""Amplitude models in the community's JSON exchange format.

:func:`read_model` reads a model file into :class:`~vecampfit.dpd.ThreeBodyDecay`
models built on :mod:`vecampfit.expressions` and reproduces the values the
file records (``misc.amplitude_model_checksums``); :func:`write_model` writes
such a model back with new weights (read -> write -> read gives the same
model and values).  Distributions that are not three-body decays (four-body
and longer cascades with nested topologies such as ``[[[3, 1], 4], 2]``)
are read into :mod:`vecampfit.cascades` models
(:class:`CascadeDistribution`), written back the same way, and
:func:`write_cascade` writes a cascade declared in Python.
"""

from .reader import (FORM_FACTOR_TYPES, LINESHAPE_TYPES, Distribution, ModelFile, ModelFormatError,
                     parse_complex, read_model)
from .writer import format_complex, model_dict, write_model
from .cascade_reader import CascadeDistribution
from .cascade_writer import cascade_model_dict, write_cascade

__all__ = ["read_model", "write_model", "model_dict", "format_complex", "ModelFile", "Distribution",
           "CascadeDistribution", "cascade_model_dict", "write_cascade",
           "ModelFormatError", "parse_complex",
           "LINESHAPE_TYPES", "FORM_FACTOR_TYPES"]
