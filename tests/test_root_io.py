"""Tests of vecampfit.root_io: TTrees written with fixed-size array branches
(the paper's event class) and read back in chunks; RNTuples read; clear
errors for missing files, trees, branches and wrong shapes."""

import os

import numpy as np
import pytest
import uproot

from vecampfit.root_io import (RootIOError, RootReadError, count_entries, iterate_events,
                               read_events, write_tree)


def events(n, seed=1):
    rng = np.random.default_rng(seed)
    return {"km_momentum": rng.normal(size=(n, 4)).astype(np.float32),
            "pip_momentum": rng.normal(size=(n, 4)).astype(np.float32),
            "weight": rng.uniform(size=n)}


def test_write_and_read_back_in_chunks(tmp_path):
    ev = events(10007)
    path = tmp_path / "data.root"
    write_tree(path, ev)
    with uproot.open(path) as f:
        tree = f["tree"]
        assert tree.classname == "TTree"
        assert tree["km_momentum"].interpretation.inner_shape == (4,)
    chunks = list(iterate_events(path, "tree", ["km_momentum", "pip_momentum"],
                                 weight_branch="weight", step_size=1000,
                                 shapes={"km_momentum": (4,)}))
    assert len(chunks) == 11
    records = {k: np.concatenate([c[0][k] for c in chunks]) for k in ("km_momentum", "pip_momentum")}
    for k in records:
        np.testing.assert_array_equal(records[k], ev[k])
        assert records[k].dtype == np.float32
    np.testing.assert_array_equal(np.concatenate([c[1] for c in chunks]), ev["weight"])
    allrec, w = read_events(path, "tree", weight_branch="weight")
    assert sorted(allrec) == ["km_momentum", "pip_momentum"]
    np.testing.assert_array_equal(w, ev["weight"])


def test_map_records_for_other_layouts(tmp_path):
    path = tmp_path / "flat.root"
    write_tree(path, {"px": np.arange(5.0), "py": np.arange(5.0) * 2}, tree="t")
    rec, w = read_events(path, "t", map_records=lambda a: {"p": np.stack([a["px"], a["py"]], 1)})
    assert w is None
    np.testing.assert_array_equal(rec["p"][:, 1], np.arange(5.0) * 2)


def test_select_keeps_records_and_weights_together(tmp_path):
    path = tmp_path / "sel.root"
    x = np.arange(1000.0)
    write_tree(path, {"x": x, "rec": (np.arange(1000) % 3 == 0).astype(np.int32),
                      "w": x / 10}, tree="t")
    rec, w = read_events(path, "t", ["x", "rec"], weight_branch="w", step_size=128,
                         select=lambda a: (a["rec"] == 1) & (a["w"] > 5))
    keep = (np.arange(1000) % 3 == 0) & (x / 10 > 5)
    np.testing.assert_array_equal(rec["x"], x[keep])
    np.testing.assert_array_equal(w, x[keep] / 10)
    assert list(rec) == ["x", "rec"] and np.all(rec["rec"] == 1)
    # select runs before map_records, on the branches read.
    rec, _ = read_events(path, "t", ["x", "rec"], select=lambda a: a["rec"] == 1,
                         map_records=lambda a: {"y": 2 * a["x"]})
    np.testing.assert_array_equal(rec["y"], 2 * x[np.arange(1000) % 3 == 0])
    with pytest.raises(ValueError, match=r"sel\.root: tree 't', entries 0-1000: select returned "
                                         r"float64 of shape \(1000,\), expected a boolean"):
        read_events(path, "t", ["x"], select=lambda a: a["x"] * 1.0)


def test_rntuple_is_read(tmp_path):
    path = tmp_path / "rntuple.root"
    with uproot.recreate(path) as f:
        f["tree"] = {"x": np.arange(10.0), "y": np.arange(10.0) ** 2}
    with uproot.open(path) as f:
        kind = f["tree"].classname
    rec, _ = read_events(path, "tree", ["x", "y"])
    print(f"uproot wrote a {kind}; read back {len(rec['x'])} entries")
    np.testing.assert_array_equal(rec["y"], np.arange(10.0) ** 2)


