// Webhook verification: the vector the Go helper accepts
// (clients/testdata/webhook.json, TestWebhookVector).

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { WebhookError, signWebhook, verifyWebhook, webhookTimestamp } from "../dist/index.js";
import { repo } from "./helpers.mjs";

const v = JSON.parse(readFileSync(new URL("clients/testdata/webhook.json", repo), "utf8"));
const headers = (over = {}) => ({ "X-PolyAI-Timestamp": v.timestamp, "x-polyai-signature": v.signature, ...over });

test("verifies the shared vector", () => {
  verifyWebhook(v.secret, headers(), v.body);
  verifyWebhook(v.secret, headers(), new TextEncoder().encode(v.body));
  verifyWebhook(v.secret, new Headers(headers()), v.body);
  verifyWebhook(v.secret, { "x-polyai-timestamp": [v.timestamp], "x-polyai-signature": v.signature }, v.body);
  assert.equal(signWebhook(v.secret, v.timestamp, v.body), v.signature);
  assert.equal(webhookTimestamp(headers()).toISOString(), "2026-01-01T00:00:00.000Z");
});

for (const [name, secret, over, body, message] of [
  ["another secret", "other", {}, v.body, /signature mismatch/],
  ["no timestamp", v.secret, { "X-PolyAI-Timestamp": "" }, v.body, /missing/],
  ["a timestamp that is no number", v.secret, { "X-PolyAI-Timestamp": "soon" }, v.body, /unix seconds/],
  ["another body", v.secret, {}, '{"event_type":"alert.resolved"}', /signature mismatch/],
  ["a short signature", v.secret, { "x-polyai-signature": "ab" }, v.body, /signature mismatch/],
]) {
  test("refuses " + name, () => {
    assert.throws(() => verifyWebhook(secret, headers(over), body), (err) => err instanceof WebhookError && message.test(err.message));
  });
}
