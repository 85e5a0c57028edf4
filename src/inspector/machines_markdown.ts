/**
 * The machines that run, drawn for people: each as a Mermaid diagram (an
 * invoked machine drawn inside the state that runs it), and all of them as
 * one Markdown page with a fenced block each. `spillway inspect` prints it,
 * `docs/machines.md` is it, and the inspector page draws the same diagrams.
 *
 * @module
 */

import type { AnyStateMachine } from "xstate";
import { sessionMachine } from "../gateway/session_machine.ts";
import { commitMachine } from "../machines/commit_machine.ts";
import { phaseMachine } from "../machines/phase_machine.ts";
import { toolCallMachine } from "../machines/tool_call_machine.ts";
import { turnMachine } from "../machines/turn_machine.ts";
import { parkedCallMachine } from "../service/parked_call_machine.ts";
import { upstreamConnectionMachine } from "../service/upstream/upstream_connection_machine.ts";
import { machineToMermaid } from "./machine_diagram.ts";

/**
 * The machines that run, exactly these, each from its one definition: a
 * turn's, outermost first; `spillway serve`'s session, which runs phases
 * too; the parked call inside the execution service; then the connection
 * to each upstream server.
 */
export const SPILLWAY_MACHINES: Readonly<Record<string, AnyStateMachine>> = {
  turn: turnMachine,
  phase: phaseMachine,
  toolCall: toolCallMachine,
  commit: commitMachine,
  session: sessionMachine,
  parkedCall: parkedCallMachine,
  upstreamConnection: upstreamConnectionMachine,
};

/**
 * The Mermaid `stateDiagram-v2` of one of {@linkcode SPILLWAY_MACHINES},
 * invoked machines drawn inside the states that run them.
 *
 * @param direction `TB` (the default) or `LR`, which way the top level flows
 */
export function machineMermaid(name: string, direction?: "TB" | "LR"): string {
  const machine = SPILLWAY_MACHINES[name];
  if (machine === undefined) throw new RangeError(`no machine named "${name}"`);
  return machineToMermaid(machine, {
    nested: true,
    ...(direction === undefined ? {} : { direction }),
  });
}

// Wrapped as `deno fmt` wraps Markdown prose (100 columns): docs/machines.md is this text.
const PREFACE = `# The machines

Drawn by \`spillway inspect\` from the machine definitions (\`src/machines/\`,
\`src/gateway/session_machine.ts\`, \`src/service/parked_call_machine.ts\`, and the upstream
connection's in \`src/service/upstream/\`): these are the machines that run, and their state names are
the ones \`--inspect FILE\` and the inspector page show. A machine that a state invokes is drawn
inside that state: the turn runs the phase in \`toolPhase\`, the phase runs the commit in
\`committing\`, and a \`spillway serve\` session runs the phase in \`committing\` too. The phase spawns
one \`toolCall\` actor for each call a person is asked about (its entry action \`spawnToolCalls\`);
every other call takes the same route without an actor of its own. Inside the execution service each
call follows the \`parkedCall\` chart, with no actor either: the service steps a plain value through
it. Each upstream server (\`providers.mcp.<name>\`) has an \`upstreamConnection\` actor of its own. An
edge names its event (\`done\` and \`error\`: what the state invoked settled; \`always\`: no event, taken
as soon as its guard holds; \`after\`: a delay passed) and, in brackets, its guard.
`;

/**
 * `names` (all machines by default) as one Markdown page: a preface, then a
 * heading and a fenced `mermaid` block per machine.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { machinesMarkdown } from "./machines_markdown.ts";
 * const page = machinesMarkdown(["commit", "phase"]);
 * const fence = "\u0060".repeat(3);
 * assert.equal(page.split("\n").filter((line) => line === fence + "mermaid").length, 2);
 * assert.ok(page.indexOf("## `commit`") < page.indexOf("## `phase`"));
 * ```
 */
export function machinesMarkdown(
  names: readonly string[] = Object.keys(SPILLWAY_MACHINES),
): string {
  const sections = names.map((name) =>
    `## \`${name}\`\n\n\`\`\`mermaid\n${machineMermaid(name)}\`\`\`\n`
  );
  return [PREFACE, ...sections].join("\n");
}
