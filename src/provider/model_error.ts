/**
 * One clear line for each way a model request fails. Both API clients
 * report failures as their own error classes; each provider reduces them to
 * an {@linkcode ApiFailure} and this module phrases it: which server, what
 * it said (one line, shortened), how many retries were spent, and what to
 * check. The result is a `provider_failed` {@linkcode SpillwayError} whose
 * `details.kind` lets the command line add what only it knows (the
 * conversation to repair when the context window is exceeded).
 *
 * @module
 */

import { SpillwayError } from "../errors/spillway_error.ts";
import { reasonText } from "../errors/reason_text.ts";

/** What kind of failure a `provider_failed` error from a model API is. */
export type ModelFailureKind =
  | "context_window"
  | "auth"
  | "forbidden"
  | "not_found"
  | "rate_limited"
  | "server"
  | "unreachable"
  | "timeout"
  | "rejected"
  | "malformed"
  | "cancelled";

/** A failed request, as a provider read it from its client's error. */
export interface ApiFailure {
  /** The HTTP status, when the server answered (absent for an error sent mid-stream). */
  readonly status?: number;
  /** What went wrong: the server's message, or the connection error. */
  readonly message: string;
  /** The API's error code or type, e.g. `context_length_exceeded`, `overloaded_error`. */
  readonly code?: string;
  /** How the request ended. */
  readonly kind: "status" | "connection" | "timeout" | "cancelled";
}

/** What the message names besides the failure. */
export interface ModelErrorContext {
  /** The model id, e.g. `"openai/gpt-4.1-mini"`. */
  readonly model: string;
  /** The endpoint asked. */
  readonly baseUrl: string;
  /** The variable the key came from, when one was sent. */
  readonly apiKeyEnv: string;
  /** Whether a key was sent at all. */
  readonly keySent: boolean;
  /** How many times the client retried before giving up. */
  readonly retries: number;
}

/** Longest server message quoted in an error. */
const MAX_QUOTED_CHARS = 300;

/** Messages servers use for a request longer than the model's context window. */
const TOO_LONG =
  /context length|context window|context size|prompt is too long|too many tokens|maximum context|exceeds? the (?:available )?context|input is too long/i;

/**
 * The `provider_failed` error for `failure`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { modelError } from "./model_error.ts";
 * const error = modelError(
 *   { kind: "status", status: 400, message: "prompt is too long: 215000 tokens > 200000 maximum" },
 *   { model: "anthropic/claude-x", baseUrl: "https://api.anthropic.com", apiKeyEnv: "ANTHROPIC_API_KEY", keySent: true, retries: 3 },
 * );
 * assert.equal(error.details["kind"], "context_window");
 * assert.equal(
 *   error.message,
 *   "the conversation is too long for anthropic/claude-x's context window: prompt is too long: 215000 tokens > 200000 maximum",
 * );
 * ```
 */
export function modelError(failure: ApiFailure, context: ModelErrorContext): SpillwayError {
  const said = oneLine(failure.message);
  const { model, baseUrl } = context;
  const retried = context.retries === 1 ? "1 retry" : `${context.retries} retries`;
  const fail = (kind: ModelFailureKind, message: string) =>
    new SpillwayError("provider_failed", message, {
      kind,
      model,
      ...(failure.status === undefined ? {} : { status: failure.status }),
      ...(failure.code === undefined ? {} : { code: failure.code }),
    });
  if (failure.kind === "cancelled") return fail("cancelled", "the request was cancelled");
  if (failure.kind === "connection") {
    return fail("unreachable", `cannot reach ${baseUrl} (still after ${retried}): ${said}`);
  }
  if (failure.kind === "timeout") {
    return fail("timeout", `${baseUrl} did not answer in time (still after ${retried})`);
  }
  const status = failure.status;
  if (
    failure.code === "context_length_exceeded" || status === 413 ||
    ((status === 400 || status === undefined) && TOO_LONG.test(said))
  ) {
    return fail(
      "context_window",
      `the conversation is too long for ${model}'s context window: ${said}`,
    );
  }
  switch (status) {
    case 401:
      return fail(
        "auth",
        context.keySent
          ? `${baseUrl} refused the API key in ${context.apiKeyEnv} (401): ${said}`
          : `${baseUrl} wants an API key (401): set ${context.apiKeyEnv}: ${said}`,
      );
    case 403:
      return fail("forbidden", `${baseUrl} refused the request (403): ${said}`);
    case 404:
      return fail(
        "not_found",
        `${model} was not found at ${baseUrl} (404): ${said} ` +
          "(check the model name, and base_url if the server is not the public one)",
      );
    case 429:
      return fail(
        "rate_limited",
        `rate limited by ${baseUrl} (429), still after ${retried}: ${said}`,
      );
  }
  if (status === undefined) {
    // An error event in the middle of the answer stream.
    const kind = /overload|rate|capacity/i.test(failure.code ?? "") ? "server" : "rejected";
    return fail(kind, `${baseUrl} broke off the answer: ${said}`);
  }
  if (status >= 500) {
    return fail("server", `${baseUrl} failed (${status}), still after ${retried}: ${said}`);
  }
  return fail("rejected", `${baseUrl} rejected the request (${status}): ${said}`);
}

/** The error for an answer the client could read but that makes no sense. */
export function malformedAnswer(model: string, what: string): SpillwayError {
  return new SpillwayError("provider_failed", `${model} sent a malformed answer: ${what}`, {
    kind: "malformed",
    model,
  });
}

/** A server message as one short line (servers send pages of HTML, too). */
function oneLine(text: string): string {
  const line = text.replace(/\s+/g, " ").trim() || "(no message)";
  return line.length <= MAX_QUOTED_CHARS ? line : `${line.slice(0, MAX_QUOTED_CHARS - 1)}…`;
}

/**
 * The innermost message of an error chain: "Connection refused (os error
 * 111)", not the client's "Connection error." nor the runtime's "error
 * sending request for url (…): client error (Connect): tcp connect error: …".
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { causeText } from "./model_error.ts";
 * const fetchError = new TypeError(
 *   "error sending request for url (http://127.0.0.1:9/v1): client error (Connect): tcp connect error: Connection refused (os error 111)",
 * );
 * assert.equal(
 *   causeText(new Error("Connection error.", { cause: fetchError })),
 *   "Connection refused (os error 111)",
 * );
 * ```
 */
export function causeText(error: unknown): string {
  let current = error;
  let text = reasonText(error);
  for (
    let depth = 0;
    depth < 5 && current instanceof Error && current.cause !== undefined;
    depth++
  ) {
    current = current.cause;
    if (current instanceof Error && current.message !== "") text = current.message;
  }
  // Deno's fetch nests its layers' names in one message; the last one says what happened.
  const nested = /^error sending request for url \(.*?\): .*error: (.+)$/.exec(text);
  return nested?.[1] ?? text;
}
