/**
 * How `serve --http` notices a 2026-07-28 client that gave up a call.
 * Such a client cancels by closing its request, and Deno's HTTP server
 * notices a closed connection only when it writes to it: an answer that
 * has not begun would let the call run on, upstream too. So an answer that
 * is not ready within {@linkcode SLOW_ANSWER_MS} begins at once as a
 * server-sent-event stream, with a comment every {@linkcode COMMENT_EVERY_MS}
 * until the answer comes (then its messages, and the end). The first
 * comment written after the client left fails, and the call is cancelled.
 *
 * An answer ready sooner is passed on as it is: a quick JSON body, or an
 * error with its own HTTP status (-32021 is HTTP 400).
 *
 * @module
 */

/** How long an answer may take before it begins as a stream, in ms. */
export const SLOW_ANSWER_MS = 1_000;

/** How often a stream waiting for its answer carries a comment, in ms. */
export const COMMENT_EVERY_MS = 1_000;

/** Options of {@linkcode slowAnswerStream}. */
export interface SlowAnswerOptions {
  /** Called once when the client went away before the answer was written. */
  readonly gone: () => void;
  /** Default: {@linkcode SLOW_ANSWER_MS}. */
  readonly afterMs?: number;
  /** Default: {@linkcode COMMENT_EVERY_MS}. */
  readonly everyMs?: number;
}

const encoder = new TextEncoder();

/**
 * `answer`, if it comes within `afterMs`; else a stream, begun now, that
 * ends with it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { slowAnswerStream } from "./_slow_answer_stream.ts";
 * const answer = new Promise<Response>((resolve) =>
 *   setTimeout(() => resolve(Response.json({ jsonrpc: "2.0", id: 1, result: {} })), 30)
 * );
 * const response = await slowAnswerStream(answer, { gone: () => {}, afterMs: 5, everyMs: 10 });
 * assert.equal(response.headers.get("content-type"), "text/event-stream");
 * assert.match(await response.text(), /event: message\ndata: \{"jsonrpc":"2.0","id":1,"result":\{\}\}\n\n$/);
 * ```
 */
export async function slowAnswerStream(
  answer: Promise<Response>,
  options: SlowAnswerOptions,
): Promise<Response> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const slow = new Promise<"slow">((resolve) => {
    timer = setTimeout(() => resolve("slow"), options.afterMs ?? SLOW_ANSWER_MS);
  });
  const first = await Promise.race([answer, slow]);
  clearTimeout(timer);
  if (first !== "slow") return first;
  let ticking: ReturnType<typeof setInterval> | undefined;
  let ended = false;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (bytes: Uint8Array) => {
        if (!ended) controller.enqueue(bytes);
      };
      send(encoder.encode(": the call runs\n\n"));
      ticking = setInterval(
        () => send(encoder.encode(":\n\n")),
        options.everyMs ?? COMMENT_EVERY_MS,
      );
      answer.then(async (response) => {
        clearInterval(ticking);
        await forward(response, send);
        if (!ended) controller.close();
        ended = true;
      }).catch((error: unknown) => {
        clearInterval(ticking);
        if (!ended) controller.error(error);
        ended = true;
      });
    },
    cancel() {
      // The client went away: nothing more is written, and its call ends.
      ended = true;
      clearInterval(ticking);
      options.gone();
    },
  });
  return new Response(body, {
    status: 200,
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
  });
}

/** Sends `response` as SSE: its own stream as it comes, or its JSON body as one message. */
async function forward(response: Response, send: (bytes: Uint8Array) => void): Promise<void> {
  if ((response.headers.get("content-type") ?? "").includes("text/event-stream")) {
    if (response.body === null) return;
    for await (const chunk of response.body) send(chunk);
    return;
  }
  const text = await response.text();
  if (text === "") return;
  const data = text.split("\n").map((line) => `data: ${line}`).join("\n");
  send(encoder.encode(`event: message\n${data}\n\n`));
}
