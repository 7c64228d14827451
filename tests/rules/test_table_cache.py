"""The compiled tables: the same rules as the JSON, and never a reason to fail."""

from __future__ import annotations

import shutil

import pytest

from musa_porting.rules import table_cache, tables


def _load(monkeypatch, cache):
    monkeypatch.setenv("MUSA_PORT_CACHE_DIR", str(cache))
    return tables.load_tables(tables.default_mapping_dir())


def test_a_cached_load_is_the_json_load(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    from_json = _load(monkeypatch, "off")
    first = _load(monkeypatch, cache)  # parses the JSON, writes the cache
    assert len(list(cache.glob("tables-*.marshal"))) == 1
    second = _load(monkeypatch, cache)  # from the cache
    assert first == from_json and second == from_json
    assert len(from_json[0]) > 30000 and isinstance(second[0][0], tables.Rule)


@pytest.mark.parametrize("damage", [b"", b"\x00garbage", b"\xe3\x01\x00\x00\x00"])
def test_a_damaged_cache_falls_back_to_the_json_and_is_rewritten(tmp_path, monkeypatch, damage):
    cache = tmp_path / "cache"
    expected = _load(monkeypatch, cache)
    (path,) = cache.glob("tables-*.marshal")
    path.write_bytes(damage)
    assert _load(monkeypatch, cache) == expected
    assert path.stat().st_size > 1_000_000


def test_a_cache_folder_that_cannot_be_written_changes_nothing(tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder would go\n")
    assert _load(monkeypatch, blocker / "musa-port") == _load(monkeypatch, "off")


def test_a_changed_table_is_compiled_again(tmp_path, monkeypatch):
    mapping = tmp_path / "mapping"
    shutil.copytree(tables.default_mapping_dir(), mapping)
    monkeypatch.setattr(tables, "default_mapping_dir", lambda: mapping)
    cache = tmp_path / "cache"
    rules, _ = _load(monkeypatch, cache)
    assert any(r.key == "cudaMalloc" for r in rules)
    runtime = mapping / "runtime.json"
    text = runtime.read_text()
    assert '"cudaMalloc"' in text
    runtime.write_text(text.replace('"cudaMalloc"', '"cudaMallocRenamedForTheTest"', 1))
    rules, _ = _load(monkeypatch, cache)
    keys = {r.key for r in rules}
    assert "cudaMallocRenamedForTheTest" in keys and "cudaMalloc" not in keys
    assert len(list(cache.glob("tables-*.marshal"))) == 1  # the old copy is gone


def test_the_cache_folder_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.delenv("MUSA_PORT_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert table_cache.cache_dir() == tmp_path / "musa-port"
    monkeypatch.setenv("MUSA_PORT_CACHE_DIR", "off")
    assert table_cache.cache_dir() is None
