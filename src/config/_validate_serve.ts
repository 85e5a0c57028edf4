/**
 * Validates the `[serve]` table of a layer: the settings of `spillway
 * serve` that a user keeps from run to run. `client_ceiling` caps every
 * result a client gets (as `--client-ceiling` does; the flag wins);
 * `client_ceilings` sets the ceiling of the sessions of one client, by the
 * name it announces in `initialize` (adding to or overriding the clients
 * spillway knows);
 * `token_env` names the environment variable holding the HTTP bearer token
 * of the default client, `[serve.tokens.NAME] env` the one holding client
 * NAME's own;
 * `allowed_origins` lists the web origins, besides loopback ones, whose
 * pages may call the gateway; `max_request_size` bounds what a client may
 * POST; `session_idle_timeout` closes an HTTP session that sent nothing for
 * that long, and `max_sessions` bounds how many there are at once;
 * `input_timeout`, `max_input_waits` and `max_input_size` bound the calls
 * of 2026-07-28 clients that wait for their client's input between
 * `input_required` rounds (how long, how many, how large a round), and
 * `record_input_contents` records what a call asked its client and the
 * answer, not only their sizes. The
 * token itself is refused by name: a secret never goes in a config file.
 *
 * @module
 */

import { ByteSize } from "../size/byte_size.ts";
import { MIN_SIZE_THRESHOLD_BYTES } from "../size/size_threshold.ts";
import { formatKeyPath } from "./_key_path.ts";
import { assignment, isStringArray, isTable, type LayerContext, put } from "./_layer_context.ts";
import { envName } from "./_validate_llm_provider.ts";
import { Duration } from "./duration.ts";
import {
  CLIENT_NAME,
  DEFAULT_CLIENT,
  MIN_INPUT_TIMEOUT_MS,
  MIN_MAX_REQUEST_SIZE_BYTES,
  MIN_SESSION_IDLE_TIMEOUT_MS,
} from "./serve_config.ts";

/** Keys of `[serve]`, in the order messages list them. */
export const SERVE_KEYS = [
  "client_ceiling",
  "client_ceilings",
  "token_env",
  "tokens",
  "allowed_origins",
  "max_request_size",
  "session_idle_timeout",
  "max_sessions",
  "input_timeout",
  "max_input_waits",
  "max_input_size",
  "record_input_contents",
] as const;

/** Validates `value` as the `[serve]` table and stores what is valid in `ctx.layer`. */
export function validateServe(ctx: LayerContext, value: unknown): void {
  if (!isTable(value)) {
    ctx.wrongType(["serve"], value, 'a table, e.g. [serve] with client_ceiling = "500KB"');
    return;
  }
  const settings = ctx.layer.serve;
  for (const [key, item] of Object.entries(value)) {
    const path = ["serve", key];
    if (key === "client_ceiling") {
      put(
        settings,
        "client_ceiling",
        clientCeiling(ctx, path, item, "leave it out for no client ceiling"),
      );
    } else if (key === "client_ceilings") {
      clientCeilings(ctx, path, item);
    } else if (key === "token_env") {
      put(settings, "token_env", envName(ctx, path, item, "SPILLWAY_SERVE_TOKEN"));
    } else if (key === "tokens") {
      clientTokens(ctx, path, item);
    } else if (key === "allowed_origins") {
      put(settings, "allowed_origins", origins(ctx, path, item));
    } else if (key === "max_request_size") {
      put(settings, "max_request_size", maxRequestSize(ctx, path, item));
    } else if (key === "session_idle_timeout") {
      put(settings, "session_idle_timeout", idleTimeout(ctx, path, item));
    } else if (key === "max_sessions") {
      put(settings, "max_sessions", maxSessions(ctx, path, item));
    } else if (key === "input_timeout") {
      put(settings, "input_timeout", inputTimeout(ctx, path, item));
    } else if (key === "max_input_waits") {
      put(settings, "max_input_waits", maxInputWaits(ctx, path, item));
    } else if (key === "max_input_size") {
      put(settings, "max_input_size", maxInputSize(ctx, path, item));
    } else if (key === "record_input_contents") {
      put(
        settings,
        "record_input_contents",
        typeof item === "boolean"
          ? ctx.value(path, item)
          : ctx.wrongType(path, item, "true or false"),
      );
    } else if (key === "token") {
      // Do not quote the value: it is the secret.
      ctx.fail(
        path,
        `${formatKeyPath(path)} is not read: a token never goes in a config file; put it in an ` +
          `environment variable and name that variable in ${formatKeyPath(["serve", "token_env"])}`,
      );
    } else {
      ctx.unknownKey(path, SERVE_KEYS);
    }
  }
}

