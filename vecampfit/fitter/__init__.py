"""The fitter of vecampfit: unbinned maximum-likelihood fits with Monte Carlo,
grid or formula normalization, backgrounds, extended and simultaneous fits,
priors and explicit gradients, minimized with iminuit (paper sections 2, 4, 5).

One path: a :class:`Likelihood` is the cost function, handed to
``iminuit.Minuit`` directly, or to :class:`Fitter`, which runs the paper's
command sequence on Minuit.  ``docs/what_to_use_when.rst`` says which
density form, normalization, cache and driver to take.

Public names:

* :class:`Likelihood`, :class:`FitPoint` -- the function
  :math:`\\mathcal{F}` and its gradient, an iminuit cost function;
  :meth:`Likelihood.restricted` gives a :class:`RestrictedLikelihood`, the
  cost told which parameters move (cached components, ``docs/cached_fits.rst``);
* :class:`Fitter`, :class:`Stage` -- random initial values from a seed,
  the parameter file's steps and limits, fix/release, MIGRAD, HESSE, MINOS
  in stages, result files, on ``fitter.minuit``;
* :class:`Density` -- a density in block (Cython) or Python form;
  :meth:`Density.from_model` reads a compiled model that describes itself;
* :func:`read_parameter_file`, :func:`write_parameter_file`,
  :class:`ParameterTable`, :class:`FitParameter` -- the paper's parameter files
  (``Parameter``, the old name of :class:`FitParameter`, still works with a
  :class:`DeprecationWarning`);
* :mod:`vecampfit.fitter.errors` -- the exceptions (:class:`DensityError`,
  :class:`EventBufferError`, :class:`LikelihoodError`,
  :class:`ParameterFileError`, :class:`RestrictionError`), also importable
  from here.

The modules import each other one way: :mod:`~vecampfit.fitter.errors` and
the reduction (``_reduction``) import nothing of the fitter; the signatures
of C functions (``_signatures``), the kernels' dispatch, the event buffers,
the evaluators and :mod:`~vecampfit.fitter.components` build on them;
:mod:`~vecampfit.fitter.density` on those; the likelihood on the densities
and :mod:`~vecampfit.fitter.mpi`; :class:`Fitter` on the likelihood and the
result files.

:mod:`vecampfit.fitter.mpi` spreads one likelihood over MPI ranks
(``Likelihood(..., comm=MPI.COMM_WORLD)`` and :func:`vecampfit.fitter.mpi.serve`,
``docs/mpi.rst``); mpi4py is needed only when a communicator is given.

Cython models cimport ``model_description`` from ``vecampfit.fitter.density``
and export ``vecampfit_model()`` (the model protocol, ``docs/fitter.rst``);
``density_callable`` / ``density_gradient_callable`` /
``fill_parameter_buffer_callable`` wrap single functions for the
:class:`Density` constructor.
"""

from .density import Density
from .errors import (DensityError, EventBufferError, LikelihoodError, ParameterFileError,
                     RestrictionError)
from .events import EventBuffer
from .fitter import Fitter, Stage
from .likelihood import (AsymmetricGaussianPrior, FitPoint, Likelihood, NORMALIZATIONS,
                         RestrictedLikelihood)
from .parameters import (FitParameter, ParameterTable, read_parameter_file, write_parameter_file,
                         deprecated_name as _deprecated_name)

__all__ = ["AsymmetricGaussianPrior", "Density", "DensityError", "EventBuffer",
           "EventBufferError", "FitParameter", "FitPoint", "Fitter", "Likelihood",
           "LikelihoodError", "NORMALIZATIONS", "ParameterFileError", "ParameterTable",
           "RestrictedLikelihood", "RestrictionError", "Stage", "read_parameter_file",
           "write_parameter_file"]


def __getattr__(name):
    # Deprecated names (vecampfit.fitter.Parameter is now FitParameter).
    return _deprecated_name(__name__, name)
