/**
 * The client side of an upstream MCP server reached over Streamable HTTP
 * (`providers.mcp.<name>` with `type = "http"`): the SDK's
 * `StreamableHTTPClientTransport`, plus what {@linkcode McpUpstreamSource}
 * needs to tell a server that went away from one that answered badly.
 *
 * An HTTP server does not exit under us the way a stdio server does; it
 * stops answering. When sending a message fails because the server cannot
 * be reached (connection refused or reset) or no longer knows our session
 * (HTTP 404, e.g. after it restarted), the transport closes itself with
 * that reason, so the calls in flight are lost and the next call connects
 * again. So does an event stream that ends or breaks before the answers it
 * owes ({@linkcode AnswerStreams}): a server that went away in the middle
 * of a call fails that call at once, not at its timeout. (Such a stream is
 * not resumed: spillway fails the call rather than wait for a server that
 * may never come back.)
 *
 * A reply that names no request (an error answer without an id, what a
 * server sends when it could not read a request) may answer any request
 * waiting: each of them is answered at once with a JSON-RPC error saying so,
 * as over stdio ({@linkcode replyNamingNoRequest}).
 *
 * Closing the transport ends the session first (HTTP DELETE, as the
 * transport spec asks of a client that leaves), unless the server is gone.
 *
 * @module
 */

import {
  type JSONRPCMessage,
  SdkHttpError,
  StreamableHTTPClientTransport,
  type Transport,
  type TransportSendOptions,
} from "../sdk.ts";
import { settlesWithin } from "../subprocess/settles_within.ts";
import { AnswerStreams } from "./answer_streams.ts";
import { AwaitedRequests } from "./awaited_requests.ts";
import { quotedPreview, replyNamingNoRequest } from "./malformed_reply_error.ts";

/** How long ending the session (HTTP DELETE) may take when the transport closes. */
const END_SESSION_MS = 2_000;

/** Options of {@linkcode HttpUpstreamTransport}. */
export interface HttpUpstreamTransportOptions {
  /** The server's MCP endpoint, `http://` or `https://`. */
  readonly url: string;
  /** Headers sent with every request (e.g. `Authorization`). Default: none. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** Streamable HTTP to an upstream server, closing itself when the server is gone. */
export class HttpUpstreamTransport implements Transport {
  /**
   * One POST per request: on 2026-07-28 the SDK's client cancels a request
   * by aborting its stream (`requestSignal`), which the server sees as the
   * request closed, instead of sending `notifications/cancelled`.
   */
  readonly hasPerRequestStream = true;
  /** Called once the transport closed (by us, or because the server is gone). */
  onclose?: Transport["onclose"];
  /** Called with errors the transport cannot tie to a request. */
  onerror?: Transport["onerror"];
  /** Called with every message from the server. */
  onmessage?: Transport["onmessage"];
  readonly #inner: StreamableHTTPClientTransport;
  readonly #answers = new AnswerStreams((reason) => void this.#lose(reason));
  /** Requests sent and not yet answered: a reply that names none fails them all. */
  readonly #awaited = new AwaitedRequests();
  #closing = false;
  #closedByUs = false;
  #gone: string | undefined;

  /** @param options the endpoint and headers */
  constructor(options: HttpUpstreamTransportOptions) {
    this.#inner = new StreamableHTTPClientTransport(new URL(options.url), {
      requestInit: { headers: { ...options.headers } },
      fetch: this.#answers.fetch,
    });
    this.#inner.onmessage = (message: JSONRPCMessage) => {
      if (!this.#answers.received(message)) return;
      if ("method" in message) {
        this.onmessage?.(message);
      } else if (message.id === undefined) {
        // An error answer without an id: what a server sends when it could not read a request.
        const preview = quotedPreview(JSON.stringify(message));
        const { error, answers } = replyNamingNoRequest(preview, this.#awaited.takeAll());
        this.onerror?.(error);
        for (const answer of answers) {
          // Answered: their streams may now end without owing anything.
          this.#answers.received(answer);
          this.onmessage?.(answer);
        }
      } else {
        this.#awaited.take(message.id);
        this.onmessage?.(message);
      }
    };
    this.#inner.onerror = (error) => this.onerror?.(error);
    this.#inner.onclose = () => this.onclose?.();
  }

  /** No process: an HTTP server is not spillway's to run. */
  get pid(): undefined {
    return undefined;
  }

  /** No exit status, for the same reason. */
  get exitStatus(): undefined {
    return undefined;
  }

