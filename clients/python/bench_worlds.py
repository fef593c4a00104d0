"""Measures what a fresh world per test costs a pytest session: the same
100 tests, each sending one chat request, run once with the mock_world
fixture (a world created and deleted per test) and once against one
shared world (the requests alone), against one mockd; prints the median
wall times of 5 runs of each, alternated, and their difference.

    MOCKD_BIN=/path/to/mockd python3 bench_worlds.py
"""

import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent / "src"))

from mockplatform import Mockd  # noqa: E402

CHAT = '''
from mockplatform import _http

def chat(world):
    status, _, _ = _http.request("POST", world.runtime_url("us-1") + "/v1/acme/support/chat/create", {},
                                 headers={"X-API-KEY": "test-chat-key", "X-TOKEN": "test-connector-token"})
    assert status == 200
'''

FRESH = CHAT + '''
import pytest

@pytest.mark.parametrize("n", range(100))
def test_fresh(mock_world, n):
    chat(mock_world)
'''

SHARED = CHAT + '''
import pytest

@pytest.fixture(scope="module")
def world(mockd):
    with mockd.world() as w:
        yield w

@pytest.mark.parametrize("n", range(100))
def test_shared(world, n):
    chat(world)
'''


def main():
    runs = int(os.environ.get("RUNS", "5"))
    with Mockd.start() as mockd, tempfile.TemporaryDirectory() as d:
        files = {}
        for name, src in (("fresh", FRESH), ("shared", SHARED)):
            files[name] = pathlib.Path(d) / f"test_{name}.py"
            files[name].write_text(src)
        env = dict(os.environ, MOCKD_URL=mockd.url, PYTHONPATH=str(pathlib.Path(__file__).resolve().parent / "src"))
        times = {"fresh": [], "shared": []}
        for _ in range(runs):
            for name in ("fresh", "shared"):
                start = time.perf_counter()
                subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "mockplatform.pytest_plugin",
                                "-p", "no:cacheprovider", str(files[name])], env=env, cwd=d, check=True,
                               stdout=subprocess.DEVNULL)
                times[name].append(time.perf_counter() - start)
        fresh, shared = statistics.median(times["fresh"]), statistics.median(times["shared"])
        print(f"100 tests, a fresh world each: {fresh:.3f} s; the same requests in one world: {shared:.3f} s; "
              f"difference {fresh - shared:.3f} s (median of {runs})")
        assert mockd.worlds() == [], "worlds left behind"


if __name__ == "__main__":
    main()
