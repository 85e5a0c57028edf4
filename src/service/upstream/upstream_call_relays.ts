/**
 * What an upstream MCP server sends back while a call runs, passed on to the
 * caller of that call (`spillway serve` relays it to the client that made
 * it): progress, log messages, and the server's own requests, sampling,
 * elicitation and roots, with the caller's answers back.
 *
 * Which call a message belongs to:
 *
 * - Progress names its call: spillway gives each relayed `tools/call` its own
 *   progress token. (Not through the SDK's `onprogress`: the SDK hands a
 *   notification to its handler a microtask late, and forgets the request's
 *   progress handler as soon as the response is read, so the last progress
 *   of a call, read together with its result, was dropped.)
 * - Log messages and server requests carry no link to a request. MCP lets a
 *   server say which request they relate to only through the transport (a
 *   Streamable HTTP server sends them on that request's response stream),
 *   and the SDK's client does not pass that on; over stdio there is nothing
 *   to pass on. So they go to the only candidate: a log message to the
 *   caller (client session) of the calls in flight on that server, when
 *   they all have the same caller; a sampling or elicitation request to the
 *   call in flight, when there is exactly one. Otherwise the message is not
 *   relayed (a log message is dropped and logged; a request is answered
 *   with an error saying why): a wrong guess would show one client's data
 *   to another.
 * - A log message's data and a progress message are cut at 64 KiB with the
 *   exact marker before they are passed on (`bound_relayed_message.ts`).
 * - An inquiry the caller declines (elicitation `decline` or `cancel`) or
 *   fails (an error, no such capability) ends its call: the upstream request
 *   is cancelled and the call fails with the reason, so it is recorded and
 *   delivered as an error response like any other failed call.
 *
 * @module
 */

import { AsyncLocalStorage } from "node:async_hooks";
import { getLogger } from "@logtape/logtape";
import { reasonText } from "../../errors/reason_text.ts";
import { raceAbort } from "../race_abort.ts";
import {
  type Client,
  type CreateMessageResult,
  type ElicitResult,
  type ListRootsResult,
  ProtocolErrorCode,
} from "../sdk.ts";
import { type CallerRequest, inputKind, type ToolCallRelay } from "../tool_call_relay.ts";
import { boundLogMessage, boundProgress } from "./bound_relayed_message.ts";

const log = getLogger(["spillway", "upstream"]);

/** A call in flight on the server. */
interface RelayedCall {
  readonly relay: ToolCallRelay | undefined;
  readonly progressToken: string;
  readonly controller: AbortController;
  /** Why an inquiry of this call failed, once one did. */
  failed?: string;
  /** How many of its inquiries wait for the caller's answer. */
  asking: number;
  /** When it last asked its caller (`performance.now()`), if it did. */
  askedAt?: number;
}

/** How close together two requests of one call arrive when it sends them at once, in ms. */
const ASKED_TOGETHER_MS = 100;

/** What {@linkcode UpstreamCallRelays.run} hands the request it wraps. */
export interface RelayedRequestOptions {
  /** Aborts with the caller's signal, or when an inquiry of the call fails. */
  readonly signal: AbortSignal;
  /** The request's `_meta` (its progress token), when its caller asked for progress. */
  readonly meta?: { readonly progressToken: string };
}

/** Thrown by {@linkcode UpstreamCallRelays.run} when the caller declined or failed an inquiry. */
export class InquiryFailedError extends Error {
  /** @param message why the call ended */
  constructor(message: string) {
    super(message);
    this.name = "InquiryFailedError";
  }
}

/**
 * The relays of one upstream server's calls.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { UpstreamCallRelays } from "./upstream_call_relays.ts";
 * const relays = new UpstreamCallRelays("mcp.demo", { inquiries: true });
 * assert.deepEqual(relays.capabilities, { sampling: {}, elicitation: {}, roots: {} });
 * const result = await relays.run(
 *   { progress: () => {} },
 *   new AbortController().signal,
 *   (options) => Promise.resolve(options.meta?.progressToken),
 * );
 * assert.equal(result, "spillway-1");
 * ```
 */
