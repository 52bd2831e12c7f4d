"""Checks shared by several test modules: derivatives by finite differences
(against which the analytic gradients are tested) and the test that bad input
raises the documented exception with its message.

Imported by name (``from numeric_checks import central_difference``): the
tests folder is on the path (tests/conftest.py).
"""

import numpy as np
import pytest


def central_difference(function, point, index, step):
    r"""Derivative of ``function`` at ``point`` along one coordinate by the
    central difference

    .. math:: \partial_k f(x) \approx \frac{f(x + h e_k) - f(x - h e_k)}{2 h},

    with an error of order :math:`h^2 f'''`.

    Parameters
    ----------
    function : callable
        ``function(point)``: a number or an array (one value per event).
    point : numpy.ndarray or dict
        Where the derivative is taken: an array of parameter values, or a
        dict name -> value.  It is not changed (the two shifted points are
        copies).
    index : int or str
        The coordinate :math:`k`: an index into the array or a key of the
        dict.
    step : float
        :math:`h`, in the units of the coordinate.

    Returns
    -------
    float or numpy.ndarray
        The estimate of :math:`\partial f / \partial x_k`, in the units of
        ``function`` per unit of the coordinate, shaped as ``function``'s
        value.
    """
    up, down = point.copy(), point.copy()
    up[index] += step
    down[index] -= step
    return (function(up) - function(down)) / (2 * step)


def five_point_difference(function, point, index, step):
    r"""Derivative of ``function`` at ``point`` along one coordinate by the
    five-point central difference

    .. math:: \partial_k f(x) \approx
              \frac{8 [f(x + h e_k) - f(x - h e_k)] - [f(x + 2 h e_k) - f(x - 2 h e_k)]}{12 h},

    with an error of order :math:`h^4 f^{(5)}` (for functions that vary
    quickly, such as a narrow resonance, where :func:`central_difference`
    is not accurate enough).

    Parameters
    ----------
    function : callable
        ``function(point)``: a number or an array (one value per event).
    point : numpy.ndarray
        The array of parameter values where the derivative is taken; not
        changed.
    index : int
        The coordinate :math:`k`.
    step : float
        :math:`h`, in the units of the coordinate.

    Returns
    -------
    float or numpy.ndarray
        The estimate of :math:`\partial f / \partial x_k`, shaped as
        ``function``'s value.
    """
    def at(multiple):
        shifted = point.copy()
        shifted[index] += multiple * step
        return function(shifted)
    return (8 * (at(1) - at(-1)) - (at(2) - at(-2))) / (12 * step)


def relative_gradient_errors(gradient, names, function, values, step):
    r"""How far an analytic gradient is from central differences, parameter
    by parameter:

    .. math:: \epsilon_k = \frac{\max_e |g_{k e} - \mathrm{fd}_{k e}|}{\max_e |\mathrm{fd}_{k e}|},

    :math:`e` running over the events and :math:`\mathrm{fd}_k` the
    :func:`central_difference` of ``function`` along parameter :math:`k`.

    Parameters
    ----------
    gradient : numpy.ndarray
        :math:`g`, shape ``(len(names), n_events)``: row :math:`k` is the
        derivative by parameter ``names[k]``.
    names : sequence of str
        The parameters in the order of the rows of ``gradient``.
    function : callable
        ``function(values)``: the function's values at the events, for a
        dict name -> value.
    values : dict
        The parameter values (name -> value) where the gradient was taken;
        not changed.
    step : float
        :math:`h`, the same for every parameter.

    Returns
    -------
    dict
        name -> :math:`\epsilon_k` (dimensionless float), in the order of
        ``names``.
    """
    errors = {}
    for k, name in enumerate(names):
        fd = central_difference(function, values, name, step)
        errors[name] = float(np.max(np.abs(gradient[k] - fd)) / np.max(np.abs(fd)))
    return errors


def bad_input_test(cases):
    """A test that each bad call raises the exception that the library
    documents for it, with its message.

    Parameters
    ----------
    cases : list of tuple
        ``(call, exception type, message)``: ``call()`` must raise the
        exception with a message that matches the regular expression
        ``message`` (:func:`pytest.raises` with ``match``).

    Returns
    -------
    function
        The test, parametrized over ``cases`` (``call,exc,message``); bind it
        to a name that starts with ``test_`` in the test module, where pytest
        collects it.
    """
    @pytest.mark.parametrize("call,exc,message", cases)
    def test_bad_input(call, exc, message):
        with pytest.raises(exc, match=message):
            call()
    return test_bad_input
