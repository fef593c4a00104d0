"""The README's pytest example runs as written, with the package installed
offline the way the README says (pip, setuptools, no index): the plugin
comes from its pytest11 entry point."""

import os
import shutil
import subprocess
import sys

import pytest

from conftest import REPO

PACKAGE = REPO / "clients" / "python"


def readme_block(heading, lang):
    """The first fenced block of lang under the README heading."""
    section, block, inside = False, [], False
    for line in (REPO / "README.md").read_text().splitlines():
        if inside:
            if line == "```":
                return "\n".join(block) + "\n"
            block.append(line)
        elif line.startswith("#"):
            section = line.lstrip("# ") == heading
        elif section and line == "```" + lang:
            inside = True
    raise AssertionError(f"README.md: no ```{lang} block under {heading!r}")


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """The package installed into a directory of its own, offline."""
    target = tmp_path_factory.mktemp("site")
    pip = subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True)
    if pip.returncode != 0:
        pytest.skip("no pip for " + sys.executable + " (apt-get install python3-pip)")
    build = tmp_path_factory.mktemp("build")
    # A copy: setuptools writes its build files next to the sources.
    source = build / "mockplatform"
    shutil.copytree(PACKAGE, source, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build", "tests"))
    run = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-index", "--no-build-isolation",
         "--no-deps", "--target", str(target), str(source)],
        capture_output=True, text=True, cwd=build,
        env={**os.environ, "PIP_NO_CACHE_DIR": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"})
    assert run.returncode == 0, run.stdout + run.stderr
    assert (target / "mockplatform" / "py.typed").exists()
    return target


def test_readme_pytest_example(tmp_path, installed, mockd):
    src = readme_block("pytest", "python")
    assert "def test_" in src and "mock_world" in src
    (tmp_path / "test_readme_example.py").write_text(src)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(PYTHONPATH=str(installed), MOCKD_URL=mockd.url)
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
                         capture_output=True, text=True, cwd=tmp_path, env=env)
    assert run.returncode == 0, run.stdout + run.stderr
    assert " passed" in run.stdout and "failed" not in run.stdout
    assert mockd.worlds() == []
