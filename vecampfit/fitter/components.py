r"""Component amplitudes and their couplings: the cached evaluation of a fit.

A model whose amplitude is a sum of components,

.. math::

    A(\Phi) = \sum_k c_k X_k(\Phi), \qquad S(\Phi) = |A(\Phi)|^2,

with couplings :math:`c_k` that are functions of a few parameters
(magnitude and phase, or real and imaginary part), and :math:`X_k` that do
not depend on them, may describe its components to the fitter
(``component_description`` in ``vecampfit/fitter/density.pxd``).  When only
couplings (and background fractions or yields) move, the likelihood then
keeps :math:`X_k` at the data events and the matrix

.. math::

    M_{kl} = \sum_j w_j X_k(\Phi_j) \overline{X_l(\Phi_j)}

of the normalization events, and evaluates

.. math::

    S_i = \Big|\sum_k c_k X_{ik}\Big|^2, \qquad
    I_S = \sum_{kl} c_k \bar c_l M_{kl} = c^T M \bar c,

and, for a parameter :math:`\theta` of the couplings,

.. math::

    \sum_i r_i \frac{\partial S_i}{\partial \theta}
        = 2\,\mathrm{Re} \sum_k \frac{\partial c_k}{\partial \theta}
          \sum_i r_i \bar A_i X_{ik}, \qquad
    \frac{\partial I_S}{\partial \theta}
        = 2\,\mathrm{Re} \sum_k \frac{\partial c_k}{\partial \theta} (M \bar c)_k,

at a cost of :math:`O(N_\text{data} K + K^2)` per call instead of a whole
evaluation of the model at every data and normalization event.  The cache
holds :math:`X` in complex128 (16 bytes per data event and component) and
is rebuilt when a parameter that is not a coupling changes.
"""

import warnings

import numpy as np

from ._signatures import function_pointer, parse_signature
from .errors import DensityError

__all__ = ["COUPLING_FORMS", "ChannelWeights", "Components"]

#: Coupling forms: c = a exp(i phi) with the phase phi in degrees
#: (``"polar_degrees"``) or in radians (``"polar_radians"``), c = x + i y
#: (``"cartesian"``), or a fixed complex number (``"fixed"``).
COUPLING_FORMS = ("polar_degrees", "polar_radians", "cartesian", "fixed")

#: Spellings of coupling forms that are still read, with what they mean now.
#: ``"polar"`` was the fitter's name for radians, while a ``"polar"`` coupling
#: of the isobar layer (:class:`vecampfit.isobar.Polar`) takes degrees.
DEPRECATED_FORMS = {"polar": "polar_radians"}


def canonical_form(form, owner="density", component=None):
    """The name of a coupling form in :data:`COUPLING_FORMS`.

    Parameters
    ----------
    form : str
        A name of :data:`COUPLING_FORMS`, or a deprecated spelling
        (:data:`DEPRECATED_FORMS`: ``"polar"``, read as ``"polar_radians"``
        with a :class:`DeprecationWarning`).
    owner, component : str
        For messages.

    Returns
    -------
    str

    Raises
    ------
    DensityError
        An unknown form.
    """
    where = f"{owner}: component {component}" if component is not None else owner
    if form in DEPRECATED_FORMS:
        new = DEPRECATED_FORMS[form]
        warnings.warn(f"{where}: the coupling form {form!r} is deprecated: it means a phase in "
                      f"radians here and in degrees in the isobar layer; write {new!r} (or "
                      f"'polar_degrees' for degrees)", DeprecationWarning, stacklevel=3)
        return new
    if form not in COUPLING_FORMS:
        raise DensityError(f"{where}: unknown coupling form {form!r} (forms: "
                           f"{', '.join(COUPLING_FORMS)})")
    return form


