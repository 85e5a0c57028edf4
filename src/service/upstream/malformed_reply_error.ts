/**
 * What the stdio transport reports when an upstream server writes something
 * it cannot deliver as a reply: a line that is not JSON or not JSON-RPC, a
 * reply without an id, a reply to a request nothing waits for. Where the
 * line names a request that is waiting, that request is known and fails at
 * once; otherwise the report says so, and the requests still waiting end at
 * their own timeout at the latest.
 *
 * @module
 */

import type { RequestId } from "../sdk.ts";

/**
 * The `error.data` key of the JSON-RPC error the transport delivers in place
 * of a malformed reply, so that the request it answers fails at once; its
 * value is the one-line account (`a line that is not JSON: "…"`).
 */
export const MALFORMED_REPLY_DATA_KEY = "spillway/malformedReply";

/** How a malformed reply relates to the requests in flight. */
export interface MalformedReplyFacts {
  /** What is wrong, e.g. `a line that is not JSON`. */
  readonly problem: string;
  /** The line's first 200 characters, quoted. */
  readonly preview: string;
  /** The waiting request it answers, when that could be told. */
  readonly requestId?: RequestId | undefined;
  /** That request as a person reads it: `tools/call \`lint\``, `initialize`. */
  readonly request?: string | undefined;
  /** How many requests were waiting when it arrived (the answered one included). */
  readonly waiting: number;
}

/**
 * A reply that cannot be delivered as it is.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { MalformedReplyError } from "./malformed_reply_error.ts";
 * const error = new MalformedReplyError({
 *   problem: "a line that is not JSON",
 *   preview: '"oops"',
 *   requestId: 3,
 *   request: "tools/call `lint`",
 *   waiting: 1,
 * });
 * assert.equal(error.message, 'upstream server wrote a line that is not JSON: "oops"');
 * assert.equal(error.account, 'a line that is not JSON: "oops"');
 * ```
 */
export class MalformedReplyError extends Error {
  /** What is wrong, e.g. `a line that is not JSON`. */
  readonly problem: string;
  /** The line's first 200 characters, quoted. */
  readonly preview: string;
  /** The waiting request it answers, when that could be told. */
  readonly requestId: RequestId | undefined;
  /** That request as a person reads it. */
  readonly request: string | undefined;
  /** How many requests were waiting when it arrived. */
  readonly waiting: number;

  /**
   * Creates the report.
   *
   * @param facts what is wrong and which request it answers
   */
  constructor(facts: MalformedReplyFacts) {
    super(`upstream server wrote ${facts.problem}: ${facts.preview}`);
    this.name = "MalformedReplyError";
    this.problem = facts.problem;
    this.preview = facts.preview;
    this.requestId = facts.requestId;
    this.request = facts.request;
    this.waiting = facts.waiting;
  }

  /** `problem: preview`, the flaw as a failed call names it. */
  get account(): string {
    return `${this.problem}: ${this.preview}`;
  }
}

/**
 * The first 200 characters of a line, quoted as JSON (escapes and all), for
 * reports: a log line stays one line, whatever the server wrote.
 *
 * @param line the text as received
 * @returns the quoted preview, `…` marking a cut
 */
export function quotedPreview(line: string): string {
  return JSON.stringify(line.length > 200 ? `${line.slice(0, 200)}…` : line);
}
