/**
 * One MCP 2026-07-28 call whose tool asked its client for input: the call
 * keeps running (its upstream request waits for the answers), while its
 * client is answered `input_required` and calls again with them.
 *
 * The tool's requests (an upstream's elicitation, sampling and roots
 * requests, whichever era the upstream speaks) are gathered into rounds:
 * requests that arrive within {@linkcode ROUND_SETTLE_MS} of each other (a
 * 2025 upstream's) or in the same turn of the event loop (a 2026's) go
 * to the client together, each under its own key: the upstream's own when
 * it named the request (a 2026-07-28 upstream), else `elicitation-1`,
 * `sampling-1`, `roots-1`, … (unique within the call). A retry answers the
 * keys it has; a key it leaves out is asked again; keys it does not know
 * are ignored. A request of a kind the client did not declare is refused
 * at once (the client is answered -32021), and so is one past the round's
 * size budget.
 *
 * @module
 */

import type { ClientCapabilities, InputRequest } from "../service/sdk.ts";
import { type CallerRequest, inputKind } from "../service/tool_call_relay.ts";
import { jsonBytes } from "./input_crossings.ts";

/**
 * How long a round waits for more requests after a 2025 upstream's request
 * arrives, in ms. Such requests name nothing, and those a tool sends at
 * once reach the gateway one by one through a pipe or a socket: a round
 * closed at the first would hand the client one and the rest a round
 * later (measured under load: 1 ms split them). A 2026-07-28 upstream's
 * requests come named and together, and close their round at once.
 */
export const ROUND_SETTLE_MS = 10;

/** A request of the tool, asked or about to be. */
interface Asked {
  readonly key: string;
  readonly request: CallerRequest;
  readonly bytes: number;
  resolve(answer: Readonly<Record<string, unknown>>): void;
  reject(error: Error): void;
}

/** What the client is answered next: the call's result, or a round of input requests. */
export type HeldStep<T> =
  | { readonly kind: "result"; readonly result: T }
  | { readonly kind: "failed"; readonly error: unknown }
  | { readonly kind: "input"; readonly requests: Readonly<Record<string, InputRequest>> };

/** The capability a kind of request needs the client to have declared. */
const CAPABILITY = {
  elicitation: "elicitation",
  sampling: "sampling",
  roots: "roots",
} as const satisfies Record<string, keyof ClientCapabilities>;

/** Limits of one held call. */
export interface HeldCallLimits {
  /** The most bytes (compact JSON params) one round may hand the client. */
  readonly maxRoundBytes: number;
  /** Whether another call may wait for its client; `undefined` if so, else why not. */
  readonly admit: () => string | undefined;
}

/** A call that asks its client for input through `input_required` rounds. */
export class HeldCall<T> {
  /** The id its `requestState` names. */
  readonly id: string = crypto.randomUUID();
  /** The client the call is bound to. */
  readonly client: string;
  /** The tool called. */
  readonly tool: string;
  /** The capability the client lacked, once a request needed one it did not declare. */
  missing: ClientCapabilities | undefined;
  /** Rounds handed out so far; the retry continues the latest. */
  round = 0;
  readonly #limits: HeldCallLimits;
  #capabilities: ClientCapabilities;
  /** Asked by the tool, not handed to the client yet. */
  #pending: Asked[] = [];
  /** Handed to the client in the current round, not answered yet. */
  readonly #outstanding = new Map<string, Asked>();
  #counter = 0;
  #settled = false;
  #settleTimer: ReturnType<typeof setTimeout> | undefined;
  #outcome: HeldStep<T> | undefined;
  #changed = Promise.withResolvers<void>();

  /**
   * @param client the client whose call it is
   * @param tool the tool's name
   * @param capabilities what the client declared on its request
   * @param limits the round budget and admission
   */
  constructor(
    client: string,
    tool: string,
    capabilities: ClientCapabilities,
    limits: HeldCallLimits,
  ) {
    this.client = client;
    this.tool = tool;
    this.#capabilities = capabilities;
    this.#limits = limits;
  }

  /** Whether the call has handed its client a round it has not finished answering. */
  get waiting(): boolean {
    return this.#outstanding.size > 0;
  }

  /** The call ended (its result as recorded and released, or its failure). */
  settle(outcome: { result: T } | { error: unknown }): void {
    this.#outcome = "result" in outcome
      ? { kind: "result", result: outcome.result }
      : { kind: "failed", error: outcome.error };
    this.#wake();
  }

