/**
 * The limit `spillway serve` enforces on one tool's results in one session,
 * and why: the lower of the tool's `size_threshold` and the session's
 * client ceiling (the client's own limit, or `--client-ceiling`), and never
 * more than the 2 MiB batch ceiling, which bounds every single response
 * too. Tools are listed to the session's client with this limit as their
 * result-size hint, and the phase end caps with it.
 *
 * @module
 */

import { MAX_TOOL_RESPONSE_BATCH_BYTES } from "../review/max_tool_response_batch_bytes.ts";
import { SizeThreshold } from "../size/size_threshold.ts";
import type { SessionCeiling } from "./session_ceiling.ts";

/**
 * The `_meta` key of a listed tool that tells a client the largest result it
 * will get from that tool, in characters. Clients that move large results
 * into files (instead of handing them to the model) read it to raise their
 * own limit, so what spillway delivered is not cut or moved a second time.
 */
export const MAX_RESULT_SIZE_META_KEY = "anthropic/maxResultSizeChars";

/** The limit in force for one tool, and which setting decided it. */
export interface ResultLimit {
  /** The largest result, in UTF-8 bytes, marker included. */
  readonly bytes: number;
  /** The setting that decided it; notices of cuts at this limit name it. */
  readonly cause: "size_threshold" | "client ceiling" | "batch ceiling";
  /** The threshold the phase end caps with (the client ceiling when it is lower). */
  readonly threshold: SizeThreshold;
  /** The client whose own limit the client ceiling is (absent: `--client-ceiling`'s, or none). */
  readonly client?: string;
}

/**
 * The limit of a tool whose `size_threshold` is `threshold`, under a
 * session's client ceiling (if any). A ceiling equal to the threshold leaves the
 * threshold in charge; `"unlimited"` without a ceiling leaves the batch
 * ceiling.
 *
 * A result's length in UTF-16 code units (what JavaScript clients count as
 * characters) never exceeds its length in UTF-8 bytes, so the byte limit is
 * also a safe character limit for {@linkcode MAX_RESULT_SIZE_META_KEY}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resultLimit } from "./result_limit.ts";
 * import { SizeThreshold } from "../size/size_threshold.ts";
 * const limit = resultLimit(SizeThreshold.parse("256KB"), { bytes: 11_900, client: "codex" });
 * assert.deepEqual([limit.bytes, limit.cause, limit.client], [11_900, "client ceiling", "codex"]);
 * assert.equal(resultLimit(SizeThreshold.UNLIMITED, undefined).bytes, 2_097_152);
 * ```
 */
export function resultLimit(
  threshold: SizeThreshold,
  clientCeiling: SessionCeiling | undefined,
): ResultLimit {
  const own = threshold.bytes?.bytes;
  const ceiling = clientCeiling?.bytes;
  if (
    ceiling !== undefined && ceiling < (own ?? Infinity) && ceiling < MAX_TOOL_RESPONSE_BATCH_BYTES
  ) {
    const client = clientCeiling?.client;
    return {
      bytes: ceiling,
      cause: "client ceiling",
      threshold: SizeThreshold.parse(ceiling),
      ...(client === undefined ? {} : { client }),
    };
  }
  if (own !== undefined && own <= MAX_TOOL_RESPONSE_BATCH_BYTES) {
    return { bytes: own, cause: "size_threshold", threshold };
  }
  return { bytes: MAX_TOOL_RESPONSE_BATCH_BYTES, cause: "batch ceiling", threshold };
}
