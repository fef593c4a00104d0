"""The control plane of a mock instance ({base}/_mock,
docs/control.openapi.json): mockd's root instance (Mockd) and its worlds
(World) have the same calls."""

from __future__ import annotations

from datetime import datetime, timedelta
# typing only for the checkers: importing it would double the
# package's import time.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Dict, Iterator, List, Optional, Sequence, Union
from urllib.parse import quote, urlencode

from . import _http
from .errors import CoverageUnavailable, MockdError

if TYPE_CHECKING:
    Duration = Union[str, float, timedelta]

#: The fault presets mockd knows (docs/scenarios.md#faults): a family's
#: own failure mode by name; some take an argument ("name:arg").
PRESETS = (
    "alerts_limit",
    "monitoring_backend_failure",
    "messaging.expire_session",
    "messaging.expire_session_after",  # :N answered requests
    "messaging.expire_token",
    "messaging.drop_socket",
    "messaging.stall_chunks",
    "messaging.delay_chunks",  # :DURATION
    "outbound.outcome",  # :busy, :no_answer, ...
)


def _duration(d: Duration) -> str:
    if isinstance(d, str):
        return d
    seconds = d.total_seconds() if isinstance(d, timedelta) else float(d)
    return f"{seconds:.9f}".rstrip("0").rstrip(".") + "s"


def _time(s: str) -> datetime:
    # fromisoformat reads "Z" from Python 3.11 on, and at most 6 digits of
    # fractions.
    s = s.replace("Z", "+00:00")
    if "." in s:
        head, rest = s.split(".", 1)
        n = len(rest) - len(rest.lstrip("0123456789"))
        s = head + "." + rest[:n][:6].ljust(6, "0") + rest[n:]
    return datetime.fromisoformat(s)