  /**
   * The tool asks its client `request`: resolves with the client's answer,
   * once a retry brings it.
   *
   * @throws when the client cannot be asked (capability, budget, admission) or the call ends first
   */
  ask(request: CallerRequest): Promise<Readonly<Record<string, unknown>>> {
    const kind = inputKind(request.method);
    const capability = CAPABILITY[kind];
    if (this.#capabilities[capability] === undefined) {
      this.missing = { ...this.missing, [capability]: {} };
      return Promise.reject(
        new Error(
          `the client did not declare the ${capability} capability on its request, so the ` +
            `${kind} request of its call cannot be passed on to it`,
        ),
      );
    }
    const refused = this.round === 0 && this.#outstanding.size === 0
      ? this.#limits.admit()
      : undefined;
    if (refused !== undefined) return Promise.reject(new Error(refused));
    const bytes = jsonBytes(request.params);
    const roundBytes = this.#pending.reduce((sum, asked) => sum + asked.bytes, bytes);
    if (roundBytes > this.#limits.maxRoundBytes) {
      return Promise.reject(
        new Error(
          `the ${kind} request (${bytes} bytes) would make its round larger than ` +
            `${this.#limits.maxRoundBytes} bytes (serve.max_input_size), so it is not passed on`,
        ),
      );
    }
    const { promise, resolve, reject } = Promise.withResolvers<Readonly<Record<string, unknown>>>();
    this.#pending.push({ key: this.#keyFor(request, kind), request, bytes, resolve, reject });
    this.#settled = false;
    clearTimeout(this.#settleTimer);
    this.#settleTimer = setTimeout(() => {
      this.#settled = true;
      this.#wake();
    }, request.key === undefined ? ROUND_SETTLE_MS : 0);
    return promise;
  }

  /**
   * What the client is answered now: the outstanding keys it has not
   * answered, else the next round, else the call's end, whichever comes
   * first.
   */
  async next(): Promise<HeldStep<T>> {
    while (true) {
      if (this.#outcome !== undefined) return this.#outcome;
      if (this.#outstanding.size > 0) return this.#round([...this.#outstanding.values()]);
      if (this.#settled && this.#pending.length > 0) {
        const asked = this.#pending;
        this.#pending = [];
        for (const entry of asked) this.#outstanding.set(entry.key, entry);
        this.round++;
        return this.#round(asked);
      }
      await this.#changed.promise;
    }
  }

  /**
   * A retry's `inputResponses`: each outstanding key it answers is passed
   * to the tool; unknown keys are ignored. Updates the capabilities to the
   * retry's.
   */
  answer(responses: Readonly<Record<string, unknown>>, capabilities: ClientCapabilities): void {
    this.#capabilities = capabilities;
    for (const [key, asked] of this.#outstanding) {
      const answer = responses[key];
      if (typeof answer !== "object" || answer === null || Array.isArray(answer)) continue;
      this.#outstanding.delete(key);
      asked.resolve(answer as Record<string, unknown>);
    }
  }

  /** Fails every request asked and not answered with `reason` (the call's upstream request ends). */
  abandon(reason: string): void {
    clearTimeout(this.#settleTimer);
    const error = new Error(reason);
    for (const asked of [...this.#pending, ...this.#outstanding.values()]) asked.reject(error);
    this.#pending = [];
    this.#outstanding.clear();
  }

  /** The server's own key when it named the request and the name is free, else `kind-N`. */
  #keyFor(request: CallerRequest, kind: string): string {
    const taken = (key: string) =>
      this.#outstanding.has(key) || this.#pending.some((asked) => asked.key === key);
    if (request.key !== undefined && request.key !== "" && !taken(request.key)) return request.key;
    let key: string;
    do key = `${kind}-${++this.#counter}`; while (taken(key));
    return key;
  }

  #round(asked: readonly Asked[]): HeldStep<T> {
    const requests: Record<string, InputRequest> = {};
    for (const { key, request } of asked) {
      requests[key] = { method: request.method, params: embedded(request.params) } as InputRequest;
    }
    return { kind: "input", requests };
  }

  #wake(): void {
    const changed = this.#changed;
    this.#changed = Promise.withResolvers<void>();
    changed.resolve();
  }
}

/**
 * A request's params as a client is handed them: the upstream's own
 * progress token (which names a request of spillway's, not the client's)
 * left out of its `_meta`.
 */
function embedded(params: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { _meta, ...rest } = params as { _meta?: Record<string, unknown> };
  if (_meta === undefined) return rest;
  const { progressToken: _, ...meta } = _meta;
  return Object.keys(meta).length === 0 ? rest : { ...rest, _meta: meta };
}
