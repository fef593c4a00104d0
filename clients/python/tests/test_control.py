"""The control calls of a world, against a real mockd."""

from datetime import datetime, timedelta, timezone

import pytest

from mockplatform import PRESETS, Control, CoverageUnavailable, MockdError


def test_world_is_fresh_and_isolated(mockd, mock_world, chat):
    status, conv = chat("create", {})
    assert status == 200 and conv["conversation_id"].startswith("CONV-")
    assert len(mock_world.requests(family="chat")) == 1
    assert mockd.requests(family="chat") == [] or all(
        "/w/" not in r["path"] for r in mockd.requests(family="chat"))
    assert mock_world.id in [w["id"] for w in mockd.worlds()]
    assert mock_world.info["runtime_urls"]["us-1"] == mock_world.runtime_url("us-1")


def test_clock_advance_and_reset(mock_world, chat):
    start = mock_world.now()
    assert start == datetime(2026, 1, 1, tzinfo=timezone.utc)
    assert mock_world.clock()["mode"] == "manual"
    assert mock_world.advance("30m") == start + timedelta(minutes=30)
    assert mock_world.advance(timedelta(seconds=1.5)) == start + timedelta(minutes=30, seconds=1.5)
    assert mock_world.advance(to="2026-01-02T00:00:00Z") == datetime(2026, 1, 2, tzinfo=timezone.utc)
    chat("create", {})
    mock_world.reset()
    assert mock_world.now() == start
    assert mock_world.requests() == []
    with pytest.raises(ValueError):
        mock_world.advance()
    with pytest.raises(MockdError) as err:
        mock_world.advance("soon")
    assert err.value.status == 400 and "duration" in str(err.value)


def test_faults(mock_world, chat):
    rule = mock_world.add_fault(family="chat", path="/v1/*/*/chat/create", status=503, times=1)
    assert rule["id"] and rule["action"]["status"] == 503
    assert chat("create", {})[0] == 503
    assert chat("create", {})[0] == 200
    listed = mock_world.faults()
    assert [(f["id"], f["fired"], f["exhausted"]) for f in listed] == [(rule["id"], 1, True)]
    assert mock_world.remove_fault(rule["id"]) is True
    assert mock_world.remove_fault(rule["id"]) is False
    preset = mock_world.fault("outbound.outcome:busy", family="outbound")
    assert preset["action"]["preset"] == "outbound.outcome:busy"
    assert "outbound.outcome" in PRESETS
    with pytest.raises(MockdError) as err:
        mock_world.fault("no.such_preset")
    assert err.value.status == 400 and "preset" in str(err.value)
    mock_world.clear_faults()
    assert mock_world.faults() == []


def test_journal_filters(mock_world, chat):
    chat("create", {})
    chat("respond", {"conversation_id": "CONV-none", "message": "hi"})
    assert [r["status"] for r in mock_world.requests(family="chat")] == [200, 404]
    assert len(mock_world.requests(status=404)) == 1
    assert len(mock_world.requests(family="chat", limit=1)) == 1
    assert mock_world.requests(path="/respond")[0]["method"] == "POST"


def test_scenario_layer_and_validation(mock_world):
    layer = "name: flaky\nfaults:\n  - {id: f1, match: {family: chat}, action: {status: 503}}\n"
    assert mock_world.validate_scenario(layer)["valid"] is True
    bad = mock_world.validate_scenario("name: x\nbogus: 1\n")
    assert bad["valid"] is False and bad["problems"][0]["line"] == 2
    assert mock_world.load_scenario(layer)["name"] == "flaky"
    sc = mock_world.scenario()
    assert sc["name"] == "flaky" and sc["accounts"][0]["slug"] == "acme"
    assert [f["id"] for f in mock_world.faults()] == ["f1"]


@pytest.mark.mock_world(seed=7, start="2030-05-01T09:00:00Z")
def test_marker_sets_the_world(mock_world):
    assert mock_world.now() == datetime(2030, 5, 1, 9, tzinfo=timezone.utc)


def test_world_context_manager_deletes(mockd):
    with mockd.world(scenario="name: mine\naccounts:\n  - {slug: initech, id: \"3\"}\n", seed=3) as w:
        assert w.scenario()["name"] == "mine"
        assert w.id in [x["id"] for x in mockd.worlds()]
    assert w.id not in [x["id"] for x in mockd.worlds()]
    w.delete()  # a second delete is no error
    with pytest.raises(MockdError) as err:
        mockd.create_world(scenario="name: x\nbogus: 1\n")
    assert err.value.status == 400 and err.value.body["problems"]


def _operations(report):
    return {op["id"]: op for f in report["families"] for op in f["operations"]}


def test_coverage(mock_world, chat):
    chat("create", {})
    report = mock_world.coverage()
    assert report["version"] == 1
    assert _operations(report)["chatCreate"]["calls"] == 1
    assert report["totals"]["operations"]["covered"] == 1
    assert report["never_exercised"][0]["rank"] <= report["never_exercised"][-1]["rank"]
    mock_world.reset()
    assert mock_world.coverage()["totals"]["operations"]["covered"] == 1  # a reset keeps it
    assert mock_world.coverage("markdown").startswith("# API coverage\n")
    junit = mock_world.coverage("junit")
    assert junit.startswith("<?xml") and 'name="chatCreate POST' in junit
    mock_world.clear_coverage()
    assert mock_world.coverage()["totals"]["operations"]["covered"] == 0
    with pytest.raises(MockdError) as err:
        mock_world.coverage("html")
    assert err.value.status == 400 and not isinstance(err.value, CoverageUnavailable)


def test_coverage_unavailable():
    """A mockd without the report (an older one) raises CoverageUnavailable."""
    import http.server
    import threading

    class Old(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = ('{"error":"No route for GET %s."}' % self.path.split("?")[0]).encode()
            self.send_response(404)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    srv = http.server.HTTPServer(("127.0.0.1", 0), Old)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        old = Control("http://127.0.0.1:%d" % srv.server_address[1])
        for fmt in (None, "markdown"):
            with pytest.raises(CoverageUnavailable) as err:
                old.coverage(fmt)
            assert err.value.status == 404 and "coverage" in str(err.value)
    finally:
        srv.shutdown()
        srv.server_close()


def test_families(mock_world):
    assert mock_world.deliveries() == []
    assert mock_world.messaging_sessions() == []
    mock_world.evaluate_alerts()
    with pytest.raises(MockdError) as err:
        mock_world.dial("+15550000000")
    assert err.value.status == 404
    with pytest.raises(MockdError) as err:
        mock_world.say("CONV-none", "hello")
    assert err.value.status == 404


def test_health(mockd, mock_world):
    assert mockd.health()["status"] == "ok"
    assert mock_world.health() == {"status": "ok", "world": mock_world.id}
