"""Experiments for tests/test_studies.py, at module level so that worker
processes can import them: a Gaussian fit (numpy density, formula
normalization) to a sample drawn with the experiment's seed."""

import numpy as np

TRUTH = np.array([0.45, 0.12])


def gauss_fit(index, seed):
    from scipy.stats import truncnorm

    from toy_reference import gauss, gauss_gradient, gauss_integral, gauss_integral_gradient
    from vecampfit.fitter import (Density, FitParameter, Fitter, Likelihood, ParameterTable,
                                  Stage, results)
    rng = np.random.default_rng(seed)
    mu, sigma = TRUTH
    x = truncnorm.rvs(-mu / sigma, (1 - mu) / sigma, loc=mu, scale=sigma, size=400,
                      random_state=rng)
    table = ParameterTable([FitParameter("mu", 0.5, 0.01, 0, 1, 0.05),
                            FitParameter("sigma", 0.15, 0.01, 0.02, 1, 0.03)])
    likelihood = Likelihood(table, threads=1, on_invalid="large")
    pt = likelihood.add_point(Density(lambda ev, p: gauss(ev["x"], p),
                             lambda ev, p: gauss_gradient(ev["x"], p),
                             parameters=["mu", "sigma"], event_fields=["x"]),
                     normalization="formula")
    pt.set_integral_function(gauss_integral, gauss_integral_gradient)
    pt.add_data({"x": x})
    f = Fitter(likelihood, seed=seed % 2 ** 32, verbose=False)
    f.run(Stage(hesse=True))
    if index == 3:
        raise RuntimeError("experiment 3 fails on purpose")
    return {"values": results.values(f.minuit), "errors": results.errors(f.minuit),
            "fval": f.minuit.fval, "valid": bool(f.minuit.valid)}
