"""Three-body decays of particles with any spins by the Dalitz-plot decomposition.

:mod:`~vecampfit.dpd.kinematics` gives the helicity angles and the Wigner
rotations that align the chains of the three pairs as functions of the
Dalitz variables, :mod:`~vecampfit.dpd.vertices` the recoupling factors of
the two-body vertices and :mod:`~vecampfit.dpd.model`
the amplitude and the unpolarized intensity as expressions of
:mod:`vecampfit.expressions` (M. Mikhasenko et al., Phys. Rev. D 101 (2020)
034033).  The lineshapes and form factors of the model exchange format
are in :mod:`vecampfit.expressions.physics`.
"""

from .kinematics import cos_theta, cos_zeta, cyclic_pair, sigmas_from_mass_angle, zeta_sign
from .model import DecayChain, ThreeBodyDecay
from .vertices import HelicityVertex, LSVertex, ParityVertex

__all__ = ["DecayChain", "ThreeBodyDecay", "HelicityVertex", "ParityVertex", "LSVertex",
           "cos_theta", "cos_zeta", "cyclic_pair", "sigmas_from_mass_angle", "zeta_sign"]
