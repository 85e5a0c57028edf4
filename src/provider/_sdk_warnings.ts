/**
 * Private helper of the model providers: a client SDK's own warnings. The
 * Anthropic SDK writes some of them with `console.warn`, outside any logger
 * option (a model it knows to be deprecated, on every request): raw
 * multi-line text on stderr, in the middle of the turn's output, once per
 * request. {@linkcode routeConsoleWarnings} hands them to spillway instead,
 * which says each once, on one line. The SDK's logger option is routed to
 * our log (see {@linkcode sdkLogger}).
 *
 * @module
 */

import { getLogger } from "@logtape/logtape";
import { inspect } from "node:util";

/**
 * Runs `open` (a client call that builds and sends a request; its warnings
 * are written before it returns) with `console.warn` handed to `warn`, one
 * text per call. Only the synchronous part of `open` is covered: nothing
 * else can run meanwhile, so no other warning is taken.
 */
export function routeConsoleWarnings<T>(open: () => T, warn: (text: string) => void): T {
  const original = console.warn;
  console.warn = (...parts: unknown[]) => warn(parts.map(String).join(" "));
  try {
    return open();
  } finally {
    console.warn = original;
  }
}

/**
 * A warning's lines as one line: each line a sentence, joined with spaces.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { oneLineWarning } from "./_sdk_warnings.ts";
 * assert.equal(oneLineWarning("Old model\nPlease migrate."), "Old model. Please migrate.");
 * ```
 */
export function oneLineWarning(text: string): string {
  return text.split("\n").map((line) => line.trim()).filter((line) => line !== "")
    .map((line) => /[.!?:]$/.test(line) ? line : `${line}.`).join(" ");
}

/** The four methods an SDK's `logger` option takes. */
export interface SdkLogger {
  error(message: string, ...rest: unknown[]): void;
  warn(message: string, ...rest: unknown[]): void;
  info(message: string, ...rest: unknown[]): void;
  debug(message: string, ...rest: unknown[]): void;
}

/** An SDK `logger` that writes to spillway's log (`spillway.provider.<name>`), never the console. */
export function sdkLogger(name: string): SdkLogger {
  const log = getLogger(["spillway", "provider", name]);
  const text = (message: string, rest: unknown[]) =>
    [message, ...rest.map((part) => typeof part === "string" ? part : inspect(part))].join(
      " ",
    );
  return {
    error: (message, ...rest) => log.error("{text}", { text: text(message, rest) }),
    warn: (message, ...rest) => log.warn("{text}", { text: text(message, rest) }),
    info: (message, ...rest) => log.info("{text}", { text: text(message, rest) }),
    debug: (message, ...rest) => log.debug("{text}", { text: text(message, rest) }),
  };
}
