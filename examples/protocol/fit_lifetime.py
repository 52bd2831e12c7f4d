"""The model protocol in one page: compile exponential_density.pyx, make a
Density from it, fit a lifetime with iminuit directly on the likelihood.

Run ``python examples/protocol/fit_lifetime.py``; it prints the fitted
lifetime and its error.
"""

import os

import numpy as np
from iminuit import Minuit

from vecampfit.fitter import Density, FitParameter, Likelihood, ParameterTable
from vecampfit.model_compiler import compile_model

HERE = os.path.dirname(os.path.abspath(__file__))


def main(n_events=20000, tau=1.52, t0=0.1, seed=1, build_dir=None):
    """Generate decay times, fit the lifetime; returns the Minuit object."""
    rng = np.random.default_rng(seed)
    data = t0 + rng.exponential(tau, n_events)
    data = data[data < 10]
    mc = rng.uniform(0, 10, 200000)                     # flat normalization MC on [0, 10) ps

    module = compile_model(os.path.join(HERE, "exponential_density.pyx"), [8],
                           build_dir=build_dir)[8]
    signal = Density.from_model(module, "float64", constants={"T0": t0})
    print(signal)                                     # names, fields, L: read from the module

    table = ParameterTable([FitParameter("TAU", 1.0, 0.01, 0.1, 10.0)], source="fit_lifetime.py")
    likelihood = Likelihood(table, vector_length=8)
    point = likelihood.add_point(signal)              # TAU binds by name
    point.add_data({"t": data})
    point.add_normalization_events({"t": mc})

    m = Minuit(likelihood, *likelihood.initial_values)  # an iminuit cost function
    m.migrad()
    m.hesse()
    print(f"tau = {m.values['TAU']:.4f} +- {m.errors['TAU']:.4f} ps (generated {tau})")
    return m


if __name__ == "__main__":
    main()
