// Starting and stopping mockd: a binary, or the image with docker.

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { MockdError, connectMockd, startMockd } from "../dist/index.js";

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test("starts the binary with a layer, and stops it", async () => {
  const dir = mkdtempSync(join(tmpdir(), "mockd-js-"));
  const layer = join(dir, "flaky.yaml");
  writeFileSync(layer, "name: flaky\nfaults:\n  - {id: f1, match: {family: chat}, action: {status: 503}}\n");
  const m = await startMockd({ scenario: layer });
  const pid = m["child"].pid;
  assert.ok(m.started);
  assert.match(m.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal((await m.health()).status, "ok");
  assert.equal((await m.scenario()).name, "flaky");
  await m.stop();
  await m.stop();
  assert.equal(alive(pid), false);
  await assert.rejects(m.health(), MockdError);
});

test("a failed start says why", async () => {
  const dir = mkdtempSync(join(tmpdir(), "mockd-js-"));
  const bad = join(dir, "bad.yaml");
  writeFileSync(bad, "name: bad\nbogus: 1\n");
  await assert.rejects(startMockd({ scenario: bad }), (err) => err instanceof MockdError && err.message.includes(`${bad}:2:1: bogus: unknown field`));
  await assert.rejects(startMockd({ binary: join(dir, "no-mockd") }), (err) => err instanceof MockdError && /ENOENT/.test(err.message));
});

test("connect leaves it running", async () => {
  const m = await startMockd();
  try {
    const other = await connectMockd(m.url);
    assert.equal(other.started, false);
    await other.stop();
    assert.equal((await m.health()).status, "ok");
  } finally {
    await m.stop();
  }
  const saved = process.env.MOCKD_URL;
  delete process.env.MOCKD_URL;
  await assert.rejects(connectMockd(), /MOCKD_URL/);
  if (saved !== undefined) process.env.MOCKD_URL = saved;
});

const docker = (() => {
  try {
    execFileSync("docker", ["version"], { stdio: "ignore" });
    return Boolean(process.env.MOCKD_IMAGE);
  } catch {
    return false;
  }
})();

test("starts the image with docker", { skip: !docker && "no MOCKD_IMAGE (scripts/build-image.sh) or no docker" }, async () => {
  const m = await startMockd({ binary: "", image: process.env.MOCKD_IMAGE });
  const id = m["container"];
  try {
    const w = await m.createWorld({ seed: 5 });
    assert.equal((await w.advance("1h")).getUTCHours(), 1);
    await w.delete();
    assert.deepEqual(await m.worlds(), []);
  } finally {
    await m.stop();
  }
  assert.equal(execFileSync("docker", ["ps", "-aq", "--filter", "id=" + id], { encoding: "utf8" }).trim(), "");
});
