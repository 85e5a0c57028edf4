/**
 * MCP 2026-07-28 calls that ask their client for input, for one gateway:
 * a call whose tool sends a request to its caller (a 2025 upstream's
 * elicitation, sampling or roots request, or a 2026 upstream's
 * `input_required`, which the upstream client turns into the same
 * requests) answers its client `input_required`, with those requests and a
 * `requestState`; the client calls again with its answers and that state,
 * and the same call goes on, upstream request and all, until its result.
 * Only that result is capped, recorded and delivered, as one call.
 *
 * The continuation is kept here, server-side: the `requestState` handed
 * out names it, signed (HMAC-SHA256, a key of this process) and bound to
 * the client and the tool. Bounded in time (`serve.input_timeout`: a call
 * whose client does not come back is cancelled and recorded so), in count
 * (`serve.max_input_waits` calls waiting at once; more are refused), and in
 * size (`serve.max_input_size` per round). A state that is altered,
 * expired, another client's, already answered, or from another gateway
 * gets a JSON-RPC error (-32602) saying so and to call the tool again;
 * nothing else happens to any call.
 *
 * @module
 */

import { Duration } from "../config/duration.ts";
import {
  DEFAULT_INPUT_TIMEOUT,
  DEFAULT_MAX_INPUT_SIZE,
  DEFAULT_MAX_INPUT_WAITS,
} from "../config/serve_config.ts";
import { ByteSize } from "../size/byte_size.ts";
import type { CancellationCause } from "../service/call_cancellation.ts";
import {
  type CallToolResult,
  type ClientCapabilities,
  createRequestStateCodec,
  type InputRequiredResult,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type RequestStateCodec,
  type ServerContext,
} from "../service/sdk.ts";
import type { CallerRequest } from "../service/tool_call_relay.ts";
import { HeldCall } from "./_held_call.ts";

/** Limits of {@linkcode InputRounds}. */
export interface InputRoundsOptions {
  /** How long a call waits for its client to call again, in ms (`serve.input_timeout`). */
  readonly timeoutMs: number;
  /** How many calls may wait for their clients at once (`serve.max_input_waits`). */
  readonly maxWaiting: number;
  /** The most bytes of requests one round hands a client (`serve.max_input_size`). */
  readonly maxRoundBytes: number;
}

/** The limits unless `[serve]` says otherwise. */
export const DEFAULT_INPUT_ROUNDS: InputRoundsOptions = {
  timeoutMs: Duration.parse(DEFAULT_INPUT_TIMEOUT).ms,
  maxWaiting: DEFAULT_MAX_INPUT_WAITS,
  maxRoundBytes: ByteSize.parse(DEFAULT_MAX_INPUT_SIZE).bytes,
};

/** A call running in its session, as the rounds drive it. */
export interface RunningCall {
  /** Its result, as recorded and released. */
  readonly done: Promise<CallToolResult>;
  /**
   * Ties the call to the request now waiting for it (its cancellation,
   * progress and log messages); `undefined` when none is (between rounds).
   */
  rebind(ctx: ServerContext | undefined): void;
  /** Cancels the call, recorded in the words of `cause`. */
  cancel(cause: CancellationCause): void;
  /** Aborted when the call is cancelled, by whoever cancels it. */
  readonly signal: AbortSignal;
  /**
   * Takes the call out of the batch it arrived with, so that its siblings
   * are recorded and delivered without waiting for its client's input.
   */
  stepAside(): void;
}

/** What a `requestState` says (signed; readable by its client, so nothing secret). */
interface State {
  /** The held call. */
  readonly h: string;
  /** The round it answers. */
  readonly r: number;
  /** The client. */
  readonly c: string;
  /** The tool. */
  readonly t: string;
  /** When the call stops waiting, in ms since the epoch. */
  readonly x: number;
}

interface Entry {
  readonly held: HeldCall<CallToolResult>;
  readonly running: RunningCall;
  timer?: ReturnType<typeof setTimeout>;
  /** A request is continuing it now. */
  busy: boolean;
}

