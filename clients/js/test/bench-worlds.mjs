// Measures what a fresh world per test costs a node:test run: the same 100
// tests, each sending one chat request, run once with withWorld (a world
// created and deleted per test) and once against one shared world (the
// requests alone), against one mockd; prints the median wall times of 5
// runs of each, alternated, and their difference.
//
//	MOCKD_BIN=/path/to/mockd node test/bench-worlds.mjs

import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import { startMockd } from "../dist/index.js";

const index = fileURLToPath(new URL("../dist/index.js", import.meta.url));
const chat = `
const chat = async (w) => {
  const r = await fetch(w.runtimeUrl("us-1") + "/v1/acme/support/chat/create", { method: "POST", body: "{}",
    headers: { "X-API-KEY": "test-chat-key", "X-TOKEN": "test-connector-token", "Content-Type": "application/json" } });
  await r.text();
  if (r.status !== 200) throw new Error("status " + r.status);
};
const mockd = await connectMockd();
after(() => mockd.stop());
`;
const head = `import { test, before, after } from "node:test";\nimport { connectMockd, withWorld } from ${JSON.stringify(index)};\n`;
const fresh = head + chat + `for (let i = 0; i < 100; i++) test("fresh " + i, () => withWorld(mockd, chat));\n`;
const shared = head + chat + `let w;\nbefore(async () => { w = await mockd.createWorld(); });\nafter(() => w.delete());\n` +
  `for (let i = 0; i < 100; i++) test("shared " + i, () => chat(w));\n`;

const runs = Number(process.env.RUNS || 5);
const mockd = await startMockd();
try {
  const dir = mkdtempSync(join(tmpdir(), "mockd-bench-"));
  const files = { fresh: join(dir, "fresh.test.mjs"), shared: join(dir, "shared.test.mjs") };
  writeFileSync(files.fresh, fresh);
  writeFileSync(files.shared, shared);
  const env = { ...process.env, MOCKD_URL: mockd.url };
  delete env.NODE_TEST_CONTEXT;
  const times = { fresh: [], shared: [] };
  for (let r = 0; r < runs; r++) {
    for (const name of ["fresh", "shared"]) {
      const start = performance.now();
      execFileSync(process.execPath, ["--test", files[name]], { env, stdio: "ignore" });
      times[name].push((performance.now() - start) / 1000);
    }
  }
  const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const f = median(times.fresh);
  const s = median(times.shared);
  console.log(`100 tests, a fresh world each: ${f.toFixed(3)} s; the same requests in one world: ${s.toFixed(3)} s; ` +
    `difference ${(f - s).toFixed(3)} s (median of ${runs})`);
  if ((await mockd.worlds()).length) throw new Error("worlds left behind");
} finally {
  await mockd.stop();
}
