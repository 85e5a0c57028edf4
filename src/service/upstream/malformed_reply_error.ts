/**
 * What the stdio transport reports when an upstream server writes something
 * it cannot deliver as a reply: a line that is not JSON or not JSON-RPC, a
 * reply that names no request, a reply to a request nothing waits for.
 * Where the line names a request that is waiting, that request is known and
 * fails at once. A reply that names no request at all (no id, `"id": null`,
 * an id that is no request id: what a server sends when it could not read a
 * request) could belong to any request waiting, so all of them fail at once.
 * A line that is not a reply and names no request (a server logging to
 * stdout) is only reported: the requests still waiting end at their own
 * timeout at the latest.
 *
 * @module
 */

import {
  type JSONRPCMessage,
  ProtocolError,
  ProtocolErrorCode,
  type RequestId,
  SdkError,
  SdkErrorCode,
} from "../sdk.ts";
import { describeIssues } from "../tool_source_faults.ts";

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
  /**
   * The requests it fails because it is a reply that names none (as a
   * person reads them); empty or absent otherwise.
   */
  readonly failed?: readonly string[] | undefined;
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
  /** The requests it fails because it is a reply that names none. */
  readonly failed: readonly string[];

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
    this.failed = facts.failed ?? [];
  }

  /** `problem: preview`, the flaw as a failed call names it. */
  get account(): string {
    return `${this.problem}: ${this.preview}`;
  }
}

/**
 * The JSON-RPC error a transport delivers in place of a malformed reply,
 * answering request `id` so that its call fails at once: the error's `data`
 * carries the account under {@linkcode MALFORMED_REPLY_DATA_KEY}, with why
 * this request fails when the reply named none.
 *
 * @param id the waiting request it answers
 * @param error the report of the reply
 * @returns an error response to `id`
 */
export function malformedReplyAnswer(id: RequestId, error: MalformedReplyError): JSONRPCMessage {
  const account = error.failed.length === 0
    ? error.account
    : `${error.account}; it cannot be matched to one call, so every call waiting fails`;
  return {
    jsonrpc: "2.0",
    id,
    error: {
      code: ProtocolErrorCode.ParseError,
      message: error.message,
      data: { [MALFORMED_REPLY_DATA_KEY]: account },
    },
  };
}

/**
 * A reply that names no request, and the answers that fail every request
 * that was waiting (it may answer any of them, and the one it answers would
 * otherwise wait forever).
 *
 * @param preview the reply, quoted ({@linkcode quotedPreview})
 * @param failed the requests waiting, which it fails
 * @returns the report, and one error answer per request in `failed`
 */
export function replyNamingNoRequest(
  preview: string,
  failed: readonly { readonly id: RequestId; readonly label: string }[],
): { readonly error: MalformedReplyError; readonly answers: JSONRPCMessage[] } {
  const error = new MalformedReplyError({
    problem: "a reply that names no request",
    preview,
    waiting: failed.length,
    failed: failed.map((request) => request.label),
  });
  return { error, answers: failed.map((request) => malformedReplyAnswer(request.id, error)) };
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

/**
 * What is wrong with a reply the client refused (`a line that is not JSON:
 * "…"`, or the schema issues of a result the SDK would not take), or
 * `undefined` for any other error.
 */
export function malformedFlaw(error: unknown): string | undefined {
  if (error instanceof ProtocolError) {
    const data: unknown = error.data;
    if (typeof data !== "object" || data === null) return undefined;
    const flaw: unknown = (data as Record<string, unknown>)[MALFORMED_REPLY_DATA_KEY];
    return typeof flaw === "string" ? flaw : undefined;
  }
  // The SDK rejects a result that fails its schema as an invalid result, saying what is wrong.
  if (error instanceof SdkError && error.code === SdkErrorCode.InvalidResult) {
    const flaw = error.message.replace(/^Invalid result for [^:]+: /, "");
    // Its schema's issues come as their JSON; said in a line each, like ours.
    const issues = parsedIssues(flaw);
    return issues === undefined ? flaw : describeIssues(issues);
  }
  // (Before the v2 SDK: the zod error itself.)
  if (typeof error !== "object" || error === null || !("issues" in error)) return undefined;
  const { issues } = error;
  if (!Array.isArray(issues)) return undefined;
  return describeIssues(asIssues(issues));
}

/** `text` read as a list of schema issues (`[{ path, message }, …]`), or `undefined`. */
function parsedIssues(
  text: string,
): { path: readonly PropertyKey[]; message: string }[] | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return Array.isArray(value) && value.length > 0 ? asIssues(value) : undefined;
}

/** Schema issues as `describeIssues` takes them, whatever their other fields. */
function asIssues(issues: readonly unknown[]): { path: readonly PropertyKey[]; message: string }[] {
  return issues.map((issue) => {
    const { path, message } = (issue ?? {}) as { path?: unknown; message?: unknown };
    return { path: Array.isArray(path) ? path : [], message: String(message) };
  });
}
