/**
 * Tool policies as the machines need them, read from the configuration once
 * per tool, and the start-up check that no tool needs a person when nobody
 * can be asked. `createRuntime` and `spillway serve` share both.
 *
 * @module
 */

import type { SpillwayConfig } from "../config/spillway_config.ts";
import { SpillwayError } from "../errors/spillway_error.ts";
import { asksPerson } from "../machines/triage_calls.ts";
import type { PolicyFor, ToolPolicy } from "../machines/turn_dependencies.ts";

/**
 * The policy lookup of `config`. Policies are read once per tool name: a
 * 1,000-call batch asks 1,000 times.
 *
 * @param config the configuration
 * @param adjust rewrites each policy once as it is read (the gateway applies its client ceiling). Default: none.
 */
export function cachedPolicies(
  config: SpillwayConfig,
  adjust?: (tool: string, policy: ToolPolicy) => ToolPolicy,
): PolicyFor {
  const cache = new Map<string, ToolPolicy>();
  return (name) => {
    let policy = cache.get(name);
    if (policy === undefined) {
      const tool = config.tool(name);
      policy = {
        run: tool.run(),
        result: tool.result(),
        sizeThreshold: tool.sizeThreshold(),
        truncation: tool.truncation(),
        cancellationResponse: tool.cancellationResponse(),
        cancellationResponseIsDefault: tool.origin("cancellation_response") === "default",
      };
      if (adjust !== undefined) policy = adjust(name, policy);
      cache.set(name, policy);
    }
    return policy;
  };
}

/**
 * Refuses to start when one of `tools` needs a person and no terminal is
 * attached: such a call would wait for an answer that cannot come.
 *
 * @throws {SpillwayError} `terminal_required`, naming the config entry the
 *   value came from and the `--cfg` that turns it off
 */
export function refuseToolsNeedingPerson(
  tools: readonly string[],
  config: SpillwayConfig,
  policyFor: PolicyFor,
): void {
  const interactive = tools.find((tool) => asksPerson(policyFor(tool)));
  if (interactive === undefined) return;
  const policy = policyFor(interactive);
  const key = asksPerson({ ...policy, run: "unattended" }) ? "result" : "run";
  // Name the entry the value came from: the tool's own, or the '*' defaults.
  const entry = config.tool(interactive).hasOwn(key) ? interactive : "'*'";
  const usedBy = entry === interactive ? "" : ` (used by ${interactive})`;
  throw new SpillwayError(
    "terminal_required",
    `conversation.tools.${entry}.${key} = "${policy[key]}"${usedBy} needs a person to ask, ` +
      `and no terminal is attached: run in a terminal, or set ${key} = "unattended" ` +
      `(e.g. --cfg conversation.tools.${entry}.${key}=unattended)`,
    { tool: interactive, key },
  );
}
