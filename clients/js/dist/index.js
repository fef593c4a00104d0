// @agentplatform/mockplatform: the TypeScript client of mockd, the agent
// platform mock (docs/clients.md of the repository).
export { Control, Host, World, PRESETS, withWorld } from "./control.js";
export { CONTAINER_LABEL, Mockd, connectMockd, startMockd } from "./mockd.js";
export { CoverageUnavailableError, MockdError, WebhookError } from "./errors.js";
export { EVENT_ID_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER, signWebhook, verifyWebhook, webhookTimestamp } from "./webhook.js";
