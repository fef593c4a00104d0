/** A control call that failed: status is the HTTP status (0 when no answer came), body the decoded answer ({"error": ...} for mockd's errors). */
export declare class MockdError extends Error {
    readonly status: number;
    readonly body: unknown;
    constructor(status: number, message: string, body?: unknown);
}
/** The mockd answering has no coverage report (GET /_mock/coverage): an older version. Skip the check, or upgrade mockd. */
export declare class CoverageUnavailableError extends MockdError {
    constructor(body?: unknown);
}
/** A webhook delivery that does not verify. */
export declare class WebhookError extends Error {
    constructor(message: string);
}
