/**
 * Private helper: a tool call's arguments as the model streamed them (JSON
 * text) read into the object the call records.
 *
 * @module
 */

import { malformedAnswer } from "./model_error.ts";

/**
 * A call's arguments: a JSON object. An empty string means no arguments
 * (servers differ on `""` and `"{}"`).
 */
export function parseArguments(
  model: string,
  tool: string,
  text: string,
): Record<string, unknown> {
  if (text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    const shown = text.length > 80 ? `${text.slice(0, 79)}…` : text;
    throw malformedAnswer(
      model,
      `the arguments of its ${tool} call are not JSON: ${JSON.stringify(shown)} ` +
        "(an answer cut at its output limit ends like this)",
    );
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw malformedAnswer(
      model,
      `the arguments of its ${tool} call are not a JSON object: ${text}`,
    );
  }
  return value as Record<string, unknown>;
}
