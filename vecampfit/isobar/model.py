"""Declarative isobar models of three-body decays P -> a b c.

A model lists the parent and the daughters (by name from
:mod:`vecampfit.particle_data`, or with explicit masses), resonances in any
pair (lineshape, spin, parent form factor, spin factor, coupling) and
non-resonant terms.  From it, :meth:`IsobarModel.compile` writes the Cython
source of the block density, its exact gradient and the per-component
amplitudes, compiles it with :func:`vecampfit.model_compiler.compile_model`
and returns a :class:`CompiledIsobarModel` that makes
:class:`vecampfit.fitter.Density` objects.  The same model is evaluated in
numpy by :meth:`IsobarModel.amplitude` and friends (the reference).

The amplitude is

.. math::

    A = \\sum_k c_k X_k,\\qquad
    X_k = \\sum_{(A, B, C)} L_k(M_{AB})\\, F_P\\, \\mathcal{S}_J(ABC),

:math:`c_k` the complex coupling, :math:`L_k` the lineshape
(:mod:`~vecampfit.isobar.lineshapes`), :math:`F_P` the parent form factor
and :math:`\\mathcal{S}_J` the spin factor (:mod:`~vecampfit.isobar.angular`);
the sum runs over the ordered daughter triples of the resonance's pair (two
if the pair holds one of two identical particles: the amplitude is then
symmetrized); :math:`X = 1` for a non-resonant term.  The density is
:math:`S = |A|^2`.  Units: GeV, GeV^-1 for radii, degrees for phases.
"""

import contextlib
import json
import os

import numpy as np

from vecampfit import particle_data

from . import angular as _angular
from . import lineshapes as _lineshapes
from ._kinematics import DalitzKinematics, dalitz_from_records, key, third
from .quantities import COUPLING_FORMS, Cartesian, Constant, Parameter, Polar, quantity_from_dict

__all__ = ["Component", "IsobarModel", "ModelDescriptionError"]


def _label(name):
    """Identifier label of a particle name: K- -> km, pi+ -> pip, pi0 -> piz, D0 -> dz."""
    s = name.lower().replace("+", "p").replace("-", "m").replace("~", "bar")
    if s.endswith("0"):
        s = s[:-1] + "z"
    s = "".join(ch for ch in s if ch.isalnum() or ch == "_")
    if not s or not s[0].isalpha():
        s = "x" + s
    return s


class ModelDescriptionError(ValueError):
    """A model description (a file of :meth:`IsobarModel.save`, or its plain
    data) that cannot be read; the message names the file and the place
    in it."""


def _kind_of(x):
    return "nothing (null)" if x is None else f"a {type(x).__name__} ({x!r:.60})"


class _DescriptionReader:
    """Reads a model description, naming the source and the path of keys
    (``components[2].coupling``) of whatever is missing or refused."""

    def __init__(self, source):
        self.source = source

    def _where(self, where):
        return where or "the top level"

    def mapping(self, x, where):
        if not isinstance(x, dict):
            raise ModelDescriptionError(f"{self.source}: {self._where(where)} must be a mapping "
                                        f"of keys to values, got {_kind_of(x)}")
        return x

    def sequence(self, x, where):
        if not isinstance(x, (list, tuple)):
            raise ModelDescriptionError(f"{self.source}: {self._where(where)} must be a list, got "
                                        f"{_kind_of(x)}")
        return x

    def get(self, d, key, where):
        if key not in d:
            raise ModelDescriptionError(f"{self.source}: {self._where(where)} has no key {key!r} "
                                        f"(its keys: {', '.join(map(str, d)) or 'none'})")
        return d[key]

    def quantity(self, x, where):
        """A Parameter or Constant from its plain data at ``where``."""
        self.mapping(x, where)
        for k in ("kind", "name", "value"):
            self.get(x, k, where)
        with self.at(where):
            return quantity_from_dict(x)

    @contextlib.contextmanager
    def at(self, where):
        """Turn an error of the model's own checks into one naming the place."""
        try:
            yield
        except ModelDescriptionError:
            raise
        except KeyError as exc:
            raise ModelDescriptionError(f"{self.source}: {self._where(where)}: missing key "
                                        f"{exc.args[0]!r}") from exc
        except (ValueError, TypeError, AttributeError) as exc:
            raise ModelDescriptionError(f"{self.source}: {self._where(where)}: {exc}") from exc


def _check_not_negative(comp, owner):
    """Refuse a negative width, radius or Flatte coupling constant (roles
    ``width*``, ``*radius``, Flatte's ``g1`` and ``g2``): no physical
    resonance has one."""
    flatte = comp.lineshape is not None and comp.lineshape.name == "flatte"
    for role, q in comp.quantities.items():
        physical = (role.startswith("width") or role.endswith("radius")
                    or (flatte and role in ("g1", "g2")))
        if physical and q.value < 0:
            what = "width" if role.startswith("width") else (
                "radius" if "radius" in role else "coupling constant")
            raise ValueError(f"{owner}: {role} {q.name!r} is {q.value!r}; a {what} cannot be "
                             f"negative")


class Component:
    """One term of the amplitude: a resonance or a non-resonant constant.

    Built by :meth:`IsobarModel.add_resonance` and
    :meth:`IsobarModel.add_nonresonant`; read by the code generator.

    Attributes
    ----------
    key : str
        Identifier; prefix of its parameters' default names.
    label : str
        Display name (for example ``"rho(770)+"``).
    spin : int
        Spin J (orbital angular momentum of the resonance decay).
    pair : tuple of int
        Daughter indices (A, B) as declared; ``instances`` the ordered
        triples (A, B, C) of its terms.
    lineshape : Lineshape or None
        None for a non-resonant term.
    quantities : dict
        Role -> Parameter or Constant (mass, width, radius, parent_radius ...).
    coupling, coupling_quantities, scale
        The coupling form, its parts (role -> quantity) and the constant factor.
    dynamic_factors, static_factors : list
        Real factors computed per block (they depend on parameters) and in
        the event buffer (constants only).
    """

    def __init__(self, key, label):
        self.key = key
        self.label = label
        self.spin = 0
        self.pair = None
        self.instances = ()
        self.lineshape = None
        self.quantities = {}
        self.coupling = None
        self.coupling_quantities = {}
        self.scale = None
        self.factors = []
        self.dynamic_factors = []
        self.static_factors = []
        self.options = {}

    def parameter_names(self):
        """Parameters X_k depends on (not the coupling), in role order."""
        out = []
        for q in self.quantities.values():
            if q.kind == "parameter" and q.name not in out:
                out.append(q.name)
        return out

    def describe(self):
        """One line: key, label, pair, spin and pieces (the generated source's comments)."""
        if self.lineshape is None:
            return f"{self.key}: {self.label}, constant"
        parts = [self.lineshape.name] + [f.name for f in self.factors]
        return (f"{self.key}: {self.label} in pair {self.options['pair_names']}, spin {self.spin}"
                f", {' x '.join(parts)}" + (", symmetrized" if len(self.instances) > 1 else ""))


