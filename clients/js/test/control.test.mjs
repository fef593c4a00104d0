// The control calls of a world, against a real mockd.

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";

import { Control, CoverageUnavailableError, MockdError, PRESETS, withWorld } from "../dist/index.js";
import { chat, mockdForTests } from "./helpers.mjs";

let mockd;
before(async () => {
  mockd = await mockdForTests();
});
after(() => mockd.stop());

test("a world is fresh, isolated, and deleted after", async () => {
  let id;
  await withWorld(mockd, async (w) => {
    id = w.id;
    const { status, body } = await chat(w, "create", {});
    assert.equal(status, 200);
    assert.match(body.conversation_id, /^CONV-/);
    assert.equal((await w.requests({ family: "chat" })).length, 1);
    assert.ok((await mockd.worlds()).some((x) => x.id === id));
    assert.equal(w.info.runtime_urls["us-1"], w.runtimeUrl("us-1"));
    assert.deepEqual(await w.health(), { status: "ok", world: id });
  });
  assert.ok(!(await mockd.worlds()).some((x) => x.id === id));
  await assert.rejects(withWorld(mockd, async () => {
    throw new Error("boom");
  }), /boom/);
  assert.deepEqual(await mockd.worlds(), []);
});

test("clock, advance and reset", () => withWorld(mockd, async (w) => {
  const start = await w.now();
  assert.equal(start.toISOString(), "2026-01-01T00:00:00.000Z");
  assert.equal((await w.clock()).mode, "manual");
  assert.equal((await w.advance("30m")).toISOString(), "2026-01-01T00:30:00.000Z");
  assert.equal((await w.advance(1500)).toISOString(), "2026-01-01T00:30:01.500Z");
  assert.equal((await w.advanceTo("2026-01-02T00:00:00Z")).toISOString(), "2026-01-02T00:00:00.000Z");
  await chat(w, "create", {});
  await w.reset();
  assert.equal((await w.now()).getTime(), start.getTime());
  assert.deepEqual(await w.requests(), []);
  await assert.rejects(w.advance("soon"), (err) => err instanceof MockdError && err.status === 400 && /duration/.test(err.message));
}));

test("fault rules, by parts and presets", () => withWorld(mockd, async (w) => {
  const rule = await w.addFault({ family: "chat", path: "/v1/*/*/chat/create", status: 503, times: 1 });
  assert.equal(rule.action.status, 503);
  assert.equal((await chat(w, "create", {})).status, 503);
  assert.equal((await chat(w, "create", {})).status, 200);
  const listed = await w.faults();
  assert.deepEqual(listed.map((f) => [f.id, f.fired, f.exhausted]), [[rule.id, 1, true]]);
  assert.equal(await w.removeFault(rule.id), true);
  assert.equal(await w.removeFault(rule.id), false);
  const preset = await w.fault("outbound.outcome:busy", { family: "outbound" });
  assert.equal(preset.action.preset, "outbound.outcome:busy");
  assert.ok(PRESETS.includes("outbound.outcome"));
  await assert.rejects(w.fault("no.such_preset"), (err) => err.status === 400 && /preset/.test(err.message));
  await w.addFault({ match: { family: "chat" }, action: { status: 500 }, id: "raw" });
  assert.ok((await w.faults()).some((f) => f.id === "raw" && f.rule === undefined && f.action.status === 500));
  await w.clearFaults();
  assert.deepEqual(await w.faults(), []);
}));

test("the journal's filters", () => withWorld(mockd, async (w) => {
  await chat(w, "create", {});
  await chat(w, "respond", { conversation_id: "CONV-none", message: "hi" });
  assert.deepEqual((await w.requests({ family: "chat" })).map((r) => r.status), [200, 404]);
  assert.equal((await w.requests({ status: 404 })).length, 1);
  assert.equal((await w.requests({ family: "chat", limit: 1 })).length, 1);
  assert.equal((await w.requests({ path: "/respond" }))[0].method, "POST");
}));

test("scenario layers and validation", () => withWorld(mockd, async (w) => {
  const layer = "name: flaky\nfaults:\n  - {id: f1, match: {family: chat}, action: {status: 503}}\n";
  assert.equal((await w.validateScenario(layer)).valid, true);
  const bad = await w.validateScenario("name: x\nbogus: 1\n");
  assert.equal(bad.valid, false);
  assert.equal(bad.problems[0].line, 2);
  assert.equal((await w.loadScenario(layer)).name, "flaky");
  const sc = await w.scenario();
  assert.equal(sc.name, "flaky");
  assert.equal(sc.accounts[0].slug, "acme");
}));

test("world settings", async () => {
  await withWorld(mockd, { seed: 7, start: new Date("2030-05-01T09:00:00Z") }, async (w) => {
    assert.equal((await w.now()).toISOString(), "2030-05-01T09:00:00.000Z");
  });
  await withWorld(mockd, { scenario: 'name: mine\naccounts:\n  - {slug: initech, id: "3"}\n' }, async (w) => {
    assert.equal((await w.scenario()).name, "mine");
  });
  await assert.rejects(mockd.createWorld({ scenario: "name: x\nbogus: 1\n" }), (err) => err.status === 400 && err.body.problems.length === 1);
});

test("coverage: counted, kept across a reset, cleared", () => withWorld(mockd, async (w) => {
  await chat(w, "create", {});
  const ops = (r) => Object.fromEntries(r.families.flatMap((f) => f.operations).map((op) => [op.id, op]));
  let report = await w.coverage();
  assert.equal(report.version, 1);
  assert.equal(ops(report).chatCreate.calls, 1);
  assert.equal(report.totals.operations.covered, 1);
  await w.reset();
  report = await w.coverage();
  assert.equal(report.totals.operations.covered, 1);
  assert.match(await w.coverage("markdown"), /^# API coverage\n/);
  const junit = await w.coverage("junit");
  assert.match(junit, /^<\?xml/);
  assert.match(junit, /name="chatCreate POST/);
  await w.clearCoverage();
  assert.equal((await w.coverage()).totals.operations.covered, 0);
  await assert.rejects(w.coverage("html"), (err) => err.status === 400 && !(err instanceof CoverageUnavailableError));
}));

test("coverage from a mockd without it: CoverageUnavailableError", async () => {
  const srv = createServer((req, res) => {
    res.writeHead(404, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ error: `No route for GET ${req.url.split("?")[0]}.` }));
  });
  await new Promise((resolve) => srv.listen(0, "127.0.0.1", resolve));
  try {
    const old = new Control(`http://127.0.0.1:${srv.address().port}`);
    for (const format of [undefined, "markdown"]) {
      await assert.rejects(old.coverage(format), (err) => err instanceof CoverageUnavailableError && err.status === 404);
    }
  } finally {
    srv.close();
  }
});

test("family controls", () => withWorld(mockd, async (w) => {
  assert.deepEqual(await w.deliveries(), []);
  assert.deepEqual(await w.messagingSessions(), []);
  await w.evaluateAlerts();
  await assert.rejects(w.dial("+15550000000"), (err) => err.status === 404);
  await assert.rejects(w.say("CONV-none", "hello"), (err) => err.status === 404);
}));
