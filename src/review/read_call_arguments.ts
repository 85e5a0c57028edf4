/**
 * A tool call's arguments as a model API sends them, JSON text, read into
 * the object a call carries. Text that is not a JSON object (small models
 * write such calls; an answer cut at its output limit ends in one) is not
 * an error here: the call is answered with an error response the model can
 * read and act on, and the turn goes on.
 *
 * @module
 */

import { reasonText } from "../errors/reason_text.ts";

/** What is wrong with a call's arguments text. */
export interface ArgumentsProblem {
  /** `"not valid JSON"`, or `"not a JSON object"` (an array, a string, …). */
  readonly summary: "not valid JSON" | "not a JSON object";
  /**
   * One sentence without its full stop: the parser's message (`Unexpected
   * end of JSON input`, which may quote a little of the text), or what the
   * value is instead (`They are an array`).
   */
  readonly detail: string;
}

/** The arguments read from their text: an object, or the problem and no arguments. */
export type ReadArguments =
  | { readonly arguments: Record<string, unknown>; readonly problem?: undefined }
  | { readonly arguments: Record<string, never>; readonly problem: ArgumentsProblem };

/**
 * Reads a call's arguments text. Empty (or blank) text means no arguments:
 * servers differ on `""` and `"{}"`.
 *
 * @param text the arguments as the model sent them
 * @returns the object, or `{}` with the problem
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readCallArguments } from "./read_call_arguments.ts";
 * assert.deepEqual(readCallArguments('{"path": "."}'), { arguments: { path: "." } });
 * assert.deepEqual(readCallArguments(""), { arguments: {} });
 * assert.deepEqual(readCallArguments('{"path": "'), {
 *   arguments: {},
 *   problem: { summary: "not valid JSON", detail: "Unterminated string in JSON at position 10 (line 1 column 11)" },
 * });
 * assert.deepEqual(readCallArguments("[1, 2]").problem, {
 *   summary: "not a JSON object",
 *   detail: "They are an array",
 * });
 * ```
 */
export function readCallArguments(text: string): ReadArguments {
  if (text.trim() === "") return { arguments: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const message = reasonText(error);
    return {
      arguments: {},
      problem: { summary: "not valid JSON", detail: message },
    };
  }
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    return { arguments: value as Record<string, unknown> };
  }
  return {
    arguments: {},
    problem: { summary: "not a JSON object", detail: `They are ${kindOf(value)}` },
  };
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`; // a string, a number, a boolean
}
