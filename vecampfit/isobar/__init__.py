"""Declarative isobar models: the model in a few lines, the density generated.

Declare a three-body decay model (:class:`IsobarModel`), and vecampfit
writes the Cython block density, its exact gradient and the per-component
amplitudes from small templates (one per lineshape, spin factor, form
factor and coupling form), compiles them with
:func:`vecampfit.model_compiler.compile_model` and returns densities for
the fitter; the same model is evaluated in numpy for tests and plots, and
:mod:`vecampfit.isobar.fractions` gives fit fractions with their errors.

Example
-------
>>> from vecampfit.isobar import IsobarModel, Polar
>>> m = IsobarModel("D0", ["K-", "pi+", "pi0"], spin_factor="zemach")
>>> m.add_resonance("RHO", ("pi+", "pi0"), 1, mass=0.770, width=0.1507,
...                 coupling=Polar(1.0, 0.0))            # doctest: +SKIP
>>> compiled = m.compile([8])                            # doctest: +SKIP
>>> density = compiled.density("float64")                # doctest: +SKIP
"""

from .angular import HelicitySpinFactor, LauraSpinFactor, ParentFormFactor, ZemachSpinFactor
from .fractions import FitFractions, component_densities, fit_fractions, unit_normalization
from .generate import generate_events
from .lineshapes import (BreitWigner, BreitWignerNoPhaseSpace, ConstantWidthBreitWigner,
                         ExpressionLineshape, Flatte, FormulaLineshape, KMatrix, LINESHAPES,
                         UserLineshape)
from .model import CompiledIsobarModel, Component, IsobarModel
from .quantities import Cartesian, Constant, Parameter, Polar

__all__ = ["BreitWigner", "BreitWignerNoPhaseSpace", "Cartesian", "CompiledIsobarModel",
           "Component", "Constant", "ConstantWidthBreitWigner", "ExpressionLineshape", "FitFractions",
           "Flatte", "FormulaLineshape",
           "HelicitySpinFactor", "IsobarModel", "KMatrix", "LINESHAPES", "LauraSpinFactor", "Parameter",
           "ParentFormFactor", "Polar", "UserLineshape", "ZemachSpinFactor", "component_densities",
           "fit_fractions", "generate_events", "unit_normalization"]
