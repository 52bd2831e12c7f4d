"""Helicity-amplitude models that compile: the form shared by the spin models.

:class:`AmplitudeModel` holds components (coupling, dynamical factor and
angular vector in the helicity frames of a group) and the rotations that
align each group's frames to the reference helicities; its intensity is
the unpolarized sum over helicities or a spin-density matrix form.  It
evaluates in numpy and compiles into a block density with analytic
gradients (:meth:`AmplitudeModel.compile`).  :mod:`vecampfit.dpd` builds
such models for three-body decays with any spins.
:mod:`~vecampfit.amplitudes.fractions` gives the fit fractions and
interference fractions of groups of components (:func:`fit_fractions`,
:func:`resonance_groups`) with their errors.
"""

from .compiled import CompiledAmplitudeModel
from .fractions import AmplitudeFitFractions, component_integrals, fit_fractions, resonance_groups
from .model import AmplitudeComponent, AmplitudeGroup, AmplitudeModel, ModelParameter

__all__ = ["AmplitudeModel", "AmplitudeComponent", "AmplitudeGroup", "ModelParameter",
           "CompiledAmplitudeModel", "AmplitudeFitFractions", "fit_fractions", "resonance_groups",
           "component_integrals"]
