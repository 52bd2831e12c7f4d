"""Generation models: the paper's base classes ``generation_model`` and
``generation_model_resolution`` (section 8.3), in Python, and the two used by
the resolution fit-result histograms of this example.

A generation model turns fit results into events.  :class:`GenerationModel`
(any fit but resolution) offers a density normalized so that its maximum is
at most 1, for accept-reject: the user fills the parameter buffer (here:
binds the fitted values), loads the maximum of the density, and evaluates
the density.  :class:`GenerationModelResolution` generates the reconstructed
event of a generator-level one.  Events are handled in batches: an "event"
is a dict of arrays (four-momenta ``K1``, ``K2``, ``pi1``, ``pi2`` of shape
(n, 4), generator level; :meth:`GenerationModelResolution.generate_event`
adds the reconstructed ones under ``rec``).

These classes belong to the example, not to vecampfit: the library has no
generation-model layer yet.
"""

import abc
import os

import numpy as np

import common_kkpipi as common
import efficiency
import model_kkpipi as model
import resolution
from vecampfit import generation


class GenerationModel(abc.ABC):
    """Base class of the generation models of fits other than resolution fits."""

    @abc.abstractmethod
    def fill_parameter_buffer(self):
        """Prepare what depends on the parameters only (once)."""

    @abc.abstractmethod
    def load_maximum_density(self, fit_name):
        """Load (or determine) the maximum of the density; returns it.

        Parameters
        ----------
        fit_name : str
            Name of the fit whose result the model generates.
        """

    @abc.abstractmethod
    def density(self, event):
        """The density normalized so that its maximum is at most 1 (array (n,))."""

    def generate(self, point, n, rng, batch=50_000):
        """``n`` generator-level events distributed as density x phase space
        (accept-reject on unweighted phase-space events)."""
        m = point.masses()
        parts, have = [], 0
        while have < n:
            ev = generation.generate_events(None, point.sqrt_s, [m[k] for k in common.PARTICLES],
                                            batch, names=common.PARTICLES, seed=rng)
            d = self.density(ev)
            if np.any(d > 1):
                raise ValueError(f"density above its maximum ({float(np.max(d)):.4g} > 1): "
                                 f"the maximum of {type(self).__name__} is too small")
            keep = rng.random(batch) < d
            parts.append({k: v[keep] for k, v in ev.items()})
            have += int(keep.sum())
        return {k: np.concatenate([p[k] for p in parts])[:n] for k in common.PARTICLES}


class GenerationModelResolution(abc.ABC):
    """Base class of the generation models of resolution fits."""

    @abc.abstractmethod
    def fill_parameter_buffer(self):
        """Prepare what depends on the parameters only (once)."""

    @abc.abstractmethod
    def generate_event(self, event):
        """Add the reconstructed four-momenta (``event["rec"]``) to generator-level events."""


class EfficiencyGenerationModel(GenerationModel):
    """Events distributed as the fitted efficiency E(Phi_lab, Phi) (efficiency.py).

    The maximum: E < 1 by construction (a sigmoid), and its largest value
    over ``n_maximum`` phase-space events times 1.05 (at most 1) is used; it
    is written to ``maximum_density_<fit_name>.txt`` in ``directory`` and
    read from there by later calls.
    """

    def __init__(self, point, values, directory=".", n_maximum=200_000, seed=1):
        self.point = point
        self.values = np.asarray(values, dtype=np.float64)
        self.directory = directory
        self.n_maximum = n_maximum
        self.seed = seed
        self.maximum = None

    def fill_parameter_buffer(self):
        if self.values.shape != (len(efficiency.parameter_names(self.point)),):
            raise ValueError("efficiency parameters of the wrong length")

    def _efficiency(self, event):
        records = {common.GEN_BRANCH[k]: event[k] for k in common.PARTICLES}
        n = len(event["K1"])
        records["reconstructed"] = np.zeros(n)
        records["weight"] = np.ones(n)
        return efficiency.efficiency(efficiency.event_fields(records, self.point), self.values,
                                     self.point)

    def load_maximum_density(self, fit_name):
        path = os.path.join(self.directory, f"maximum_density_{fit_name}.txt")
        if os.path.exists(path):
            with open(path) as f:
                self.maximum = float(f.read().split()[0])
            return self.maximum
        m = self.point.masses()
        ps = generation.phase_space(self.point.sqrt_s, [m[k] for k in common.PARTICLES],
                                    self.n_maximum, seed=self.seed)
        e = self._efficiency(dict(zip(common.PARTICLES, ps.momenta)))
        self.maximum = min(1.0, 1.05 * float(np.max(e)))
        with open(path, "w") as f:
            f.write(f"{self.maximum!r} maximum of the efficiency over {self.n_maximum} "
                    "phase-space events, times 1.05\n")
        return self.maximum

    def density(self, event):
        if self.maximum is None:
            raise RuntimeError("load_maximum_density first")
        return self._efficiency(event) / self.maximum


class ResolutionGenerationModel(GenerationModelResolution):
    """Reconstructed momenta from the fitted widths sigma(Phi) (resolution.py)."""

    def __init__(self, point, values, rng):
        self.point = point
        self.values = np.asarray(values, dtype=np.float64)
        self.rng = rng

    def fill_parameter_buffer(self):
        if self.values.shape != (len(resolution.PARAMETERS),):
            raise ValueError("resolution parameters of the wrong length")

    def generate_event(self, event):
        gen = {k: event[k] for k in common.PARTICLES}
        v = common.normalized_phi(model.phase_space_variables(gen), self.point)
        sigma, _ = resolution.widths({f"v{d}": v[d] for d in range(7)}, self.values)
        sigma = {k: np.maximum(s, 0.0) for k, s in sigma.items()}
        event["rec"] = resolution.smear(gen, sigma, self.point.masses(), self.rng)
        return event
