/**
 * Private helper: a client's `tools/call` request checked before anything
 * runs it. MCP wants arguments that are not what the method takes answered
 * with `-32602` (invalid params); the SDK's own check answers `-32603` with
 * the JSON of every zod issue. Here the answer is `-32602` and one line
 * saying what is wrong (`tools/call: params.arguments must be a JSON
 * object of the tool's arguments, got a string`). Nothing of such a request
 * is recorded: it is not a call of any tool.
 *
 * @module
 */

import { type CallToolRequest, CallToolRequestSchema, ProtocolErrorCode } from "../service/sdk.ts";

/** A JSON-RPC error with `code` and exactly `message` (an `ProtocolError` would prefix its code). */
function rpcError(code: number, message: string): Error & { readonly code: number } {
  return Object.assign(new Error(message), { code });
}

/** What `value` is, as a message names it: `a string`, `an array`, `null`. */
function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  const type = typeof value;
  return type === "object" ? "an object" : type === "undefined" ? "nothing" : `a ${type}`;
}

/**
 * The request as the SDK types it, once its params are what `tools/call`
 * takes: a tool name, and arguments that are a JSON object when given.
 *
 * @throws an error with code `-32602` (`InvalidParams`) and a one-line message otherwise
 */
export function toolCallRequest(request: { readonly params?: unknown }): CallToolRequest {
  const params = request.params;
  if (typeof params !== "object" || params === null || Array.isArray(params)) {
    throw rpcError(
      ProtocolErrorCode.InvalidParams,
      `tools/call: params must be an object with the tool's name and arguments, got ${
        kindOf(params)
      }`,
    );
  }
  const { name, arguments: args } = params as { name?: unknown; arguments?: unknown };
  if (typeof name !== "string" || name === "") {
    throw rpcError(
      ProtocolErrorCode.InvalidParams,
      `tools/call: params.name must be the tool's name (a non-empty string), got ${
        name === "" ? "an empty string" : kindOf(name)
      }`,
    );
  }
  if (args !== undefined && (typeof args !== "object" || args === null || Array.isArray(args))) {
    throw rpcError(
      ProtocolErrorCode.InvalidParams,
      `tools/call: params.arguments must be a JSON object of the tool's arguments, got ${
        kindOf(args)
      }`,
    );
  }
  const parsed = CallToolRequestSchema.safeParse(request);
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    const path = issue === undefined ? "params" : issue.path.map(String).join(".");
    throw rpcError(
      ProtocolErrorCode.InvalidParams,
      `tools/call: ${path} is not valid: ${issue?.message ?? "not what tools/call takes"}`,
    );
  }
  return parsed.data;
}
