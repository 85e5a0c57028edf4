/**
 * How much of a large output the execution service holds, as the Host sees
 * it: each end up to the most a cap could deliver, the larger of the tool's
 * `size_threshold` (an unlimited one counts as nothing) and the batch
 * ceiling. Outputs that do not spill are spooled under the workspace until
 * their call is released.
 *
 * @module
 */

import { join } from "node:path";
import type { PolicyFor } from "../machines/turn_dependencies.ts";
import { MAX_TOOL_RESPONSE_BATCH_BYTES } from "../review/max_tool_response_batch_bytes.ts";
import type { OutputOptions } from "../service/execution_service.ts";

/** The spool directory of a workspace. */
export function spoolDirectory(workspace: string): string {
  return join(workspace, "spool");
}

/**
 * The output options of a runtime in `workspace` with the policies of `policyFor`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SizeThreshold } from "../size/size_threshold.ts";
 * import { outputOptions } from "./output_options.ts";
 * const options = outputOptions("ws", (tool) => ({
 *   run: "unattended",
 *   result: "unattended",
 *   cancellationResponse: "",
 *   sizeThreshold: SizeThreshold.parse(tool === "big" ? "8MB" : "256KB"),
 * }));
 * assert.equal(options.windowBytes("small"), 2 * 1024 * 1024);
 * assert.equal(options.windowBytes("big"), 8 * 1024 * 1024);
 * ```
 */
export function outputOptions(workspace: string, policyFor: PolicyFor): OutputOptions {
  return {
    windowBytes: (tool) =>
      Math.max(policyFor(tool).sizeThreshold.bytes?.bytes ?? 0, MAX_TOOL_RESPONSE_BATCH_BYTES),
    spoolDir: spoolDirectory(workspace),
  };
}
