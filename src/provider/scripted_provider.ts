/**
 * The scripted provider: the embedded default model for `spillway query` and
 * the demo. It replays a TOML script, one assistant message per request:
 * cycle N answers request N; a cycle without tool calls, or the end of the
 * script, ends the turn. A declared `context_window` makes an oversized
 * request fail the way real providers do (`prompt is too long`), to show what
 * the caps prevent.
 *
 * @module
 */

import { parse, TomlError } from "smol-toml";
import { SpillwayError } from "../errors/spillway_error.ts";
import type { ToolCall } from "../review/tool_call.ts";
import { ByteSize } from "../size/byte_size.ts";
import { utf8Length } from "../size/cap_text.ts";
import type { AssistantMessage, Provider, ProviderRequest } from "./provider.ts";
import * as files from "../platform/files.ts";

/** One scripted assistant message. */
export interface ScriptCycle {
  /** The assistant's text. */
  readonly text: string;
  /** The calls it asks for; none ends the turn. */
  readonly toolCalls: readonly ToolCall[];
}

/** A parsed script. */
export interface Script {
  /** Cycle N answers request N of a turn. */
  readonly cycles: readonly ScriptCycle[];
  /** Requests larger than this (UTF-8 bytes of their messages) fail. */
  readonly contextWindow?: ByteSize;
}

const TOP_KEYS = ["cycles", "context_window"];
const CYCLE_KEYS = ["text", "tool_calls"];
const CALL_KEYS = ["id", "name", "arguments"];

type Table = Record<string, unknown>;
const isTable = (value: unknown): value is Table =>
  typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);

/**
 * Parses a script. Every error names the file, the key path, the value and
 * what would be accepted.
 *
 * @throws {SpillwayError} code `script_invalid`
 */
export function parseScript(tomlText: string, source = "<script>"): Script {
  let doc: Table;
  try {
    doc = parse(tomlText) as Table;
  } catch (error) {
    if (error instanceof TomlError) {
      const first = error.message.split("\n")[0];
      throw invalid(`${source}:${error.line}:${error.column}: TOML syntax error: ${first}`);
    }
    throw error;
  }
  checkKeys(doc, TOP_KEYS, "", source);
  const rawCycles = doc.cycles ?? [];
  if (!Array.isArray(rawCycles)) {
    throw invalid(`${source}: cycles must be an array of tables ([[cycles]])`);
  }
  const seen = new Set<string>();
  const cycles = rawCycles.map((raw: unknown, n): ScriptCycle => {
    const at = `cycles[${n}]`;
    if (!isTable(raw)) throw invalid(`${source}: ${at} must be a table ([[cycles]])`);
    checkKeys(raw, CYCLE_KEYS, `${at}.`, source);
    const text = raw.text ?? "";
    if (typeof text !== "string") {
      throw invalid(`${source}: ${at}.text = ${show(text)} has the wrong type (expected a string)`);
    }
    const rawCalls = raw.tool_calls ?? [];
    if (!Array.isArray(rawCalls)) {
      throw invalid(
        `${source}: ${at}.tool_calls has the wrong type (expected an array of { id, name, arguments })`,
      );
    }
    const toolCalls = rawCalls.map((call: unknown, i): ToolCall => {
      const callAt = `${at}.tool_calls[${i}]`;
      if (!isTable(call)) {
        throw invalid(`${source}: ${callAt} must be a table { id, name, arguments }`);
      }
      checkKeys(call, CALL_KEYS, `${callAt}.`, source);
      const id = call.id ?? `call_${n + 1}_${i + 1}`;
      if (typeof id !== "string" || id === "") {
        throw invalid(`${source}: ${callAt}.id = ${show(id)} must be a non-empty string`);
      }
      if (seen.has(id)) throw invalid(`${source}: ${callAt}.id = "${id}" is used twice`);
      seen.add(id);
      if (typeof call.name !== "string" || call.name === "") {
        throw invalid(`${source}: ${callAt}.name = ${show(call.name)} must be a tool name`);
      }
      const args = call.arguments ?? {};
      if (!isTable(args)) {
        throw invalid(
          `${source}: ${callAt}.arguments = ${show(args)} must be a table, e.g. { path = "." }`,
        );
      }
      // Plain JSON objects (TOML tables have a null prototype; dates become strings).
      return { id, name: call.name, arguments: JSON.parse(JSON.stringify(args)) };
    });
    return { text, toolCalls };
  });
  if (doc.context_window === undefined) return { cycles };
  const window = doc.context_window;
  try {
    if (typeof window !== "string" && typeof window !== "number") throw new TypeError("not a size");
    return { cycles, contextWindow: ByteSize.parse(window) };
  } catch (error) {
    const reason = error instanceof TypeError
      ? 'expected a size such as "200KB"'
      : (error as Error).message;
    throw invalid(`${source}: context_window = ${show(window)}: ${reason}`);
  }
}

/** Reads and parses a script file. */
export async function loadScript(path: string): Promise<Script> {
  let text: string;
  try {
    text = await files.readTextFile(path);
  } catch (error) {
    throw invalid(`cannot read script ${path}: ${(error as Error).message}`);
  }
  return parseScript(text, path);
}

/**
 * A provider replaying `script`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseScript, ScriptedProvider } from "./scripted_provider.ts";
 * const provider = new ScriptedProvider(parseScript('[[cycles]]\ntext = "hi"'));
 * const reply = await provider.complete({ messages: [], tools: [], cycle: 0, signal: new AbortController().signal });
 * assert.equal(reply.text, "hi");
 * ```
 */
export class ScriptedProvider implements Provider {
  readonly #script: Script;

  /** Replays `script`. */
  constructor(script: Script) {
    this.#script = script;
  }

  /** Answers request `request.cycle` with that cycle, or ends the turn past the script's end. */
  complete(request: ProviderRequest): Promise<AssistantMessage> {
    request.signal.throwIfAborted();
    const window = this.#script.contextWindow;
    if (window !== undefined) {
      const size = utf8Length(JSON.stringify(request.messages));
      if (size > window.bytes) {
        return Promise.reject(
          new SpillwayError(
            "provider_failed",
            `prompt is too long: ${size} bytes > ${window.bytes} maximum`,
            // The kind a real provider's too-long request gets: query names the repair.
            { kind: "context_window", bytes: size, maximum: window.bytes },
          ),
        );
      }
    }
    const cycle = this.#script.cycles[request.cycle] ?? { text: "", toolCalls: [] };
    // A script has no stream: its whole text is one piece.
    if (cycle.text !== "") request.onText?.(cycle.text);
    return Promise.resolve(cycle);
  }
}

function checkKeys(table: Table, allowed: readonly string[], prefix: string, source: string) {
  for (const key of Object.keys(table)) {
    if (!allowed.includes(key)) {
      throw invalid(
        `${source}: unknown key ${prefix}${key} (expected one of: ${allowed.join(", ")})`,
      );
    }
  }
}

function show(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}

function invalid(message: string): SpillwayError {
  return new SpillwayError("script_invalid", message);
}
