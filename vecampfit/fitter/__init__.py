"""The fitter of vecampfit: unbinned maximum-likelihood fits with Monte Carlo,
grid or formula normalization, backgrounds, extended and simultaneous fits,
priors and explicit gradients, minimized with iminuit (paper sections 2, 4, 5).

Public names:

* :class:`Fitter` -- likelihood plus Minuit, fix/release, MIGRAD, HESSE,
  MINOS, result files;
* :class:`Likelihood`, :class:`FitPoint`, :class:`LikelihoodError` -- the
  function :math:`\\mathcal{F}` and its gradient;
* :class:`Density` -- a density in block (Cython) or Python form;
  :meth:`Density.from_model` reads a compiled model that describes itself;
* :func:`read_parameter_file`, :func:`write_parameter_file`,
  :class:`ParameterTable`, :class:`Parameter` -- the paper's parameter files.

:mod:`vecampfit.fitter.mpi` spreads one likelihood over MPI ranks
(``Fitter(..., comm=MPI.COMM_WORLD)`` and :func:`vecampfit.fitter.mpi.serve`,
``docs/mpi.rst``); mpi4py is needed only when a communicator is given.

Cython models cimport ``model_description`` from ``vecampfit.fitter.density``
and export ``vecampfit_model()`` (the model protocol, ``docs/fitter.rst``);
``density_callable`` / ``density_gradient_callable`` /
``fill_parameter_buffer_callable`` wrap single functions for the
:class:`Density` constructor.
"""

from .density import Density, DensityError
from .events import EventBuffer, EventBufferError
from .fitter import Fitter
from .likelihood import (AsymmetricGaussianPrior, FitPoint, Likelihood, LikelihoodError,
                         NORMALIZATIONS)
from .parameters import (Parameter, ParameterFileError, ParameterTable, read_parameter_file,
                         write_parameter_file)

__all__ = ["AsymmetricGaussianPrior", "Density", "DensityError", "EventBuffer",
           "EventBufferError", "FitPoint", "Fitter", "Likelihood", "LikelihoodError",
           "NORMALIZATIONS", "Parameter", "ParameterFileError", "ParameterTable",
           "read_parameter_file", "write_parameter_file"]
