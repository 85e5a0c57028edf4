/**
 * `spillway inspect`: every machine of a turn as a Mermaid
 * `stateDiagram-v2` (paste into any Mermaid viewer) or, with `--json`, as
 * XState's resolved node tree for other visualizers. For a run's live
 * events, use `spillway query --inspect FILE`.
 *
 * @module
 */

import type { AnyStateMachine } from "xstate";
import { SpillwayError } from "../errors/spillway_error.ts";
import { machineToMermaid } from "../host/machine_diagram.ts";
import { commitMachine } from "../machines/commit_machine.ts";
import { phaseMachine } from "../machines/phase_machine.ts";
import { toolCallMachine } from "../machines/tool_call_machine.ts";
import { turnMachine } from "../machines/turn_machine.ts";
import type { Command } from "./command.ts";
import type { CommandIo } from "./command_io.ts";
import type { ParsedFlags } from "./_flags.ts";

/** The machines that run, outermost first: exactly these, each from its one definition. */
const MACHINES: readonly (readonly [string, AnyStateMachine])[] = [
  ["turn", turnMachine],
  ["phase", phaseMachine],
  ["toolCall", toolCallMachine],
  ["commit", commitMachine],
];

/** `spillway inspect`. */
export const inspectCommand: Command = {
  name: "inspect",
  summary: "print the state machines as Mermaid diagrams (or JSON)",
  usage: "spillway inspect [--json] [turn|phase|toolCall|commit]...",
  description: `Prints each machine (all of them unless some are named) as a Mermaid
stateDiagram-v2, drawn from the machine definitions themselves: these are
the machines that run. Transition labels name the event and, in brackets,
the guard. A toolCall actor runs for each call a person is asked about
(ask or edit); the phase drives the other calls along the same route
itself. With --json, prints XState's resolved node tree instead (one JSON
object keyed by machine).`,
  flags: [{ name: "json", kind: "boolean", help: "print JSON instead of Mermaid" }],
  positionals: "[machine...]",
  run,
};

function run(flags: ParsedFlags, io: CommandIo): Promise<number> {
  const names = MACHINES.map(([name]) => name);
  for (const wanted of flags.positionals) {
    if (!names.includes(wanted)) {
      throw new SpillwayError(
        "usage",
        `unknown machine "${wanted}" (expected one of: ${names.join(", ")})`,
      );
    }
  }
  const chosen = flags.positionals.length === 0
    ? MACHINES
    : MACHINES.filter(([name]) => flags.positionals.includes(name));
  if (flags.boolean("json")) {
    const tree = Object.fromEntries(chosen.map(([name, machine]) => [name, machine.toJSON()]));
    io.stdout(JSON.stringify(tree, null, 2) + "\n");
  } else {
    io.stdout(
      chosen.map(([name, machine]) => `%% ${name}\n${machineToMermaid(machine)}`).join("\n"),
    );
  }
  return Promise.resolve(0);
}
