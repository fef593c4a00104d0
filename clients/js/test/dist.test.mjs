// dist/ (the compiled package, committed so that it installs without a
// compiler) is what tsc makes of src/ now.

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const pkg = fileURLToPath(new URL("..", import.meta.url));

const tsc = (() => {
  try {
    execFileSync("tsc", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

test("dist is current", { skip: !tsc && "no tsc (apt-get install node-typescript)" }, () => {
  const out = mkdtempSync(join(tmpdir(), "mockd-dist-"));
  execFileSync("tsc", ["-p", pkg, "--outDir", out], { stdio: "pipe" });
  const want = readdirSync(out).sort();
  assert.deepEqual(readdirSync(join(pkg, "dist")).sort(), want);
  for (const f of want) {
    assert.equal(readFileSync(join(pkg, "dist", f), "utf8"), readFileSync(join(out, f), "utf8"), `dist/${f} is out of date: run tsc -p clients/js`);
  }
});
