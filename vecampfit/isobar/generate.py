"""Event generation from isobar models (accept-reject over phase space).

Phase-space events from :func:`vecampfit.generation.generate_events`
are accepted with probability proportional to the model's density
:math:`|A|^2`, so that the accepted events are distributed as
:math:`|A|^2\\, d\\Phi_3` (flat Dalitz plot times the density).  The
events are returned (and optionally written to a ROOT file through
:func:`vecampfit.root_io.write_tree`) with the daughters' four-momenta and
the model's two squared-mass variables as branches, the layout of the
examples' event files.
"""

import numpy as np

from vecampfit import generation

__all__ = ["generate_events", "momentum_branches"]


def momentum_branches(model):
    """Branch names of the daughters' four-momenta: the model's ``momenta`` or
    ``<label>_momentum`` (identical particles numbered)."""
    if model.momenta:
        return list(model.momenta)
    names = model.daughter_names
    out = []
    for k, n in enumerate(names):
        lab = model.label(n) + (str(k + 1) if names.count(n) > 1 else "")
        out.append(f"{lab}_momentum")
    return out


def _squared_masses(model, momenta, branches):
    out = {}
    for name, (i, j) in model.variables.items():
        p = momenta[branches[i]] + momenta[branches[j]]
        out[name] = p[:, 3] ** 2 - p[:, 0] ** 2 - p[:, 1] ** 2 - p[:, 2] ** 2
    return out


def generate_events(model, n_events, params=None, constants=None, *, compiled=None, seed=None,
                    maximum=None, path=None, tree="tree", momentum_dtype=np.float64,
                    batch_size=100_000, progress=False):
    """Events distributed as the model's density over the Dalitz plot.

    Parameters
    ----------
    model : IsobarModel
    n_events : int
    params : dict or array_like, optional
        Parameter values (default: the starting values).
    constants : dict, optional
        Constant values (masses are taken from them too).
    compiled : CompiledIsobarModel, optional
        Evaluate the density with the compiled model (float64) instead of numpy.
    seed : int, numpy.random.Generator or None
    maximum : float, optional
        Assumed maximum of the density.  Default: 1.5 times the largest value
        over a first phase-space batch; if an event exceeds the assumed
        maximum, generation restarts from scratch with a maximum 1.2 times
        the value found (restarting keeps the sample unbiased).
    path : str, optional
        Write the events as tree ``tree`` of a ROOT file.
    momentum_dtype : numpy dtype
        Type of the momentum branches (the D0 example writes float32).

    Returns
    -------
    dict of str to numpy.ndarray
        Four-momenta (n, 4) as (px, py, pz, E) in GeV per daughter branch
        (:func:`momentum_branches`) and the squared-mass variables (GeV^2).
    """
    values = model._all_values(params, constants)
    mp = values[model.mass_constant("parent").name]
    masses = [values[model.mass_constant(k).name] for k in range(3)]
    branches = momentum_branches(model)
    pnames = model.parameter_names()
    pvec = np.array([values[n] for n in pnames])
    if compiled is not None:
        dens = compiled.density("float64", constants=constants, gradient=False)
        x = [values[n] for n in dens.parameters]

        def density(records):
            return dens.evaluate(dens.event_buffer(records, records=True), x)
    else:
        def density(records):
            return model.density(records, pvec, constants)

    def variables(momenta):
        return _squared_masses(model, momenta, branches)

    rng = generation.random_generator(seed)
    if maximum is None:
        sample = generation.phase_space(mp, masses, batch_size, rng)
        first = density(variables(dict(zip(branches, sample.momenta))))
        maximum = 1.5 * float(np.max(first))
    for restart in range(30):
        try:
            momenta = generation.generate_events(density, mp, masses, n_events, names=branches,
                                                 variables=variables, maximum=maximum, seed=rng,
                                                 batch_size=batch_size, progress=progress)
            break
        except ValueError as e:
            if "above the assumed maximum" not in str(e):
                raise
            maximum = 1.2 * float(str(e).split("reaches ")[1].split(",")[0])
    else:
        raise ValueError(f"{model.name}: the density kept exceeding the assumed maximum over 30 "
                         f"restarts (last maximum {maximum!r}); is it bounded?  Pass maximum=")
    out = {b: np.asarray(momenta[b], dtype=momentum_dtype) for b in branches}
    out.update(_squared_masses(model, {b: np.asarray(momenta[b]) for b in branches}, branches))
    if path is not None:
        from vecampfit.root_io import write_tree
        write_tree(path, out, tree)
    return out