export class UpstreamCallRelays {
  readonly #source: string;
  readonly #inquiries: boolean;
  readonly #calls = new Set<RelayedCall>();
  readonly #byToken = new Map<string, RelayedCall>();
  /** The call whose request's flow runs now (a 2026-07-28 server's input requests). */
  readonly #current = new AsyncLocalStorage<RelayedCall>();
  #nextToken = 0;

  /**
   * @param source the source name, `"mcp.<server>"`, for messages
   * @param options `inquiries`: whether callers can answer sampling and
   *   elicitation requests (default `false`: they are not declared to the server)
   */
  constructor(source: string, options: { readonly inquiries?: boolean } = {}) {
    this.#source = source;
    this.#inquiries = options.inquiries ?? false;
  }

  /** The capabilities the client of the server declares. */
  get capabilities(): {
    sampling?: Record<string, never>;
    elicitation?: Record<string, never>;
    roots?: Record<string, never>;
  } {
    return this.#inquiries ? { sampling: {}, elicitation: {}, roots: {} } : {};
  }

  /**
   * Installs the handlers of progress, log messages and (when callers can
   * answer them) sampling, elicitation and roots on the client of the server,
   * created with {@linkcode capabilities}, before it connects.
   */
  install(client: Client): void {
    // Replaces the SDK's own progress routing (see the module comment).
    client.setNotificationHandler("notifications/progress", (notification) => {
      const { progressToken, progress, total, message } = notification.params;
      const relay = this.#byToken.get(String(progressToken))?.relay;
      relay?.progress?.(boundProgress({ progress, total, message }));
    });
    client.setNotificationHandler("notifications/message", (notification) => {
      this.#log(notification.params);
    });
    if (!this.#inquiries) return;
    client.setRequestHandler(
      "sampling/createMessage",
      // The caller's client checked its answer against the spec's schema when it came back.
      (request, ctx) =>
        this.#inquire({
          method: "sampling/createMessage",
          params: request.params,
          ...keyOf(ctx.mcpReq.id),
        }) as Promise<CreateMessageResult>,
    );
    client.setRequestHandler(
      "elicitation/create",
      (request, ctx) =>
        this.#inquire({
          method: "elicitation/create",
          params: request.params,
          ...keyOf(ctx.mcpReq.id),
        }) as Promise<ElicitResult>,
    );
    client.setRequestHandler(
      "roots/list",
      (request, ctx) =>
        this.#inquire({
          method: "roots/list",
          params: request.params ?? {},
          ...keyOf(ctx.mcpReq.id),
        }) as Promise<ListRootsResult>,
    );
  }

  /**
   * Runs one request of a call whose caller's side is `relay`: `send` gets
   * the signal to send it with and the `_meta` to send.
   *
   * @throws {InquiryFailedError} when the caller declined or failed one of the call's inquiries
   * @throws whatever `send` throws otherwise
   */
  async run<T>(
    relay: ToolCallRelay | undefined,
    signal: AbortSignal,
    send: (options: RelayedRequestOptions) => Promise<T>,
  ): Promise<T> {
    const progressToken = `spillway-${++this.#nextToken}`;
    const call: RelayedCall = {
      relay,
      progressToken,
      controller: new AbortController(),
      asking: 0,
    };
    const onAbort = () => call.controller.abort(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    this.#calls.add(call);
    const wantsProgress = relay?.progress !== undefined;
    if (wantsProgress) this.#byToken.set(progressToken, call);
    try {
      // A 2026-07-28 server's input requests are fulfilled within this
      // request's own flow (the SDK's): they find their call here.
      const result = await this.#current.run(call, () =>
        send({
          signal: call.controller.signal,
          ...(wantsProgress ? { meta: { progressToken } } : {}),
        }));
      if (call.failed !== undefined) throw new InquiryFailedError(call.failed);
      return result;
    } catch (error) {
      if (call.failed !== undefined && !signal.aborted) throw new InquiryFailedError(call.failed);
      throw error;
    } finally {
      this.#calls.delete(call);
      this.#byToken.delete(progressToken);
      signal.removeEventListener("abort", onAbort);
    }
  }

  /** Passes a log message to the one caller of the calls in flight. */
  #log(message: { level: string; logger?: string | undefined; data?: unknown }): void {
    const callers = new Set([...this.#calls].map((call) => call.relay?.caller ?? call));
    const [call] = this.#calls;
    if (callers.size !== 1 || call?.relay?.log === undefined) {
      log.debug("{source}: log message not relayed ({why})", {
        source: this.#source,
        why: this.#calls.size === 0
          ? "no call in flight"
          : callers.size > 1
          ? `calls of ${callers.size} callers in flight`
          : "its caller takes no log messages",
      });
      return;
    }
    call.relay.log(
      boundLogMessage({ level: message.level, logger: message.logger, data: message.data }),
    );
  }

  /** Sends a server request to the caller of the one call in flight. */
  async #inquire(request: CallerRequest): Promise<Record<string, unknown>> {
    const what = inputKind(request.method);
    // Only the SDK's fulfilment of a 2026-07-28 `input_required` names its
    // request (a string key) and runs in the flow of the call it belongs to.
    const flow = request.key === undefined ? undefined : this.#current.getStore();
    const call = flow !== undefined && this.#calls.has(flow) ? flow : this.#askingCall();
    if (call === undefined) {
      throw refusal(
        ProtocolErrorCode.InvalidRequest,
        this.#calls.size === 0
          ? `spillway has no call of yours in flight to send this ${what} request to`
          : `spillway cannot tell which of your ${this.#calls.size} calls in flight this ` +
            `${what} request belongs to (MCP does not say), so it is not sent to any client`,
      );
    }
    const ask = call?.relay?.request;
    if (call === undefined || ask === undefined) {
      const reason = `the caller cannot answer ${what} requests`;
      throw refusal(ProtocolErrorCode.InvalidRequest, reason);
    }
    let answer: Readonly<Record<string, unknown>>;
    call.asking++;
    call.askedAt = performance.now();
    try {
      // A call cancelled while its caller is asked ends now: the SDK's
      // fulfilment of a 2026-07-28 server's input would wait for the answer.
      answer = await raceAbort(ask(request), call.controller.signal);
    } catch (error) {
      if (call.controller.signal.aborted) throw error;
      this.#fail(call, `the client failed the ${what} request: ${reasonText(error)}`);
      throw refusal(
        ProtocolErrorCode.InternalError,
        `the client failed the request: ${reasonText(error)}`,
      );
    } finally {
      call.asking--;
    }
    if (what === "elicitation" && answer.action !== "accept") {
      this.#fail(
        call,
        `the client declined the elicitation request (action: ${String(answer.action)})`,
      );
    }
    return { ...answer };
  }

  /**
   * The call a 2025 server's request (which names none) belongs to: the one
   * call in flight; else the one not waiting for its caller's answer to an
   * earlier request (a call blocked on its caller is not the one asking);
   * else the one that asked within {@linkcode ASKED_TOGETHER_MS} (a call
   * sending several requests at once). `undefined` when that is not one call.
   */
  #askingCall(): RelayedCall | undefined {
    const calls = [...this.#calls];
    if (calls.length <= 1) return calls[0];
    const free = calls.filter((call) => call.asking === 0);
    if (free.length === 1) return free[0];
    if (free.length > 1) return undefined;
    const now = performance.now();
    const recent = calls.filter((call) => now - (call.askedAt ?? -Infinity) < ASKED_TOGETHER_MS);
    return recent.length === 1 ? recent[0] : undefined;
  }

  /** Ends `call`: its request is cancelled upstream, and it fails with `reason`. */
  #fail(call: RelayedCall, reason: string): void {
    call.failed ??= reason;
    call.controller.abort(new InquiryFailedError(reason));
  }
}

/**
 * An error the SDK answers the server's request with: `code` and `message`
 * as given.
 */
function refusal(code: number, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/**
 * The key of an input request the SDK fulfils for a 2026-07-28 server: it
 * hands the handler the server's key as the request's id (a string). A
 * 2025 server's requests have numeric ids of its own, which name nothing.
 */
function keyOf(id: string | number): { key?: string } {
  return typeof id === "string" ? { key: id } : {};
}