class Components:
    """The components of a density and the parameters of their couplings.

    Parameters
    ----------
    names : sequence of str
        One name per component.
    couplings : sequence of tuple
        Per component ``(form, first, second[, scale])``: ``("polar_degrees",
        magnitude, phase)`` (phase in degrees), ``("polar_radians",
        magnitude, phase)`` (phase in radians; ``"polar"`` is read as this
        with a :class:`DeprecationWarning`) or
        ``("cartesian", real, imaginary)``, each a parameter name of the
        density, the name of one of its constants, or a number (both fixed
        in the fit), or ``("fixed", real, imaginary)``; the
        optional ``scale`` (a number or the name of a model constant)
        multiplies the coupling.
    function : scipy.LowLevelCallable
        The block function writing :math:`X_k` (real part at ``2 k L + i``,
        imaginary part at ``(2 k + 1) L + i``).
    parameters : sequence of str
        The density's parameter names, in its order.
    owner : str
        Name of the density (for messages).
    constants : dict, optional
        The density's constants (for scales given by name).
    depends : sequence of sequence of str, optional
        Per component, the names of the density's parameters its
        :math:`X_k` depends on (none of them a coupling's).
    channels : int
        H: the density is :math:`S = \\sum_h |\\sum_k c_k X_{kh}|^2` over H
        channels (helicities), and ``function`` writes :math:`X_{kh}` as the
        component ``k H + h`` (default 1: :math:`S = |\\sum_k c_k X_k|^2`).
    coupling_function : callable, optional
        Instead of ``couplings`` (give None): ``coupling_function(params)
        -> (c, jacobian)``, the couplings (complex, K) and :math:`\\partial
        c_k / \\partial p_j` (complex, (K, n_parameters)) at the density's
        parameters, with an attribute ``parameters``, the names of the
        parameters the couplings depend on.
    channel_weights : ChannelWeights, optional
        With several channels: the density is the Hermitian form
        :math:`S = \\sum_{(h, h', e)} \\mathrm{Re}[w_e A_h \\bar A_{h'}]`,
        :math:`A_h = \\sum_k c_k X_{kh}`, with weights :math:`w_e` of the
        parameters (a polarized parent's spin-density matrix, the
        orientation of each event folded into its :math:`X_{kh}`); the
        weights' parameters are then neither the couplings' nor those the
        :math:`X_k` depend on, and a change of them keeps the cache.
    single : sequence of scipy.LowLevelCallable, optional
        Per component, its block function alone (real part of lane ``i`` at
        ``i``, imaginary part at ``L + i``), of the same precision and L as
        ``function``.  With ``depends``, a fit in which parameters of the
        :math:`X_k` move recomputes only the components that depend on them.

    Attributes
    ----------
    n_components : int
    coupling_parameters : numpy.ndarray
        Indices (into the density's parameters) of the couplings' parameters.
    other_parameters : numpy.ndarray
        Indices of the density's other parameters (those the :math:`X_k`
        may depend on).
    depends : list of numpy.ndarray or None
        Per component, the indices of the parameters its :math:`X_k`
        depends on (None: not declared).
    single_pointers : list of int or None
        Per component, the address of its function alone.
    undeclared_parameters : numpy.ndarray
        Indices of the parameters that are neither a coupling's nor in any
        component's dependencies (a change of one recomputes every
        component).

    Raises
    ------
    DensityError
        An unknown coupling form, a parameter the density does not have, or
        one parameter given as both of a coupling's.
    """

    def __init__(self, names, couplings, function, parameters, owner="density", constants=None,
                 depends=None, single=None, channels=1, coupling_function=None,
                 channel_weights=None):
        self.names = tuple(names)
        self.owner = owner
        parameters = tuple(parameters)
        constants = dict(constants or {})
        self.channels = int(channels)
        if self.channels < 1:
            raise DensityError(f"{owner}: {channels} channels (at least one)")
        self._coupling_function = coupling_function
        if coupling_function is not None:
            couplings = [("fixed", 0.0, 0.0)] * len(self.names)
            unknown = [q for q in coupling_function.parameters if q not in parameters]
            if unknown:
                raise DensityError(f"{owner}: the couplings depend on {unknown}, which are not "
                                   f"parameters of the density")
        if len(couplings) != len(self.names):
            raise DensityError(f"{owner}: {len(couplings)} couplings for {len(self.names)} "
                               f"components")
        self._forms = []
        used = {}
        for name, c in zip(self.names, couplings):
            if len(c) not in (3, 4) or (c[0] not in COUPLING_FORMS
                                        and c[0] not in DEPRECATED_FORMS):
                raise DensityError(f"{owner}: component {name}: coupling {c!r} is not (form, a, "
                                   f"b[, scale]) with a form of {COUPLING_FORMS}")
            form, a, b = c[:3]
            form = canonical_form(form, owner, name)
            scale = c[3] if len(c) == 4 else 1.0
            if isinstance(scale, str):
                if scale not in constants:
                    raise DensityError(f"{owner}: component {name}: the coupling's scale "
                                       f"{scale!r} is not a constant of the model")
                scale = constants[scale]
            scale = float(scale)
            if form == "fixed":
                self._forms.append((form, scale * complex(float(a), float(b)), None, 1.0))
                continue
            idx = []
            for q in (a, b):
                if isinstance(q, str) and q not in parameters and q in constants:
                    q = float(constants[q])       # a model constant: fixed in the fit
                if isinstance(q, str):
                    if q not in parameters:
                        raise DensityError(f"{owner}: component {name}: coupling parameter "
                                           f"{q!r} is not a parameter (or constant) of the "
                                           f"density")
                    # A parameter may be shared by the couplings of several
                    # components (a common phase): the Jacobian sums them.
                    used.setdefault(q, name)
                    idx.append(parameters.index(q))
                else:
                    idx.append(float(q))            # a fixed magnitude, phase, ...
            if isinstance(a, str) and a == b:
                raise DensityError(f"{owner}: component {name}: the coupling's two parameters "
                                   f"are both {a!r}")
            self._forms.append((form, idx[0], idx[1], scale))
        self._coupling_arrays = self._arrays(self._forms, len(parameters))
        if coupling_function is not None:
            used = dict.fromkeys(coupling_function.parameters)
        self.coupling_parameters = np.array(sorted(parameters.index(p) for p in used),
                                            dtype=np.intp)
        self.channel_weights = channel_weights
        weight_parameters = []
        if channel_weights is not None:
            weight_parameters = self._check_weights(channel_weights, parameters, used, owner)
        self.weight_parameters = np.array(weight_parameters, dtype=np.intp)
        moving = set(self.coupling_parameters.tolist()) | set(weight_parameters)
        self.other_parameters = np.array([k for k in range(len(parameters)) if k not in moving],
                                         dtype=np.intp)
        self.n_parameters = len(parameters)
        self.function = function
        self.precision, self.vector_length = parse_signature(function.signature, "components")
        self.function_pointer = function_pointer(function)
        self.depends = None
        self.single_pointers = None
        self.undeclared_parameters = np.zeros(0, dtype=np.intp)
        self._single = None
        if (depends is None) != (single is None):
            raise DensityError(f"{owner}: components need both depends and single functions, "
                               f"or neither")
        if depends is not None:
            self._set_partial(depends, single, parameters, owner)

    def _check_weights(self, weights, parameters, coupling_parameters, owner):
        """Indices of the weights' parameters, after the checks."""
        if self.channels < 2:
            raise DensityError(f"{owner}: channel weights need several channels")
        pairs = weights.pairs
        if (pairs.ndim != 2 or pairs.shape[1] != 3 or pairs.shape[0] == 0
                or pairs[:, :2].min() < 0 or pairs[:, :2].max() >= self.channels
                or pairs[:, 2].min() < 0 or pairs[:, 2].max() >= weights.n_weights):
            raise DensityError(f"{owner}: channel weights: pairs (h, h', e) out of range for "
                               f"{self.channels} channels and {weights.n_weights} weights")
        out = []
        for q in weights.parameters:
            if q not in parameters:
                raise DensityError(f"{owner}: the channel weights depend on {q!r}, which is "
                                   f"not a parameter of the density")
            if q in coupling_parameters:
                raise DensityError(f"{owner}: {q!r} is both a coupling's parameter and one "
                                   f"of the channel weights'")
            out.append(parameters.index(q))
        return sorted(set(out))

    def weights(self, params):
        """The channel weights :math:`w_e` and :math:`\\partial w_e / \\partial
        p_j` (complex, shapes (n_weights,) and (n_weights, n_parameters)), or
        None without channel weights.

        Parameters
        ----------
        params : array_like
            The density's parameters, in its order.
        """
        if self.channel_weights is None:
            return None
        return self.channel_weights(np.asarray(params, dtype=np.float64))

    def _set_partial(self, depends, single, parameters, owner):
        depends, single = list(depends), list(single)
        K = len(self.names)
        if len(depends) != K or len(single) != K:
            raise DensityError(f"{owner}: {len(depends)} dependency lists and {len(single)} "
                               f"single-component functions for {K} components")
        coupling = set(self.coupling_parameters.tolist())
        self.depends = []
        for name, dep in zip(self.names, depends):
            idx = []
            for p in dep:
                if p not in parameters:
                    raise DensityError(f"{owner}: component {name} depends on {p!r}, which is "
                                       f"not a parameter of the density")
                if parameters.index(p) in coupling:
                    raise DensityError(f"{owner}: component {name} depends on {p!r}, a "
                                       f"coupling's parameter (X_k must not)")
                idx.append(parameters.index(p))
            self.depends.append(np.array(sorted(set(idx)), dtype=np.intp))
        for name, f in zip(self.names, single):
            prec, L = parse_signature(f.signature, "components")
            if (prec, L) != (self.precision, self.vector_length):
                raise DensityError(f"{owner}: the function of component {name} is for {prec} "
                                   f"L={L}, the components' for {self.precision} "
                                   f"L={self.vector_length}")
        self._single = single          # keeps the capsules alive
        self.single_pointers = [function_pointer(f) for f in single]
        covered = set(np.concatenate(self.depends).tolist()) if self.depends else set()
        missing = [parameters[k] for k in self.other_parameters if k not in covered]
        # A parameter no component declares is one no X_k depends on: it may
        # still move the density (an error in the declaration); keep it
        # visible to the evaluator, which then recomputes everything.
        self.undeclared_parameters = np.array(
            [parameters.index(p) for p in missing], dtype=np.intp)

    @property
    def partial(self):
        """True if the components can be recomputed one at a time."""
        return self.depends is not None

    @property
    def n_components(self):
        """Number of components :math:`K`."""
        return len(self.names)

    @staticmethod
    def _value(p, q):
        return p[q] if isinstance(q, (int, np.integer)) else q

    @staticmethod
    def _arrays(forms, n_parameters):
        """The coupling forms as arrays, for :meth:`couplings`: the fixed
        couplings, the indices of a and b in the parameters followed by the
        fixed values among them, the scales, the polar components and the
        unit of their phases (pi / 180 for degrees)."""
        fixed = np.array([a if form == "fixed" else 0 for form, a, _, _ in forms],
                         dtype=np.complex128)
        moving = np.array([k for k, f in enumerate(forms) if f[0] != "fixed"], dtype=np.intp)
        values, index = [], {"a": [], "b": []}
        for k in moving:
            for role, q in zip("ab", forms[k][1:3]):
                if isinstance(q, (int, np.integer)):
                    index[role].append(int(q))
                else:
                    index[role].append(n_parameters + len(values))
                    values.append(float(q))
        polar = np.array([forms[k][0] != "cartesian" for k in moving], dtype=bool)
        unit = np.array([np.pi / 180 if forms[k][0] == "polar_degrees" else 1.0
                         for k in moving])
        return dict(fixed=fixed, moving=moving, values=np.array(values, dtype=np.float64),
                    a=np.array(index["a"], dtype=np.intp), b=np.array(index["b"], dtype=np.intp),
                    scale=np.array([forms[k][3] for k in moving], dtype=np.float64),
                    polar=polar, unit=unit)

    def couplings(self, params):
        """The couplings :math:`c_k` (complex128, one per component):
        :math:`s (a + i b)` (cartesian) or :math:`s a e^{i b}` (polar, the
        phase in radians or degrees), with the scale :math:`s`.

        Parameters
        ----------
        params : array_like
            The density's parameters, in its order.
        """
        p = np.asarray(params, dtype=np.float64)
        if self._coupling_function is not None:
            return self._coupling_function(p)[0]
        arr = self._coupling_arrays
        c = arr["fixed"].copy()
        if arr["moving"].size:
            v = np.concatenate((p, arr["values"])) if arr["values"].size else p
            a, b, scale = v[arr["a"]], v[arr["b"]], arr["scale"]
            phi = b * arr["unit"]
            polar = arr["polar"]
            sa = scale * a
            moved = np.empty(sa.size, dtype=np.complex128)
            moved.real = np.where(polar, sa * np.cos(phi), sa)
            moved.imag = np.where(polar, sa * np.sin(phi), scale * b)
            c[arr["moving"]] = moved
        return c

    def coupling_jacobian(self, params):
        """:math:`\\partial c_k / \\partial p_j` (complex128, shape
        ``(n_components, n_parameters)``; zero for parameters that are not
        couplings).

        Parameters
        ----------
        params : array_like
            The density's parameters, in its order.
        """
        p = np.asarray(params, dtype=np.float64)
        if self._coupling_function is not None:
            return self._coupling_function(p)[1]
        jac = np.zeros((self.n_components, self.n_parameters), dtype=np.complex128)
        for k, (form, a, b, scale) in enumerate(self._forms):
            if form == "fixed":
                continue
            is_a = isinstance(a, (int, np.integer))
            is_b = isinstance(b, (int, np.integer))
            if form == "cartesian":
                if is_a:
                    jac[k, a] += scale
                if is_b:
                    jac[k, b] += 1j * scale
                continue
            unit = np.pi / 180 if form == "polar_degrees" else 1.0
            x, y = self._value(p, a), self._value(p, b)
            e = complex(np.cos(y * unit), np.sin(y * unit))
            if is_a:
                jac[k, a] += scale * e
            if is_b:
                jac[k, b] += 1j * scale * x * e * unit
        return jac


