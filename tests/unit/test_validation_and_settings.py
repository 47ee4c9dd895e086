from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graph.settings import get_settings
from memory.errors import InvalidInputError, ServiceUnavailableError, redact_url
from memory.short_term import STMConfig
from memory.validation import check_id, check_text


@pytest.mark.parametrize("good", ["u1", "alice@example.com", "user_1.v-2", "用户一", "a" * 128])
def test_good_ids(good: str) -> None:
    assert check_id("user id", good) == good


BAD_IDS = ["", " ", "a b", "{x}", "a*", "a:b", "a/b", "a'b", 'a"b', "a\nb", "a" * 129, "a?", "[a]"]


@pytest.mark.parametrize("bad", BAD_IDS)
def test_bad_ids(bad: str) -> None:
    with pytest.raises(InvalidInputError):
        check_id("user id", bad)


@given(st.text(max_size=200))
def test_check_id_accepts_only_safe_key_material(value: str) -> None:
    try:
        check_id("id", value)
    except InvalidInputError as exc:
        assert "\n" not in str(exc)
    else:
        assert not set(value) & set("{}*?[]:/ '\"\n\t")


def test_check_text_limits() -> None:
    assert check_text("message", "hi", max_chars=2) == "hi"
    for bad, match in [("", "empty"), ("  ", "empty"), ("abc", "limit is 2"), ("a\x00", "NUL")]:
        with pytest.raises(InvalidInputError, match=match):
            check_text("message", bad, max_chars=2)
    with pytest.raises(InvalidInputError, match="must be a string"):
        check_text("message", b"bytes", max_chars=10)


def test_settings_read_env_at_call_time(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PALACE_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("PALACE_REDIS_URL", "")
    monkeypatch.setenv("PALACE_STM_TTL_S", "60")
    s = get_settings()
    assert s.data_dir == tmp_path and s.redis_url is None and s.stm_ttl_s == 60
    monkeypatch.setenv("PALACE_STM_TTL_S", "120")
    assert get_settings().stm_ttl_s == 120
    assert get_settings(stm_ttl_s=5).stm_ttl_s == 5


def test_redis_uri_of_the_dev_server_is_never_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REDIS_URI", "fake")
    monkeypatch.delenv("PALACE_REDIS_URL", raising=False)
    assert get_settings().redis_url is None


def test_stm_config_rejects_inconsistent_limits() -> None:
    with pytest.raises(InvalidInputError):
        STMConfig(archive_threshold=10, archive_batch=20)
    with pytest.raises(InvalidInputError):
        STMConfig(prefix="a{b}")


def test_service_error_is_one_line_and_redacts_password() -> None:
    err = ServiceUnavailableError("Redis", "redis://:s3cret@host:6379/0", "Connection refused\nmore", fix="start it")
    assert str(err) == "Redis unavailable at redis://:***@host:6379/0: Connection refused more (start it)"
    assert redact_url("redis://host:1") == "redis://host:1"
