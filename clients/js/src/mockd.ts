// Starting mockd: a binary (MOCKD_BIN, or mockd on PATH) or the container
// image (the docker CLI), on a free loopback port, stopped at exit.

import type { ChildProcess } from "node:child_process";
import { basename, resolve } from "node:path";

import { Host, request } from "./control.js";
import { MockdError } from "./errors.js";

/** The label of containers this package starts (docker ps --filter label=...). */
export const CONTAINER_LABEL = "org.agentplatform.mockplatform.client";

/** How to start a mockd. */
export interface StartOptions {
  /** The mockd binary (default MOCKD_BIN, else mockd on PATH). */
  binary?: string;
  /** The image to run with docker when there is no binary (default MOCKD_IMAGE). */
  image?: string;
  /** Scenario files ("default": the built-in one); several merge in order. */
  scenario?: string | string[];
  /** The clock mode (default manual). */
  clock?: "manual" | "real";
  /** More mockd flags. */
  args?: string[];
  /** How long to wait for it to serve (default 30 s). */
  timeoutMs?: number;
}

/** A mockd: started by this process (startMockd) or one that runs already (connectMockd). */
export class Mockd extends Host {
  private child: ChildProcess | undefined;
  private container: string | undefined;
  private readonly onExit: () => void;

  /** @internal */
  constructor(url: string, token?: string, started?: { child?: ChildProcess; container?: string }) {
    super(url, token);
    this.child = started?.child;
    this.container = started?.container;
    // At exit a started mockd is killed (stop() is the clean way).
    this.onExit = () => this.child?.kill("SIGTERM");
    if (this.child) {
      process.on("exit", this.onExit);
    }
  }

  /** Whether this process started the mockd (and stop() ends it). */
  get started(): boolean {
    return this.child !== undefined || this.container !== undefined;
  }

  /** Stops a mockd this process started (a connected one is left running). Safe to call twice. */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (child) {
      process.off("exit", this.onExit);
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise<void>((done) => child.once("exit", () => done()));
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 15000);
        await exited;
        clearTimeout(timer);
      }
    }
    const container = this.container;
    this.container = undefined;
    if (container) {
      await run(docker(), ["rm", "-f", container]).catch(() => undefined);
    }
  }
}

/** A mockd that runs already: url (default MOCKD_URL) and its control token (default MOCKD_CONTROL_TOKEN). */
export async function connectMockd(url?: string, token?: string): Promise<Mockd> {
  const u = url || process.env.MOCKD_URL;
  if (!u) {
    throw new MockdError(0, "no mockd address: give a URL or set MOCKD_URL");
  }
  const m = new Mockd(u, token ?? process.env.MOCKD_CONTROL_TOKEN);
  await m.health();
  return m;
}

/**
 * Starts a mockd and waits until it serves: the binary (MOCKD_BIN, or mockd
 * on PATH), else the image (MOCKD_IMAGE) with docker. The clock is manual
 * unless told. Stop it with stop(); it is killed at exit otherwise.
 */
export async function startMockd(opts: StartOptions = {}): Promise<Mockd> {
  const files = typeof opts.scenario === "string" ? [opts.scenario] : opts.scenario ?? [];
  const clock = opts.clock ?? "manual";
  const timeout = opts.timeoutMs ?? 30000;
  // An explicit binary or image wins over the environment's.
  const binary = opts.binary || (opts.image ? undefined : process.env.MOCKD_BIN || (process.env.MOCKD_IMAGE ? undefined : "mockd"));
  const image = opts.image || process.env.MOCKD_IMAGE;
  if (binary) {
    return startBinary(binary, files, clock, opts.args ?? [], timeout);
  }
  return startContainer(image as string, files, clock, opts.args ?? [], timeout);
}