class IsobarModel:
    """An isobar model of a three-body decay P -> a b c.

    Parameters
    ----------
    parent : str or (str, float)
        Parent particle: a name in :mod:`vecampfit.particle_data`, or
        ``(name, mass)`` with the mass in GeV.
    daughters : sequence of 3 (str or (str, float))
        Final-state particles, the same way; two equal names are identical
        particles (the amplitude is symmetrized).
    name : str, optional
        Model name (default ``"<parent> -> <daughters>"``).
    pdg_edition : int
        Edition of the particle data for masses given by name.
    labels : dict, optional
        Particle name -> identifier label used in constant and field names
        (default: ``K-`` -> ``km``, ``pi0`` -> ``piz``, ...).  Masses are the
        constants ``M_<LABEL>``.
    spin_factor : str
        Default spin factor of resonances: ``"zemach"``, ``"laura"`` or
        ``"helicity"`` (:mod:`vecampfit.isobar.angular`).
    parent_form_factor : str
        Default parent form factor: ``"normalized"``, ``"unnormalized"``,
        ``"laura"`` or ``"none"``.
    parent_radius : float, str, Parameter or Constant
        Blatt-Weisskopf radius of the parent (GeV^-1); a number makes the
        parameter ``<PARENT LABEL>_R``.  Declared when the first resonance
        with a parent form factor uses it.
    variables : dict, optional
        Record branch -> pair of daughter indices of the two squared masses
        that event records hold (default ``m2_<a>_<b>`` for (0, 1) and
        (0, 2)).
    momenta : sequence of 3 str, optional
        Record branches of the daughters' four-momenta (px, py, pz, E), used
        when the records hold no ``variables``.
    """

    def __init__(self, parent, daughters, *, name=None, pdg_edition=2024, labels=None,
                 spin_factor="zemach", parent_form_factor="normalized", parent_radius=5.0,
                 variables=None, momenta=None):
        self.pdg_edition = pdg_edition
        self.labels = dict(labels or {})
        self._quantities = {}
        self._owners = {}
        self.components = []
        self.parent_name, parent_mass = self._particle(parent, "parent")
        if len(daughters) != 3:
            raise ValueError(f"a three-body model needs 3 daughters, got {len(daughters)}")
        resolved = [self._particle(d, f"daughter {k}") for k, d in enumerate(daughters)]
        self.daughter_names = tuple(n for n, _ in resolved)
        for n, m in resolved:
            if m != resolved[self.daughter_names.index(n)][1]:
                raise ValueError(f"daughter {n!r} is given twice with different masses")
        self.name = name or f"{self.parent_name} -> {' '.join(self.daughter_names)}"
        threshold = sum(m for _, m in resolved)
        if not parent_mass > threshold:
            raise ValueError(
                f"model {self.name!r}: the parent {self.parent_name!r} (mass {parent_mass!r} "
                f"GeV) is not heavier than its daughters together ({' + '.join(self.daughter_names)}"
                f" = {threshold!r} GeV): the decay has no phase space")
        self._spec = {"parent": parent, "daughters": list(daughters)}
        self._mass_constants = {}
        for n, m in [(self.parent_name, parent_mass)] + resolved:
            if n not in self._mass_constants:
                c = Constant(f"M_{self.label(n).upper()}", m)
                self._register(c, f"mass of {n}")
                self._mass_constants[n] = c
        self.spin_factor = spin_factor
        self.parent_form_factor = parent_form_factor
        _angular.spin_factor(spin_factor, f"model {self.name!r}")
        _angular.parent_form_factor(parent_form_factor, f"model {self.name!r}")
        self._parent_radius_spec = parent_radius
        self._parent_radius = None
        if parent_form_factor not in (None, "none"):
            self._model_parent_radius()
        self.variables = dict(variables) if variables else {
            f"m2_{self.pair_label(0, 1)}": (0, 1), f"m2_{self.pair_label(0, 2)}": (0, 2)}
        self.momenta = tuple(momenta) if momenta else None
        self._compiled = {}

    # ------------------------------------------------------------------
    # Particles
    # ------------------------------------------------------------------
    def _particle(self, spec, what):
        if isinstance(spec, (tuple, list)):
            if len(spec) != 2:
                raise ValueError(f"{what}: give a name or (name, mass), got {spec!r}")
            name, mass = spec
            mass = float(mass)
            if not mass >= 0:
                raise ValueError(f"{what} {name!r}: mass must be non-negative, got {mass!r}")
            return str(name), mass
        if not isinstance(spec, str):
            raise TypeError(f"{what}: give a particle name or (name, mass), got {spec!r}")
        return spec, particle_data.mass(spec, self.pdg_edition)

    def label(self, name):
        """Identifier label of a particle name (see ``labels``)."""
        return self.labels.get(name, _label(name))

    def pair_label(self, a, b):
        """``<label a>_<label b>`` of a pair, lower index first; identical
        particles get their index appended."""
        i, j = key(a, b)
        names = self.daughter_names
        out = []
        for k in (i, j):
            lab = self.label(names[k])
            if names.count(names[k]) > 1:
                lab += str(k + 1)
            out.append(lab)
        return "_".join(out)

    def mass_constant(self, which):
        """The mass constant of the parent ("parent") or a daughter (index)."""
        name = self.parent_name if which == "parent" else self.daughter_names[which]
        return self._mass_constants[name]

    @property
    def parent_mass(self):
        """Default parent mass (GeV)."""
        return self.mass_constant("parent").value

    def daughter_mass(self, index):
        """Default mass (GeV) of daughter ``index``."""
        return self.mass_constant(index).value

    def decay_description(self):
        """``name: parent -> daughters``."""
        return f"{self.name}: {self.parent_name} -> {' '.join(self.daughter_names)}"

    # ------------------------------------------------------------------
    # Quantities
    # ------------------------------------------------------------------
    def _register(self, q, owner):
        have = self._quantities.get(q.name)
        if have is not None:
            if have is q or (have.same_as(q) and have.kind == q.kind):
                return have
            raise ValueError(f"{owner}: {q.kind} {q.name!r} is declared twice (first by "
                             f"{self._owners[q.name]}, as {have!r})")
        self._quantities[q.name] = q
        self._owners[q.name] = owner
        return q

    def parameter(self, name, value, **options):
        """Declare a fit parameter (to share it by name); returns it.

        Parameters as :class:`vecampfit.isobar.Parameter`.
        """
        return self._register(Parameter(name, value, **options), f"model.parameter({name!r})")

    def constant(self, name, value):
        """Declare a named constant (to share it by name); returns it."""
        return self._register(Constant(name, value), f"model.constant({name!r})")

    def _resolve(self, spec, default_name, owner, default_step=None):
        if isinstance(spec, (Parameter, Constant)):
            return self._register(spec, owner)
        if isinstance(spec, str):
            if spec not in self._quantities:
                raise ValueError(f"{owner}: no parameter or constant named {spec!r} is declared "
                                 f"(declare it with model.parameter or model.constant)")
            return self._quantities[spec]
        if isinstance(spec, bool) or not isinstance(spec, (int, float, np.floating)):
            raise TypeError(f"{owner}: give a number, a name, a Parameter or a Constant, got "
                            f"{spec!r}")
        return self._register(Parameter(default_name, spec, step=default_step), owner)

    def parameter_names(self):
        """Fit parameters, in declaration order (the compiled density's order)."""
        used = set()
        for c in self.components:
            used.update(q.name for q in list(c.quantities.values())
                        + list(c.coupling_quantities.values()))
        return [n for n, q in self._quantities.items() if q.kind == "parameter" and n in used]

    def parameters(self):
        """The :class:`Parameter` objects, in :meth:`parameter_names` order."""
        return [self._quantities[n] for n in self.parameter_names()]

    def constant_defaults(self):
        """Constants name -> default value: masses first, then the model's own."""
        used = set()
        for c in self.components:
            used.update(q.name for q in list(c.quantities.values())
                        + list(c.coupling_quantities.values()))
            if c.scale is not None:
                used.add(c.scale.name)
        return {n: q.value for n, q in self._quantities.items() if q.kind == "constant"
                and (n in used or any(n == m.name for m in self._mass_constants.values()))}

    def values(self):
        """Starting values of the parameters, name -> value."""
        return {p.name: p.value for p in self.parameters()}

    # ------------------------------------------------------------------
    # Components
    # ------------------------------------------------------------------
    def _new_component(self, key_, label):
        if not isinstance(key_, str) or not key_.isidentifier():
            raise ValueError(f"component name {key_!r} is not an identifier")
        if any(c.key == key_ for c in self.components):
            raise ValueError(f"component {key_!r} is declared twice")
        self._compiled = {}
        return Component(key_, label or key_)

    def _pair_instances(self, pair, owner):
        if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
            raise ValueError(f"{owner}: pair must be two daughter names, got {pair!r}")
        names = self.daughter_names
        for p in pair:
            if p not in names:
                raise ValueError(f"{owner}: pair {tuple(pair)} names {p!r}, which is not a "
                                 f"daughter of {self.name} ({', '.join(names)})")
        if pair[0] == pair[1] and names.count(pair[0]) < 2:
            raise ValueError(f"{owner}: pair {tuple(pair)} needs two {pair[0]!r} in the final "
                             f"state")
        triples, seen = [], set()
        for a in range(3):
            for b in range(3):
                if a != b and names[a] == pair[0] and names[b] == pair[1] and key(a, b) not in seen:
                    seen.add(key(a, b))
                    triples.append((a, b, third(a, b)))
        return triples

    def _coupling(self, comp, coupling, owner):
        if isinstance(coupling, dict):
            coupling = dict(coupling)
            form = coupling.pop("form", None)
            if form not in COUPLING_FORMS:
                raise ValueError(f"{owner}: coupling form must be one of "
                                 f"{sorted(COUPLING_FORMS)}, got {form!r}")
            coupling = COUPLING_FORMS[form](**coupling)
        if not isinstance(coupling, (Polar, Cartesian)):
            raise TypeError(f"{owner}: coupling must be Polar(...) or Cartesian(...), got "
                            f"{coupling!r}")
        comp.coupling = coupling
        for role in coupling.roles:
            step = 0.1 if role == "phase" else None
            comp.coupling_quantities[role] = self._resolve(
                coupling.parts[role], f"{comp.key}_{coupling.suffixes[role]}",
                f"{owner} coupling {role}", step)
        if coupling.scale is not None:
            s = coupling.scale
            if not isinstance(s, (Constant, str)) and isinstance(s, (int, float)):
                s = Constant(f"{comp.key}_N", s)
            s = self._resolve(s, f"{comp.key}_N", f"{owner} coupling scale")
            if s.kind != "constant":
                raise ValueError(f"{owner}: the coupling scale must be a constant, got {s!r}")
            comp.scale = s

    def add_resonance(self, key, pair, spin, *, coupling, lineshape="breit_wigner_nophsp",
                      mass=None, width=None, radius=1.5, particle=None, label=None,
                      spin_factor=None, parent_form_factor=None, parent_radius=None, **roles):
        """Add a resonance in a pair of daughters.

        Parameters
        ----------
        key : str
            Identifier of the component; parameters made from numbers are
            named ``<key>_M`` (mass), ``<key>_G`` (width), ``<key>_R``
            (radius), ``<key>_A``/``<key>_P`` or ``<key>_RE``/``<key>_IM``
            (coupling), ``<key>_<ROLE>`` for other roles.
        pair : (str, str)
            Daughter names (A, B) of the pair; the order sets the angle
            conventions of the spin factor (C is the third daughter).
        spin : int
            Spin J = orbital angular momentum, 0..5 (the spin factor may
            allow fewer).
        coupling : Polar or Cartesian
        lineshape : str or Lineshape
            ``"breit_wigner_nophsp"``, ``"breit_wigner"``, ``"constant_width"``,
            ``"flatte"`` (options as a dict: ``{"name": "flatte", "channel2":
            ("K-", "eta'(958)")}``) or an object (:mod:`vecampfit.isobar.lineshapes`).
        mass, width, radius : float, str, Parameter or Constant
            Resonance mass and width (GeV; default from ``particle``) and
            Blatt-Weisskopf radius (GeV^-1).
        particle : str, optional
            PDG name of the resonance: default mass and width, and a check
            that the pair's charge matches.
        label : str, optional
            Display name (default ``particle`` or ``key``).
        spin_factor, parent_form_factor : str, optional
            Override the model's defaults for this resonance.
        parent_radius : optional
            Override the model's parent radius for this resonance.
        **roles
            Further quantities of the lineshape (Flatte's ``g1``, ``g2``).

        Raises
        ------
        ValueError
            Naming the resonance: a pair that is not in the final state or
            whose charge or threshold cannot produce it, a spin the spin
            factor does not support, an unknown lineshape, a parameter
            declared twice.
        """
        owner = f"resonance {key!r}"
        comp = self._new_component(key, label or particle)
        comp.options = {"pair_names": tuple(pair), "lineshape": lineshape, "particle": particle,
                        "spin_factor": spin_factor, "parent_form_factor": parent_form_factor}
        if isinstance(spin, bool) or not isinstance(spin, int) or not 0 <= spin <= 5:
            raise ValueError(f"{owner}: spin must be an integer 0..5, got {spin!r}")
        comp.spin = spin
        comp.instances = tuple(self._pair_instances(pair, owner))
        comp.pair = comp.instances[0][:2]
        comp.lineshape = _lineshapes.lineshape(lineshape, owner)
        if spin > comp.lineshape.max_spin:
            raise ValueError(f"{owner}: the lineshape {comp.lineshape.name!r} supports spin "
                             f"0..{comp.lineshape.max_spin}, not {spin}")
        if particle is not None:
            rec = particle_data.get(particle, self.pdg_edition)
            charge = sum(particle_data.get(self.daughter_names[i], self.pdg_edition).charge
                         for i in comp.pair)
            if rec.charge != charge:
                raise ValueError(f"{owner}: {particle} (charge {rec.charge}) cannot decay to the "
                                 f"pair {tuple(pair)} (charge {charge})")
            mass = rec.mass if mass is None else mass
            width = rec.width if width is None else width
        given = {"mass": mass, "width": width, "radius": radius, **roles}
        suffix = {"mass": "M", "width": "G", "radius": "R"}
        for role in comp.lineshape.roles:
            if given.get(role) is None:
                raise ValueError(f"{owner}: the lineshape {comp.lineshape.name!r} needs {role}=")
            comp.quantities[role] = self._resolve(
                given[role], f"{key}_{suffix.get(role, role.upper())}", f"{owner} {role}")
        unknown = set(roles) - set(comp.lineshape.roles)
        if unknown:
            raise ValueError(f"{owner}: the lineshape {comp.lineshape.name!r} has no "
                             f"{', '.join(sorted(unknown))} (its quantities: "
                             f"{', '.join(comp.lineshape.roles)})")
        if getattr(comp.lineshape, "channel2", None) is not None:
            for role, p in zip(("channel2_a", "channel2_b"), comp.lineshape.channel2):
                if isinstance(p, str):
                    m = (self._mass_constants[p] if p in self._mass_constants
                         else self._register(Constant(f"M_{self.label(p).upper()}",
                                                      particle_data.mass(p, self.pdg_edition)),
                                             f"{owner} second channel"))
                else:
                    m = self._register(Constant(f"{key}_{role.upper()}", float(p)), owner)
                comp.quantities[role] = m
        if "mass" not in comp.quantities and mass is not None:
            comp.quantities["mass"] = self._resolve(mass, f"{key}_M", f"{owner} mass")
        _check_not_negative(comp, owner)
        comp.lineshape.check(comp, self)
        factors = []
        pff = _angular.parent_form_factor(parent_form_factor or self.parent_form_factor, owner)
        if pff is not None and pff.applies(comp):
            factors.append(pff)
            if parent_radius is not None:
                comp.quantities["parent_radius"] = self._resolve(parent_radius, f"{key}_RP",
                                                                 f"{owner} parent radius")
            else:
                comp.quantities["parent_radius"] = self._model_parent_radius()
            _check_not_negative(comp, owner)
        sf = _angular.spin_factor(spin_factor or self.spin_factor, owner)
        if sf.applies(comp) and "mass" in sf.roles and "mass" not in comp.quantities:
            raise ValueError(f"{owner}: the spin factor {sf.name!r} needs the resonance mass")
        if sf.applies(comp):
            factors.append(sf)
        for f in factors:
            f.check(comp, self)
        if sf.max_spin < spin:
            raise ValueError(f"{owner}: the spin factor {sf.name!r} supports spin "
                             f"0..{sf.max_spin}, not {spin}")
        comp.factors = factors
        for f in factors:
            static = all(comp.quantities[r].kind == "constant" for r in f.roles)
            (comp.static_factors if static else comp.dynamic_factors).append(f)
        self._coupling(comp, coupling, owner)
        self.components.append(comp)
        return comp

    def _model_parent_radius(self):
        if self._parent_radius is None:
            self._parent_radius = self._resolve(
                self._parent_radius_spec, f"{self.label(self.parent_name).upper()}_R",
                "the model's parent radius")
        return self._parent_radius

    def add_nonresonant(self, key, coupling, label="non-resonant"):
        """Add a constant (non-resonant) term :math:`c\\,X` with :math:`X = 1`."""
        comp = self._new_component(key, label)
        comp.options = {"nonresonant": True}
        self._coupling(comp, coupling, f"component {key!r}")
        self.components.append(comp)
        return comp

    # ------------------------------------------------------------------
    # Plain-text description
    # ------------------------------------------------------------------
    def to_dict(self):
        """The model as plain data (see :meth:`save`)."""
        def spec(q):
            return q.to_dict()

        comps = []
        for c in self.components:
            d = {"key": c.key, "label": c.label,
                 "coupling": {"form": c.coupling.form,
                              **{r: spec(q) for r, q in c.coupling_quantities.items()},
                              "scale": spec(c.scale) if c.scale is not None else None}}
            if c.lineshape is not None:
                o = c.options
                d.update({"pair": list(o["pair_names"]), "spin": c.spin,
                          "lineshape": c.lineshape.to_dict(), "particle": o["particle"],
                          "spin_factor": o["spin_factor"],
                          "parent_form_factor": o["parent_form_factor"],
                          "quantities": {r: spec(q) for r, q in c.quantities.items()
                                         if not r.startswith("channel2")}})
            comps.append(d)
        pr = self._parent_radius or self._parent_radius_spec
        return {"format": "vecampfit.isobar 1", "name": self.name,
                "parent": self._spec["parent"], "daughters": self._spec["daughters"],
                "pdg_edition": self.pdg_edition, "labels": self.labels,
                "spin_factor": self.spin_factor, "parent_form_factor": self.parent_form_factor,
                "parent_radius": pr.to_dict() if hasattr(pr, "to_dict") else pr,
                "variables": {k: list(v) for k, v in self.variables.items()},
                "momenta": list(self.momenta) if self.momenta else None,
                "quantities": [q.to_dict() for q in self._quantities.values()],
                "components": comps}

    @classmethod
    def from_dict(cls, d, *, source="the model description"):
        """Inverse of :meth:`to_dict`.

        Parameters
        ----------
        d : dict
            The plain data of :meth:`to_dict`.
        source : str
            What ``d`` is, for messages (:meth:`load` gives the file).

        Raises
        ------
        ValueError
            Naming ``source`` and the place in ``d`` (``components[2].coupling``)
            of a missing key, a value of the wrong kind or a declaration the
            model refuses.
        """
        r = _DescriptionReader(source)
        r.mapping(d, "")
        if d.get("format") != "vecampfit.isobar 1":
            raise ModelDescriptionError(
                f"{source}: not a vecampfit.isobar model description (format "
                f"{d.get('format')!r}, expected 'vecampfit.isobar 1')")
        with r.at("parent_radius"):
            pr = r.get(d, "parent_radius", "")
            if isinstance(pr, dict):
                pr = r.quantity(pr, "parent_radius")

        def tup(x):
            return tuple(x) if isinstance(x, list) else x
        with r.at(""):
            variables = r.mapping(r.get(d, "variables", ""), "variables")
            m = cls(tup(r.get(d, "parent", "")),
                    [tup(x) for x in r.sequence(r.get(d, "daughters", ""), "daughters")],
                    name=r.get(d, "name", ""), pdg_edition=r.get(d, "pdg_edition", ""),
                    labels=r.get(d, "labels", ""), spin_factor=r.get(d, "spin_factor", ""),
                    parent_form_factor=r.get(d, "parent_form_factor", ""), parent_radius=pr,
                    variables={k: tuple(r.sequence(v, f"variables.{k}"))
                               for k, v in variables.items()},
                    momenta=d.get("momenta"))
        for i, q in enumerate(r.sequence(d.get("quantities", ()), "quantities")):
            with r.at(f"quantities[{i}]"):
                q = r.quantity(q, f"quantities[{i}]")
                if q.name in m._quantities:
                    m._quantities[q.name].value = q.value
                else:
                    m._register(q, "the model description")
        for i, c in enumerate(r.sequence(r.get(d, "components", ""), "components")):
            where = f"components[{i}]"
            r.mapping(c, where)
            with r.at(f"{where}.coupling"):
                cp = dict(r.mapping(r.get(c, "coupling", where), f"{where}.coupling"))
                form = r.get(cp, "form", f"{where}.coupling")
                cp.pop("form")
                scale = cp.pop("scale", None)
                if form not in COUPLING_FORMS:
                    raise ValueError(f"coupling form {form!r} is not one of "
                                     f"{sorted(COUPLING_FORMS)}")
                cls_ = COUPLING_FORMS[form]
                coupling = cls_(*(r.quantity(r.get(cp, role, f"{where}.coupling"),
                                             f"{where}.coupling.{role}")
                                  for role in cls_.roles),
                                scale=r.quantity(scale, f"{where}.coupling.scale") if scale
                                else None)
            with r.at(where):
                if "lineshape" not in c:
                    m.add_nonresonant(r.get(c, "key", where), coupling,
                                      label=r.get(c, "label", where))
                    continue
                quantities = r.mapping(r.get(c, "quantities", where), f"{where}.quantities")
                q = {role: r.quantity(v, f"{where}.quantities.{role}")
                     for role, v in quantities.items()}
                kw = {role: q.pop(role) for role in list(q) if role not in ("parent_radius",)}
                if "parent_radius" in q and q["parent_radius"].name != (
                        m._parent_radius.name if m._parent_radius else None):
                    kw["parent_radius"] = q["parent_radius"]
                ls = r.mapping(r.get(c, "lineshape", where), f"{where}.lineshape")
                m.add_resonance(r.get(c, "key", where), tuple(r.sequence(r.get(c, "pair", where),
                                                                         f"{where}.pair")),
                                r.get(c, "spin", where), coupling=coupling,
                                lineshape=ls if len(ls) > 1 else r.get(ls, "name",
                                                                       f"{where}.lineshape"),
                                particle=c.get("particle"), label=c.get("label"),
                                spin_factor=c.get("spin_factor"),
                                parent_form_factor=c.get("parent_form_factor"), **kw)
        return m

    def freeze(self, names=None):
        """A copy of the model with parameters turned into constants.

        The copy's compiled density has no gradient rows for them and skips
        their derivatives (a model compiled for one configuration of free
        parameters, for example masses and widths fixed in a fit); their
        values stay settable through ``constants=``.

        Parameters
        ----------
        names : iterable of str, optional
            Parameters to freeze; default: those declared ``fixed=True``.

        Returns
        -------
        IsobarModel

        Raises
        ------
        ValueError
            A name that is not a parameter of the model.
        """
        params = {p.name: p for p in self.parameters()}
        if names is None:
            names = [n for n, p in params.items() if p.fixed]
        names = set(names)
        unknown = names - set(params)
        if unknown:
            raise ValueError(f"model {self.name!r}: cannot freeze {sorted(unknown)}, not "
                             f"parameters of the model")

        def walk(x):
            if isinstance(x, dict):
                if x.get("kind") == "parameter" and x.get("name") in names:
                    return {"kind": "constant", "name": x["name"], "value": x["value"]}
                return {k: walk(v) for k, v in x.items()}
            if isinstance(x, list):
                return [walk(v) for v in x]
            return x
        return IsobarModel.from_dict(walk(self.to_dict()))

    def cartesian(self):
        """A copy of the model with its polar couplings in real and imaginary parts.

        Every :class:`~vecampfit.isobar.Polar` coupling
        :math:`a e^{i\\phi}` becomes a :class:`~vecampfit.isobar.Cartesian`
        one with parameters ``<component>_RE`` :math:`= a\\cos\\phi` and
        ``<component>_IM`` :math:`= a\\sin\\phi` (constants if magnitude
        and phase are constants), taking the magnitude's step and random
        change and the fixed status of both; bounds are dropped.  The
        density is the same function of the events.  Real and imaginary
        parts are the form whose estimates are unbiased and Gaussian for
        small couplings, where a magnitude (never negative) is biased upward
        by about :math:`\\sigma_\\perp^2/(2a)`, :math:`\\sigma_\\perp` the
        error across the coupling.

        Returns
        -------
        IsobarModel

        Raises
        ------
        ValueError
            A magnitude or phase shared with another component, one of them
            fixed and the other free (or one a constant), or a new name
            already in use, each naming the component.
        """
        d = self.to_dict()
        uses = {}

        def count(x):
            if isinstance(x, dict):
                if x.get("kind") in ("parameter", "constant"):
                    uses[x["name"]] = uses.get(x["name"], 0) + 1
                else:
                    for v in x.values():
                        count(v)
            elif isinstance(x, list):
                for v in x:
                    count(v)
        count(d["components"])
        removed = set()
        for c in d["components"]:
            cp = c["coupling"]
            if cp["form"] != "polar":
                continue
            owner = f"model {self.name!r}, component {c['key']!r}"
            mag, phase = cp["magnitude"], cp["phase"]
            for q in (mag, phase):
                if uses[q["name"]] > 1:
                    raise ValueError(f"{owner}: its coupling shares {q['name']!r} with another "
                                     f"component; no Cartesian form keeps that sharing")
            if mag["kind"] != phase["kind"] or (mag["kind"] == "parameter"
                                                and mag["fixed"] != phase["fixed"]):
                raise ValueError(f"{owner}: magnitude {mag['name']!r} and phase "
                                 f"{phase['name']!r} are not both fixed or both free")
            z = complex(mag["value"]) * np.exp(1j * np.radians(phase["value"]))
            parts = {}
            for role, suffix, v in (("re", "RE", z.real), ("im", "IM", z.imag)):
                name = f"{c['key']}_{suffix}"
                if name in self._quantities and name not in (mag["name"], phase["name"]):
                    raise ValueError(f"{owner}: {name!r} is already a quantity of the model")
                if mag["kind"] == "constant":
                    parts[role] = {"kind": "constant", "name": name, "value": float(v)}
                else:
                    parts[role] = {"kind": "parameter", "name": name, "value": float(v),
                                   "step": mag["step"], "lower": 0.0, "upper": 0.0,
                                   "fixed": mag["fixed"], "random_change": mag["random_change"]}
            removed |= {mag["name"], phase["name"]}
            c["coupling"] = {"form": "cartesian", **parts, "scale": cp["scale"]}
        d["quantities"] = [q for q in d["quantities"] if q["name"] not in removed]
        return IsobarModel.from_dict(d)

    def save(self, path):
        """Write the model and its starting values as JSON (or YAML for
        ``.yaml``/``.yml``, with PyYAML installed).

        The file is written atomically (:mod:`vecampfit.atomic_files`): it
        holds the old content or the complete new one, never a part.

        Parameters
        ----------
        path : str or os.PathLike

        Raises
        ------
        ImportError
            A YAML file without PyYAML (``path`` is left unchanged).
        FileNotFoundError
            If the folder of ``path`` does not exist.
        """
        from vecampfit.atomic_files import atomic_write_text
        d = self.to_dict()
        if str(path).endswith((".yaml", ".yml")):
            try:
                import yaml
            except ImportError:
                raise ImportError(f"cannot write {os.fspath(path)} as YAML: PyYAML is not "
                                  f"installed (pip install pyyaml), or save as .json; the file "
                                  f"is unchanged") from None
            text = yaml.safe_dump(d, sort_keys=False)
        else:
            text = json.dumps(d, indent=1) + "\n"
        atomic_write_text(path, text)

    @classmethod
    def load(cls, path):
        """Read a model written by :meth:`save`.

        Parameters
        ----------
        path : str or os.PathLike
            A JSON file, or YAML for ``.yaml``/``.yml`` (with PyYAML).

        Returns
        -------
        IsobarModel

        Raises
        ------
        ModelDescriptionError
            (a ``ValueError``) A file that is not UTF-8, not valid JSON or
            YAML, empty, not a mapping, or whose description lacks a key or
            holds a value the model refuses; the message names the file
            and the place in it (line and column, or the path of keys such
            as ``components[2].coupling.magnitude``).
        ImportError
            A YAML file without PyYAML.
        """
        name = os.fspath(path)
        yaml_file = str(name).endswith((".yaml", ".yml"))
        if yaml_file:
            try:
                import yaml
            except ImportError:
                raise ImportError(f"cannot read {name}: it is YAML and PyYAML is not installed "
                                  f"(pip install pyyaml)") from None
        with open(path, "rb") as f:
            raw = f.read()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = raw[:exc.start].count(b"\n") + 1
            raise ModelDescriptionError(f"{name}: line {line}: byte {raw[exc.start]:#04x} is not "
                                        f"UTF-8 (model files are UTF-8 text)") from None
        if not text.strip():
            raise ModelDescriptionError(f"{name}: the file is empty (expected a model "
                                        f"description written by IsobarModel.save)")
        if yaml_file:
            try:
                d = yaml.safe_load(text)
            except yaml.YAMLError as exc:
                raise ModelDescriptionError(f"{name}: not valid YAML: {exc}") from None
        else:
            try:
                d = json.loads(text)
            except json.JSONDecodeError as exc:
                raise ModelDescriptionError(f"{name}: line {exc.lineno} column {exc.colno}: not "
                                            f"valid JSON: {exc.msg}") from None
        return cls.from_dict(d, source=f"model file {name}")

    # ------------------------------------------------------------------
    # Parameter table
    # ------------------------------------------------------------------
    def parameter_table(self, values=None):
        """The fit's :class:`vecampfit.fitter.ParameterTable` (starting values,
        steps, bounds; fixed parameters have step 0)."""
        from vecampfit.fitter import FitParameter
        from vecampfit.fitter import ParameterTable
        values = values or {}
        out = []
        for p in self.parameters():
            step = 0.0 if p.fixed else (p.step if p.step is not None else 1e-3)
            out.append(FitParameter(p.name, float(values.get(p.name, p.value)), step, p.lower,
                                    p.upper, p.random_change))
        return ParameterTable(out, source=f"isobar model {self.name!r}")

    def parameter_file_text(self, values=None):
        """The parameter table in the paper's file format (name, value, step,
        lower, upper, random change)."""
        from vecampfit.fitter.parameters import format_parameter_table
        return format_parameter_table(self.parameter_table(values))

    def write_parameter_file(self, path, values=None):
        """Write :meth:`parameter_file_text` to ``path``."""
        from vecampfit.fitter.parameters import write_parameter_file
        write_parameter_file(path, self.parameter_table(values))

    # ------------------------------------------------------------------
    # Events and the numpy evaluation
    # ------------------------------------------------------------------
    def _all_values(self, params=None, constants=None):
        values = {n: q.value for n, q in self._quantities.items()}
        if params is not None:
            if isinstance(params, dict):
                unknown = set(params) - set(self.parameter_names())
                if unknown:
                    raise ValueError(f"model {self.name!r} has no parameter(s) "
                                     f"{sorted(unknown)}")
                values.update({k: float(v) for k, v in params.items()})
            else:
                params = np.asarray(params, dtype=np.float64)
                names = self.parameter_names()
                if params.shape != (len(names),):
                    raise ValueError(f"model {self.name!r}: expected {len(names)} parameters "
                                     f"({', '.join(names)}), got shape {params.shape}")
                values.update(zip(names, params.tolist()))
        for k, v in (constants or {}).items():
            if k not in values or self._quantities[k].kind != "constant":
                raise ValueError(f"model {self.name!r} has no constant {k!r}")
            values[k] = float(v)
        return values

    def kinematics(self, records, constants=None):
        """:class:`~vecampfit.isobar._kinematics.DalitzKinematics` of event records
        (branches of ``variables`` or ``momenta``; or ``s`` as dict pair -> m^2)."""
        values = self._all_values(constants=constants)
        mp = values[self.mass_constant("parent").name]
        masses = [values[self.mass_constant(k).name] for k in range(3)]
        s = dalitz_from_records(records, self.variables, self.momenta, mp, masses)
        return DalitzKinematics(s, mp, masses)

    def component_amplitudes(self, records, params=None, constants=None):
        """X_k of every component in numpy (the reference evaluation).

        Parameters
        ----------
        records : dict of array_like
            Event records (see :meth:`kinematics`).
        params : dict or array_like, optional
            Parameter values (default: starting values).
        constants : dict, optional
            Constant values (default: the model's).

        Returns
        -------
        dict
            Component key -> complex array (no coupling).
        """
        values = self._all_values(params, constants)
        kin = self.kinematics(records, constants)
        n = len(next(iter(kin.s.values())))
        out = {}
        for c in self.components:
            if c.lineshape is None:
                out[c.key] = np.ones(n, dtype=complex)
                continue
            total = 0
            for inst in c.instances:
                x = c.lineshape.numpy(kin, c, inst, values)
                for f in c.factors:
                    x = x * f.numpy(kin, c, inst, values)
                total = total + x
            out[c.key] = np.asarray(total, dtype=complex)
        return out

    def couplings(self, params=None, constants=None, scale=True):
        """Complex couplings c_k, component key -> complex (with ``scale``
        False, without their constant scale n)."""
        values = self._all_values(params, constants)
        out = {}
        for c in self.components:
            parts = {r: values[q.name] for r, q in c.coupling_quantities.items()}
            n = values[c.scale.name] if c.scale is not None and scale else 1.0
            out[c.key] = c.coupling.value(parts, n)
        return out

    def amplitude(self, records, params=None, constants=None):
        """A = sum_k c_k X_k in numpy (complex array)."""
        comps = self.component_amplitudes(records, params, constants)
        cs = self.couplings(params, constants)
        return sum(cs[k] * comps[k] for k in comps)

    def density(self, records, params=None, constants=None):
        """:math:`S = |A|^2` in numpy."""
        a = self.amplitude(records, params, constants)
        return a.real ** 2 + a.imag ** 2

    # ------------------------------------------------------------------
    # Code generation
    # ------------------------------------------------------------------
    def source(self):
        """The Cython source of the model's block density (see
        ``vecampfit.isobar._codegen``)."""
        from ._codegen import generate
        unused = [n for n, q in self._quantities.items() if q.kind == "parameter"
                  and n not in self.parameter_names() and q is not self._parent_radius]
        if unused:
            raise ValueError(f"model {self.name!r}: parameter(s) {unused} are declared but used "
                             f"by no component")
        if not self.components:
            raise ValueError(f"model {self.name!r} has no components")
        return generate(self)[0]

    def layout(self):
        """Names, event fields (with their numpy functions) and buffer slots of
        the generated module (``vecampfit.isobar._codegen.Layout``)."""
        from ._codegen import generate
        return generate(self)[1]

    def event_fields(self, records, constants=None, layout=None):
        """The compiled density's event-buffer fields of event records (dict
        field -> float64 array)."""
        layout = layout or self.layout()
        if all(f in records for f in layout.fields):
            return {f: records[f] for f in layout.fields}
        values = self._all_values(constants=constants)
        kin = self.kinematics(records, constants)
        bad = kin.outside()
        if bad.size:
            j = int(bad[0])
            where = ", ".join(f"m{i + 1}{k + 1}^2 = {float(v[j])!r}" for (i, k), v in
                              sorted(kin.s.items()))
            raise ValueError(f"model {self.name!r}: {bad.size} event(s) outside the Dalitz plot "
                             f"of {self.parent_name} -> {' '.join(self.daughter_names)} "
                             f"(masses {kin.M!r} -> "
                             f"{list(kin.masses)!r} GeV), the first at index {j} ({where} "
                             f"GeV^2)")
        return {name: np.asarray(fn(kin, values), dtype=np.float64) * np.ones_like(kin.s[(0, 1)])
                for name, fn in layout.fields.items()}

    def amplitude_model(self):
        """The model as a :class:`~vecampfit.amplitudes.AmplitudeModel` (one helicity
        channel, one group, one component per resonance).

        The same expressions as the isobar layer's own generated code (the
        terms of every lineshape written on the expression layer, times their
        spin factors and form factors, summed over the ordered triples of the
        pair), so that both give the same density: the spinless three-body
        decay as the special case of the helicity-amplitude models.  The
        pair invariants and event-only factors are event functions of the
        records, computed from the model's kinematics.

        Raises
        ------
        ValueError
            For a lineshape of the user's own written as a Cython block
            routine (not an expression).

        Returns
        -------
        AmplitudeModel
        """
        from vecampfit.amplitudes import AmplitudeModel, ModelParameter
        from ._codegen import Layout, _leaf
        from .lineshapes import ExpressionLineshape
        layout = Layout(self)
        params = [ModelParameter(p.name, p.value, step=p.step if p.step else None,
                                 fixed=p.fixed, lower=p.lower, upper=p.upper)
                  for p in self.parameters()]
        parts = []
        for comp in self.components:
            q = comp.coupling_quantities
            coupling = comp.coupling.expression({r: _leaf(x) for r, x in q.items()},
                                                None if comp.scale is None else _leaf(comp.scale))
            if comp.lineshape is None:
                factor = 1.0
            elif isinstance(comp.lineshape, ExpressionLineshape) and \
                    comp.lineshape.includes_factors(comp):
                terms = [comp.lineshape._bound(comp, inst, layout) for inst in comp.instances]
                factor = terms[0]
                for t in terms[1:]:
                    factor = factor + t
            else:
                raise ValueError(f"model {self.name!r}: component {comp.key!r} has a lineshape "
                                 "or factor that is not written on the expression layer")
            parts.append((comp.key, coupling, factor))

        def function(fn):
            def compute(records, constants):
                return fn(self.kinematics(records, constants), self._all_values(
                    constants={k: v for k, v in constants.items()
                               if k in self._quantities
                               and self._quantities[k].kind == "constant"}))
            return compute
        model = AmplitudeModel(self.name, [()], params, constants=self.constant_defaults(),
                               event_functions={n: function(fn)
                                                for n, fn in layout.event_leaves.items()})
        model.add_group("isobar")
        for key, coupling, factor in parts:
            model.add_component(key, "isobar", coupling, factor, {(): 1.0})
        return model

    def compile(self, vector_lengths=(8,), *, directory=None, name=None, **options):
        """Write the Cython source and compile it for the vector lengths.

        Parameters
        ----------
        vector_lengths : iterable of int
        directory : str, optional
            Where the source ``<name>.pyx`` is written (and kept, for the user
            to read); default ``<compile cache>/isobar``.
        name : str, optional
            Module name; default from the model name and a digest of the source.
        **options
            Passed to :func:`vecampfit.model_compiler.compile_model`.

        Returns
        -------
        CompiledIsobarModel
        """
        from vecampfit.model_compiler import compile_model, default_cache_dir
        text = self.source()
        if name is None:
            # The model's name and the source's digest: two models never share a file.
            import hashlib
            name = "isobar_" + "".join(ch if ch.isalnum() else "_" for ch in self.name).strip("_")
            while "__" in name:
                name = name.replace("__", "_")
            name += "_" + hashlib.sha256(text.encode()).hexdigest()[:10]
        directory = directory or os.path.join(options.get("build_dir") or default_cache_dir(),
                                              "isobar")
        os.makedirs(directory, exist_ok=True)
        path = os.path.join(directory, name + ".pyx")
        old = open(path).read() if os.path.exists(path) else None
        if old != text:
            tmp = path + ".tmp"
            with open(tmp, "w") as f:
                f.write(text)
            os.replace(tmp, path)
        modules = compile_model(path, list(vector_lengths), name=name, **options)
        return CompiledIsobarModel(self, modules, path)