def test_errors_name_what_is_missing(tmp_path):
    path = tmp_path / "data.root"
    write_tree(path, events(10))
    with pytest.raises(FileNotFoundError, match="missing.root does not exist"):
        read_events(tmp_path / "missing.root")
    with pytest.raises(RootIOError, match=r"no tree 'events' \(the file has: tree\)"):
        read_events(path, "events")
    with pytest.raises(RootIOError, match="tree 'tree' has no branch 'pi0_momentum'"):
        read_events(path, "tree", ["km_momentum", "pi0_momentum"])
    with pytest.raises(RootIOError, match="has no branch 'w'"):
        read_events(path, "tree", ["km_momentum"], weight_branch="w")
    with pytest.raises(RootReadError, match=r"data.root: tree 'tree', branch 'km_momentum', "
                                            r"entries 0 to 9: shape \(4,\) per event, "
                                            r"expected \(3,\)"):
        read_events(path, "tree", ["km_momentum"], shapes={"km_momentum": (3,)})
    bad = tmp_path / "not_root.root"
    bad.write_text("hello")
    with pytest.raises(OSError, match="cannot open .*not_root.root as a ROOT file"):
        read_events(bad)
    with pytest.raises(ValueError, match="different lengths"):
        write_tree(tmp_path / "x.root", {"a": np.zeros(3), "b": np.zeros(4)})
    assert not os.path.exists(tmp_path / "x.root")
    assert sorted(os.listdir(tmp_path)) == ["data.root", "not_root.root"]


def corrupt_basket(path, branch, basket):
    """Overwrite 64 bytes in the middle of one compressed basket; return its entries."""
    with uproot.open(path) as f:
        b = f["tree"][branch]
        seek = int(b.member("fBasketSeek")[basket])
        size = int(b.basket_compressed_bytes(basket))
        start, stop = (int(e) for e in b.basket_entry_start_stop(basket))
    data = bytearray(path.read_bytes())
    middle = seek + size // 2
    data[middle:middle + 64] = bytes(64)
    path.write_bytes(bytes(data))
    return start, stop


def test_corrupt_basket_names_file_tree_branch_and_entries(tmp_path):
    path = tmp_path / "data.root"
    rng = np.random.default_rng(3)
    n = 20000
    pieces = [{"a": rng.normal(size=n), "b": rng.normal(size=(n, 4)).astype(np.float32)}
              for _ in range(4)]
    # One basket per call of extend: four baskets of n entries per branch.
    def write(f):
        f.mktree("tree", {"a": np.float64, "b": np.dtype((np.float32, (4,)))})
        for piece in pieces:
            f["tree"].extend(piece)
    from vecampfit.atomic_files import atomic_write_root
    atomic_write_root(path, write)
    start, stop = corrupt_basket(path, "b", 2)
    assert (start, stop) == (2 * n, 3 * n)

    chunks = []
    with pytest.raises(RootReadError) as info:
        for records, _ in iterate_events(path, "tree", ["a", "b"], step_size=n):
            chunks.append(records)
    err = info.value
    print(err)
    assert len(chunks) == 2  # the chunks before the corrupt basket
    assert str(path) in str(err) and "tree 'tree'" in str(err) and "branch 'b'" in str(err)
    assert f"entries {start} to {stop - 1}" in str(err)
    assert (err.path, err.tree, err.branch, err.entry_start, err.entry_stop) == \
        (str(path), "tree", "b", start, stop)
    assert err.__cause__ is not None  # uproot's (decompression) error
    # A damaged file is an OSError (and a ValueError), not a KeyError.
    assert isinstance(err, OSError) and isinstance(err, ValueError)
    assert not isinstance(err, KeyError)
    import pickle
    again = pickle.loads(pickle.dumps(err))
    assert str(again) == str(err) and again.branch == "b"

    # Reading everything at once (byte-sized chunks) names the file and the branch too.
    with pytest.raises(RootReadError, match=r"data.root: tree 'tree', branch 'b', entries 0 to "):
        read_events(path, "tree")
    # The other branch is intact and reads back.
    rec, _ = read_events(path, "tree", ["a"])
    np.testing.assert_array_equal(rec["a"], np.concatenate([p["a"] for p in pieces]))


def test_count_entries(tmp_path):
    path = tmp_path / "data.root"
    write_tree(path, events(1234))
    assert count_entries(path) == 1234
    assert count_entries(path, "tree") == 1234
    with pytest.raises(FileNotFoundError, match="missing.root does not exist"):
        count_entries(tmp_path / "missing.root")
    with pytest.raises(RootIOError, match=r"no tree 'events' \(the file has: tree\)"):
        count_entries(path, "events")


