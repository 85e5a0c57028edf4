/**
 * Which MCP revision spillway speaks to an upstream server
 * (`[providers.mcp.<name>] protocol`), and the verdict of `auto` kept for
 * the server's later connections.
 *
 * `auto` probes with `server/discover` (2026-07-28) and falls back to
 * `initialize` (2025-11-25) when the server does not know it. The probe is
 * paid once per server and spillway process: its verdict
 * ({@linkcode ProtocolVerdict}) is handed to every later connection to the
 * same server (a restart, another client's connection) as the SDK's
 * `connect(transport, { prior })`. A start that fails forgets it, so the
 * next start probes again: a server that was upgraded or downgraded while
 * spillway ran is found out the first time a start with the old verdict
 * fails (a stale 2026-07-28 verdict fails at the first listing). A stale
 * 2025-11-25 verdict against a server that learned 2026-07-28 keeps
 * working in 2025-11-25 until spillway restarts.
 *
 * @module
 */

import type { McpProtocol } from "../../config/mcp_provider_config.ts";
import type { Client, PriorDiscovery } from "../sdk.ts";

/** `auto`, or the one revision spillway speaks to the server (the config's `protocol`). */
export type UpstreamProtocol = McpProtocol;

/** The revision of the modern (stateless) era. */
export const MODERN_PROTOCOL = "2026-07-28";

/**
 * How long `auto` (and a 2026-07-28 pin) waits for the server to answer
 * `server/discover`, at most: 5 s, or half the start-up timeout when that
 * is shorter, so that `initialize` keeps the other half. Over stdio a
 * server that stays silent is a 2025 server (it delays its first start by
 * this long, once per spillway process: the verdict is kept); over HTTP
 * silence is an outage, and the start fails.
 */
export const PROTOCOL_PROBE_TIMEOUT_MS = 5_000;

/** The probe's time limit under a start-up timeout of `startupTimeoutMs`. */
export function probeTimeoutMs(startupTimeoutMs: number): number {
  return Math.max(1, Math.min(PROTOCOL_PROBE_TIMEOUT_MS, Math.floor(startupTimeoutMs / 2)));
}

/**
 * The SDK client's `versionNegotiation` for `protocol`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { versionNegotiation } from "./upstream_protocol.ts";
 * assert.deepEqual(versionNegotiation("2025-11-25", 30_000), { mode: "legacy" });
 * assert.deepEqual(versionNegotiation("auto", 4_000).probe, { timeoutMs: 2_000, maxRetries: 0 });
 * ```
 */
export function versionNegotiation(
  protocol: UpstreamProtocol,
  startupTimeoutMs: number,
): {
  readonly mode: "legacy" | "auto" | { readonly pin: string };
  readonly probe?: { readonly timeoutMs: number; readonly maxRetries: number };
} {
  if (protocol === "2025-11-25") return { mode: "legacy" };
  return {
    mode: protocol === "auto" ? "auto" : { pin: protocol },
    probe: { timeoutMs: probeTimeoutMs(startupTimeoutMs), maxRetries: 0 },
  };
}

/**
 * What `auto` found out about one server, shared by all its connections.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ProtocolVerdict } from "./upstream_protocol.ts";
 * const verdict = new ProtocolVerdict();
 * verdict.exitedOnProbe();
 * assert.deepEqual(verdict.prior, { kind: "legacy" });
 * verdict.forget(); // the start that learned it failed: kept once
 * assert.deepEqual(verdict.prior, { kind: "legacy" });
 * verdict.forget();
 * assert.equal(verdict.prior, undefined);
 * ```
 */
export class ProtocolVerdict {
  #prior: PriorDiscovery | undefined;
  /** Learned by a start that failed because of it: survives that start's failure. */
  #learnedInFailure = false;

  /** The verdict to connect with, or `undefined` to probe. */
  get prior(): PriorDiscovery | undefined {
    return this.#prior;
  }

  /** Keeps what `client`, connected by a probe or with {@linkcode prior}, negotiated. */
  keep(client: Client): void {
    const discover = client.getDiscoverResult();
    this.#prior = discover === undefined ? { kind: "legacy" } : { kind: "modern", discover };
  }

  /**
   * The server exited on the probe (some 2025 servers exit on any request
   * before `initialize`): it is a 2025 server, and the start that probed
   * failed with it.
   */
  exitedOnProbe(): void {
    this.#prior = { kind: "legacy" };
    this.#learnedInFailure = true;
  }

  /** A start failed: the next one probes again (unless the failure taught the verdict). */
  forget(): void {
    if (this.#learnedInFailure) this.#learnedInFailure = false;
    else this.#prior = undefined;
  }
}
