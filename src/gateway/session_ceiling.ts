/**
 * The client ceiling of one `spillway serve` session: what the client (by
 * the name it announced in `initialize`) passes to its model untouched,
 * and the `--client-ceiling` that caps every session, whichever is lower.
 * Agent CLIs cut long tool results a second time, or move them into a
 * file, after spillway recorded them; capped below the client's own limit,
 * the result the model reads is the one spillway recorded. Pure: the
 * gateway reads it for each session's policies and listed tools.
 *
 * The known limits were measured with each CLI (docs/clients.md says how):
 *
 * - Claude Code (`claude-code`) shows a result whole up to the
 *   `_meta["anthropic/maxResultSizeChars"]` hint spillway lists with each
 *   tool, but never above 500,000 characters (larger ones become a 2 KB
 *   preview of a file). A UTF-8 byte limit is also a character limit, so
 *   500,000 bytes.
 * - Codex (`codex-mcp-client`) cuts the middle out of a result past its
 *   model's default `tool_output_token_limit`, counted from bytes, its own
 *   `Wall time: … seconds\nOutput:` line included: 11,964 bytes pass whole
 *   with a model it has no metadata for (any model of one's own server),
 *   47,964 with its default model. The lower, less a margin for a longer
 *   wall time: 11,900 bytes.
 * - Gemini CLI (`gemini-cli-mcp-client`) cuts the middle out of a result
 *   whose `<untrusted_context>` wrapper makes it longer than its default
 *   `truncateToolOutputThreshold`, 40,000 characters: 39,959 pass whole.
 *   Less a margin: 39,900 bytes (a byte limit is a character limit too).
 *
 * @module
 */

import type { ByteSize } from "../size/byte_size.ts";

/** A client spillway knows the limit of. */
export interface KnownClient {
  /** What it announces as `clientInfo.name`. */
  readonly name: string;
  /** What notices call it: `(client ceiling: codex)`. */
  readonly label: string;
  /** What people call it. */
  readonly product: string;
  /** The largest result, in UTF-8 bytes, marker included, it passes to its model untouched. */
  readonly bytes: number;
}

/** The agent CLIs whose limits were measured (versions in docs/clients.md). */
export const KNOWN_CLIENTS: readonly KnownClient[] = [
  { name: "claude-code", label: "claude-code", product: "Claude Code", bytes: 500_000 },
  { name: "codex-mcp-client", label: "codex", product: "Codex", bytes: 11_900 },
  { name: "gemini-cli-mcp-client", label: "gemini-cli", product: "Gemini CLI", bytes: 39_900 },
];

/** The ceiling in force in one session. */
export interface SessionCeiling {
  /** No result is larger, in UTF-8 bytes, marker included. */
  readonly bytes: number;
  /** The client whose own limit it is; absent when it is `--client-ceiling`'s. */
  readonly client?: string;
}

/** Options of {@linkcode sessionCeiling}. */
export interface SessionCeilingOptions {
  /** `[serve.client_ceilings]`: by announced name, over the known clients. Default: none. */
  readonly configured?: ReadonlyMap<string, ByteSize>;
  /** `--client-ceiling` (or `serve.client_ceiling`): caps every session. Default: none. */
  readonly flag?: ByteSize | undefined;
}

const KNOWN = new Map(KNOWN_CLIENTS.map((client) => [client.name, client]));

/**
 * The ceiling of a session whose client announced itself as `name`
 * (`undefined`: it did not say): the lower of the client's own limit (the
 * configured one, else the known one) and the flag; the flag's when they
 * are equal. `undefined` when neither applies.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sessionCeiling } from "./session_ceiling.ts";
 * import { ByteSize } from "../size/byte_size.ts";
 * assert.deepEqual(sessionCeiling("claude-code"), { bytes: 500_000, client: "claude-code" });
 * assert.deepEqual(sessionCeiling("claude-code", { flag: ByteSize.parse("40KB") }), { bytes: 40_960 });
 * assert.equal(sessionCeiling("my-agent"), undefined);
 * const configured = new Map([["my-agent", ByteSize.parse("64KB")]]);
 * assert.deepEqual(sessionCeiling("my-agent", { configured }), { bytes: 65_536, client: "my-agent" });
 * ```
 */
export function sessionCeiling(
  name: string | undefined,
  options: SessionCeilingOptions = {},
): SessionCeiling | undefined {
  const flag = options.flag?.bytes;
  const known = name === undefined ? undefined : KNOWN.get(name);
  const own = name === undefined ? undefined : options.configured?.get(name)?.bytes ?? known?.bytes;
  if (own !== undefined && (flag === undefined || own < flag)) {
    return { bytes: own, client: known?.label ?? (name as string) };
  }
  return flag === undefined ? undefined : { bytes: flag };
}
