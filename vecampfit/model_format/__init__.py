"""Amplitude models in the community's JSON exchange format.

:func:`read_model` reads a model file into :class:`~vecampfit.dpd.ThreeBodyDecay`
models built on :mod:`vecampfit.expressions` and reproduces the values the
file records (``misc.amplitude_model_checksums``); :func:`write_model` writes
such a model back with new weights (read -> write -> read gives the same
model and values).
"""

from .reader import (FORM_FACTOR_TYPES, LINESHAPE_TYPES, Distribution, ModelFile, ModelFormatError,
                     parse_complex, read_model)
from .writer import format_complex, model_dict, write_model

__all__ = ["read_model", "write_model", "model_dict", "format_complex", "ModelFile", "Distribution",
           "ModelFormatError", "parse_complex",
           "LINESHAPE_TYPES", "FORM_FACTOR_TYPES"]
