"""A small JSON-over-HTTP client with one kept-alive connection per thread
and address: a test session's hundreds of control calls do not each open
a connection."""

from __future__ import annotations

import json
import threading
# typing only for the checkers: importing it would double the
# package's import time.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Dict, Mapping, Optional, Tuple
from urllib.parse import urlsplit

from .errors import MockdError

_local = threading.local()


def _connection(scheme: str, netloc: str, timeout: float) -> Any:
    import http.client  # imported on first use: it costs more than the rest of the package

    conns: Dict[Tuple[str, str], Any] = getattr(_local, "conns", None) or {}
    _local.conns = conns
    conn = conns.get((scheme, netloc))
    if conn is None:
        cls = http.client.HTTPSConnection if scheme == "https" else http.client.HTTPConnection
        conn = cls(netloc, timeout=timeout)
        conns[(scheme, netloc)] = conn
    return conn


def _drop(scheme: str, netloc: str) -> None:
    conns = getattr(_local, "conns", {})
    conn = conns.pop((scheme, netloc), None)
    if conn is not None:
        conn.close()


def request(
    method: str,
    url: str,
    body: Any = None,
    *,
    headers: Optional[Mapping[str, str]] = None,
    raw: Optional[bytes] = None,
    timeout: float = 60.0,
) -> Tuple[int, Dict[str, str], bytes]:
    """Sends one request (a JSON body, or raw bytes) and returns the status,
    the headers (lower-case names) and the body. A kept-alive connection
    that the server closed meanwhile is replaced once."""
    import http.client

    parts = urlsplit(url)
    target = parts.path or "/"
    if parts.query:
        target += "?" + parts.query
    hdrs = dict(headers or {})
    data: Optional[bytes] = raw
    if body is not None:
        data = json.dumps(body).encode()
        hdrs.setdefault("Content-Type", "application/json")
    for attempt in (0, 1):
        conn = _connection(parts.scheme, parts.netloc, timeout)
        reused = conn.sock is not None
        try:
            conn.request(method, target, body=data, headers=hdrs)
            resp = conn.getresponse()
            payload = resp.read()
        except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError) as err:
            _drop(parts.scheme, parts.netloc)
            if reused and attempt == 0:
                continue  # the server closed an idle connection: a fresh one
            raise MockdError(0, f"{method} {url}: {err}") from err
        except OSError as err:
            _drop(parts.scheme, parts.netloc)
            raise MockdError(0, f"{method} {url}: {err}") from err
        if resp.will_close:
            _drop(parts.scheme, parts.netloc)
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, payload
    raise AssertionError("unreachable")


def call(
    method: str,
    url: str,
    body: Any = None,
    *,
    headers: Optional[Mapping[str, str]] = None,
    raw: Optional[bytes] = None,
    timeout: float = 60.0,
) -> Any:
    """Sends one request and decodes a JSON answer; an error status raises
    MockdError with the answer's "error"."""
    status, _, payload = request(method, url, body, headers=headers, raw=raw, timeout=timeout)
    value: Any = None
    if payload:
        try:
            value = json.loads(payload)
        except ValueError:
            value = payload.decode("utf-8", "replace")
    if status >= 400:
        msg = value.get("error") if isinstance(value, dict) else None
        raise MockdError(status, f"{method} {url}: {status} {msg or value}", value)
    return value
