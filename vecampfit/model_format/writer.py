"""Writing amplitude models in the JSON exchange format.

:func:`write_model` writes a model that :func:`~vecampfit.model_format.read_model`
read, with the chain weights set to given parameter values (a fit result),
so that reading the written file gives the same model with those values.
"""

import copy
import json
import os

from ..atomic_files import atomic_write_text
from .reader import ModelFile, _safe

__all__ = ["format_complex", "model_dict", "write_model"]


def format_complex(z):
    """A complex number as the format writes it: ``"a + bi"`` or ``"a - bi"``, shortest
    round-trip digits (``repr``), so that reading it back gives ``z`` exactly."""
    z = complex(z)
    sign = "-" if z.imag < 0 or (z.imag == 0 and str(z.imag).startswith("-")) else "+"
    return f"{z.real!r} {sign} {abs(z.imag)!r}i"


def model_dict(model, parameters=None):
    """The JSON content (dict) of a model with its weights set to parameter values.

    Parameters
    ----------
    model : ModelFile
        A model read by :func:`~vecampfit.model_format.read_model`.
    parameters : dict, optional
        Parameter name -> value (``<chain>_re``, ``<chain>_im``, and the
        lineshapes' ``<function>_mass``, ``_width``, ``_gsq<n>``, as in
        :attr:`Distribution.parameters`); the model's values where missing.

    Returns
    -------
    dict
    """
    if not isinstance(model, ModelFile) or model.data is None:
        raise TypeError("model_dict takes a model read by read_model")
    parameters = parameters or {}
    data = copy.deepcopy(model.data)
    names = list(model.distributions)
    for n, dist_json in enumerate(data["distributions"]):
        dist = model.distributions[names[n]]
        chains = dist_json["decay_description"]["chains"]
        for chain_json, label in zip(chains, dist.weight_names):
            re_name, im_name = f"{label}_re", f"{label}_im"
            re = parameters.get(re_name, dist.parameters[re_name])
            im = parameters.get(im_name, dist.parameters[im_name])
            chain_json["weight"] = format_complex(complex(re, im))
    # The lineshapes' masses, widths and couplings.
    for fn_json in data["functions"]:
        fn = model.functions[fn_json["name"]]
        for name, value in fn.parameters.items():
            v = float(parameters.get(name, value))
            field = name[len(_safe(fn.name)) + 1:]
            if field.startswith("gsq"):
                fn_json["channels"][int(field[3:])]["gsq"] = v
            else:
                fn_json[field] = v
    return data


def write_model(model, path, parameters=None):
    """Write a model (see :func:`model_dict`) to a JSON file (UTF-8, indented).

    Parameters
    ----------
    model : ModelFile
    path : str or os.PathLike
    parameters : dict, optional
        Parameter values to write as the weights.
    """
    text = json.dumps(model_dict(model, parameters), indent=2, ensure_ascii=False)
    atomic_write_text(os.fspath(path), text + "\n")
