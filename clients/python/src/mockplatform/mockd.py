"""Starting mockd: a binary (MOCKD_BIN, or mockd on PATH) or the container
image (the docker CLI), on a free loopback port, stopped at exit."""

from __future__ import annotations

import os
import time
# typing only for the checkers: importing it would double the
# package's import time.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, List, Optional, Sequence, Union

from . import _http
from .client import Host
from .errors import MockdError

#: The label of containers this package starts (docker ps --filter label=...).
CONTAINER_LABEL = "org.agentplatform.mockplatform.client"


class Mockd(Host):
    """A mockd: started by this process (start), or one that runs already
    (connect). Its control calls reach the root instance; world() gives a
    test an isolated one."""

    def __init__(self, url: str, token: Optional[str] = None) -> None:
        super().__init__(url, token)
        self._proc: Any = None
        self._container: Optional[str] = None
        self._docker = "docker"
        self._log: Any = None
        self._reader: Any = None

    @classmethod
    def connect(cls, url: Optional[str] = None, token: Optional[str] = None) -> "Mockd":
        """A mockd that runs already: url (default MOCKD_URL) and its control
        token (default MOCKD_CONTROL_TOKEN). It is left running."""
        url = url or os.environ.get("MOCKD_URL")
        if not url:
            raise MockdError(0, "no mockd address: give a URL or set MOCKD_URL")
        m = cls(url, token if token is not None else os.environ.get("MOCKD_CONTROL_TOKEN"))
        m.health()
        return m

    @classmethod
    def start(
        cls,
        *,
        binary: Optional[str] = None,
        image: Optional[str] = None,
        scenario: Union[None, str, Sequence[str]] = None,
        clock: str = "manual",
        args: Sequence[str] = (),
        timeout: float = 30.0,
    ) -> "Mockd":
        """Starts a mockd and waits until it serves. binary (default
        MOCKD_BIN, else mockd on PATH) runs the binary; otherwise image
        (default MOCKD_IMAGE) runs the container with the docker CLI.
        scenario names scenario files ("default": the built-in one). The
        clock is manual unless told. It stops with stop(), the with
        statement, or at the interpreter's exit."""
        import shutil

        files = [scenario] if isinstance(scenario, str) else list(scenario or [])
        if not binary and not image:  # an explicit binary or image wins over the environment's
            binary = os.environ.get("MOCKD_BIN") or (None if os.environ.get("MOCKD_IMAGE") else shutil.which("mockd"))
        if binary:
            return cls._start_binary(binary, files, clock, list(args), timeout)
        image = image or os.environ.get("MOCKD_IMAGE")
        if image:
            return cls._start_container(image, files, clock, list(args), timeout)
        raise MockdError(0, "no mockd to start: set MOCKD_BIN to a mockd binary (go build ./cmd/mockd), put mockd "
                            "on PATH, or set MOCKD_IMAGE to its image (scripts/build-image.sh)")

    @classmethod
    def _start_binary(cls, binary: str, files: List[str], clock: str, args: List[str], timeout: float) -> "Mockd":
        import atexit
        import queue
        import subprocess
        import tempfile
        import threading

        cmd = [binary, "--addr", "127.0.0.1:0", "--clock", clock]
        for f in files:
            cmd += ["--scenario", f]
        log = tempfile.TemporaryFile()
        env = {k: v for k, v in os.environ.items() if not k.startswith("MOCKD_")}
        proc = subprocess.Popen(cmd + args, stdout=subprocess.PIPE, stderr=log, stdin=subprocess.DEVNULL, env=env)
        found: "queue.Queue[Optional[str]]" = queue.Queue()

        def read_banner() -> None:
            # The banner's control line gives the address; the rest of
            # stdout is drained so that mockd never blocks on it.
            for line in proc.stdout:  # type: ignore[union-attr]
                text = line.decode("utf-8", "replace").strip()
                if text.startswith("control:"):
                    found.put(text.split(None, 1)[1].rsplit("/_mock", 1)[0])
            found.put(None)

        reader = threading.Thread(target=read_banner, name="mockd-stdout", daemon=True)
        reader.start()
        m = cls.__new__(cls)
        Mockd.__init__(m, "http://127.0.0.1:0")
        m._proc, m._log, m._reader = proc, log, reader
        atexit.register(m.stop)
        try:
            url = found.get(timeout=timeout)
        except queue.Empty:
            url = None
        if url is None:
            out = m._output()
            m.stop()
            raise MockdError(0, f"mockd did not start ({' '.join(cmd)}):\n{out}")
        m.url = url
        return m

    @classmethod
    def _start_container(cls, image: str, files: List[str], clock: str, args: List[str], timeout: float) -> "Mockd":
        import atexit
        import subprocess

        docker = os.environ.get("MOCKD_DOCKER", "docker")
        cmd = [docker, "run", "-d", "--rm", "-p", "127.0.0.1::8080", "--label", CONTAINER_LABEL + "=python",
               "-e", "MOCKD_CLOCK=" + clock]
        names = []
        for i, f in enumerate(files):
            if f == "default":
                names.append(f)
                continue
            name = f"/scenarios/{i}-{os.path.basename(f)}"
            cmd += ["-v", f"{os.path.abspath(f)}:{name}:ro"]
            names.append(name)
        if names:
            cmd += ["-e", "MOCKD_SCENARIO=" + ",".join(names)]
        run = subprocess.run(cmd + [image] + args, capture_output=True, text=True)
        if run.returncode != 0:
            raise MockdError(0, f"docker run {image}: {run.stderr.strip()}")
        m = cls.__new__(cls)
        Mockd.__init__(m, "http://127.0.0.1:0")
        m._container, m._docker = run.stdout.strip(), docker
        atexit.register(m.stop)
        port = subprocess.run([docker, "port", m._container, "8080/tcp"], capture_output=True, text=True)
        if port.returncode != 0 or not port.stdout.strip():
            m.stop()
            raise MockdError(0, f"docker port: {port.stderr.strip()}")
        m.url = "http://" + port.stdout.split()[0]
        deadline = time.monotonic() + timeout
        while True:
            try:
                status, _, _ = _http.request("GET", m.url + "/_mock/health", timeout=2)
                if status == 200:
                    return m
            except MockdError:
                pass
            if time.monotonic() > deadline:
                out = m._output()
                m.stop()
                raise MockdError(0, f"the mockd container did not become healthy in {timeout:g} s:\n{out}")
            time.sleep(0.05)

    def _output(self) -> str:
        """What mockd printed (its logs and problems)."""
        import subprocess

        if self._container:
            logs = subprocess.run([self._docker, "logs", self._container], capture_output=True, text=True)
            return logs.stdout + logs.stderr
        if self._log is not None:
            self._log.seek(0)
            return self._log.read().decode("utf-8", "replace")
        return ""

    @property
    def started(self) -> bool:
        """Whether this process started the mockd (and stop() ends it)."""
        return self._proc is not None or self._container is not None

    def stop(self) -> None:
        """Stops a mockd this process started (a connected one is left
        running). Safe to call twice."""
        import subprocess

        if self._proc is not None:
            proc, self._proc = self._proc, None
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
            if self._reader is not None:
                self._reader.join(timeout=5)  # it ends at the pipe's end
            if proc.stdout:
                proc.stdout.close()
        if self._container is not None:
            container, self._container = self._container, None
            subprocess.run([self._docker, "rm", "-f", container], capture_output=True)
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self) -> "Mockd":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()