class ChannelWeights:
    """Complex weights of pairs of channels: the density
    :math:`S = \\sum_{(h, h', e)} \\mathrm{Re}[w_e A_h \\bar A_{h'}]` of
    :class:`Components` with ``channel_weights``.

    Parameters
    ----------
    pairs : array_like of int, shape (n_pairs, 3)
        Rows ``(h, h', e)``: channels and the index of their weight.  For a
        real density the form is Hermitian: with ``(h, h', e)`` the list
        holds ``(h', h, e')`` with :math:`w_{e'} = \\bar w_e`.
    function : callable
        ``function(params) -> (w, jacobian)``: the weights (complex,
        ``n_weights``) and :math:`\\partial w_e / \\partial p_j` (complex,
        ``(n_weights, n_parameters)``) at the density's parameters.
    parameters : sequence of str
        The names of the parameters the weights depend on.
    n_weights : int

    Calling it returns ``function(params)``.
    """

    def __init__(self, pairs, function, parameters, n_weights):
        self.pairs = np.ascontiguousarray(np.asarray(pairs, dtype=np.intp).reshape(-1, 3))
        self._function = function
        self.parameters = tuple(parameters)
        self.n_weights = int(n_weights)

    def __call__(self, params):
        return self._function(params)


def components_from_description(desc, precision, parameters, owner, constants=None):
    """:class:`Components` from a model description's ``"components"`` entry
    (None if the model has none or lacks this precision)."""
    comp = desc.get("components")
    if comp is None:
        return None
    function = comp["functions"].get(precision)
    if function is None:
        return None
    single = None
    if comp.get("single") is not None:
        single = [f.get(precision) for f in comp["single"]]
        if any(f is None for f in single):
            single = None
    return Components(comp["names"], comp["couplings"], function, parameters, owner, constants,
                      depends=comp.get("depends") if single is not None else None,
                      single=single)