/**
 * `[serve.tokens.NAME]`: client NAME's token is read from the variable its
 * `env` names. The token itself is refused by name, as `serve.token` is.
 */
function clientTokens(ctx: LayerContext, path: string[], value: unknown): void {
  const example = '[serve.tokens.alice] with env = "ALICE_TOKEN"';
  if (!isTable(value)) {
    ctx.wrongType(path, value, `a table of clients, e.g. ${example}`);
    return;
  }
  const tokens = ctx.layer.serve.tokens ??= new Map();
  for (const [name, entry] of Object.entries(value)) {
    const at = [...path, name];
    if (!CLIENT_NAME.test(name)) {
      ctx.fail(
        at,
        `${formatKeyPath(at)} is not a client name: use 1–64 characters from A–Z a–z 0–9 _ - ` +
          "(it names the client in conversations, notices and folders)",
      );
      continue;
    }
    if (name === DEFAULT_CLIENT) {
      ctx.fail(
        at,
        `${formatKeyPath(at)}: "${DEFAULT_CLIENT}" is the client whose token ` +
          `${formatKeyPath(["serve", "token_env"])} names; give this client another name`,
      );
      continue;
    }
    if (!isTable(entry)) {
      ctx.wrongType(at, entry, 'a table with env = "VARIABLE", e.g. env = "ALICE_TOKEN"');
      continue;
    }
    let env: ReturnType<typeof envName>;
    let rejected = false;
    for (const [key, item] of Object.entries(entry)) {
      const keyPath = [...at, key];
      if (key === "env") {
        env = envName(ctx, keyPath, item, "ALICE_TOKEN");
        rejected ||= env === undefined;
      } else if (key === "token") {
        rejected = true;
        // Do not quote the value: it is the secret.
        ctx.fail(
          keyPath,
          `${formatKeyPath(keyPath)} is not read: a token never goes in a config file; put it ` +
            `in an environment variable and name that variable in ${formatKeyPath([...at, "env"])}`,
        );
      } else {
        rejected = true;
        ctx.unknownKey(keyPath, ["env"]);
      }
    }
    if (env !== undefined) {
      tokens.set(name, env);
    } else if (!rejected) {
      ctx.fail(
        at,
        `${formatKeyPath(at)} has no env: name the variable that holds this client's token, ` +
          'e.g. env = "ALICE_TOKEN"',
      );
    }
  }
}

/** `[serve.client_ceilings]`: client name → ceiling, each entry validated on its own. */
function clientCeilings(ctx: LayerContext, path: string[], value: unknown): void {
  if (!isTable(value)) {
    ctx.wrongType(path, value, 'a table of client names, e.g. "codex-mcp-client" = "64KB"');
    return;
  }
  const ceilings = ctx.layer.serve.client_ceilings ??= new Map();
  for (const [name, item] of Object.entries(value)) {
    const ceiling = clientCeiling(
      ctx,
      [...path, name],
      item,
      "leave it out for the ceiling spillway knows for that client, if any",
    );
    if (ceiling !== undefined) ceilings.set(name, ceiling);
  }
}

function clientCeiling(ctx: LayerContext, path: string[], value: unknown, without: string) {
  return sizeAtLeast(ctx, path, value, {
    example: '"500KB" or "1MB"',
    min: MIN_SIZE_THRESHOLD_BYTES,
    why: without,
  });
}

function maxRequestSize(ctx: LayerContext, path: string[], value: unknown) {
  return sizeAtLeast(ctx, path, value, {
    example: '"4MB" or "16MB"',
    min: MIN_MAX_REQUEST_SIZE_BYTES,
    why: "an initialize request alone is about 300 bytes, and tool arguments come on top",
  });
}

