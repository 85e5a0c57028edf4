/**
 * `spillway conversation show ID`: a conversation as a readable transcript
 * (or, with `--json`, the same facts as JSON). Reads the log without locking
 * it.
 *
 * @module
 */

import { ByteSize } from "../size/byte_size.ts";
import { plural } from "../terminal/plural.ts";
import { sanitizeForTerminal } from "../terminal/sanitize.ts";
import { boundLine } from "../terminal/terminal_line.ts";
import type { Command } from "./command.ts";
import type { CommandIo } from "./command_io.ts";
import type { ParsedFlags } from "./_flags.ts";
import { resultFiles } from "./_result_files.ts";
import {
  type TranscriptCall,
  type TranscriptInput,
  type TranscriptItem,
  transcriptOf,
} from "./_transcript.ts";
import { openWorkspace, type Workspace } from "./_workspace.ts";
import { CONFIG_FLAGS } from "./_common_flags.ts";
import { loadConfigOrReport } from "./_config_problems.ts";

/** Longest argument summary shown on a call line, in bytes. */
const ARGUMENTS_SHOWN_BYTES = 200;

/** `spillway conversation show`. */
export const conversationShowCommand: Command = {
  name: "conversation show",
  summary: "print a conversation as a readable transcript",
  usage:
    "spillway conversation show [--workspace DIR] [--config FILE]... [--cfg KEY=VALUE]... [--json] ID",
  description: `Prints conversation ID turn by turn: each prompt, the size of each request
sent to the model, the assistant's words, each tool call with its
arguments and the size of the response recorded for it (marked when a cap
cut it, and when a compaction changed what the model is sent), how each
turn ended, and each compaction with what it changed. Payloads are not
printed: the log has them, and the full-result files keep what the
assistant did not get.

With --json, prints the same facts as one JSON object.`,
  flags: [
    ...CONFIG_FLAGS,
    { name: "json", kind: "boolean", help: "print JSON instead of a transcript" },
  ],
  positionals: "<ID>",
  run,
};

async function run(flags: ParsedFlags, io: CommandIo): Promise<number> {
  const config = await loadConfigOrReport(flags, io);
  if (config === undefined) return 1;
  const workspace = openWorkspace(flags, io, config);
  try {
    return await show(flags, io, workspace);
  } finally {
    await workspace.close();
  }
}

async function show(flags: ParsedFlags, io: CommandIo, workspace: Workspace): Promise<number> {
  const id = flags.positionals[0] ?? "";
  const conversations = await workspace.conversations.list();
  if (!conversations.includes(id)) {
    io.stderr(sanitizeForTerminal(
      `spillway conversation show: no conversation ${JSON.stringify(id)} in ${
        workspace.shown(workspace.conversations.where)
      }` + ` (see \`spillway conversation ls\`)\n`,
    ));
    return 1;
  }
  const loaded = await workspace.conversations.read(id);
  for (const warning of loaded.warnings) io.stderr(sanitizeForTerminal(`warning: ${warning}\n`));
  const { location, bytes } = await workspace.conversations.describe(id);
  const results = await resultFiles(workspace.resultsDir(id));
  const items = transcriptOf(loaded.events);
  if (flags.boolean("json")) {
    const resultBytes = results.reduce((sum, file) => sum + file.bytes, 0);
    io.stdout(
      JSON.stringify(
        {
          id,
          location,
          bytes,
          events: loaded.events.length,
          full_results: {
            dir: workspace.resultsDir(id),
            files: results.length,
            bytes: resultBytes,
          },
          items: items.map(toJson),
        },
        null,
        2,
      ) + "\n",
    );
    return 0;
  }
  const size = (n: number) => ByteSize.fromBytes(n).human();
  let header = `Conversation ${id}\n` +
    `  log            ${workspace.shown(location)} (${size(bytes)}, ${
      plural(loaded.events.length, "event")
    })\n`;
  if (results.length > 0) {
    const total = results.reduce((sum, file) => sum + file.bytes, 0);
    header += `  full results   ${workspace.shown(workspace.resultsDir(id))} (${
      plural(results.length, "file")
    }, ${size(total)})\n`;
  }
  io.stdout(header + formatTranscript(items));
  return 0;
}

