export declare const TIMESTAMP_HEADER = "X-PolyAI-Timestamp";
export declare const SIGNATURE_HEADER = "X-PolyAI-Signature";
export declare const EVENT_ID_HEADER = "X-PolyAI-Event-ID";
/** Headers as a fetch Headers, a plain object (any case) or Node's incoming headers. */
export declare type HeaderSource = {
    get(name: string): string | null;
} | Record<string, string | string[] | undefined>;
/** The signature mockd (and the real service) sends with a delivery. */
export declare function signWebhook(secret: string, timestamp: string, body: string | Uint8Array): string;
/**
 * Checks a delivery your receiver got; body must be the raw request body.
 * Throws WebhookError when a header is missing, the timestamp is not unix
 * seconds or the signature does not match. The timestamp's age is not
 * checked (mockd signs with its virtual clock): compare webhookTimestamp()
 * with your clock (the real service advises refusing deliveries older than
 * 300 s).
 */
export declare function verifyWebhook(secret: string, headers: HeaderSource, body: string | Uint8Array): void;
/** The X-PolyAI-Timestamp of a delivery. */
export declare function webhookTimestamp(headers: HeaderSource): Date;
