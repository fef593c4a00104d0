import { Host } from "./control.js";
/** The label of containers this package starts (docker ps --filter label=...). */
export declare const CONTAINER_LABEL = "org.agentplatform.mockplatform.client";
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
export declare class Mockd extends Host {
    private child;
    private container;
    private readonly onExit;
    /** Whether this process started the mockd (and stop() ends it). */
    get started(): boolean;
    /** Stops a mockd this process started (a connected one is left running). Safe to call twice. */
    stop(): Promise<void>;
}
/** A mockd that runs already: url (default MOCKD_URL) and its control token (default MOCKD_CONTROL_TOKEN). */
export declare function connectMockd(url?: string, token?: string): Promise<Mockd>;
/**
 * Starts a mockd and waits until it serves: the binary (MOCKD_BIN, or mockd
 * on PATH), else the image (MOCKD_IMAGE) with docker. The clock is manual
 * unless told. Stop it with stop(); it is killed at exit otherwise.
 */
export declare function startMockd(opts?: StartOptions): Promise<Mockd>;