  /** Whether the transport is closing or closed. */
  get closing(): boolean {
    return this.#closing;
  }

  /** Whether spillway closed it (rather than the server going away). */
  get closedByUs(): boolean {
    return this.#closedByUs;
  }

  /** Why the server is taken as gone ("connection refused"), once it is. */
  get gone(): string | undefined {
    return this.#gone;
  }

  /**
   * What a failed start says about the server: why it is gone, or the HTTP
   * status it refused us with (`it answered HTTP 401: …`); `undefined` for
   * other errors.
   */
  explain(error: unknown): string | undefined {
    if (this.#gone !== undefined) return this.#gone;
    if (error instanceof SdkHttpError) {
      // The era probe's refusal (e.g. 401) carries the server's body as `text`.
      const body = typeof error.data.text === "string" ? error.data.text.trim() : "";
      return `it answered HTTP ${error.status} (${body || error.statusText || error.message})`;
    }
    // The SDK's HTTP errors carry the status (`SdkHttpError.status`).
    const status = (error as { status?: unknown } | undefined)?.status;
    if (typeof status !== "number" || status < 400) return undefined;
    return `it answered HTTP ${status} (${(error as Error).message.trim()})`;
  }

  /** The `MCP-Protocol-Version` of later requests, as the client negotiated it. */
  setProtocolVersion(version: string): void {
    this.#inner.setProtocolVersion(version);
  }

  /** The session the server gave us (2025-11-25), if any. */
  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  /** Starts the transport. */
  start(): Promise<void> {
    return this.#inner.start();
  }

  /** Sends `message`; a server that cannot be reached closes the transport. */
  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    this.#answers.sent(message);
    this.#awaited.sent(message);
    const requestSignal = options?.requestSignal;
    if (requestSignal !== undefined && "id" in message && "method" in message) {
      // Cancelled by closing its stream: its answer is no longer owed, and a
      // stream that ends without it says nothing about the server.
      const cancelled = () => this.#forgetCancelled(message.id);
      if (requestSignal.aborted) cancelled();
      else requestSignal.addEventListener("abort", cancelled, { once: true });
    }
    try {
      const token = options?.resumptionToken;
      await this.#inner.send(message, {
        ...(token === undefined ? {} : { resumptionToken: token }),
        ...(requestSignal === undefined ? {} : { requestSignal }),
        ...(options?.onRequestStreamEnd === undefined
          ? {}
          : { onRequestStreamEnd: options.onRequestStreamEnd }),
      });
    } catch (error) {
      // The request failed as it was sent: nothing waits for its answer.
      if ("method" in message && "id" in message) this.#awaited.take(message.id);
      const gone = goneReason(error);
      if (gone !== undefined) await this.#lose(gone);
      throw error;
    }
  }

  /**
   * Ends the session (HTTP DELETE, for at most 2 s; a server that does not
   * allow it answers 405, which is fine) and closes the transport. Idempotent.
   */
  async close(): Promise<void> {
    if (this.#closing) return;
    this.#closedByUs = true;
    this.#closing = true;
    // A failure is reported to onerror by the SDK; the session is ours to leave either way.
    await settlesWithin(this.#inner.terminateSession(), END_SESSION_MS);
    await this.#inner.close();
  }

  /** Request `id`, cancelled by closing its stream, as if `notifications/cancelled` was sent. */
  #forgetCancelled(id: string | number): void {
    const cancel = {
      jsonrpc: "2.0" as const,
      method: "notifications/cancelled",
      params: { requestId: id },
    };
    this.#answers.sent(cancel);
    this.#awaited.sent(cancel);
  }

  /** The server is gone (`why`): closes the transport, failing the calls in flight. */
  async #lose(why: string): Promise<void> {
    if (this.#closing) return;
    this.#gone = why;
    this.#closing = true;
    await this.#inner.close();
  }
}

/** Why `error` (from sending) means the server is gone, or `undefined` when it answered. */
function goneReason(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  if (code === 404) return "it no longer knows the session (HTTP 404)";
  // fetch() rejects with a TypeError ("fetch failed") whose cause says what failed.
  if (!(error instanceof TypeError)) return undefined;
  const cause = (error as { cause?: unknown }).cause;
  const text = `${error.message} ${cause instanceof Error ? cause.message : String(cause ?? "")}`;
  if (/connection refused/i.test(text)) return "connection refused";
  if (/connection reset|broken pipe/i.test(text)) return "connection reset";
  if (/fetch failed|error sending request|dns error|connect/i.test(text)) {
    return "it cannot be reached";
  }
  return undefined;
}
