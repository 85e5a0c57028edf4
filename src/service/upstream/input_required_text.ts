/**
 * What spillway says when a 2026-07-28 upstream server answers a request
 * with `input_required` (it wants the client to answer an elicitation,
 * sampling or roots request first). Passing such requests on to spillway's
 * client, in either era, is not built yet: the request fails at once, in
 * words, rather than waiting for an answer that cannot come.
 *
 * @module
 */

import { ProtocolError, ProtocolErrorCode, SdkError, SdkErrorCode } from "../sdk.ts";

/**
 * The sentence for `method` of `source` (`mcp.<server>`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { inputRequiredText } from "./input_required_text.ts";
 * assert.match(inputRequiredText("mcp.x", "tools/call `ask`"), /not supported yet/);
 * ```
 */
export function inputRequiredText(source: string, method: string): string {
  return `upstream server ${source} answered ${method} with input_required (MCP 2026-07-28: ` +
    "it asks the client for input, e.g. an elicitation or sampling request, before it " +
    "answers); passing such requests between spillway's clients and upstream servers is " +
    "not supported yet, so the request ended";
}

/** Whether `error` is the SDK's rejection of an `input_required` answer. */
export function isInputRequired(error: unknown): boolean {
  return error instanceof SdkError && error.code === SdkErrorCode.UnsupportedResultType;
}

/**
 * The JSON-RPC error a passed-on `prompts/get` or `resources/read` fails
 * with when `error` is an `input_required` answer; `undefined` otherwise.
 */
export function inputRequiredError(
  source: string,
  method: string,
  error: unknown,
): ProtocolError | undefined {
  if (!isInputRequired(error)) return undefined;
  return new ProtocolError(ProtocolErrorCode.InternalError, inputRequiredText(source, method));
}
