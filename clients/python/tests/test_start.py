"""Starting and stopping mockd: a binary, or the image with docker."""

import os
import shutil
import subprocess

import pytest

from mockplatform import CONTAINER_LABEL, Mockd, MockdError


def gone(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    # A zombie until its parent waits; stop() waits, so it is reaped.
    return False


def test_start_binary_and_stop(tmp_path):
    layer = tmp_path / "flaky.yaml"
    layer.write_text("name: flaky\nfaults:\n  - {id: f1, match: {family: chat}, action: {status: 503}}\n")
    m = Mockd.start(scenario=[str(layer)])
    pid = m._proc.pid
    assert m.started and m.url.startswith("http://127.0.0.1:")
    assert m.health()["status"] == "ok"
    assert m.scenario()["name"] == "flaky" and m.clock()["mode"] == "manual"
    m.stop()
    m.stop()
    assert gone(pid)
    with pytest.raises(MockdError):
        m.health()


def test_start_failure_says_why(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\nbogus: 1\n")
    with pytest.raises(MockdError) as err:
        Mockd.start(scenario=str(bad))
    assert f"{bad}:2:1: bogus: unknown field" in str(err.value)


def test_nothing_to_start(monkeypatch):
    for name in ("MOCKD_BIN", "MOCKD_IMAGE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(MockdError, match="MOCKD_BIN"):
        Mockd.start()


def test_connect_leaves_it_running(mockd):
    other = Mockd.connect(mockd.url)
    assert not other.started
    other.stop()
    assert mockd.health()["status"] == "ok"
    with pytest.raises(MockdError, match="MOCKD_URL"):
        Mockd.connect("")


@pytest.mark.skipif(not os.environ.get("MOCKD_IMAGE") or not shutil.which("docker"),
                    reason="no MOCKD_IMAGE (scripts/build-image.sh) or no docker CLI")
def test_start_container():
    m = Mockd.start(binary="", image=os.environ["MOCKD_IMAGE"])
    try:
        container = m._container
        with m.world(seed=5) as w:
            assert w.advance("1h").hour == 1
        assert m.worlds() == []
    finally:
        m.stop()
    left = subprocess.run(["docker", "ps", "-aq", "--filter", "id=" + container], capture_output=True, text=True)
    assert left.stdout.strip() == ""
    assert CONTAINER_LABEL.startswith("org.agentplatform")