class CompiledIsobarModel:
    """A compiled isobar model: densities for the fitter and component amplitudes.

    Attributes
    ----------
    model : IsobarModel
    modules : dict of int to module
        The compiled modules by vector length.
    source_path : str
        The generated Cython source (read it, or copy and edit it as a
        hand-written model).
    """

    def __init__(self, model, modules, source_path):
        self.model = model
        self.modules = modules
        self.source_path = source_path
        self._layout = model.layout()

    @property
    def parameters(self):
        """The compiled density's parameter names, in its order."""
        return tuple(self._layout.parameters)

    def _module(self, vector_length):
        from vecampfit.model_compiler import module_for_length
        return module_for_length(self.modules, vector_length, self.model.name)

    def fill_event_buffer(self, records, constants):
        """Event-buffer fields from event records (the density's ``fill_event_buffer``)."""
        return self.model.event_fields(records, constants, self._layout)

    def density(self, precision="float64", vector_length=None, *, constants=None, gradient=True,
                name=None):
        """A :class:`vecampfit.fitter.Density` of the model (block form)."""
        from vecampfit.fitter import Density
        return Density.from_model(self._module(vector_length), precision, constants=constants,
                                  gradient=gradient, fill_event_buffer=self.fill_event_buffer,
                                  name=name or self.model.name)

    def _constant_vector(self, constants):
        values = dict(self._layout.constants)
        for k, v in (constants or {}).items():
            if k not in values:
                raise ValueError(f"model {self.model.name!r} has no constant {k!r}")
            values[k] = float(v)
        return np.array(list(values.values()) or [0.0], dtype=np.float64)

    def parameter_buffer(self, params, constants=None, precision="float64", vector_length=None):
        """The filled parameter buffer (numpy array)."""
        mod = self._module(vector_length)
        dtype = np.dtype(precision)
        p = np.ascontiguousarray(self._param_vector(params), dtype=dtype)
        buf = np.zeros(max(len(self._layout.slots), 1), dtype=dtype)
        mod.fill(p, self._constant_vector(constants), buf)
        return buf

    def _param_vector(self, params):
        names = self._layout.parameters
        if params is None:
            vals = self.model.values()
            return np.array([vals[n] for n in names] or [0.0])
        if isinstance(params, dict):
            vals = self.model.values()
            vals.update(params)
            return np.array([vals[n] for n in names] or [0.0])
        params = np.asarray(params, dtype=np.float64)
        if params.shape != (len(names),):
            raise ValueError(f"model {self.model.name!r}: expected {len(names)} parameters, got "
                             f"shape {params.shape}")
        return params if len(names) else np.zeros(1)

    def component_amplitudes(self, records, params=None, constants=None, precision="float64",
                             vector_length=None):
        """X_k of every component from the compiled kernel, times the constant
        scale n of its coupling (``model.couplings(..., scale=False)`` gives the
        couplings that multiply them).

        Returns
        -------
        numpy.ndarray
            Complex, shape (n_components, n_events), rows in the order of
            ``model.components``.
        """
        mod = self._module(vector_length)
        length = mod.vecampfit_model()["vector_length"]
        dtype = np.dtype(precision)
        fields = self.fill_event_buffer(records, self._constants_dict(constants))
        names = list(self._layout.fields)
        n = len(np.asarray(fields[names[0]])) if names else 0
        nb = -(-n // length)
        blocks = np.zeros((len(names), nb * length), dtype=dtype)
        for k, f in enumerate(names):
            blocks[k, :n] = fields[f]
        if n < nb * length:
            blocks[:, n:] = blocks[:, :1]
        blocks = np.ascontiguousarray(blocks.reshape(len(names), nb, length).transpose(1, 0, 2))
        buf = self.parameter_buffer(params, constants, precision, vector_length)
        out = np.zeros((nb, 2 * len(self.model.components), length), dtype=dtype)
        mod.evaluate_components(blocks, buf, out)
        out = out.transpose(1, 0, 2).reshape(2 * len(self.model.components), nb * length)[:, :n]
        return out[0::2].astype(np.float64) + 1j * out[1::2].astype(np.float64)

    def _constants_dict(self, constants):
        values = dict(self._layout.constants)
        values.update(constants or {})
        return values

    def component_kernel(self, precision="float64", vector_length=None):
        """The block function of the component amplitudes as a capsule."""
        return self._module(vector_length).component_kernel(precision)
