/**
 * Which answers an HTTP upstream still owes on the event streams of our
 * POSTs. A Streamable HTTP server may answer a request with an SSE stream
 * that carries the answer (and the call's progress and inquiries before
 * it). When that stream ends or breaks before the answer (the server
 * crashed, a proxy dropped the connection), the SDK's client reports the
 * error but leaves the request waiting: the call would hang until its
 * timeout. {@linkcode AnswerStreams} sees those streams end and says which
 * answers did not come, so {@linkcode HttpUpstreamTransport} can fail the
 * calls at once.
 *
 * It wraps `fetch` for the SDK's transport: the body of each event stream
 * that answers requests gets one more event appended when it ends or breaks,
 * naming those requests. The SDK parses events in order, so by the time
 * that event reaches {@linkcode AnswerStreams.received}, every answer the
 * stream carried has been seen. Requests we cancelled are not waited for
 * (a server may end their streams without an answer).
 *
 * @module
 */

import type { JSONRPCMessage } from "../sdk.ts";
import { reasonText } from "../../errors/reason_text.ts";

type RequestId = string | number;

/** The method of the event appended to an answer stream when it ends; never passed on. */
const STREAM_ENDED = "spillway/answer_stream_ended";

const encoder = new TextEncoder();

/** Tracks the answers owed on event streams and notices the streams that end without them. */
export class AnswerStreams {
  /** Requests sent whose answer is to come on an event stream. */
  readonly #awaiting = new Set<RequestId>();
  readonly #ended: (reason: string) => void;

  /**
   * @param ended called when a stream ended or broke before the answers it
   *   owed, with why (`the stream of an answer broke (…)`)
   */
  constructor(ended: (reason: string) => void) {
    this.#ended = ended;
  }

  /** A `fetch` whose answer streams tell when they end (give it to the SDK's transport). */
  readonly fetch = async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const ids = init?.method === "POST" ? requestIds(init.body) : [];
    // Awaited from now: a cancellation may be sent before the response's headers arrive.
    for (const id of ids) this.#awaiting.add(id);
    let response: Response;
    try {
      response = await fetch(url, init);
    } catch (error) {
      this.#forget(ids);
      throw error;
    }
    const type = response.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
    if (ids.length === 0 || response.body === null || type !== "text/event-stream") {
      // Answered in the body as JSON (seen by `received`), or not at all.
      this.#forget(ids);
      return response;
    }
    return new Response(endMarked(response.body, ids), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };

  /** Call with every message sent: a cancelled request's answer is not waited for. */
  sent(message: JSONRPCMessage): void {
    if (!("method" in message) || message.method !== "notifications/cancelled") return;
    const id = (message.params as { requestId?: unknown } | undefined)?.requestId;
    if (typeof id === "string" || typeof id === "number") this.#awaiting.delete(id);
  }

  /**
   * Call with every message received; `false` for the end-of-stream event,
   * which is ours and is not to be passed on.
   */
  received(message: JSONRPCMessage): boolean {
    if ("method" in message) {
      if (message.method !== STREAM_ENDED) return true;
      const { ids, reason } = message.params as { ids: RequestId[]; reason?: string };
      const owed = ids.filter((id) => this.#awaiting.delete(id));
      if (owed.length > 0) {
        this.#ended(
          reason === undefined
            ? "the stream of an answer ended without it"
            : `the stream of an answer broke (${reason})`,
        );
      }
      return false;
    }
    if ("id" in message && message.id !== undefined) this.#awaiting.delete(message.id);
    return true;
  }

  #forget(ids: readonly RequestId[]): void {
    for (const id of ids) this.#awaiting.delete(id);
  }
}

/** The ids of the requests in a POST's body (one message or a batch). */
function requestIds(body: RequestInit["body"]): RequestId[] {
  if (typeof body !== "string") return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return [];
  }
  const messages: unknown[] = Array.isArray(parsed) ? parsed : [parsed];
  return messages.flatMap((message) => {
    const { id, method } = (message ?? {}) as { id?: unknown; method?: unknown };
    // A `subscriptions/listen` stream is answered only when it ends (the
    // server may end it at any time, and the client listens again).
    return typeof method === "string" && method !== "subscriptions/listen" &&
        (typeof id === "string" || typeof id === "number")
      ? [id]
      : [];
  });
}

/** `body`, then one event naming `ids` (and why, when it broke) once it ends. */
function endMarked(body: ReadableStream<Uint8Array>, ids: RequestId[]): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const end = (controller: ReadableStreamDefaultController<Uint8Array>, reason?: string) => {
    const event = { jsonrpc: "2.0", method: STREAM_ENDED, params: { ids, reason } };
    // The blank line first ends an event the break may have cut.
    controller.enqueue(encoder.encode(`\n\ndata: ${JSON.stringify(event)}\n\n`));
    controller.close();
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        end(controller, reasonText(error));
        return;
      }
      if (chunk.done) end(controller);
      else controller.enqueue(chunk.value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
}
