/**
 * `spillway inspect`: the machines that run, drawn from their definitions:
 * as Markdown with one Mermaid `stateDiagram-v2` block per machine (one
 * machine named: its diagram alone, a valid Mermaid document), or, with
 * `--format json`, as XState's resolved node trees for other visualizers.
 * For a run's live events, use `spillway query --inspect FILE`.
 *
 * @module
 */

import { SpillwayError } from "../errors/spillway_error.ts";
import { machineMermaid, machinesMarkdown, SPILLWAY_MACHINES } from "../host/machines_markdown.ts";
import type { Command } from "./command.ts";
import type { CommandIo } from "./command_io.ts";
import type { ParsedFlags } from "./_flags.ts";

const FORMATS = ["mermaid", "json"] as const;

/** `spillway inspect`. */
export const inspectCommand: Command = {
  name: "inspect",
  summary: "print the state machines as Mermaid diagrams (or JSON)",
  usage: "spillway inspect [--format mermaid|json] [turn|phase|toolCall|commit]...",
  description: `Prints each machine (all of them unless some are named) as a Mermaid
stateDiagram-v2, drawn from the machine definitions themselves: these are
the machines that run. Several machines come as Markdown, one fenced
mermaid block each (docs/machines.md is this output); one machine named
comes as its diagram alone. A machine that a state invokes is drawn inside
that state: the turn runs the phase in toolPhase, the phase runs the
commit in committing. Edge labels name the event and, in brackets, the
guard. With --format json (or --json), prints XState's resolved node trees
instead (one JSON object keyed by machine).`,
  flags: [
    {
      name: "format",
      kind: "string",
      choices: FORMATS,
      valueName: "FORMAT",
      help: "mermaid (the default) or json",
    },
    { name: "json", kind: "boolean", help: "the same as --format json" },
  ],
  positionals: "[machine...]",
  run,
};

function run(flags: ParsedFlags, io: CommandIo): Promise<number> {
  const names = Object.keys(SPILLWAY_MACHINES);
  for (const wanted of flags.positionals) {
    if (!names.includes(wanted)) {
      throw new SpillwayError(
        "usage",
        `unknown machine "${wanted}" (expected one of: ${names.join(", ")})`,
      );
    }
  }
  const format = flags.string("format") ?? (flags.boolean("json") ? "json" : "mermaid");
  if (flags.boolean("json") && format !== "json") {
    throw new SpillwayError("usage", `--json contradicts --format ${format}: give one of them`);
  }
  const chosen = flags.positionals.length === 0
    ? names
    : names.filter((name) => flags.positionals.includes(name));
  if (format === "json") {
    const tree = Object.fromEntries(
      chosen.map((name) => [name, SPILLWAY_MACHINES[name]?.toJSON()]),
    );
    io.stdout(JSON.stringify(tree, null, 2) + "\n");
  } else if (chosen.length === 1) {
    io.stdout(machineMermaid(chosen[0] as string));
  } else {
    io.stdout(machinesMarkdown(chosen));
  }
  return Promise.resolve(0);
}
