"""Tests of vecampfit.particle_data.

References: the ``particle`` package (PDG data).  Where the installed
``particle`` ships PDG's Monte Carlo mass/width table of an edition
(``mass_width_<year>.mcd``, in particle < 0.26), that edition is compared
value by value; otherwise the 2024 values are compared with the package's
own (newer) table within the combined uncertainties, which catches typing
errors but allows the changes between editions.
"""

import importlib.resources
import math

import pytest

from vecampfit import particle_data as pd

# (our name, PDG Monte Carlo id) for every particle of the tables.
IDS = {name: rec.pdg_id for name, rec in pd.PDG_2024.items()}


def test_d0_example_masses():
    assert pd.mass("D0") == 1.86484
    assert pd.mass("K-") == pd.mass("K+") == 0.493677
    assert pd.mass("pi+") == pd.mass("pi-") == 0.13957039
    assert pd.mass("pi0") == 0.1349768
    assert pd.mass("D0", 2020) == 1.86483


def test_required_particles_in_every_edition():
    required = ["e-", "mu-", "pi+", "pi-", "pi0", "eta", "eta'(958)", "K+", "K-", "K0", "K_S0", "K_L0",
                "D0", "D+", "D-", "D_s+", "B+", "B-", "B0", "B_s0", "J/psi", "psi(2S)", "phi(1020)",
                "omega(782)", "p", "n", "Lambda", "rho(770)0", "rho(770)+", "K*(892)+", "K*(892)-",
                "K*(892)0", "K*0(1430)-", "K*0(1430)~0", "rho(1700)+", "K*(1680)-", "f2'(1525)"]
    for table in (pd.PDG_2020, pd.PDG_2022, pd.PDG_2024):
        for name in required:
            rec = table[name]
            assert rec.mass > 0 and rec.mass_error >= 0
            assert rec.name == name
    assert pd.PDG_2024["K-"].charge == -1 and pd.PDG_2024["K-"].pdg_id == -321
    assert pd.PDG_2024["p~"].parity == -1 and pd.PDG_2024["p"].parity == 1
    assert pd.PDG_2024["f2'(1525)"].spin == 2 and pd.PDG_2024["Lambda"].spin == pd.Fraction(1, 2)


def test_aliases_and_editions():
    assert pd.get("KS").name == "K_S0"
    assert pd.get("Ds+", 2022).name == "D_s+"
    assert pd.get("phi").mass == pd.mass("phi(1020)")
    assert pd.get("d0").name == "D0"  # case-insensitive fallback
    assert pd.mass("B+", "PDG_2020") == 5.27934
    assert pd.width("J/psi", 2020) == 9.29e-5
    assert pd.width("J/psi") == 9.26e-5
    assert pd.width("p") == 0.0
    with pytest.raises(ValueError, match="no width"):
        pd.width("K0")
    with pytest.raises(ValueError, match="edition"):
        pd.mass("D0", 2023)
    with pytest.raises(TypeError):
        pd.mass(421)


def test_unknown_name_lists_close_names():
    with pytest.raises(KeyError, match="close names: .*D0"):
        pd.mass("D00")
    with pytest.raises(KeyError, match="unknown particle name"):
        pd.get("graviton")


def test_tables_are_read_only():
    with pytest.raises(TypeError):
        pd.PDG_2024["D0"] = None
    with pytest.raises(AttributeError):
        pd.PDG_2024["D0"].mass = 1.0


def _parse_mcd(text):
    """PDG Monte Carlo table: id -> (mass, +err, -err, width, +err, -err) in GeV."""
    out = {}
    for line in text.splitlines():
        if line.startswith("*") or not line.strip():
            continue
        ids = [int(x) for x in line[:32].split()]

        def num(a, b):
            s = line[a:b].strip()
            return float(s) if s else None

        row = (num(33, 51), num(52, 60), num(61, 69), num(70, 88), num(89, 97), num(98, 106))
        for i in ids:
            out[i] = row
    return out


def _packaged_mcd(year):
    try:
        f = importlib.resources.files("particle.data") / f"mass_width_{year}.mcd"
    except ModuleNotFoundError:
        return None
    return _parse_mcd(f.read_text()) if f.is_file() else None


@pytest.mark.parametrize("year", [2020, 2022, 2024])
def test_against_pdg_monte_carlo_table(year):
    pytest.importorskip("particle")
    ref = _packaged_mcd(year)
    if ref is None:
        pytest.skip(f"the installed particle package has no PDG {year} Monte Carlo table")
    table = pd.EDITIONS[year]
    worst = 0.0
    for name, rec in table.items():
        row = ref.get(abs(rec.pdg_id))
        assert row is not None, name
        m, mu, ml, w, wu, wl = row
        # The Monte Carlo table rounds a few broad states (K*0(1430): 1425 -> 1430 MeV).
        tol = max(1e-12 * m, 0.11 * rec.mass_error)
        assert abs(rec.mass - m) <= tol, (name, rec.mass, m)
        assert rec.mass_error_upper == pytest.approx(abs(mu), rel=1e-9), name
        if w is None:
            assert rec.width is None, name
        else:
            assert abs(rec.width - w) <= max(1e-12 * w, 0.02 * rec.width_error), (name, rec.width, w)
            assert rec.width_error_lower == pytest.approx(abs(wl), rel=1e-9, abs=1e-40), name
        worst = max(worst, abs(rec.mass - m) / m)
    print(f"PDG {year}: {len(table)} records, largest relative mass difference {worst:.2e}")


def test_2024_against_particle_package():
    particle = pytest.importorskip("particle")
    compared = 0
    for name, rec in pd.PDG_2024.items():
        try:
            p = particle.Particle.from_pdgid(rec.pdg_id)
        except Exception:
            continue
        if p.mass is None:
            continue
        m = p.mass / 1000  # MeV -> GeV
        sigma = math.hypot(rec.mass_error, (p.mass_upper or 0) / 1000)
        # A later edition of the package may have moved values by a few sigma
        # (CODATA 2022 for e and p); a typing error would not fit.
        assert abs(rec.mass - m) <= 5 * sigma + 1e-8 * m, (name, rec.mass, m)
        if p.width is not None and rec.width is not None and rec.width > 0:
            w = p.width / 1000
            sw = math.hypot(rec.width_error, (p.width_upper or 0) / 1000)
            assert abs(rec.width - w) <= 5 * sw + 1e-6 * w, (name, rec.width, w)
        assert p.charge == rec.charge, name
        if p.J is not None:
            assert p.J == rec.spin, name
        compared += 1
    print(f"compared {compared} PDG 2024 records with particle {particle.__version__}")
    assert compared >= 60
