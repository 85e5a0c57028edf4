/**
 * The notice: the one stderr line printed when a cap changed a response.
 * It is the only sign that the assistant got less than the terminal showed.
 *
 * @module
 */

import { ByteSize } from "../size/byte_size.ts";
import { describeJsonFallback, type JsonFallback } from "../size/json_fallback.ts";
import { describeDropped, type DroppedContent } from "./dropped_content.ts";

/** Which cap fired. */
export type NoticeCause = "size_threshold" | "batch ceiling" | "client ceiling";

/** The facts of one cut: enough to print the notice and log it. */
export interface NoticeFact {
  /** The tool whose response was cut. */
  readonly tool: string;
  /** The call id of the cut response. */
  readonly callId: string;
  /** UTF-8 bytes of the response before any cut. */
  readonly originalBytes: number;
  /** The limit the text was cut to (marker included). */
  readonly capBytes: number;
  /** Which cap fired. */
  readonly cause: NoticeCause;
  /**
   * Whose client ceiling it was, when the cause is `client ceiling` and the
   * ceiling is a client's own limit (`spillway serve` knows the client
   * from its `initialize`). Absent: `--client-ceiling`'s.
   */
  readonly client?: string;
  /**
   * The `spillway serve` client (the name of its token) whose assistant was
   * sent the cut, when the gateway has clients of their own tokens.
   */
  readonly principal?: string;
  /**
   * Present when the tool's truncation is `json` or `auto` and the text was
   * cut as `head` instead: why.
   */
  readonly fallback?: JsonFallback;
  /**
   * Present when the cut also cut the result's structured content (apart
   * from its text, which it does not mirror) and kept it: its sizes, as
   * `originalBytes` and `capBytes` are the text's.
   */
  readonly structured?: { readonly originalBytes: number; readonly capBytes: number };
  /** The non-text content the cut dropped (a cut result is its text alone), if it had any. */
  readonly dropped?: DroppedContent;
}

/**
 * Formats a notice line (no trailing newline):
 * `{tool}: sent {cap} of {original} to the assistant ({cause})`, with ` of
 * client {principal}` after "assistant" when the fact names one, the cause
 * followed by `: {client}` when it is a client's own ceiling, the line by
 * `; {why}` when a json cut fell back to the head (`not one JSON value: cut
 * as head`), by `; structured content cut to {cap} of {original}` when it
 * also cut the result's structured content, then by `; dropped {what}` when
 * the cut also dropped non-text content.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatNotice } from "./notice.ts";
 * assert.equal(
 *   formatNotice({ tool: "fs_list_files", callId: "c1", originalBytes: 3250586, capBytes: 262144, cause: "size_threshold" }),
 *   "fs_list_files: sent 256.0 KB of 3.1 MB to the assistant (size_threshold)",
 * );
 * assert.equal(
 *   formatNotice({
 *     tool: "screenshot",
 *     callId: "c2",
 *     originalBytes: 2_000_000,
 *     capBytes: 1_048_576,
 *     cause: "batch ceiling",
 *     dropped: { blocks: { image: 1 }, structuredContent: false },
 *   }),
 *   "screenshot: sent 1.0 MB of 1.9 MB to the assistant (batch ceiling); dropped 1 image",
 * );
 * assert.equal(
 *   formatNotice({
 *     tool: "big_log",
 *     callId: "c3",
 *     originalBytes: 5_000_000,
 *     capBytes: 11_900,
 *     cause: "client ceiling",
 *     client: "codex",
 *   }),
 *   "big_log: sent 11.6 KB of 4.7 MB to the assistant (client ceiling: codex)",
 * );
 * assert.equal(
 *   formatNotice({
 *     tool: "logs",
 *     callId: "c3",
 *     originalBytes: 3250586,
 *     capBytes: 262144,
 *     cause: "size_threshold",
 *     fallback: "not_json",
 *   }),
 *   "logs: sent 256.0 KB of 3.1 MB to the assistant (size_threshold); not one JSON value: cut as head",
 * );
 * assert.equal(
 *   formatNotice({
 *     tool: "logs",
 *     callId: "c4",
 *     originalBytes: 3250586,
 *     capBytes: 262144,
 *     cause: "size_threshold",
 *     principal: "alice",
 *   }),
 *   "logs: sent 256.0 KB of 3.1 MB to the assistant of client alice (size_threshold)",
 * );
 * assert.equal(
 *   formatNotice({
 *     tool: "read_text_file",
 *     callId: "c4",
 *     originalBytes: 4_194_304,
 *     capBytes: 262144,
 *     cause: "size_threshold",
 *     structured: { originalBytes: 4_194_318, capBytes: 262144 },
 *   }),
 *   "read_text_file: sent 256.0 KB of 4.0 MB to the assistant (size_threshold); " +
 *     "structured content cut to 256.0 KB of 4.0 MB",
 * );
 * ```
 */
export function formatNotice(fact: NoticeFact): string {
  const cap = ByteSize.fromBytes(fact.capBytes).human();
  const original = ByteSize.fromBytes(fact.originalBytes).human();
  const fallback = fact.fallback === undefined ? "" : `; ${describeJsonFallback(fact.fallback)}`;
  const structured = fact.structured === undefined
    ? ""
    : `; structured content cut to ${ByteSize.fromBytes(fact.structured.capBytes).human()} of ${
      ByteSize.fromBytes(fact.structured.originalBytes).human()
    }`;
  const dropped = fact.dropped === undefined ? "" : `; dropped ${describeDropped(fact.dropped)}`;
  const cause = fact.client === undefined ? fact.cause : `${fact.cause}: ${fact.client}`;
  const whose = fact.principal === undefined ? "" : ` of client ${fact.principal}`;
  return `${fact.tool}: sent ${cap} of ${original} to the assistant${whose} (${cause})` +
    `${fallback}${structured}${dropped}`;
}