def test_written_tree_has_normal_permissions_and_no_leftover(tmp_path):
    old = os.umask(0o022)
    try:
        write_tree(tmp_path / "data.root", events(10))
    finally:
        os.umask(old)
    assert os.stat(tmp_path / "data.root").st_mode & 0o777 == 0o644
    assert os.listdir(tmp_path) == ["data.root"]


@pytest.mark.root
@pytest.mark.skipif(os.environ.get("VECAMPFIT_TEST_ROOT") != "1",
                    reason="opt-in: VECAMPFIT_TEST_ROOT=1 with ROOT installed (pip install root)")
def test_real_root_reads_our_trees(tmp_path):
    ROOT = pytest.importorskip("ROOT")
    path = tmp_path / "data.root"
    ev = events(100)
    write_tree(path, ev)
    f = ROOT.TFile.Open(str(path))
    t = f.Get("tree")
    assert t.GetEntries() == 100
    t.GetEntry(7)
    assert abs(t.km_momentum[2] - float(ev["km_momentum"][7, 2])) == 0


def test_a_truncated_file_is_an_oserror_naming_the_file_and_tree(tmp_path):
    path = tmp_path / "data.root"
    write_tree(path, events(20000))
    data = path.read_bytes()
    for keep in (len(data) // 2, len(data) - 2000):
        cut = tmp_path / f"cut{keep}.root"
        cut.write_bytes(data[:keep])
        with pytest.raises(OSError) as info:
            read_events(cut)
        assert not isinstance(info.value, KeyError)
        assert str(cut) in str(info.value)


def test_a_jagged_branch_is_named(tmp_path):
    ak = pytest.importorskip("awkward")
    path = tmp_path / "jagged.root"
    with uproot.recreate(path) as f:
        f.mktree("tree", {"x": np.float64, "hits": "var * float64"})
        f["tree"].extend({"x": np.arange(3.0), "hits": ak.Array([[1.0, 2.0], [], [3.0]])})
    with pytest.raises(RootReadError, match=r"jagged.root: tree 'tree', branch 'hits', entries 0 "
                                            r"to 2: a jagged branch: a variable number of values "
                                            r"per event \(from 0 to 2"):
        read_events(path)
    # Read alone, or mapped by the caller into fixed-shape records, it is fine.
    assert read_events(path, branches=["x"])[0]["x"].tolist() == [0.0, 1.0, 2.0]
    rec, _ = read_events(path, map_records=lambda r: {"n": np.array([len(h) for h in r["hits"]])})
    assert rec["n"].tolist() == [2, 0, 1]
    # Into a fit: the same error, naming the branch.
    from vecampfit.fitter import Density, FitParameter, Likelihood, ParameterTable
    d = Density(lambda ev, p: np.ones_like(ev["hits"]), parameters=[], event_fields=["hits"])
    lk = Likelihood(ParameterTable([FitParameter("a", 1.0, 0.1)]), vector_length=1)
    with pytest.raises(RootReadError, match="branch 'hits'.*jagged"):
        lk.add_point(d, normalization="none").load_data_file(path, branches=["hits"])


def test_running_out_of_memory_reads_as_such_with_the_size(tmp_path, monkeypatch):
    path = tmp_path / "data.root"
    write_tree(path, events(1000))
    import uproot.compression
    real = uproot.compression.decompress

    def no_memory(*args, **kwargs):
        raise MemoryError("Unable to allocate 1.00 GiB for an array")

    monkeypatch.setattr(uproot.compression, "decompress", no_memory)
    with pytest.raises(MemoryError, match=r"data.root: tree 'tree', entries 0 to 999: out of "
                                          r"memory while reading a chunk of about .* MiB \(\d+ "
                                          r"bytes\) \(Unable to allocate 1.00 GiB"):
        read_events(path, step_size=1000)
    monkeypatch.setattr(uproot.compression, "decompress", real)

    # A MemoryError that uproot reports through another error (its message
    # garbled): still out of memory, not an unreadable file.
    real_open = uproot.open

    def garbled(*args, **kwargs):
        try:
            raise MemoryError()
        except MemoryError as exc:
            exc[1]                              # 'MemoryError' object is not subscriptable

    monkeypatch.setattr(uproot, "open", garbled)
    with pytest.raises(MemoryError, match=r"data.root: out of memory while reading") as info:
        read_events(path)
    assert "cannot open" not in str(info.value)
    monkeypatch.setattr(uproot, "open", real_open)
