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

import numpy as np

from .density import DensityError, _pointer, parse_signature

__all__ = ["COUPLING_FORMS", "Components"]

#: Coupling forms: c = a e^(i phi) with phi in degrees or radians, c = re + i im,
#: or a fixed complex number.
COUPLING_FORMS = ("polar_degrees", "polar", "cartesian", "fixed")


class Components:
    """The components of a density and the parameters of their couplings.

    Parameters
    ----------
    names : sequence of str
        One name per component.
    couplings : sequence of tuple
        Per component ``(form, first, second[, scale])``: ``("polar_degrees",
        magnitude, phase)``, ``("polar", magnitude, phase)`` (radians) or
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

    Attributes
    ----------
    n_components : int
    coupling_parameters : numpy.ndarray
        Indices (into the density's parameters) of the couplings' parameters.
    other_parameters : numpy.ndarray
        Indices of the density's other parameters (those the :math:`X_k`
        may depend on).

    Raises
    ------
    DensityError
        An unknown coupling form, a parameter the density does not have, or
        one parameter given as both of a coupling's.
    """

    def __init__(self, names, couplings, function, parameters, owner="density", constants=None):
        self.names = tuple(names)
        self.owner = owner
        parameters = tuple(parameters)
        constants = dict(constants or {})
        if len(couplings) != len(self.names):
            raise DensityError(f"{owner}: {len(couplings)} couplings for {len(self.names)} "
                               f"components")
        self._forms = []
        used = {}
        for name, c in zip(self.names, couplings):
            if len(c) not in (3, 4) or c[0] not in COUPLING_FORMS:
                raise DensityError(f"{owner}: component {name}: coupling {c!r} is not (form, a, "
                                   f"b[, scale]) with a form of {COUPLING_FORMS}")
            form, a, b = c[:3]
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
        self.coupling_parameters = np.array(sorted(parameters.index(p) for p in used),
                                            dtype=np.intp)
        self.other_parameters = np.array([k for k in range(len(parameters))
                                          if k not in set(self.coupling_parameters.tolist())],
                                         dtype=np.intp)
        self.n_parameters = len(parameters)
        self.function = function
        self.precision, self.vector_length = parse_signature(function.signature, "components")
        self.function_pointer = _pointer(function)

    @property
    def n_components(self):
        """Number of components :math:`K`."""
        return len(self.names)

    @staticmethod
    def _value(p, q):
        return p[q] if isinstance(q, (int, np.integer)) else q

    def couplings(self, params):
        """The couplings :math:`c_k` (complex128, one per component).

        Parameters
        ----------
        params : array_like
            The density's parameters, in its order.
        """
        p = np.asarray(params, dtype=np.float64)
        c = np.empty(self.n_components, dtype=np.complex128)
        for k, (form, a, b, scale) in enumerate(self._forms):
            if form == "fixed":
                c[k] = a
                continue
            x, y = self._value(p, a), self._value(p, b)
            if form == "cartesian":
                c[k] = scale * complex(x, y)
            else:
                phi = np.deg2rad(y) if form == "polar_degrees" else y
                c[k] = scale * x * complex(np.cos(phi), np.sin(phi))
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


def components_from_description(desc, precision, parameters, owner, constants=None):
    """:class:`Components` from a model description's ``"components"`` entry
    (None if the model has none or lacks this precision)."""
    comp = desc.get("components")
    if comp is None:
        return None
    function = comp["functions"].get(precision)
    if function is None:
        return None
    return Components(comp["names"], comp["couplings"], function, parameters, owner, constants)
