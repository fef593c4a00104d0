"""The pytest plugin in sessions of their own (pytester): the fixtures
give each test a fresh world, delete it after, and stop a mockd the
session started."""

import pathlib

SRC = str(pathlib.Path(__file__).resolve().parents[1] / "src")

INNER = '''
import os
import pytest

@pytest.mark.parametrize("n", range(3))
def test_fresh(mock_world, n):
    assert mock_world.requests() == []
    mock_world.advance("1h")
    mock_world.add_fault(family="chat", status=503)
    with open(os.environ["WORLDS_FILE"], "a") as f:
        f.write(mock_world.id + "\\n")

def test_mockd_pid(mockd):
    if mockd.started:
        with open(os.environ["PID_FILE"], "w") as f:
            f.write(str(mockd._proc.pid))
'''


def run_inner(pytester, monkeypatch, tmp_path, url):
    monkeypatch.setenv("PYTHONPATH", SRC)
    monkeypatch.setenv("WORLDS_FILE", str(tmp_path / "worlds"))
    monkeypatch.setenv("PID_FILE", str(tmp_path / "pid"))
    if url:
        monkeypatch.setenv("MOCKD_URL", url)
    else:
        monkeypatch.delenv("MOCKD_URL", raising=False)
    pytester.makepyfile(test_inner=INNER)
    result = pytester.runpytest_subprocess("-p", "mockplatform.pytest_plugin", "-q")
    result.assert_outcomes(passed=4)
    return (tmp_path / "worlds").read_text().split()


def test_worlds_are_fresh_and_deleted(pytester, monkeypatch, tmp_path, mockd):
    ids = run_inner(pytester, monkeypatch, tmp_path, mockd.url)
    assert len(set(ids)) == 3
    alive = {w["id"] for w in mockd.worlds()}
    assert not alive & set(ids)


def test_session_stops_its_mockd(pytester, monkeypatch, tmp_path):
    run_inner(pytester, monkeypatch, tmp_path, None)
    pid = int((tmp_path / "pid").read_text())
    try:
        import os
        os.kill(pid, 0)
    except ProcessLookupError:
        return
    raise AssertionError(f"the session's mockd (pid {pid}) is still running")
