// The control plane of a mock instance ({base}/_mock,
// docs/control.openapi.json): mockd's root instance (Mockd) and its worlds
// (World) have the same calls.

import { CoverageUnavailableError, MockdError } from "./errors.js";

/** A JSON value as mockd answers it. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
/** A JSON object. */
export type JsonObject = { [key: string]: Json };

/** A duration: a Go duration string ("5m", "1h30m") or milliseconds. */
export type Duration = string | number;

/** The fault presets mockd knows (docs/scenarios.md#faults); some take an argument ("name:arg"). */
export const PRESETS = [
  "alerts_limit",
  "monitoring_backend_failure",
  "messaging.expire_session",
  "messaging.expire_session_after", // :N answered requests
  "messaging.expire_token",
  "messaging.drop_socket",
  "messaging.stall_chunks",
  "messaging.delay_chunks", // :DURATION
  "outbound.outcome", // :busy, :no_answer, ...
] as const;

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

export function durationString(d: Duration): string {
  return typeof d === "number" ? `${d}ms` : d;
}

/** fetch with mockd's error shape: an error status throws MockdError. */
export async function request(method: string, url: string, init: { body?: string; headers?: Record<string, string> } = {}): Promise<Json> {
  let resp: Response;
  try {
    resp = await fetch(url, { method, body: init.body, headers: init.headers });
  } catch (err) {
    throw new MockdError(0, `${method} ${url}: ${(err as Error).message}`);
  }
  const text = await resp.text();
  let value: Json = null;
  if (text) {
    try {
      value = JSON.parse(text) as Json;
    } catch {
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
  readonly url: string;
  readonly token: string | undefined;

  constructor(url: string, token?: string) {
    this.url = url.replace(/\/+$/, "");
    this.token = token || undefined;
  }

  get controlUrl(): string {
    return this.url + "/_mock";
  }

  /** The runtime family's base address: {base}/runtime/{region}. */
  runtimeUrl(region = "us-1"): string {
    return `${this.url}/runtime/${region}`;
  }

  /** The builder family's base address: {base}/builder/{region}. */
  builderUrl(region = "us"): string {
    return `${this.url}/builder/${region}`;
  }

  get messagingUrl(): string {
    return this.url + "/messaging";
  }

  protected call(method: string, path: string, body?: unknown, contentType = "application/json"): Promise<Json> {
    const headers: Record<string, string> = {};
    if (this.token) {
      headers.Authorization = "Bearer " + this.token;
    }
    let data: string | undefined;
    if (typeof body === "string") {
      data = body;
    } else if (body !== undefined) {
      data = JSON.stringify(body);
    }
    if (method === "POST" || data !== undefined) {
      headers["Content-Type"] = contentType;
    }
    return request(method, this.controlUrl + path, { body: data, headers });
  }

  async health(): Promise<JsonObject> {
    return (await this.call("GET", "/health")) as JsonObject;
  }

  /** {now: RFC 3339, mode: "manual" | "real"}. */
  async clock(): Promise<{ now: string; mode: string }> {
    return (await this.call("GET", "/clock")) as { now: string; mode: string };
  }

  /** The virtual clock's time. */
  async now(): Promise<Date> {
    return new Date((await this.clock()).now);
  }

  /** Moves the clock forward ("5m", or milliseconds), running every timer that falls due; the new time. */
  async advance(duration: Duration): Promise<Date> {
    const c = (await this.call("POST", "/clock/advance", { duration: durationString(duration) })) as { now: string };
    return new Date(c.now);
  }

  /** Moves the clock to a time (never backwards), running every timer that falls due. */
  async advanceTo(time: Date | string): Promise<Date> {
    const to = time instanceof Date ? time.toISOString() : time;
    const c = (await this.call("POST", "/clock/advance", { to })) as { now: string };
    return new Date(c.now);
  }

  /** Back to the scenario's initial state: data, clock, faults, journal. */
  async reset(): Promise<void> {
    await this.call("POST", "/reset");
  }

  /** Replaces the scenario (YAML text), then resets; a layer (no accounts) goes on top of the starting scenario. */
  async loadScenario(yaml: string): Promise<JsonObject> {
    return (await this.call("POST", "/scenario", yaml, "application/yaml")) as JsonObject;
  }

  /** {valid: true, name} or {valid: false, problems: [{line, column, message}]}. */
  async validateScenario(yaml: string): Promise<JsonObject> {
    return (await this.call("POST", "/scenario/validate", yaml, "application/yaml")) as JsonObject;
  }

  /** The scenario in force, as JSON, secrets redacted. */
  async scenario(): Promise<JsonObject> {
    return (await this.call("GET", "/scenario")) as JsonObject;
  }

  /** The request journal, oldest first. */
  async requests(filter: RequestFilter = {}): Promise<JsonObject[]> {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(filter)) {
      if (v !== undefined) {
        q.set(k, String(v));
      }
    }
    const qs = q.toString();
    const body = (await this.call("GET", "/requests" + (qs ? "?" + qs : ""))) as { requests: JsonObject[] };
    return body.requests;
  }

  /** Adds a fault rule (a rule, or its parts) and answers it with its id. */
  async addFault(rule: FaultRule | FaultParts): Promise<JsonObject> {
    if (!("match" in rule && "action" in rule)) {
      const p = rule as FaultParts;
      const pick = (keys: (keyof FaultParts)[]) =>
        Object.fromEntries(keys.filter((k) => p[k] !== undefined).map((k) => [k, p[k]])) as JsonObject;
      const action = pick(["status", "code", "message", "preset", "drop"]);
      if (p.delay !== undefined) {
        action.delay = durationString(p.delay);
      }
      rule = { match: pick(["family", "method", "path", "region"]), action, ...pick(["id", "times", "after"]) };
    }
    return (await this.call("POST", "/faults", rule)) as JsonObject;
  }

  /** Adds a fault rule that applies a preset by name (PRESETS; "name:arg" for one with an argument). */
  fault(preset: string, match: { family?: string; method?: string; path?: string; times?: number } = {}): Promise<JsonObject> {
    return this.addFault({ ...match, preset });
  }

  /** The fault rules with their counters (matched, fired, exhausted). */
  async faults(): Promise<JsonObject[]> {
    return ((await this.call("GET", "/faults")) as { faults: JsonObject[] }).faults;
  }

  /** Removes a fault rule; false when there was none. */
  async removeFault(id: string): Promise<boolean> {
    try {
      await this.call("DELETE", "/faults/" + encodeURIComponent(id));
      return true;
    } catch (err) {
      if (err instanceof MockdError && err.status === 404) {
        return false;
      }
      throw err;
    }
  }

  async clearFaults(): Promise<void> {
    await this.call("DELETE", "/faults");
  }

  /**
   * The API coverage report (GET /_mock/coverage): JSON, or the text of
   * format "markdown" or "junit". Throws CoverageUnavailableError when the
   * mockd answering has no such report.
   */
  async coverage(format?: "json" | "markdown" | "junit"): Promise<Json> {
    try {
      return await this.call("GET", "/coverage" + (format ? "?format=" + encodeURIComponent(format) : ""));
    } catch (err) {
      if (err instanceof MockdError && err.status === 404 && /no route/i.test(err.message)) {
        throw new CoverageUnavailableError(err.body);
      }
      throw err;
    }
  }

  /** Forgets the coverage counted so far (DELETE /_mock/coverage; at mockd's root, every world's too). */
  async clearCoverage(): Promise<void> {
    await this.call("DELETE", "/coverage");
  }

  /** Every webhook delivery attempt since the last reset, oldest first. */
  async deliveries(): Promise<JsonObject[]> {
    return ((await this.call("GET", "/webhooks/deliveries")) as { deliveries: JsonObject[] }).deliveries;
  }

  /** One alert evaluation pass now, with the webhook attempts it starts. */
  async evaluateAlerts(): Promise<void> {
    await this.call("POST", "/alerts/evaluate");
  }

  /** A caller dials a reserved or connected number: a voice call starts. */
  async dial(number: string, from = ""): Promise<JsonObject> {
    return (await this.call("POST", "/dni/dial", { number, from })) as JsonObject;
  }

  /** The caller speaks into a voice call; the agent's answer. */
  async say(conversationId: string, text: string): Promise<JsonObject> {
    return (await this.call("POST", `/calls/${encodeURIComponent(conversationId)}/say`, { text })) as JsonObject;
  }

  async hangup(conversationId: string): Promise<void> {
    await this.call("POST", `/calls/${encodeURIComponent(conversationId)}/hangup`);
  }

  async messagingSessions(): Promise<JsonObject[]> {
    return ((await this.call("GET", "/messaging/sessions")) as { sessions: JsonObject[] }).sessions;
  }
}

/** A world: an isolated copy of the mock under {base}/w/{id}/. info is mockd's answer (id, url, runtime_urls, ...). */
export class World extends Control {
  readonly id: string;
  readonly info: JsonObject;
  private readonly host: Host;

  constructor(info: JsonObject, host: Host) {
    super(String(info.url), host.token);
    this.id = String(info.id);
    this.info = info;
    this.host = host;
  }

  /** Deletes the world (a world already gone is no error). */
  delete(): Promise<void> {
    return this.host.deleteWorld(this.id);
  }
}

/** A mockd's root instance, which hosts worlds. */
export class Host extends Control {
  /** Creates a world: the host's scenario, seed and clock unless given. */
  async createWorld(opts: WorldOptions = {}): Promise<World> {
    const body: JsonObject = {};
    if (typeof opts.scenario === "string") {
      body.scenario = opts.scenario;
    } else if (opts.scenario) {
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
    return new World(info as JsonObject, this);
  }

  /** The worlds alive, oldest first. */
  async worlds(): Promise<JsonObject[]> {
    return ((await this.call("GET", "/worlds")) as { worlds: JsonObject[] }).worlds;
  }

  async deleteWorld(id: string): Promise<void> {
    try {
      await this.call("DELETE", "/worlds/" + encodeURIComponent(id));
    } catch (err) {
      if (!(err instanceof MockdError && err.status === 404)) {
        throw err;
      }
    }
  }
}

/**
 * Runs fn with a fresh world of host and deletes the world when fn ends
 * (returns or throws): withWorld(mockd, async (world) => ...) or
 * withWorld(mockd, {seed: 7}, async (world) => ...).
 */
export async function withWorld<T>(host: Host, fn: (world: World) => Promise<T> | T): Promise<T>;
export async function withWorld<T>(host: Host, opts: WorldOptions, fn: (world: World) => Promise<T> | T): Promise<T>;
export async function withWorld<T>(
  host: Host,
  a: WorldOptions | ((world: World) => Promise<T> | T),
  b?: (world: World) => Promise<T> | T,
): Promise<T> {
  const [opts, fn] = typeof a === "function" ? [{}, a] : [a, b as (world: World) => Promise<T> | T];
  const world = await host.createWorld(opts);
  try {
    return await fn(world);
  } finally {
    await world.delete();
  }
}
