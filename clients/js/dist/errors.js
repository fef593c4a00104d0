/** A control call that failed: status is the HTTP status (0 when no answer came), body the decoded answer ({"error": ...} for mockd's errors). */
export class MockdError extends Error {
    constructor(status, message, body) {
        super(message);
        this.name = "MockdError";
        this.status = status;
        this.body = body;
    }
}
/** The mockd answering has no coverage report (GET /_mock/coverage): an older version. Skip the check, or upgrade mockd. */
export class CoverageUnavailableError extends MockdError {
    constructor(body) {
        super(404, "this mockd has no coverage report (GET /_mock/coverage): upgrade it, or skip the check", body);
        this.name = "CoverageUnavailableError";
    }
}
/** A webhook delivery that does not verify. */
export class WebhookError extends Error {
    constructor(message) {
        super(message);
        this.name = "WebhookError";
    }
}
