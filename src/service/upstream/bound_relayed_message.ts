/**
 * What an upstream server sends while a call runs (a log message, a
 * progress message) is relayed to a client, and a server may send anything:
 * a 20 MB log line would cost the client, the gateway and the client's
 * model context alike. So a relayed text is cut, as tool results are: at
 * {@linkcode MAX_RELAYED_MESSAGE_BYTES}, keeping its head, with the exact
 * marker (`... [truncated, 20.0 MB → 64.0 KB]`). A log message's data that
 * is not a string is measured as its JSON text, and relayed as that text,
 * cut, when it is over. A logger's name gets {@linkcode MAX_LOGGER_BYTES}.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { capText } from "../../size/cap_text.ts";
import type { LogMessage, ProgressUpdate } from "../tool_call_relay.ts";

/** The most of a relayed log message's data, or of a progress message, sent on: 64 KiB. */
export const MAX_RELAYED_MESSAGE_BYTES = 64 * 1024;

/** The most of a log message's logger name sent on: 1 KiB. */
export const MAX_LOGGER_BYTES = 1024;

/**
 * `message` with its data and logger cut to their limits (the same object
 * when nothing is over).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { boundLogMessage } from "./bound_relayed_message.ts";
 * const small = { level: "info", data: { ok: true } };
 * assert.equal(boundLogMessage(small), small);
 * const cut = boundLogMessage({ level: "info", data: "x".repeat(100_000) });
 * assert.ok(String(cut.data).endsWith("\n... [truncated, 97.6 KB → 64.0 KB]"));
 * ```
 */
export function boundLogMessage(message: LogMessage): LogMessage {
  const { data, logger } = message;
  const text = typeof data === "string" ? data : jsonText(data);
  const dataOver = text !== undefined &&
    Buffer.byteLength(text, "utf8") > MAX_RELAYED_MESSAGE_BYTES;
  const loggerOver = logger !== undefined && Buffer.byteLength(logger, "utf8") > MAX_LOGGER_BYTES;
  if (!dataOver && !loggerOver) return message;
  return {
    level: message.level,
    logger: loggerOver ? capText(logger, MAX_LOGGER_BYTES).text : logger,
    data: dataOver ? capText(text, MAX_RELAYED_MESSAGE_BYTES).text : data,
  };
}

/** `update` with its message cut to {@linkcode MAX_RELAYED_MESSAGE_BYTES} (the same object when under). */
export function boundProgress(update: ProgressUpdate): ProgressUpdate {
  const { message } = update;
  if (message === undefined || Buffer.byteLength(message, "utf8") <= MAX_RELAYED_MESSAGE_BYTES) {
    return update;
  }
  return { ...update, message: capText(message, MAX_RELAYED_MESSAGE_BYTES).text };
}

/** The JSON text of `value`, or `undefined` when it has none (it is then passed on as it is). */
function jsonText(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}
