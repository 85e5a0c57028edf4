/**
 * The options of an `ExecutionService`: its tool sources and renames, and
 * the Host's decisions it acts on (each call's barrier, which tools spill,
 * how large outputs are held, where payloads are kept).
 *
 * @module
 */

import type { BlobStore } from "../blobs/blob_store.ts";
import type { OutputOptions, SpillOptions } from "./call_pipeline.ts";
import type { BarrierKind } from "./executor.ts";
import type { ToolRoute } from "./tool_routes.ts";
import type { ToolSource } from "./tool_source.ts";

/** Options of `ExecutionService`. */
export interface ExecutionServiceOptions {
  /** The tool sources; their names must be unique. */
  readonly sources: readonly ToolSource[];
  /**
   * Exported name → source tool, for renames. Tools without an entry are
   * exported under their own name; a renamed tool only under its new name.
   * Default: no renames.
   */
  readonly toolNames?: Readonly<Record<string, ToolRoute>>;
  /** Which barrier a call of this (exported) tool parks on. The Host decides. */
  readonly barrierFor: (tool: string) => BarrierKind;
  /**
   * Where the whole output of spilling tools goes (`spill = true`), and
   * which tools spill. The output is stored durably before the call parks.
   * Default: no tool spills.
   */
  readonly spill?: SpillOptions;
  /**
   * Lets sources that stream their output (local tools, `fs_read_file`)
   * hold only a window of a large one and write the whole of it to a file
   * (the blob under `spill`). Default: outputs are held whole.
   */
  readonly output?: OutputOptions;
  /**
   * Where the payloads of non-text blocks (images, audio, embedded
   * resources) are kept, each under the digest the stream records for it,
   * durably before the call parks. Default: not kept.
   */
  readonly payloads?: BlobStore;
  /** Time source for `startedAt`/`parkedAt`. Default: `Date`. */
  readonly clock?: { now(): number };
  /** The MCP server identity. Default: `{ name: "spillway", version: "0.1.0" }`. */
  readonly serverInfo?: { readonly name: string; readonly version: string };
}
