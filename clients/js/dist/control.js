// The control plane of a mock instance ({base}/_mock,
// docs/control.openapi.json): mockd's root instance (Mockd) and its worlds
// (World) have the same calls.
import { CoverageUnavailableError, MockdError } from "./errors.js";
/** The fault presets mockd knows (docs/scenarios.md#faults); some take an argument ("name:arg"). */
export const PRESETS = [
    "alerts_limit",
    "monitoring_backend_failure",
    "messaging.expire_session",
    "messaging.expire_session_after",
    "messaging.expire_token",
    "messaging.drop_socket",
    "messaging.stall_chunks",
    "messaging.delay_chunks",
    "outbound.outcome", // :busy, :no_answer, ...
];
export function durationString(d) {
    return typeof d === "number" ? `${d}ms` : d;
}
/** fetch with mockd's error shape: an error status throws MockdError. */
export async function request(method, url, init = {}) {
    let resp;
    try {
        resp = await fetch(url, { method, body: init.body, headers: init.headers });
    }
    catch (err) {
        throw new MockdError(0, `${method} ${url}: ${err.message}`);
    }
    const text = await resp.text();
    let value = null;
    if (text) {
        try {
            value = JSON.parse(text);
        }
        catch {
            value = text;
        }
    }
    if (resp.status >= 400) {
        const msg = value && typeof value === "object" && !Array.isArray(value) ? value.error : value;
        throw new MockdError(resp.status, `${method} ${url}: ${resp.status} ${String(msg)}`, value);
    }
    return value;
}
/** The control plane of one instance at url (mockd's address, or a world's {base}/w/{id}). */
export class Control {
    constructor(url, token) {
        this.url = url.replace(/\/+$/, "");
        this.token = token || undefined;
    }
    get controlUrl() {
        return this.url + "/_mock";
    }
    /** The runtime family's base address: {base}/runtime/{region}. */
    runtimeUrl(region = "us-1") {
        return `${this.url}/runtime/${region}`;
    }
    /** The builder family's base address: {base}/builder/{region}. */
    builderUrl(region = "us") {
        return `${this.url}/builder/${region}`;
    }
    get messagingUrl() {
        return this.url + "/messaging";
    }
    call(method, path, body, contentType = "application/json") {
        const headers = {};
        if (this.token) {
            headers.Authorization = "Bearer " + this.token;
        }
        let data;
        if (typeof body === "string") {
            data = body;
        }
        else if (body !== undefined) {
            data = JSON.stringify(body);
        }
        if (method === "POST" || data !== undefined) {
            headers["Content-Type"] = contentType;
        }
        return request(method, this.controlUrl + path, { body: data, headers });
    }
    async health() {
        return (await this.call("GET", "/health"));
    }
    /** {now: RFC 3339, mode: "manual" | "real"}. */
    async clock() {
        return (await this.call("GET", "/clock"));
    }
    /** The virtual clock's time. */
    async now() {
        return new Date((await this.clock()).now);
    }
    /** Moves the clock forward ("5m", or milliseconds), running every timer that falls due; the new time. */
    async advance(duration) {
        const c = (await this.call("POST", "/clock/advance", { duration: durationString(duration) }));
        return new Date(c.now);
    }
    /** Moves the clock to a time (never backwards), running every timer that falls due. */
    async advanceTo(time) {
        const to = time instanceof Date ? time.toISOString() : time;
        const c = (await this.call("POST", "/clock/advance", { to }));
        return new Date(c.now);
    }
    /** Back to the scenario's initial state: data, clock, faults, journal. */
    async reset() {
        await this.call("POST", "/reset");
    }
    /** Replaces the scenario (YAML text), then resets; a layer (no accounts) goes on top of the starting scenario. */
    async loadScenario(yaml) {
        return (await this.call("POST", "/scenario", yaml, "application/yaml"));
    }
    /** {valid: true, name} or {valid: false, problems: [{line, column, message}]}. */
    async validateScenario(yaml) {
        return (await this.call("POST", "/scenario/validate", yaml, "application/yaml"));
    }
    /** The scenario in force, as JSON, secrets redacted. */
    async scenario() {
        return (await this.call("GET", "/scenario"));
    }
    /** The request journal, oldest first. */
    async requests(filter = {}) {
        const q = new URLSearchParams();
        for (const [k, v] of Object.entries(filter)) {
            if (v !== undefined) {
                q.set(k, String(v));
            }
        }
        const qs = q.toString();
        const body = (await this.call("GET", "/requests" + (qs ? "?" + qs : "")));
        return body.requests;
    }
    /** Adds a fault rule (a rule, or its parts) and answers it with its id. */
    async addFault(rule) {
        if (!("match" in rule && "action" in rule)) {
            const p = rule;
            const pick = (keys) => Object.fromEntries(keys.filter((k) => p[k] !== undefined).map((k) => [k, p[k]]));
            const action = pick(["status", "code", "message", "preset", "drop"]);
            if (p.delay !== undefined) {
                action.delay = durationString(p.delay);
            }
            rule = { match: pick(["family", "method", "path", "region"]), action, ...pick(["id", "times", "after"]) };
        }
        return (await this.call("POST", "/faults", rule));
    }
    /** Adds a fault rule that applies a preset by name (PRESETS; "name:arg" for one with an argument). */
    fault(preset, match = {}) {
        return this.addFault({ ...match, preset });
    }
    /** The fault rules with their counters (matched, fired, exhausted). */
    async faults() {
        return (await this.call("GET", "/faults")).faults;
    }
    /** Removes a fault rule; false when there was none. */
    async removeFault(id) {
        try {
            await this.call("DELETE", "/faults/" + encodeURIComponent(id));
            return true;
        }
        catch (err) {
            if (err instanceof MockdError && err.status === 404) {
                return false;
            }
            throw err;
        }
    }
    async clearFaults() {
        await this.call("DELETE", "/faults");
    }
    /**
     * The API coverage report (GET /_mock/coverage): JSON, or the text of
     * format "markdown" or "junit". Throws CoverageUnavailableError when the
     * mockd answering has no such report.
     */
    async coverage(format) {
        try {
            return await this.call("GET", "/coverage" + (format ? "?format=" + encodeURIComponent(format) : ""));
        }
        catch (err) {
            if (err instanceof MockdError && err.status === 404 && /no route/i.test(err.message)) {
                throw new CoverageUnavailableError(err.body);
            }
            throw err;
        }
    }
    /** Forgets the coverage counted so far (DELETE /_mock/coverage; at mockd's root, every world's too). */
    async clearCoverage() {
        await this.call("DELETE", "/coverage");
    }
    /** Every webhook delivery attempt since the last reset, oldest first. */
    async deliveries() {
        return (await this.call("GET", "/webhooks/deliveries")).deliveries;
    }
    /** One alert evaluation pass now, with the webhook attempts it starts. */
    async evaluateAlerts() {
        await this.call("POST", "/alerts/evaluate");
    }
    /** A caller dials a reserved or connected number: a voice call starts. */
    async dial(number, from = "") {
        return (await this.call("POST", "/dni/dial", { number, from }));
    }
    /** The caller speaks into a voice call; the agent's answer. */
    async say(conversationId, text) {
        return (await this.call("POST", `/calls/${encodeURIComponent(conversationId)}/say`, { text }));
    }
    async hangup(conversationId) {
        await this.call("POST", `/calls/${encodeURIComponent(conversationId)}/hangup`);
    }
    async messagingSessions() {
        return (await this.call("GET", "/messaging/sessions")).sessions;
    }
}
/** A world: an isolated copy of the mock under {base}/w/{id}/. info is mockd's answer (id, url, runtime_urls, ...). */
export class World extends Control {
    constructor(info, host) {
        super(String(info.url), host.token);
        this.id = String(info.id);
        this.info = info;
        this.host = host;
    }
    /** Deletes the world (a world already gone is no error). */
    delete() {
        return this.host.deleteWorld(this.id);
    }
}
/** A mockd's root instance, which hosts worlds. */
export class Host extends Control {
    /** Creates a world: the host's scenario, seed and clock unless given. */
    async createWorld(opts = {}) {
        const body = {};
        if (typeof opts.scenario === "string") {
            body.scenario = opts.scenario;
        }
        else if (opts.scenario) {
            body.scenarios = opts.scenario;
        }
        if (opts.seed !== undefined) {
            body.seed = opts.seed;
        }
        if (opts.clock) {
            body.clock = opts.clock;
        }
        if (opts.start) {
            body.start = opts.start instanceof Date ? opts.start.toISOString() : opts.start;
        }
        const info = await this.call("POST", "/worlds", Object.keys(body).length ? body : undefined);
        return new World(info, this);
    }
    /** The worlds alive, oldest first. */
    async worlds() {
        return (await this.call("GET", "/worlds")).worlds;
    }
    async deleteWorld(id) {
        try {
            await this.call("DELETE", "/worlds/" + encodeURIComponent(id));
        }
        catch (err) {
            if (!(err instanceof MockdError && err.status === 404)) {
                throw err;
            }
        }
    }
}
export async function withWorld(host, a, b) {
    const [opts, fn] = typeof a === "function" ? [{}, a] : [a, b];
    const world = await host.createWorld(opts);
    try {
        return await fn(world);
    }
    finally {
        await world.delete();
    }
}