/**
 * The transcript as text, one block per turn and per compaction.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatTranscript } from "./conversation_show.ts";
 * assert.equal(
 *   formatTranscript([{ kind: "turn", turnId: "c/1", at: "2026-11-30T16:47:00.000Z", prompt: "hi" }]),
 *   "\nTurn 1 · 2026-11-30 16:47:00 UTC\n  user: hi\n",
 * );
 * ```
 */
export function formatTranscript(items: readonly TranscriptItem[]): string {
  const size = (n: number) => ByteSize.fromBytes(n).human();
  let out = "";
  let turns = 0;
  for (const item of items) {
    switch (item.kind) {
      case "session": {
        const info = item.clientInfo === undefined
          ? ""
          : ` (${sanitizeForTerminal(`${item.clientInfo.name} ${item.clientInfo.version}`)})`;
        out += `\nSession · ${when(item.at)} · client ${sanitizeForTerminal(item.client)}${
          boundLine(info)
        } · MCP ${sanitizeForTerminal(item.protocol)}\n`;
        break;
      }
      case "turn":
        out += `\nTurn ${++turns} · ${when(item.at)}\n${labelled("user", item.prompt)}`;
        break;
      case "request":
        out += `  → request ${item.cycle + 1} to the model: ${size(item.bytes)}\n`;
        break;
      case "assistant":
        out += labelled("assistant", item.text);
        break;
      case "call":
        out += formatCall(item);
        break;
      case "turn_end":
        out += item.status === "finished"
          ? "  turn finished\n"
          : `  turn failed: ${boundLine(sanitizeForTerminal(item.reason ?? "unknown reason"))}\n`;
        break;
      case "compaction": {
        const what = item.strategy === "strip-responses"
          ? `strip-responses${
            item.overBytes === undefined ? "" : `, responses of ${size(item.overBytes)} or more`
          }`
          : sanitizeForTerminal(item.strategy);
        out += `\nCompaction ${item.number} · ${when(item.at)} · ${what}\n`;
        for (const change of item.changed) {
          out +=
            `  ${sanitizeForTerminal(change.id)} ${sanitizeForTerminal(change.tool || "?")}: ` +
            `${size(change.fromBytes)} → ${size(change.toBytes)}\n`;
        }
        if (item.changed.length === 0) out += "  (changed nothing)\n";
        break;
      }
    }
  }
  return out;
}

function formatCall(call: TranscriptCall): string {
  const size = (n: number) => ByteSize.fromBytes(n).human();
  // Arguments that were not a JSON object are shown as the model sent them.
  const shown = call.invalidArguments ??
    (call.arguments === undefined ? undefined : JSON.stringify(call.arguments));
  const args = shown === undefined
    ? ""
    : ` ${boundLine(sanitizeForTerminal(shown, { singleLine: true }), ARGUMENTS_SHOWN_BYTES)}`;
  const invalid = call.invalidArguments === undefined ? "" : ", arguments not a JSON object";
  const out = `  ▸ ${sanitizeForTerminal(call.tool || "?")}${args}  (${
    sanitizeForTerminal(call.id)
  }${invalid})\n`;
  const asked = (call.inputs ?? []).map((input) => `    ↔ ${inputLine(input)}\n`).join("");
  const response = call.response;
  if (response === undefined) return out + asked + "    ◂ no response recorded\n";
  const facts = [`${response.isError ? "error" : "result"}: ${size(response.bytes)}`];
  if (response.cut !== undefined) {
    facts.push(`cut when recorded (${response.cut.original} → ${response.cut.cap})`);
  }
  if (response.structured !== undefined) {
    const { bytes, digest } = response.structured;
    facts.push(`structured content: ${size(bytes)} (${sanitizeForTerminal(shortDigest(digest))})`);
  }
  if (response.compactedBy !== undefined) {
    const how = response.compactedBy.strategy === "strip-responses" ? "a stub" : "a cut";
    facts.push(
      `the model is now sent ${how} of ${size(response.viewBytes)} ` +
        `(compaction ${response.compactedBy.number})`,
    );
  }
  return out + asked + `    ◂ ${facts.join(", ")}\n`;
}

