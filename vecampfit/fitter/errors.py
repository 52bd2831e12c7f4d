"""The exceptions of the fitter.

Every error the fitter raises on bad input is one of these (or a
``ValueError``/``TypeError`` naming the argument), and its message names
the cause: the density, the fit point, the file and line, the event or the
parameter values.  All are subclasses of :class:`ValueError`.

* :class:`DensityError` -- a density that does not fit the fit or its model;
* :class:`EventBufferError` -- event fields that do not match a density;
* :class:`LikelihoodError` -- a likelihood that cannot be computed at the
  parameters;
* :class:`ParameterFileError` -- a parameter file or table that cannot be used;
* :class:`RestrictionError` -- a parameter moved that a restricted likelihood
  holds fixed.

They are also importable from :mod:`vecampfit.fitter` and from the module
that raises them first (:mod:`~vecampfit.fitter.density`,
:mod:`~vecampfit.fitter.events`, :mod:`~vecampfit.fitter.likelihood`,
:mod:`~vecampfit.fitter.parameters`).
"""

__all__ = ["DensityError", "EventBufferError", "LikelihoodError", "ParameterFileError",
           "RestrictionError"]


class DensityError(ValueError):
    """A density that does not fit the fitter or its model: kind, precision,
    vector length, sizes, parameter names, constants, or values of the wrong
    shape.  The message names the density."""


class EventBufferError(ValueError):
    """Event fields that do not match a density (missing field, wrong shape,
    non-finite values, bad weights), or events used after they were
    released.  The message names the buffer (``"data of fit point 0"``)."""


class LikelihoodError(ValueError):
    """The likelihood cannot be computed: a density is NaN, infinite or
    negative, a normalization is not positive, the argument of a logarithm
    is not positive, or the total yield of an extended fit is not positive.
    The message names the fit point, the density, the event and the
    parameter values."""


class ParameterFileError(ValueError):
    """A parameter file (or table) that cannot be used; the message names the
    file and line, or the parameter and what needs it."""


class RestrictionError(ValueError):
    """A call of a restricted likelihood
    (:meth:`vecampfit.fitter.Likelihood.restricted`) moved a parameter that
    is not among its free parameters; the message names the parameter."""
