/**
 * A model API stand-in on loopback for tests: an HTTP server on
 * `127.0.0.1`, port 0, that answers each request with the next scripted
 * reply (a JSON body with a status, or a server-sent event stream) and
 * records what it was sent. The wire formats themselves come from
 * `openai_wire.ts` and `anthropic_wire.ts`; this file knows only HTTP.
 *
 * @module
 */

/** One scripted answer. */
export type FakeReply =
  /** A plain JSON answer, e.g. an error body with its real status code. */
  | {
    readonly status: number;
    readonly body: unknown;
    readonly headers?: Readonly<Record<string, string>>;
  }
  /** A `text/event-stream` answer, one write per event. */
  | {
    readonly events: readonly string[];
    /**
     * After the events, keep the stream open until the server closes (an
     * answer still coming in: the test cancels it). Default false.
     */
    readonly hold?: boolean;
  };

/** Answers each request from what it carries (instead of a queue of replies). */
export type FakeResponder = (request: RecordedRequest) => FakeReply;

/** One request the server received. */
export interface RecordedRequest {
  /** `POST`, … */
  readonly method: string;
  /** The path, e.g. `/v1/chat/completions`. */
  readonly path: string;
  /** The query string, `?` included (`""` when there was none), e.g. `?alt=sse`. */
  readonly query: string;
  /** The request headers. */
  readonly headers: Headers;
  /** The JSON body (`undefined` when there was none). */
  readonly body: Record<string, unknown>;
}

const encoder = new TextEncoder();

/**
 * The server. Start it with {@linkcode FakeModelServer.start}; close it in
 * `finally`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FakeModelServer } from "./fake_model_server.ts";
 * const server = FakeModelServer.start([{ status: 200, body: { ok: true } }]);
 * try {
 *   const response = await fetch(`${server.url}/v1/x`, { method: "POST", body: "{}" });
 *   assert.deepEqual(await response.json(), { ok: true });
 *   assert.equal(server.requests[0]?.path, "/v1/x");
 * } finally {
 *   await server.close();
 * }
 * ```
 */
export class FakeModelServer {
  /** Every request received, in order. */
  readonly requests: RecordedRequest[] = [];
  readonly #replies: FakeReply[];
  readonly #responder: FakeResponder | undefined;
  readonly #server: Deno.HttpServer<Deno.NetAddr>;
  readonly #holds = new Set<() => void>();
  readonly #waiters: (() => void)[] = [];

  private constructor(replies: readonly FakeReply[] | FakeResponder) {
    this.#replies = typeof replies === "function" ? [] : [...replies];
    this.#responder = typeof replies === "function" ? replies : undefined;
    this.#server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      (request) => this.#answer(request),
    );
  }

  /**
   * Starts a server that answers with `replies`, in order, or with what
   * `replies` returns for each request (a client whose number and order of
   * requests is its own business: an agent CLI).
   */
  static start(replies: readonly FakeReply[] | FakeResponder = []): FakeModelServer {
    return new FakeModelServer(replies);
  }

  /** `http://127.0.0.1:<port>`. */
  get url(): string {
    return `http://127.0.0.1:${this.#server.addr.port}`;
  }

  /** Adds replies after those still queued. */
  reply(...replies: FakeReply[]): void {
    this.#replies.push(...replies);
  }

  /** Resolves once `count` requests have arrived. */
  async received(count: number): Promise<void> {
    while (this.requests.length < count) {
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  /** Ends held streams and stops the server. */
  async close(): Promise<void> {
    for (const release of this.#holds) release();
    await this.#server.shutdown();
  }

  async #answer(request: Request): Promise<Response> {
    const text = await request.text();
    const url = new URL(request.url);
    const recorded: RecordedRequest = {
      method: request.method,
      path: url.pathname,
      query: url.search,
      headers: request.headers,
      body: text === "" ? {} : JSON.parse(text),
    };
    this.requests.push(recorded);
    for (const wake of this.#waiters.splice(0)) wake();
    const reply = this.#responder === undefined ? this.#replies.shift() : this.#responder(recorded);
    if (reply === undefined) {
      return Response.json({ error: { message: "the fake server has no reply scripted" } }, {
        status: 599,
        headers: { "x-should-retry": "false" },
      });
    }
    if ("status" in reply) {
      return Response.json(reply.body, { status: reply.status, headers: reply.headers ?? {} });
    }
    return new Response(this.#eventStream(reply.events, reply.hold === true), {
      headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
    });
  }

  #eventStream(events: readonly string[], hold: boolean): ReadableStream<Uint8Array> {
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    return new ReadableStream({
      start: (controller) => {
        for (const event of events) controller.enqueue(encoder.encode(event));
        if (!hold) {
          controller.close();
          return;
        }
        this.#holds.add(release);
        held.then(() => {
          this.#holds.delete(release);
          try {
            controller.close();
          } catch {
            // Already cancelled by the client: nothing to close.
          }
        });
      },
      cancel: () => {
        this.#holds.delete(release);
        release();
      },
    });
  }
}