/** What one `tools/call` brings. */
export interface RoundsRequest {
  readonly client: string;
  readonly tool: string;
  readonly capabilities: ClientCapabilities;
  readonly requestState?: unknown;
  readonly inputResponses?: unknown;
}

const AGAIN = "call the tool again without requestState";

/** The `input_required` calls of one gateway. */
export class InputRounds {
  readonly #options: InputRoundsOptions;
  readonly #codec: RequestStateCodec<State>;
  readonly #held = new Map<string, Entry>();
  #closed = false;

  /** @param options the limits; see {@linkcode InputRoundsOptions} */
  constructor(options: InputRoundsOptions) {
    this.#options = options;
    this.#codec = createRequestStateCodec<State>({
      key: crypto.getRandomValues(new Uint8Array(32)),
      ttlSeconds: Math.max(1, Math.ceil(options.timeoutMs / 1000)),
    });
  }

  /** How many calls wait for their clients now. */
  get waiting(): number {
    return this.#held.size;
  }

  /**
   * Answers one `tools/call` of a 2026-07-28 client: a new call (`start`
   * runs it, its requests to the caller going through `ask`), or the
   * continuation of one its `requestState` names.
   *
   * @throws {ProtocolError} -32602 for an `inputResponses` that is not an object, or a
   *   `requestState` that cannot continue a call here (saying why)
   * @throws {MissingRequiredClientCapabilityError} -32021 when the tool asked for
   *   something the client did not declare
   */
  handle(
    request: RoundsRequest,
    ctx: ServerContext,
    start: (
      ask: (caller: CallerRequest) => Promise<Record<string, unknown>>,
      lacking: (capabilities: Readonly<Record<string, unknown>>) => void,
    ) => RunningCall,
  ): Promise<CallToolResult | InputRequiredResult> {
    const responses = request.inputResponses;
    if (
      responses !== undefined &&
      (typeof responses !== "object" || responses === null || Array.isArray(responses))
    ) {
      throw invalid("inputResponses must be an object: each input request's key → its answer");
    }
    if (request.requestState !== undefined) {
      return this.#resume(request, (responses ?? {}) as Record<string, unknown>, ctx);
    }
    const held = new HeldCall<CallToolResult>(request.client, request.tool, request.capabilities, {
      maxRoundBytes: this.#options.maxRoundBytes,
      admit: () => this.#admit(),
    });
    const running = start(
      async (caller) => ({ ...await held.ask(caller) }),
      (capabilities) => held.missing = { ...held.missing, ...capabilities },
    );
    running.done.then(
      (result) => held.settle({ result }),
      (error) => held.settle({ error }),
    );
    const entry: Entry = { held, running, busy: true };
    // Cancelled by anyone (the session closing, the gateway shutting down): it waits no more.
    running.signal.addEventListener("abort", () => {
      this.#forget(entry);
      held.abandon("the call was cancelled");
    }, { once: true });
    return this.#step(entry);
  }

  /** Cancels every waiting call (the gateway shuts down). */
  close(reason: string): void {
    this.#closed = true;
    for (const entry of [...this.#held.values()]) this.#end(entry, { by: "shutdown", reason });
  }

  async #resume(
    request: RoundsRequest,
    responses: Readonly<Record<string, unknown>>,
    ctx: ServerContext,
  ): Promise<CallToolResult | InputRequiredResult> {
    if (typeof request.requestState !== "string") {
      throw invalid(`requestState must be a string; ${AGAIN}`);
    }
    let state: State;
    try {
      state = await this.#codec.verify(request.requestState, ctx);
    } catch (error) {
      throw invalid(rejection((error as Error).message, this.#options.timeoutMs));
    }
    if (state.c !== request.client) {
      throw invalid(
        `spillway cannot continue this call: its requestState was issued to another client; ${AGAIN}`,
      );
    }
    if (state.t !== request.tool) {
      throw invalid(
        `spillway cannot continue this call: its requestState continues a call of ${
          JSON.stringify(state.t)
        }, not ${JSON.stringify(request.tool)}`,
      );
    }
    const entry = this.#held.get(state.h);
    if (entry === undefined && Date.now() >= state.x) {
      throw invalid(rejection("expired", this.#options.timeoutMs));
    }
    if (entry === undefined) {
      throw invalid(
        "spillway cannot continue this call: the call it continues has ended (it was answered, " +
          `cancelled, or timed out) or this gateway restarted since; ${AGAIN}`,
      );
    }
    if (entry.busy) {
      throw invalid("spillway cannot continue this call: another request is continuing it now");
    }
    if (state.r !== entry.held.round) {
      throw invalid(
        `spillway cannot continue this call: this requestState answers round ${state.r}, ` +
          `and the call is at round ${entry.held.round}: answer its latest input_required`,
      );
    }
    entry.busy = true;
    clearTimeout(entry.timer);
    entry.running.rebind(ctx);
    entry.held.answer(responses, request.capabilities);
    return await this.#step(entry);
  }

  /** Waits for what the client is answered next, and answers it. */
  async #step(entry: Entry): Promise<CallToolResult | InputRequiredResult> {
    const { held, running } = entry;
    const step = await held.next();
    entry.busy = false;
    if (step.kind !== "input") {
      this.#forget(entry);
      if (step.kind === "failed") throw step.error;
      if (held.missing !== undefined) {
        throw new MissingRequiredClientCapabilityError(
          { requiredCapabilities: held.missing },
          textOf(step.result) ?? "the client did not declare a capability its call needed",
        );
      }
      return step.result;
    }
    if (this.#closed) {
      this.#end(entry, { by: "shutdown", reason: "spillway serve is shutting down" });
      return await this.#step(entry);
    }
    // The request answered now ends: until the next one, nothing listens for the call,
    // and the calls it arrived with go on without it.
    running.rebind(undefined);
    running.stepAside();
    this.#held.set(held.id, entry);
    const { timeoutMs } = this.#options;
    entry.timer = setTimeout(() => {
      this.#end(entry, {
        by: "client",
        reason: `it did not call again with the input its call asked for within ${
          Duration.fromMs(timeoutMs)
        } (serve.input_timeout)`,
      });
    }, timeoutMs);
    const requestState = await this.#codec.mint({
      h: held.id,
      r: held.round,
      c: held.client,
      t: held.tool,
      x: Date.now() + timeoutMs,
    });
    return { resultType: "input_required", inputRequests: step.requests, requestState };
  }

  /** Why another call may not wait for its client, or `undefined` if it may. */
  #admit(): string | undefined {
    if (this.#held.size < this.#options.maxWaiting) return undefined;
    return `spillway already holds ${this.#options.maxWaiting} calls waiting for their ` +
      "clients' input (serve.max_input_waits), so this call's request is not passed on";
  }

  /** Ends a waiting call: cancelled (recorded so), its requests failed. */
  #end(entry: Entry, cause: CancellationCause): void {
    this.#forget(entry);
    entry.running.cancel(cause);
    entry.held.abandon(
      cause.by === "client" ? `the client ${cause.reason}` : "the call was cancelled",
    );
  }

  #forget(entry: Entry): void {
    clearTimeout(entry.timer);
    this.#held.delete(entry.held.id);
  }
}

/** A -32602 error saying `message`. */
function invalid(message: string): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, message);
}

/** Why the codec refused a state (`malformed`, `mac`, `expired`), in words. */
function rejection(reason: string, timeoutMs: number): string {
  if (reason === "expired") {
    return `spillway cannot continue this call: its requestState expired (it is good for ${
      Duration.fromMs(timeoutMs)
    }, serve.input_timeout); ${AGAIN}`;
  }
  return "spillway cannot continue this call: its requestState was not issued by this gateway " +
    `or was altered (another gateway of a fleet holds the calls it started); ${AGAIN}`;
}

/** The text of a result's first text block. */
function textOf(result: CallToolResult): string | undefined {
  const block = result.content?.find((b) => b.type === "text");
  return block?.type === "text" ? block.text : undefined;
}