// node:child_process is loaded when a mockd starts: importing the package
// stays cheap.
async function startBinary(binary: string, files: string[], clock: string, args: string[], timeout: number): Promise<Mockd> {
  const { spawn } = await import("node:child_process");
  const argv = ["--addr", "127.0.0.1:0", "--clock", clock, ...files.flatMap((f) => ["--scenario", f]), ...args];
  const env: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith("MOCKD_")) {
      env[k] = v; // the started mockd takes its settings from argv only
    }
  }
  const child = spawn(binary, argv, { stdio: ["ignore", "pipe", "pipe"], env });
  let out = "";
  let log = "";
  return new Promise<Mockd>((resolvePromise, reject) => {
    let settled = false;
    const fail = (why: string) => {
      if (!settled) {
        settled = true;
        clearTimeout(timer);
        child.kill("SIGKILL");
        reject(new MockdError(0, `mockd did not start (${binary} ${argv.join(" ")}): ${why}\n${log}`));
      }
    };
    const timer = setTimeout(() => fail(`no banner in ${timeout} ms`), timeout);
    child.once("error", (err) =>
      fail(err.message + (binary === "mockd" ? " (set MOCKD_BIN to a mockd binary, put mockd on PATH, or set MOCKD_IMAGE to its image)" : "")));
    child.once("exit", (code) => fail(`it exited with ${code}`));
    child.stderr?.on("data", (b) => {
      if (log.length < 64 << 10) {
        log += new TextDecoder().decode(b);
      }
    });
    child.stdout?.on("data", (b) => {
      if (settled) {
        return; // drained, so that mockd never blocks on it
      }
      out += new TextDecoder().decode(b);
      const m = /^\s*control:\s+(\S+)\/_mock\s*$/m.exec(out);
      if (m) {
        settled = true;
        clearTimeout(timer);
        // Neither the process nor its pipes keep Node running; the exit
        // hook kills it.
        child.unref();
        child.stdout?.unref?.();
        child.stderr?.unref?.();
        resolvePromise(new Mockd(m[1], undefined, { child }));
      }
    });
  });
}

function docker(): string {
  return process.env.MOCKD_DOCKER || "docker";
}

async function run(file: string, args: string[]): Promise<string> {
  const { execFile } = await import("node:child_process");
  return new Promise((done, fail) => {
    execFile(file, args, (err, stdout, stderr) => {
      if (err) {
        fail(new MockdError(0, `${file} ${args[0]}: ${stderr.trim() || err.message}`));
        return;
      }
      done(stdout);
    });
  });
}

async function startContainer(image: string | undefined, files: string[], clock: string, args: string[], timeout: number): Promise<Mockd> {
  if (!image) {
    throw new MockdError(0, "no mockd to start: set MOCKD_BIN to a mockd binary, put mockd on PATH, or set MOCKD_IMAGE to its image");
  }
  const argv = ["run", "-d", "--rm", "-p", "127.0.0.1::8080", "--label", CONTAINER_LABEL + "=js", "-e", "MOCKD_CLOCK=" + clock];
  const names = files.map((f, i) => {
    if (f === "default") {
      return f;
    }
    const name = `/scenarios/${i}-${basename(f)}`;
    argv.push("-v", `${resolve(f)}:${name}:ro`);
    return name;
  });
  if (names.length) {
    argv.push("-e", "MOCKD_SCENARIO=" + names.join(","));
  }
  const id = (await run(docker(), [...argv, image, ...args])).trim();
  const m = new Mockd("http://127.0.0.1:0", undefined, { container: id });
  try {
    const port = (await run(docker(), ["port", id, "8080/tcp"])).trim().split(/\s+/)[0];
    const url = "http://" + port;
    const deadline = Date.now() + timeout;
    for (;;) {
      try {
        await request("GET", url + "/_mock/health");
        const started = new Mockd(url, undefined, { container: id });
        return started;
      } catch (err) {
        if (Date.now() > deadline) {
          throw new MockdError(0, `the mockd container did not become healthy in ${timeout} ms: ${(err as Error).message}`);
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  } catch (err) {
    await m.stop();
    throw err;
  }
}
