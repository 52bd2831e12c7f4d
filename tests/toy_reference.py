"""numpy references of the toy density of tests/models/fitter_toy_model.pyx:
a Gaussian on [0, 1] with its gradient and its integral."""

import numpy as np
from scipy.special import erf


def gauss(x, p):
    return np.exp(-(x - p[0]) ** 2 / (2 * p[1] ** 2))


def gauss_gradient(x, p):
    s = gauss(x, p)
    d = x - p[0]
    return s, np.array([s * d / p[1] ** 2, s * d * d / p[1] ** 3])


def gauss_integral(p):
    """Integral of the Gaussian over [0, 1]."""
    mu, sigma = p[0], p[1]
    c = sigma * np.sqrt(np.pi / 2)
    return c * (erf((1 - mu) / (np.sqrt(2) * sigma)) - erf(-mu / (np.sqrt(2) * sigma)))


def gauss_integral_gradient(p):
    mu, sigma = p[0], p[1]
    g = np.zeros(len(p))
    g[0] = gauss(0.0, p) - gauss(1.0, p)
    # d/dsigma of int exp(-(x-mu)^2/(2 s^2)) = int (x-mu)^2/s^3 exp(...) dx
    x, w = np.polynomial.legendre.leggauss(80)
    x = (x + 1) / 2
    g[1] = 0.5 * np.sum(w * (x - mu) ** 2 / sigma ** 3 * gauss(x, p))
    return g


