/** A JSON value as mockd answers it. */
export declare type Json = null | boolean | number | string | Json[] | {
    [key: string]: Json;
};
/** A JSON object. */
export declare type JsonObject = {
    [key: string]: Json;
};
/** A duration: a Go duration string ("5m", "1h30m") or milliseconds. */
export declare type Duration = string | number;
/** The fault presets mockd knows (docs/scenarios.md#faults); some take an argument ("name:arg"). */
export declare const PRESETS: readonly ["alerts_limit", "monitoring_backend_failure", "messaging.expire_session", "messaging.expire_session_after", "messaging.expire_token", "messaging.drop_socket", "messaging.stall_chunks", "messaging.delay_chunks", "outbound.outcome"];
/** A filter of the request journal. */
export interface RequestFilter {
    family?: string;
    method?: string;
    /** Entries whose path contains it. */
    path?: string;
    status?: number;
    /** The last N matches. */
    limit?: number;
}
/** A fault rule by its parts (docs/scenarios.md#faults). */
export interface FaultParts {
    id?: string;
    family?: string;
    method?: string;
    path?: string;
    region?: string;
    status?: number;
    code?: string;
    message?: string;
    preset?: string;
    delay?: Duration;
    drop?: boolean;
    times?: number;
    after?: number;
}
/** A fault rule as mockd takes it: {match, action, times, after, probability, id}. */
export interface FaultRule {
    id?: string;
    match: JsonObject;
    action: JsonObject;
    times?: number;
    after?: number;
    probability?: number;
}
/** A world's settings: the host's unless given. */
export interface WorldOptions {
    /** A scenario as YAML text, or several merged in order. */
    scenario?: string | string[];
    seed?: number;
    clock?: "manual" | "real";
    start?: Date | string;
}
export declare function durationString(d: Duration): string;
/** fetch with mockd's error shape: an error status throws MockdError. */
export declare function request(method: string, url: string, init?: {
    body?: string;
    headers?: Record<string, string>;
}): Promise<Json>;
/** The control plane of one instance at url (mockd's address, or a world's {base}/w/{id}). */
export declare class Control {
    readonly url: string;
    readonly token: string | undefined;
    constructor(url: string, token?: string);
    get controlUrl(): string;
    /** The runtime family's base address: {base}/runtime/{region}. */
    runtimeUrl(region?: string): string;
    /** The builder family's base address: {base}/builder/{region}. */
    builderUrl(region?: string): string;
    get messagingUrl(): string;
    protected call(method: string, path: string, body?: unknown, contentType?: string): Promise<Json>;
    health(): Promise<JsonObject>;
    /** {now: RFC 3339, mode: "manual" | "real"}. */
    clock(): Promise<{
        now: string;
        mode: string;
    }>;
    /** The virtual clock's time. */
    now(): Promise<Date>;
    /** Moves the clock forward ("5m", or milliseconds), running every timer that falls due; the new time. */
    advance(duration: Duration): Promise<Date>;
    /** Moves the clock to a time (never backwards), running every timer that falls due. */
    advanceTo(time: Date | string): Promise<Date>;
    /** Back to the scenario's initial state: data, clock, faults, journal. */
    reset(): Promise<void>;
    /** Replaces the scenario (YAML text), then resets; a layer (no accounts) goes on top of the starting scenario. */
    loadScenario(yaml: string): Promise<JsonObject>;
    /** {valid: true, name} or {valid: false, problems: [{line, column, message}]}. */
    validateScenario(yaml: string): Promise<JsonObject>;
    /** The scenario in force, as JSON, secrets redacted. */
    scenario(): Promise<JsonObject>;
    /** The request journal, oldest first. */
    requests(filter?: RequestFilter): Promise<JsonObject[]>;
    /** Adds a fault rule (a rule, or its parts) and answers it with its id. */
    addFault(rule: FaultRule | FaultParts): Promise<JsonObject>;
    /** Adds a fault rule that applies a preset by name (PRESETS; "name:arg" for one with an argument). */
    fault(preset: string, match?: {
        family?: string;
        method?: string;
        path?: string;
        times?: number;
    }): Promise<JsonObject>;
    /** The fault rules with their counters (matched, fired, exhausted). */
    faults(): Promise<JsonObject[]>;
    /** Removes a fault rule; false when there was none. */
    removeFault(id: string): Promise<boolean>;
    clearFaults(): Promise<void>;
    /**
     * The API coverage report (GET /_mock/coverage): JSON, or the text of
     * format "markdown" or "junit". Throws CoverageUnavailableError when the
     * mockd answering has no such report.
     */
    coverage(format?: "json" | "markdown" | "junit"): Promise<Json>;
    /** Forgets the coverage counted so far (DELETE /_mock/coverage; at mockd's root, every world's too). */
    clearCoverage(): Promise<void>;
    /** Every webhook delivery attempt since the last reset, oldest first. */
    deliveries(): Promise<JsonObject[]>;
    /** One alert evaluation pass now, with the webhook attempts it starts. */
    evaluateAlerts(): Promise<void>;
    /** A caller dials a reserved or connected number: a voice call starts. */
    dial(number: string, from?: string): Promise<JsonObject>;
    /** The caller speaks into a voice call; the agent's answer. */
    say(conversationId: string, text: string): Promise<JsonObject>;
    hangup(conversationId: string): Promise<void>;
    messagingSessions(): Promise<JsonObject[]>;
}
/** A world: an isolated copy of the mock under {base}/w/{id}/. info is mockd's answer (id, url, runtime_urls, ...). */
export declare class World extends Control {
    readonly id: string;
    readonly info: JsonObject;
    private readonly host;
    constructor(info: JsonObject, host: Host);
    /** Deletes the world (a world already gone is no error). */
    delete(): Promise<void>;
}
/** A mockd's root instance, which hosts worlds. */
export declare class Host extends Control {
    /** Creates a world: the host's scenario, seed and clock unless given. */
    createWorld(opts?: WorldOptions): Promise<World>;
    /** The worlds alive, oldest first. */
    worlds(): Promise<JsonObject[]>;
    deleteWorld(id: string): Promise<void>;
}
/**
 * Runs fn with a fresh world of host and deletes the world when fn ends
 * (returns or throws): withWorld(mockd, async (world) => ...) or
 * withWorld(mockd, {seed: 7}, async (world) => ...).
 */
export declare function withWorld<T>(host: Host, fn: (world: World) => Promise<T> | T): Promise<T>;
export declare function withWorld<T>(host: Host, opts: WorldOptions, fn: (world: World) => Promise<T> | T): Promise<T>;
