"""The model-protocol example (examples/protocol): a lifetime fit with iminuit
directly on the likelihood recovers the generated lifetime."""

import os


EXAMPLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples",
                       "protocol")
import fit_lifetime  # noqa: E402


def test_lifetime_fit_recovers_the_generated_lifetime(model_cache):
    m = fit_lifetime.main(n_events=20000, tau=1.52, t0=0.1, seed=3, build_dir=model_cache)
    assert m.valid
    pull = (m.values["TAU"] - 1.52) / m.errors["TAU"]
    print(f"tau pull {pull:+.2f}")
    # Generated exponential on [T0, 10): the error of tau is about tau / sqrt(N).
    assert abs(m.errors["TAU"] / (1.52 / (20000 ** 0.5)) - 1) < 0.1
    assert abs(pull) < 4
