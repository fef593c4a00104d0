// Webhook signature verification: the scheme of the Go helper
// mockplatform.VerifyWebhook. X-PolyAI-Signature is the lower-case hex
// HMAC-SHA256, keyed with the endpoint's signing secret, of
// "{X-PolyAI-Timestamp}.{raw body}".
import { createHmac, timingSafeEqual } from "node:crypto";
import { WebhookError } from "./errors.js";
export const TIMESTAMP_HEADER = "X-PolyAI-Timestamp";
export const SIGNATURE_HEADER = "X-PolyAI-Signature";
export const EVENT_ID_HEADER = "X-PolyAI-Event-ID";
function header(headers, name) {
    if (typeof headers.get === "function") {
        return headers.get(name) ?? "";
    }
    for (const [key, value] of Object.entries(headers)) {
        if (key.toLowerCase() === name.toLowerCase()) {
            return Array.isArray(value) ? value[0] ?? "" : value ?? "";
        }
    }
    return "";
}
/** The signature mockd (and the real service) sends with a delivery. */
export function signWebhook(secret, timestamp, body) {
    return createHmac("sha256", secret).update(timestamp + ".").update(body).digest("hex");
}
/**
 * Checks a delivery your receiver got; body must be the raw request body.
 * Throws WebhookError when a header is missing, the timestamp is not unix
 * seconds or the signature does not match. The timestamp's age is not
 * checked (mockd signs with its virtual clock): compare webhookTimestamp()
 * with your clock (the real service advises refusing deliveries older than
 * 300 s).
 */
export function verifyWebhook(secret, headers, body) {
    const ts = header(headers, TIMESTAMP_HEADER);
    const sig = header(headers, SIGNATURE_HEADER);
    if (!ts || !sig) {
        throw new WebhookError(`missing ${TIMESTAMP_HEADER} or ${SIGNATURE_HEADER}`);
    }
    if (!/^[0-9]+$/.test(ts)) {
        throw new WebhookError(`${TIMESTAMP_HEADER} is not unix seconds`);
    }
    const enc = new TextEncoder();
    const want = enc.encode(signWebhook(secret, ts, body));
    const got = enc.encode(sig);
    if (want.length !== got.length || !timingSafeEqual(want, got)) {
        throw new WebhookError("signature mismatch");
    }
}
/** The X-PolyAI-Timestamp of a delivery. */
export function webhookTimestamp(headers) {
    const ts = header(headers, TIMESTAMP_HEADER);
    if (!/^[0-9]+$/.test(ts)) {
        throw new WebhookError(`${TIMESTAMP_HEADER} is not unix seconds`);
    }
    return new Date(Number(ts) * 1000);
}