class Control:
    """The control plane of one instance, at base_url (mockd's address, or
    a world's {base}/w/{id})."""

    def __init__(self, base_url: str, token: Optional[str] = None) -> None:
        self.url = base_url.rstrip("/")
        self.token = token or None

    # Addresses.

    @property
    def control_url(self) -> str:
        return self.url + "/_mock"

    def runtime_url(self, region: str = "us-1") -> str:
        """The runtime family's base address: {base}/runtime/{region}."""
        return f"{self.url}/runtime/{region}"

    def builder_url(self, region: str = "us") -> str:
        """The builder family's base address: {base}/builder/{region}."""
        return f"{self.url}/builder/{region}"

    @property
    def messaging_url(self) -> str:
        return self.url + "/messaging"

    # The calls.

    def _call(self, method: str, path: str, body: Any = None, *, raw: Optional[bytes] = None,
              content_type: Optional[str] = None) -> Any:
        headers = {}
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        if content_type:
            headers["Content-Type"] = content_type
        elif method == "POST" and body is None and raw is None:
            headers["Content-Type"] = "application/json"
        return _http.call(method, self.control_url + path, body, headers=headers, raw=raw)

    def health(self) -> Dict[str, Any]:
        return self._call("GET", "/health")

    def clock(self) -> Dict[str, Any]:
        """{"now": RFC 3339, "mode": "manual" | "real"}."""
        return self._call("GET", "/clock")

    def now(self) -> datetime:
        """The virtual clock's time."""
        return _time(self.clock()["now"])

    def advance(self, duration: Optional[Duration] = None, *, to: Optional[Union[datetime, str]] = None) -> datetime:
        """Moves the clock forward by duration ("5m", seconds, a timedelta) or
        to a time, running every timer that falls due; returns the new time."""
        if (duration is None) == (to is None):
            raise ValueError("give a duration or to=, not both")
        if duration is not None:
            body = {"duration": _duration(duration)}
        else:
            body = {"to": to.isoformat() if isinstance(to, datetime) else to}
        return _time(self._call("POST", "/clock/advance", body)["now"])

    def reset(self) -> None:
        """Back to the scenario's initial state: data, clock, faults, journal."""
        self._call("POST", "/reset")

    def load_scenario(self, yaml: str) -> Dict[str, Any]:
        """Replaces the scenario (YAML text), then resets. A layer (no
        accounts) goes on top of the scenario the instance started with."""
        return self._call("POST", "/scenario", raw=yaml.encode(), content_type="application/yaml")

    def validate_scenario(self, yaml: str) -> Dict[str, Any]:
        """{"valid": True, "name"} or {"valid": False, "problems": [...]}."""
        return self._call("POST", "/scenario/validate", raw=yaml.encode(), content_type="application/yaml")

    def scenario(self) -> Dict[str, Any]:
        """The scenario in force, as JSON, secrets redacted."""
        return self._call("GET", "/scenario")

    def requests(self, *, family: Optional[str] = None, method: Optional[str] = None, path: Optional[str] = None,
                 status: Optional[int] = None, limit: Optional[int] = None) -> List[Dict[str, Any]]:
        """The request journal, oldest first: each entry has seq, time,
        family, method, path, status, ..."""
        q = {k: v for k, v in (("family", family), ("method", method), ("path", path),
                               ("status", status), ("limit", limit)) if v is not None}
        return self._call("GET", "/requests" + ("?" + urlencode(q) if q else ""))["requests"]

    def add_fault(self, rule: Optional[Dict[str, Any]] = None, *, family: Optional[str] = None,
                  method: Optional[str] = None, path: Optional[str] = None, region: Optional[str] = None,
                  status: Optional[int] = None, code: Optional[str] = None, message: Optional[str] = None,
                  preset: Optional[str] = None, delay: Optional[Duration] = None, drop: bool = False,
                  times: Optional[int] = None, after: Optional[int] = None, id: Optional[str] = None) -> Dict[str, Any]:
        """Adds a fault rule (docs/scenarios.md#faults), as a dict or by its
        parts, and returns it with its id."""
        if rule is None:
            match = {k: v for k, v in (("family", family), ("method", method), ("path", path),
                                       ("region", region)) if v is not None}
            action: Dict[str, Any] = {k: v for k, v in (("status", status), ("code", code), ("message", message),
                                                       ("preset", preset)) if v is not None}
            if delay is not None:
                action["delay"] = _duration(delay)
            if drop:
                action["drop"] = True
            rule = {"match": match, "action": action}
            for k, v in (("times", times), ("after", after), ("id", id)):
                if v is not None:
                    rule[k] = v
        return self._call("POST", "/faults", rule)

    def fault(self, preset: str, *, family: Optional[str] = None, method: Optional[str] = None,
              path: Optional[str] = None, times: Optional[int] = None) -> Dict[str, Any]:
        """Adds a fault rule that applies a preset by name (PRESETS; "name:arg"
        for one with an argument), on the requests that match."""
        return self.add_fault(family=family, method=method, path=path, preset=preset, times=times)

    def faults(self) -> List[Dict[str, Any]]:
        """The fault rules with their counters (matched, fired, exhausted)."""
        return self._call("GET", "/faults")["faults"]

    def remove_fault(self, fault_id: str) -> bool:
        """Removes a fault rule; False when there was none."""
        try:
            self._call("DELETE", "/faults/" + quote(fault_id, safe=""))
        except MockdError as err:
            if err.status == 404:
                return False
            raise
        return True

    def clear_faults(self) -> None:
        self._call("DELETE", "/faults")

    def coverage(self, format: Optional[str] = None) -> Any:
        """The API coverage report (GET /_mock/coverage): JSON as a dict, or
        the text of format "markdown" or "junit". Raises CoverageUnavailable
        when the mockd answering has no such report."""
        path = "/coverage" + ("?" + urlencode({"format": format}) if format else "")
        try:
            if format:
                headers = {"Authorization": "Bearer " + self.token} if self.token else {}
                status, _, payload = _http.request("GET", self.control_url + path, headers=headers)
                if status >= 400:
                    raise MockdError(status, f"GET {path}: {status} {payload[:200]!r}")
                return payload.decode()
            return self._call("GET", path)
        except MockdError as err:
            if err.status == 404 and "no route" in str(err).lower():
                raise CoverageUnavailable(404, "this mockd has no coverage report (GET /_mock/coverage): "
                                               "upgrade it, or skip the check", err.body) from err
            raise

    def clear_coverage(self) -> None:
        """Forgets the coverage counted so far (DELETE /_mock/coverage; at
        mockd's root, every world's too)."""
        self._call("DELETE", "/coverage")

    def deliveries(self) -> List[Dict[str, Any]]:
        """Every webhook delivery attempt since the last reset, oldest first."""
        return self._call("GET", "/webhooks/deliveries")["deliveries"]

    def evaluate_alerts(self) -> None:
        """One alert evaluation pass now, with the webhook attempts it starts."""
        self._call("POST", "/alerts/evaluate")

    def dial(self, number: str, caller: str = "") -> Dict[str, Any]:
        """A caller dials a reserved or connected number: a voice call starts."""
        return self._call("POST", "/dni/dial", {"number": number, "from": caller})

    def say(self, conversation_id: str, text: str) -> Dict[str, Any]:
        """The caller speaks into a voice call; the agent's answer."""
        return self._call("POST", f"/calls/{quote(conversation_id, safe='')}/say", {"text": text})

    def hangup(self, conversation_id: str) -> None:
        self._call("POST", f"/calls/{quote(conversation_id, safe='')}/hangup")

    def messaging_sessions(self) -> List[Dict[str, Any]]:
        return self._call("GET", "/messaging/sessions")["sessions"]


