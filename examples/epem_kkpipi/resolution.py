r"""Resolution parameterization of the e+e- -> K K-bar pi pi example (paper section 8.3), numpy form with gradient.

.. math::

    R(\Phi^{(lab)}, \Phi'^{(lab)}) = \prod_{f} \prod_{k} \frac{1}{\sqrt{2\pi}\,\sigma_{fk}(\Phi)}
        \exp\Big(-\frac{x_{fk}^2}{2 \sigma_{fk}^2(\Phi)}\Big),

the twelve-dimensional Gaussian with a diagonal covariance matrix, normalized
by construction, :math:`x = (\Delta p/p, \Delta\cos\theta, \Delta\varphi)` per
track :math:`f` (reconstructed minus generated; :math:`\Delta\varphi` wrapped
into :math:`(-\pi, \pi]`) and each width a first-order polynomial of the
generator-level :math:`\Phi` (normalized, ``common.normalized_phi``):

.. math::

    \sigma_{fk}(\Phi) = c_{fk,0} + \sum_{d=1}^{7} c_{fk,d}\, v_d.

Parameters ``RES_<track>_<DP|DC|DF>_<d>``, d = 0 (constant) ... 7 (the
seven variables in the order of :data:`model.PHI_NAMES`): 96 in all.  The
fit uses the reconstructed events of the generator-level MC, likelihood
:math:`-2\sum \ln R` without normalization (R is normalized); a width that
is not positive makes the density invalid (the fitter then returns a large
value and MIGRAD steps back).

Gradient: :math:`\partial R/\partial c_{fk,d} = R\,(x_{fk}^2/\sigma_{fk}^3 - 1/\sigma_{fk})\, v_d`
(:math:`v_0 = 1`).
"""

import numpy as np

import common_kkpipi as common
import model_kkpipi as model
from vecampfit.fitter.parameters import FitParameter, ParameterTable

COMPONENTS = ("DP", "DC", "DF")
TRACKS = common.PARTICLES
WIDTHS = tuple(f"{t}_{k}" for t in TRACKS for k in COMPONENTS)
PARAMETERS = tuple(f"RES_{w}_{d}" for w in WIDTHS for d in range(8))
EVENT_FIELDS = tuple(f"x_{w}" for w in WIDTHS) + tuple(f"v{d}" for d in range(7))


def track_variables(p):
    """|p|, cos(theta), phi of four-momenta (n, 4)."""
    p = np.asarray(p, dtype=np.float64)
    pm = np.linalg.norm(p[:, :3], axis=1)
    return pm, p[:, 2] / pm, np.arctan2(p[:, 1], p[:, 0])


def differences(gen, rec):
    """x = (Delta p / p, Delta cos(theta), Delta phi) per track, dict keyed by WIDTHS."""
    out = {}
    for t in TRACKS:
        p0, c0, f0 = track_variables(gen[t])
        p1, c1, f1 = track_variables(rec[t])
        out[f"{t}_DP"] = (p1 - p0) / p0
        out[f"{t}_DC"] = c1 - c0
        out[f"{t}_DF"] = np.angle(np.exp(1j * (f1 - f0)))
    return out


def event_fields(records, point):
    """Fields of the resolution density from MC records: differences and the
    normalized generator-level Phi."""
    gen = common.momenta_of(records, generator_level=True)
    rec = common.momenta_of(records)
    fields = {f"x_{k}": v for k, v in differences(gen, rec).items()}
    v = common.normalized_phi(model.phase_space_variables(gen), point)
    fields.update({f"v{d}": v[d] for d in range(7)})
    return fields


def widths(fields, params):
    """sigma per width (dict keyed by WIDTHS) at each event."""
    c = np.asarray(params, dtype=np.float64).reshape(len(WIDTHS), 8)
    basis = np.stack([np.ones_like(fields["v0"])] + [fields[f"v{d}"] for d in range(7)])
    s = c @ basis
    return dict(zip(WIDTHS, s)), basis


def density(fields, params, gradient=False):
    """R at each event (and dR/dparams, (96, n))."""
    s, basis = widths(fields, params)
    log_r = 0.0
    terms = []
    for w in WIDTHS:
        x, sig = fields[f"x_{w}"], s[w]
        with np.errstate(invalid="ignore", divide="ignore"):
            log_r = log_r - 0.5 * (x / sig) ** 2 - np.log(np.sqrt(2 * np.pi) * sig)
        if gradient:
            terms.append(x * x / sig ** 3 - 1 / sig)
    r = np.exp(log_r)
    r = np.where(np.all(np.stack(list(s.values())) > 0, axis=0), r, np.nan)
    if not gradient:
        return r
    grad = np.concatenate([r * t * basis for t in terms])
    return r, grad


def initial_parameters(fields):
    """Constant terms from the RMS of each difference, slopes 0 (step 1e-4)."""
    out = []
    for w in WIDTHS:
        x = fields[f"x_{w}"]
        rms = float(np.sqrt(np.mean(x * x)))
        for d in range(8):
            out.append(FitParameter(f"RES_{w}_{d}", rms if d == 0 else 0.0, 1e-4 if d else 0.1 * rms))
    return ParameterTable(out, source="resolution widths")


def fitter_density(point):
    """The resolution density for the fitter (Python form with gradient)."""
    from vecampfit.fitter import Density
    return Density(lambda f, p: density(f, p), lambda f, p: density(f, p, True),
                   parameters=PARAMETERS, event_fields=EVENT_FIELDS,
                   fill_event_buffer=lambda rec: event_fields(rec, point),
                   name=f"resolution {point.name}")


def smear(gen, sigma, masses, rng):
    """Reconstructed momenta from generator-level ones with the widths ``sigma``
    (dict keyed by WIDTHS, arrays (n,)): the resolution model as a generator."""
    out = {}
    for t in TRACKS:
        pm, c, f = track_variables(gen[t])
        n = len(pm)
        xi = rng.standard_normal((3, n))
        pm2 = pm * (1 + sigma[f"{t}_DP"] * xi[0])
        c2 = np.clip(c + sigma[f"{t}_DC"] * xi[1], -1.0, 1.0)
        f2 = f + sigma[f"{t}_DF"] * xi[2]
        s2 = np.sqrt((1 - c2) * (1 + c2))
        p = np.empty((n, 4))
        p[:, 0] = pm2 * s2 * np.cos(f2)
        p[:, 1] = pm2 * s2 * np.sin(f2)
        p[:, 2] = pm2 * c2
        p[:, 3] = np.sqrt(pm2 * pm2 + masses[t] ** 2)
        out[t] = p
    return out


def compile_density(vector_lengths, build_dir=None, verbose=False):
    """Compile ``resolution_density.pyx`` (``{L: module}``)."""
    import os
    from vecampfit.model_compiler import compile_model
    return compile_model(os.path.join(common.HERE, "resolution_density.pyx"),
                         list(vector_lengths), build_dir=build_dir, verbose=verbose)


def fitter_density_cython(modules, point, precision="float64", vector_length=None):
    """The compiled resolution density (with gradient) for the fitter."""
    from vecampfit.fitter import Density
    return Density.from_model(modules, precision, vector_length=vector_length,
                              fill_event_buffer=lambda rec, const: event_fields(rec, point),
                              name=f"resolution {point.name}")
