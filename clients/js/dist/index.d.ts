export { Control, Host, World, PRESETS, withWorld } from "./control.js";
export type { Duration, FaultParts, FaultRule, Json, JsonObject, RequestFilter, WorldOptions } from "./control.js";
export { CONTAINER_LABEL, Mockd, connectMockd, startMockd } from "./mockd.js";
export type { StartOptions } from "./mockd.js";
export { CoverageUnavailableError, MockdError, WebhookError } from "./errors.js";
export { EVENT_ID_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER, signWebhook, verifyWebhook, webhookTimestamp } from "./webhook.js";
export type { HeaderSource } from "./webhook.js";