class World(Control):
    """A world: an isolated copy of the mock under {base}/w/{id}/, with
    its own data, clock, faults and journal. info is mockd's answer (id,
    url, runtime_urls, builder_urls, messaging_url, control_url, ...)."""

    def __init__(self, info: Dict[str, Any], host: "Host") -> None:
        super().__init__(info["url"], host.token)
        self.id: str = info["id"]
        self.info = info
        self._host = host

    def delete(self) -> None:
        """Deletes the world (once; a world already gone is no error)."""
        self._host.delete_world(self.id)

    def __enter__(self) -> "World":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.delete()


class Host(Control):
    """A mockd's root instance, which hosts worlds."""

    def create_world(self, scenario: Optional[Union[str, Sequence[str]]] = None, *, seed: Optional[int] = None,
                     clock: Optional[str] = None, start: Optional[Union[datetime, str]] = None) -> World:
        """Creates a world: the host's scenario, seed and clock unless given
        (scenario: YAML text, or several merged in order). Delete it with
        world.delete(), or use world() as a context manager."""
        body: Dict[str, Any] = {}
        if isinstance(scenario, str):
            body["scenario"] = scenario
        elif scenario is not None:
            body["scenarios"] = list(scenario)
        if seed is not None:
            body["seed"] = seed
        if clock is not None:
            body["clock"] = clock
        if start is not None:
            body["start"] = start.isoformat() if isinstance(start, datetime) else start
        return World(self._call("POST", "/worlds", body or None), self)

    def world(self, scenario: Optional[Union[str, Sequence[str]]] = None, *, seed: Optional[int] = None,
              clock: Optional[str] = None, start: Optional[Union[datetime, str]] = None) -> World:
        """A new world, for a with statement that deletes it afterwards:
        with mockd.world(seed=7) as w: ..."""
        return self.create_world(scenario, seed=seed, clock=clock, start=start)

    def worlds(self) -> List[Dict[str, Any]]:
        """The worlds alive, oldest first."""
        return self._call("GET", "/worlds")["worlds"]

    def delete_world(self, world_id: str) -> None:
        try:
            self._call("DELETE", "/worlds/" + quote(world_id, safe=""))
        except MockdError as err:
            if err.status != 404:
                raise

    def iter_worlds(self) -> Iterator[World]:
        for info in self.worlds():
            yield World(info, self)
