/**
 * `spillway inspect`: the machines that run, drawn from their definitions:
 * as Markdown with one Mermaid `stateDiagram-v2` block per machine (one
 * machine named: its diagram alone, a valid Mermaid document), with
 * `--format json` as XState's resolved node trees, with `--format xstate`
 * as `createMachine` configs for Stately's tools. With `--serve`, a page on
 * loopback that draws them and replays (and follows) an inspection file
 * written by `--inspect FILE`; with `--replay FILE --to URL`, that file sent
 * to a WebSocket as Stately's inspection protocol.
 *
 * @module
 */

import { resolve } from "node:path";
import { SpillwayError } from "../errors/spillway_error.ts";
import { inspectSocketUrl } from "../inspector/inspection_socket.ts";
import { DEFAULT_INSPECTOR_PORT, serveInspector } from "../inspector/inspector_server.ts";
import { machineConfigs } from "../inspector/machine_configs.ts";
import { sendRecording } from "../inspector/send_recording.ts";
import { reasonText } from "../errors/reason_text.ts";
import {
  machineMermaid,
  machinesMarkdown,
  SPILLWAY_MACHINES,
} from "../inspector/machines_markdown.ts";
import { sanitizeForTerminal } from "../terminal/sanitize.ts";
import { StopSignals } from "../terminal/stop_signals.ts";
import type { Command } from "./command.ts";
import type { CommandIo } from "./command_io.ts";
import type { ParsedFlags } from "./_flags.ts";

const FORMATS = ["mermaid", "json", "xstate"] as const;

/** `spillway inspect`. */
export const inspectCommand: Command = {
  name: "inspect",
  summary: "print the state machines as Mermaid diagrams (or JSON, or XState configs)",
  usage:
    `spillway inspect [--format mermaid|json|xstate] [${
      Object.keys(SPILLWAY_MACHINES).join("|")
    }]...\n` +
    "       spillway inspect --serve [--port N] [FILE]\n" +
    "       spillway inspect --replay FILE --to ws://HOST:PORT/",
  description: `Prints each machine (all of them unless some are named) as a Mermaid
stateDiagram-v2, drawn from the machine definitions themselves: these are
the machines that run. Several machines come as Markdown, one fenced
mermaid block each (docs/machines.md is this output); one machine named
comes as its diagram alone. A machine that a state invokes is drawn inside
that state: the turn runs the phase in toolPhase, the phase runs the
commit in committing, a spillway serve session runs the phase in
committing. upstreamConnection is the life of the connection to each
upstream MCP server. Edge labels name the event and, in brackets, the
guard. With --format json (or --json), prints XState's resolved node trees
instead (one JSON object keyed by machine). With --format xstate, prints
each machine's createMachine config (states, transitions, after delays,
guards, actions and actors by name), one JSON object keyed by machine:
what Stately Studio imports.

With --serve, serves a page on 127.0.0.1 (port ${DEFAULT_INSPECTOR_PORT} unless --port says
otherwise; 0 picks a free one) that draws the machines and replays FILE, an
inspection file written by spillway query --inspect FILE, step by step:
the current states lit, each call's state, its size before and after each
cap, the batch budget spent and the notices. While a query still writes
FILE, the page follows it. Everything is served from here (no network
needed). Ctrl-C stops it.

With --replay FILE --to URL, sends FILE (written by --inspect FILE) to the
WebSocket at URL as Stately's inspection protocol, the messages
--inspect-ws URL sends while a run goes; arguments and results are their
sizes and digests.`,
  flags: [
    {
      name: "format",
      kind: "string",
      choices: FORMATS,
      valueName: "FORMAT",
      help: "mermaid (the default), json or xstate",
    },
    { name: "json", kind: "boolean", help: "the same as --format json" },
    { name: "serve", kind: "boolean", help: "serve the inspector page (replaying FILE)" },
    {
      name: "replay",
      kind: "string",
      valueName: "FILE",
      help: "send an inspection file to --to URL as Stately's inspection protocol",
    },
    { name: "to", kind: "string", valueName: "URL", help: "the WebSocket --replay sends to" },
    {
      name: "port",
      kind: "string",
      valueName: "N",
      help:
        `the inspector's port on 127.0.0.1 (default ${DEFAULT_INSPECTOR_PORT}; 0: any free one)`,
    },
  ],
  positionals: "[machine-or-FILE...]",
  run,
};

