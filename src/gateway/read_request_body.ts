/**
 * Reads the body of a client's POST to `spillway serve --http`, never past
 * its limit (`serve.max_request_size`) and never for longer than its
 * deadline. The bytes are counted as they arrive: a `Content-Length` over
 * the limit is refused before anything is read, and a body without one (or
 * with one that lies) is refused as soon as the count passes the limit, its
 * stream cancelled, so at most the limit and one chunk are ever held.
 *
 * @module
 */

/**
 * How long a request body may take to arrive in full once its headers did:
 * 30 s, ample for the 4 MiB default over any link a gateway serves, and
 * short enough that a client trickling a body cannot hold its request open.
 */
export const BODY_TIMEOUT_MS = 30_000;

/** Options of {@linkcode readRequestBody}. */
export interface ReadRequestBodyOptions {
  /** The largest body accepted, in bytes. */
  readonly maxBytes: number;
  /** How long the whole body may take. Default: {@linkcode BODY_TIMEOUT_MS}. */
  readonly timeoutMs?: number;
}

/** What reading a body came to. */
export type RequestBody =
  /** The whole body, at most `maxBytes`. */
  | { readonly kind: "read"; readonly bytes: Uint8Array }
  /** Over `maxBytes` (declared, or counted): the rest was not read. */
  | { readonly kind: "too_large" }
  /** Not complete within the deadline: the rest was not read. */
  | { readonly kind: "timed_out" }
  /** The stream broke before its end (the client went away). */
  | { readonly kind: "broken" };

/**
 * Reads `request`'s body within `options.maxBytes` and the deadline.
 *
 * @param request the incoming request (its body is consumed)
 * @param options the limit and the deadline
 * @returns the body, or why it was not read
 * @throws {RangeError} when `maxBytes` is not a positive safe integer
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readRequestBody } from "./read_request_body.ts";
 * const post = (body: string) => new Request("http://127.0.0.1/mcp", { method: "POST", body });
 * const small = await readRequestBody(post("{}"), { maxBytes: 4 });
 * assert.equal(small.kind === "read" && new TextDecoder().decode(small.bytes), "{}");
 * assert.equal((await readRequestBody(post("{ }   "), { maxBytes: 4 })).kind, "too_large");
 * ```
 */
export async function readRequestBody(
  request: Request,
  options: ReadRequestBodyOptions,
): Promise<RequestBody> {
  const { maxBytes } = options;
  if (!Number.isSafeInteger(maxBytes) || maxBytes <= 0) {
    throw new RangeError(`maxBytes must be a positive number of bytes, got ${maxBytes}`);
  }
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > maxBytes) {
    await request.body?.cancel().catch(() => {});
    return { kind: "too_large" };
  }
  if (request.body === null) return { kind: "read", bytes: new Uint8Array() };
  const reader = request.body.getReader();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    // A pending read() then ends as if the body had.
    void reader.cancel().catch(() => {});
  }, options.timeoutMs ?? BODY_TIMEOUT_MS);
  try {
    const chunks: Uint8Array[] = [];
    let received = 0;
    for (;;) {
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await reader.read();
      } catch {
        return { kind: timedOut ? "timed_out" : "broken" };
      }
      const { done, value } = next;
      if (timedOut) return { kind: "timed_out" };
      if (done) break;
      received += value.byteLength;
      if (received > maxBytes) {
        await reader.cancel().catch(() => {});
        return { kind: "too_large" };
      }
      chunks.push(value);
    }
    return { kind: "read", bytes: joined(chunks, received) };
  } finally {
    clearTimeout(timer);
  }
}

function joined(chunks: readonly Uint8Array[], length: number): Uint8Array {
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const bytes = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}
