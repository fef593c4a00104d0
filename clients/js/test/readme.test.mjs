// The README's node:test example runs as written: the package is
// installed under its name (a node_modules link to this directory) next
// to the example, which starts its own mockd from MOCKD_BIN.

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import { repo } from "./helpers.mjs";

/** The first fenced block of lang under the README heading. */
function readmeBlock(heading, lang) {
  let section = false;
  let inside = false;
  const block = [];
  for (const line of readFileSync(new URL("README.md", repo), "utf8").split("\n")) {
    if (inside) {
      if (line === "```") return block.join("\n") + "\n";
      block.push(line);
    } else if (line.startsWith("#")) {
      section = line.replace(/^#+\s*/, "") === heading;
    } else if (section && line === "```" + lang) {
      inside = true;
    }
  }
  throw new Error(`README.md: no \`\`\`${lang} block under ${heading}`);
}

test("the README's node:test example", { skip: !process.env.MOCKD_BIN && "no MOCKD_BIN" }, async () => {
  const src = readmeBlock("node:test", "js");
  assert.match(src, /from "@agentplatform\/mockplatform"/);
  const dir = mkdtempSync(join(tmpdir(), "mockd-readme-"));
  mkdirSync(join(dir, "node_modules", "@agentplatform"), { recursive: true });
  symlinkSync(fileURLToPath(new URL("..", import.meta.url)), join(dir, "node_modules", "@agentplatform", "mockplatform"), "dir");
  writeFileSync(join(dir, "support.test.mjs"), src);
  const env = { ...process.env };
  delete env.MOCKD_URL;
  delete env.NODE_TEST_CONTEXT; // a test run of its own, not a child of this one
  const { code, out } = await new Promise((done) => {
    execFile(process.execPath, ["--test", "support.test.mjs"], { cwd: dir, env }, (err, stdout, stderr) =>
      done({ code: err ? err.code : 0, out: stdout + stderr }));
  });
  assert.equal(code, 0, out);
  assert.match(out, /# pass 1/);
});
