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
        Per component ``(form, first, second)``: ``("polar_degrees",
        magnitude, phase)``, ``("polar", magnitude, phase)`` (radians),
        ``("cartesian", real, imaginary)`` with parameter names of the
        density, or ``("fixed", real, imaginary)`` with numbers.
    function : scipy.LowLevelCallable
        The block function writing :math:`X_k` (real part at ``2 k L + i``,
        imaginary part at ``(2 k + 1) L + i``).
    parameters : sequence of str
        The density's parameter names, in its order.
    owner : str
        Name of the density (for messages).

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

    def __init__(self, names, couplings, function, parameters, owner="density"):
        self.names = tuple(names)
        self.owner = owner
        parameters = tuple(parameters)
        if len(couplings) != len(self.names):
            raise DensityError(f"{owner}: {len(couplings)} couplings for {len(self.names)} "
                               f"components")
        self._forms = []
        used = {}
        for name, c in zip(self.names, couplings):
            if len(c) != 3 or c[0] not in COUPLING_FORMS:
                raise DensityError(f"{owner}: component {name}: coupling {c!r} is not (form, a, "
                                   f"b) with a form of {COUPLING_FORMS}")
            form, a, b = c
            if form == "fixed":
                self._forms.append((form, complex(float(a), float(b)), None))
                continue
            idx = []
            for p in (a, b):
                if p not in parameters:
                    raise DensityError(f"{owner}: component {name}: coupling parameter {p!r} "
                                       f"is not a parameter of the density")
                # A parameter may be shared by the couplings of several
                # components (a common phase): the Jacobian sums them.
                used.setdefault(p, name)
                idx.append(parameters.index(p))
            if idx[0] == idx[1]:
                raise DensityError(f"{owner}: component {name}: the coupling's two parameters "
                                   f"are both {a!r}")
            self._forms.append((form, idx[0], idx[1]))
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

    def couplings(self, params):
        """The couplings :math:`c_k` (complex128, one per component).

        Parameters
        ----------
        params : array_like
            The density's parameters, in its order.
        """
        p = np.asarray(params, dtype=np.float64)
        c = np.empty(self.n_components, dtype=np.complex128)
        for k, (form, a, b) in enumerate(self._forms):
            if form == "fixed":
                c[k] = a
            elif form == "cartesian":
                c[k] = complex(p[a], p[b])
            else:
                phi = np.deg2rad(p[b]) if form == "polar_degrees" else p[b]
                c[k] = p[a] * complex(np.cos(phi), np.sin(phi))
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
        for k, (form, a, b) in enumerate(self._forms):
            if form == "fixed":
                continue
            if form == "cartesian":
                jac[k, a], jac[k, b] = 1.0, 1j
                continue
            scale = np.pi / 180 if form == "polar_degrees" else 1.0
            phi = p[b] * scale
            e = complex(np.cos(phi), np.sin(phi))
            jac[k, a] = e
            jac[k, b] = 1j * p[a] * e * scale
        return jac


def components_from_description(desc, precision, parameters, owner):
    """:class:`Components` from a model description's ``"components"`` entry
    (None if the model has none or lacks this precision)."""
    comp = desc.get("components")
    if comp is None:
        return None
    function = comp["functions"].get(precision)
    if function is None:
        return None
    return Components(comp["names"], comp["couplings"], function, parameters, owner)
