/**
 * A notice sink double that keeps every notice: the facts, and the lines a
 * terminal would print for them.
 *
 * @module
 */

import type { NoticeSink } from "../machines/turn_dependencies.ts";
import { formatNotice, type NoticeFact } from "../review/notice.ts";

/**
 * Collects notices instead of printing them.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CollectingNoticeSink } from "./collecting_notice_sink.ts";
 * const sink = new CollectingNoticeSink();
 * sink.notice({ tool: "t", callId: "c1", originalBytes: 3_000_000, capBytes: 262_144, cause: "size_threshold" });
 * assert.deepEqual(sink.lines, ["t: sent 256.0 KB of 2.8 MB to the assistant (size_threshold)"]);
 * ```
 */
export class CollectingNoticeSink implements NoticeSink {
  /** The facts, in the order they were reported. */
  readonly facts: NoticeFact[] = [];
  /** The printed form of each fact (`formatNotice`). */
  readonly lines: string[] = [];

  /** Keeps `fact` and its line. */
  notice(fact: NoticeFact): void {
    this.facts.push(fact);
    this.lines.push(formatNotice(fact));
  }
}
