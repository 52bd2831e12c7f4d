"""Cascades of two-body decays of any length in the helicity formalism.

Declare final-state particles, isobars with lineshapes
(:mod:`~vecampfit.cascades.lineshapes`) and vertices with LS or helicity
couplings (:mod:`~vecampfit.cascades.particles`), add decay chains with
their topologies (:class:`CascadeModel`), and get an
:class:`~vecampfit.amplitudes.AmplitudeModel` that evaluates in numpy and
compiles with analytic gradients, plus the event variables computed from
four-momenta (:meth:`CascadeModel.event_records`).
"""

from . import lineshapes
from .model import CascadeModel
from .particles import LS, Helicity, Isobar, Particle, VirtualPhoton

__all__ = ["CascadeModel", "Particle", "Isobar", "VirtualPhoton", "LS", "Helicity", "lineshapes"]
