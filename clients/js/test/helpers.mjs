// Shared by the tests: a mockd for a test file (MOCKD_URL, or one started
// from MOCKD_BIN / PATH), and chat calls with the default scenario's keys.

import { connectMockd, startMockd } from "../dist/index.js";

export const repo = new URL("../../../", import.meta.url);

export async function mockdForTests() {
  return process.env.MOCKD_URL ? connectMockd() : startMockd();
}

export async function chat(world, op, body) {
  const resp = await fetch(world.runtimeUrl("us-1") + "/v1/acme/support/chat/" + op, {
    method: "POST",
    body: JSON.stringify(body),
    headers: { "X-API-KEY": "test-chat-key", "X-TOKEN": "test-connector-token", "Content-Type": "application/json" },
  });
  return { status: resp.status, body: await resp.json() };
}