/**
 * One request a call sent its client: `asked its client: elicitation
 * (input_required), 312 B → 45 B, accept`.
 */
function inputLine(input: TranscriptInput): string {
  const size = (n: number) => ByteSize.fromBytes(n).human();
  const sizes = input.answerBytes === undefined
    ? size(input.requestBytes)
    : `${size(input.requestBytes)} → ${size(input.answerBytes)}`;
  const reason = input.reason === undefined ? "" : `: ${input.reason}`;
  return boundLine(
    sanitizeForTerminal(
      `asked its client: ${input.kind} (${input.via}), ${sizes}, ${input.outcome}${reason}`,
      { singleLine: true },
    ),
  );
}

/** `sha256:` and the first 12 hex digits: enough to tell two values apart by eye. */
function shortDigest(digest: string): string {
  return digest.length > 19 ? `${digest.slice(0, 19)}…` : digest;
}

/** `label: text`, later lines indented under the first, each bounded for display. */
function labelled(label: string, text: string): string {
  const lines = sanitizeForTerminal(text).split("\n");
  const pad = " ".repeat(label.length + 4);
  return lines.map((line, i) => `${i === 0 ? `  ${label}: ` : pad}${boundLine(line)}\n`).join("");
}

/** `2026-11-30T16:47:00.123Z` → `2026-11-30 16:47:00 UTC` (as recorded, when not ISO). */
function when(at: string): string {
  const match = /^(\d{4}-\d\d-\d\d)T(\d\d:\d\d:\d\d)(?:\.\d+)?Z$/.exec(at);
  return match === null ? sanitizeForTerminal(at) : `${match[1]} ${match[2]} UTC`;
}

function toJson(item: TranscriptItem): Record<string, unknown> {
  switch (item.kind) {
    case "turn":
      return { kind: item.kind, turn_id: item.turnId, at: item.at, prompt: item.prompt };
    case "session":
      return {
        kind: item.kind,
        at: item.at,
        client: item.client,
        protocol: item.protocol,
        client_info: item.clientInfo ?? null,
      };
    case "call":
      return {
        kind: item.kind,
        id: item.id,
        tool: item.tool,
        arguments: item.arguments ?? null,
        ...(item.invalidArguments === undefined
          ? {}
          : { invalid_arguments: item.invalidArguments }),
        response: item.response === undefined ? null : {
          bytes: item.response.bytes,
          is_error: item.response.isError,
          cut: item.response.cut ?? null,
          view_bytes: item.response.viewBytes,
          structured_content: item.response.structured ?? null,
          compacted_by: item.response.compactedBy ?? null,
        },
        ...(item.inputs === undefined ? {} : {
          inputs: item.inputs.map((input) => ({
            kind: input.kind,
            via: input.via,
            request_bytes: input.requestBytes,
            answer_bytes: input.answerBytes ?? null,
            outcome: input.outcome,
            reason: input.reason ?? null,
          })),
        }),
      };
    case "compaction":
      return {
        kind: item.kind,
        number: item.number,
        at: item.at,
        strategy: item.strategy,
        over_bytes: item.overBytes ?? null,
        changed: item.changed.map((c) => ({
          id: c.id,
          tool: c.tool,
          from_bytes: c.fromBytes,
          to_bytes: c.toBytes,
        })),
      };
    default:
      return { ...item };
  }
}