function maxInputSize(ctx: LayerContext, path: string[], value: unknown) {
  return sizeAtLeast(ctx, path, value, {
    example: '"1MB" or "256KB"',
    min: MIN_SIZE_THRESHOLD_BYTES,
    why: 'one elicitation request alone is a few hundred bytes (e.g. "1MB")',
  });
}

function idleTimeout(ctx: LayerContext, path: string[], value: unknown) {
  return durationAtLeast(ctx, path, value, {
    example: '"30m" or "2h"',
    min: MIN_SESSION_IDLE_TIMEOUT_MS,
    why: 'a client needs a moment between its requests (e.g. "30m")',
  });
}

function inputTimeout(ctx: LayerContext, path: string[], value: unknown) {
  return durationAtLeast(ctx, path, value, {
    example: '"5m" or "30s"',
    min: MIN_INPUT_TIMEOUT_MS,
    why: 'a client needs a moment to answer what a call asks (e.g. "5m")',
  });
}

function maxSessions(ctx: LayerContext, path: string[], value: unknown) {
  return wholeCount(ctx, path, value, "a whole number of sessions, at least 1, e.g. 1000");
}

function maxInputWaits(ctx: LayerContext, path: string[], value: unknown) {
  return wholeCount(ctx, path, value, "a whole number of calls, at least 1, e.g. 100");
}

/** What a bounded setting's message says: its example, its minimum, and why that minimum. */
interface Minimum {
  readonly example: string;
  readonly min: number;
  readonly why: string;
}

/** A size (`"4MB"` or a byte count) of at least `bound.min` bytes (1KB, as the messages say). */
function sizeAtLeast(ctx: LayerContext, path: string[], value: unknown, bound: Minimum) {
  const expected = `a size such as ${bound.example}, or a byte count`;
  if (typeof value !== "string" && !(typeof value === "number" && Number.isInteger(value))) {
    return ctx.wrongType(path, value, expected);
  }
  let size: ByteSize;
  try {
    size = ByteSize.parse(value);
  } catch (error) {
    return ctx.fail(path, `${assignment(path, value)}: ${(error as Error).message}`);
  }
  if (size.bytes < bound.min) {
    return ctx.fail(path, `${assignment(path, value)} is below the 1KB minimum: ${bound.why}`);
  }
  return ctx.value(path, size);
}

/** A duration (`"30m"` or seconds) of at least `bound.min` ms (1s, as the messages say). */
function durationAtLeast(ctx: LayerContext, path: string[], value: unknown, bound: Minimum) {
  const expected = `a duration such as ${bound.example}, or a number of seconds`;
  if (typeof value !== "string" && typeof value !== "number") {
    return ctx.wrongType(path, value, expected);
  }
  let duration: Duration;
  try {
    duration = Duration.parse(value);
  } catch (error) {
    return ctx.fail(path, `${assignment(path, value)}: ${(error as Error).message}`);
  }
  if (duration.ms < bound.min) {
    return ctx.fail(path, `${assignment(path, value)} is below the 1s minimum: ${bound.why}`);
  }
  return ctx.value(path, duration);
}

/** A whole number, at least 1. */
function wholeCount(ctx: LayerContext, path: string[], value: unknown, expected: string) {
  if (typeof value !== "number") return ctx.wrongType(path, value, expected);
  if (!Number.isSafeInteger(value) || value < 1) return ctx.notValid(path, value, expected);
  return ctx.value(path, value);
}

function origins(ctx: LayerContext, path: string[], value: unknown) {
  const expected = 'a list of web origins, e.g. ["https://app.example.com"]';
  if (!isStringArray(value)) return ctx.wrongType(path, value, expected);
  for (const origin of value) {
    if (!isOrigin(origin)) {
      return ctx.fail(
        path,
        `${assignment(path, value)}: \`${origin}\` is not an origin (expected ` +
          `scheme://host[:port], nothing after it, e.g. "https://app.example.com")`,
      );
    }
  }
  return ctx.value(path, value as readonly string[]);
}

/** `http(s)://host[:port]` exactly, as browsers send it in `Origin`. */
function isOrigin(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const url = new URL(text);
  return (url.protocol === "http:" || url.protocol === "https:") && url.origin === text;
}