function run(flags: ParsedFlags, io: CommandIo): Promise<number> {
  if (flags.string("replay") !== undefined || flags.string("to") !== undefined) {
    return replay(flags, io);
  }
  if (flags.boolean("serve")) return serve(flags, io);
  if (flags.string("port") !== undefined) {
    throw new SpillwayError("usage", "--port goes with --serve");
  }
  const names = Object.keys(SPILLWAY_MACHINES);
  for (const wanted of flags.positionals) {
    if (!names.includes(wanted)) {
      throw new SpillwayError(
        "usage",
        `unknown machine "${shown(wanted)}" (expected one of: ${names.join(", ")})`,
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
  if (format === "xstate") {
    io.stdout(JSON.stringify(machineConfigs(chosen), null, 2) + "\n");
  } else if (format === "json") {
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

async function serve(flags: ParsedFlags, io: CommandIo): Promise<number> {
  const printing = flags.string("format") !== undefined
    ? "--format"
    : flags.boolean("json")
    ? "--json"
    : undefined;
  if (printing !== undefined) {
    throw new SpillwayError(
      "usage",
      `${printing} prints diagrams; --serve serves the page instead`,
    );
  }
  if (flags.positionals.length > 1) {
    throw new SpillwayError(
      "usage",
      `--serve replays one inspection file, got ${flags.positionals.length}: ` +
        flags.positionals.map((name) => `"${shown(name)}"`).join(", "),
    );
  }
  const port = portOf(flags.string("port"));
  const file = flags.positionals[0] === undefined
    ? undefined
    : resolve(io.cwd, flags.positionals[0]);
  using stop = StopSignals.listen();
  let server;
  try {
    server = serveInspector({
      port,
      signal: stop.signal,
      ...(file === undefined ? {} : { file }),
    });
  } catch (error) {
    if (!(error instanceof Deno.errors.AddrInUse)) throw error;
    throw new SpillwayError(
      "usage",
      `port ${port} on 127.0.0.1 is taken: pick another with --port N (0 picks a free one)`,
    );
  }
  io.stdout(
    `spillway inspector: ${server.url}\n` +
      (file === undefined
        ? "No inspection file: the page draws the machines only.\n"
        : `Replaying ${shown(flags.positionals[0] ?? "")}, and following it while it grows.\n`) +
      "Ctrl-C stops it.\n",
  );
  await server.finished;
  return 0;
}

async function replay(flags: ParsedFlags, io: CommandIo): Promise<number> {
  const file = flags.string("replay");
  const to = flags.string("to");
  if (file === undefined || to === undefined) {
    throw new SpillwayError("usage", "--replay FILE and --to URL go together: give both");
  }
  if (flags.boolean("serve") || flags.positionals.length > 0) {
    throw new SpillwayError("usage", "--replay sends one file; it takes no --serve or machines");
  }
  let url: URL;
  try {
    url = inspectSocketUrl(to, false);
  } catch (error) {
    throw new SpillwayError("usage", `--to: ${shown(reasonText(error))}`);
  }
  try {
    const { sent, unreadable } = await sendRecording(resolve(io.cwd, file), url);
    io.stdout(
      `sent ${sent} messages from ${shown(file)} to ${shown(url.href)}` +
        (unreadable === 0 ? "\n" : ` (${unreadable} lines were not records)\n`),
    );
    return 0;
  } catch (error) {
    throw new SpillwayError("usage", `--replay "${shown(file)}": ${shown(reasonText(error))}`);
  }
}

/** A value from the command line, as it may be printed on one line. */
function shown(value: string): string {
  return sanitizeForTerminal(value, { singleLine: true });
}

/** `--port`: a whole number from 0 to 65535. */
function portOf(given: string | undefined): number {
  if (given === undefined) return DEFAULT_INSPECTOR_PORT;
  const port = Number(given);
  if (!/^\d+$/.test(given) || port > 65535) {
    throw new SpillwayError(
      "usage",
      `--port "${
        shown(given)
      }" is not a port: give a whole number from 0 to 65535 (0 picks a free one)`,
    );
  }
  return port;
}
