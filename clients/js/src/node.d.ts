// The few Node.js APIs the client uses, declared for the compiler: the
// package builds with Debian's node-typescript alone, without @types/node.
// The package's own types never name them.

declare module "node:child_process" {
  interface Readable {
    on(event: "data", fn: (chunk: Uint8Array) => void): this;
    on(event: "end" | "close", fn: () => void): this;
    unref?(): void;
  }
  export interface ChildProcess {
    readonly pid?: number;
    readonly exitCode: number | null;
    readonly signalCode: string | null;
    readonly stdout: Readable | null;
    readonly stderr: Readable | null;
    kill(signal?: string): boolean;
    unref(): void;
    once(event: "exit", fn: (code: number | null, signal: string | null) => void): this;
    once(event: "error", fn: (err: Error) => void): this;
  }
  export function spawn(
    command: string,
    args: readonly string[],
    options: { stdio: ["ignore", "pipe", "pipe"]; env?: Record<string, string | undefined> },
  ): ChildProcess;
  export function execFile(
    file: string,
    args: readonly string[],
    callback: (err: (Error & { code?: number | string }) | null, stdout: string, stderr: string) => void,
  ): unknown;
}

declare module "node:crypto" {
  interface Hmac {
    update(data: string | Uint8Array): Hmac;
    digest(encoding: "hex"): string;
  }
  export function createHmac(algorithm: "sha256", key: string): Hmac;
  export function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean;
}

declare module "node:path" {
  export function resolve(...paths: string[]): string;
  export function basename(path: string): string;
}

declare const process: {
  env: Record<string, string | undefined>;
  on(event: "exit", fn: () => void): void;
  off(event: "exit", fn: () => void): void;
};
