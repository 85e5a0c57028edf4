/**
 * The client capabilities that travel with a call to an upstream server:
 * what a 2026-07-28 server is told the caller's client can answer (it asks
 * only for that), and what a server's -32021 refusal says the client lacks.
 *
 * @module
 */

import { CLIENT_CAPABILITIES_META_KEY, ProtocolError, ProtocolErrorCode } from "../sdk.ts";

/**
 * The client capabilities a 2026-07-28 server is told with a call: the
 * ones spillway declares (it can pass those requests on) that the caller's
 * client declared too. `undefined` when the caller did not say.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { askable } from "./call_capabilities.ts";
 * assert.deepEqual(
 *   askable({ sampling: {}, elicitation: {}, roots: {} }, { elicitation: { form: {} }, tasks: {} }),
 *   { "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } } },
 * );
 * ```
 */
export function askable(
  ours: Readonly<Record<string, unknown>>,
  theirs: Readonly<Record<string, unknown>> | undefined,
): Record<string, unknown> | undefined {
  if (theirs === undefined) return undefined;
  const both = Object.fromEntries(
    Object.keys(ours).filter((name) => theirs[name] !== undefined).map((name) => [
      name,
      theirs[name],
    ]),
  );
  return { [CLIENT_CAPABILITIES_META_KEY]: both };
}

/** The capabilities a -32021 error of the server names, or `undefined` for another error. */
export function lackingCapabilities(error: unknown): Record<string, unknown> | undefined {
  if (!(error instanceof ProtocolError)) return undefined;
  if (error.code !== ProtocolErrorCode.MissingRequiredClientCapability) return undefined;
  const required = (error.data as { requiredCapabilities?: unknown } | undefined)
    ?.requiredCapabilities;
  return typeof required === "object" && required !== null && !Array.isArray(required)
    ? required as Record<string, unknown>
    : {};
}
