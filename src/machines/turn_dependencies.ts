/**
 * The small interfaces the machines get injected through `input`: a tool's
 * policy, the lookup that yields it, the sink that prints notices, and the
 * clock. The runtime wires them to the config and the terminal; tests pass
 * in-memory ones. Nothing here reads a global.
 *
 * @module
 */

import type { ResultMode, RunMode } from "../config/tool_vocabulary.ts";
import type { NoticeFact } from "../review/notice.ts";
import type { OutputSchema } from "../review/output_schema.ts";
import type { SizeThreshold } from "../size/size_threshold.ts";
import type { Truncation } from "../size/truncation.ts";

/** A tool's resolved policy: what the machines need from its config. */
export interface ToolPolicy {
  /** What happens with a result: pass it on, ask, open an editor, or withhold it. */
  readonly result: ResultMode;
  /** Whether the call runs: unattended, after asking, after editing its arguments, or never. */
  readonly run: RunMode;
  /** The per-tool cap applied at phase end. */
  readonly sizeThreshold: SizeThreshold;
  /** Which end(s) both caps keep when they cut this tool's responses; the head when absent. */
  readonly truncation?: Truncation;
  /**
   * Which setting `sizeThreshold` stands for; notices of its cuts name it.
   * `spillway serve` sets `"client ceiling"` when that is lower than the
   * tool's own threshold. Default: `"size_threshold"`.
   */
  readonly thresholdCause?: "size_threshold" | "client ceiling";
  /**
   * With `thresholdCause` `"client ceiling"`: the client whose own limit it
   * is, named by the notices (`client ceiling: codex`). Default: none (the
   * ceiling is `--client-ceiling`'s).
   */
  readonly thresholdClient?: string;
  /**
   * The output schema the tool's results must conform to: `spillway serve`
   * sets it for a tool it lists with one. A cut then keeps a cut
   * `structuredContent` only when the schema accepts it, and a response
   * without one (edited, or with no valid cut) is recorded and delivered as
   * an error result. Default: none.
   */
  readonly outputSchema?: OutputSchema;
  /** Recorded (as an error response) when the user cancels the call. */
  readonly cancellationResponse: string;
  /**
   * Whether `cancellationResponse` is the built-in default, no layer of the
   * config having set it. A cancellation that says who cancelled (a gateway
   * client, its disconnection, the gateway's shutdown) is then recorded in
   * its own words; a configured `cancellation_response` always wins.
   * Default: `false`.
   */
  readonly cancellationResponseIsDefault?: boolean;
}

/** Resolves a tool's policy (the runtime wires `config.tool(name)` into it). */
export type PolicyFor = (tool: string) => ToolPolicy;

/** Where notices go: the host prints `formatNotice(fact)` to stderr. */
export interface NoticeSink {
  /** Called once per cut response, in the order the cuts were decided. */
  notice(fact: NoticeFact): void;
}

/** The time source of event timestamps. */
export interface Clock {
  /** The current time. */
  now(): Date;
}
