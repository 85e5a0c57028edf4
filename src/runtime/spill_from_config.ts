/**
 * What `spill = true` needs at run time: the workspace's blob store, which
 * tools spill, and the `read_tool_output` builtin that reads the blobs back.
 * Nothing of it exists when no tool spills.
 *
 * @module
 */

import { join } from "node:path";
import { BlobOwners } from "../blobs/blob_owners.ts";
import type { BlobStore } from "../blobs/blob_store.ts";
import type { SpillwayConfig } from "../config/spillway_config.ts";
import type { BuiltinTool } from "../service/builtin/builtin_tool.ts";
import { READ_TOOL_OUTPUT, readToolOutput } from "../service/builtin/read_tool_output.ts";
import type { SpillOptions } from "../service/execution_service.ts";

/** The blob directory of a workspace. */
export function blobDirectory(workspace: string): string {
  return join(workspace, "blobs");
}

/** The spill wiring of one runtime. */
export interface SpillSetup {
  /** For the execution service. */
  readonly spill: SpillOptions;
  /** `read_tool_output`, to register beside the other builtin tools. */
  readonly tools: readonly BuiltinTool[];
}

/**
 * The spill wiring for `config` over `store` (the workspace's blobs, or the
 * database's), or `undefined` when no tool (and not `'*'`) sets `spill =
 * true`. `read_tool_output` itself never spills: its pages are slices of a
 * blob already.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FileBlobStore } from "../blobs/file_blob_store.ts";
 * import { parseConfig } from "../config/parse_config.ts";
 * import { spillFromConfig } from "./spill_from_config.ts";
 * const store = new FileBlobStore("ws/blobs");
 * assert.equal(spillFromConfig(parseConfig(""), store), undefined);
 * const setup = spillFromConfig(parseConfig("[conversation.tools.logs]\nspill = true"), store);
 * assert.ok(setup?.spill.spills("logs"));
 * assert.ok(!setup?.spill.spills("fs_read_file"));
 * assert.deepEqual(setup?.tools.map((tool) => tool.name), ["read_tool_output"]);
 * ```
 */
export function spillFromConfig(config: SpillwayConfig, store: BlobStore): SpillSetup | undefined {
  const anySpills = config.tool("*").spill() ||
    config.toolNames().some((name) => config.tool(name).spill());
  if (!anySpills) return undefined;
  const spills = (tool: string) => tool !== READ_TOOL_OUTPUT && config.tool(tool).spill();
  // Calls for a principal (a serve client) record whose output it is; read_tool_output checks.
  const owners = new BlobOwners(store);
  return { spill: { store, owners, spills }, tools: [readToolOutput(store, owners)] };
}
