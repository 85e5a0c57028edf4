/**
 * Test helper: `spillway` run the way a person runs it, `deno run …
 * src/cli.ts` as a subprocess (directly, so signals reach spillway itself
 * and not a `deno task` in between), in a temporary workspace, and the
 * conversation it recorded read back from disk. The end-to-end tests of
 * query (output, caps, hostile text, upstream faults, signals, disk full,
 * repair, model APIs) all start spillway through here.
 *
 * The machine's own user config never leaks in: `XDG_CONFIG_HOME` points at
 * a folder that does not exist.
 *
 * @module
 */

import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const REPO = fileURLToPath(new URL("..", import.meta.url));

/** The command line's entry point. */
export const CLI = join(REPO, "src", "cli.ts");

/**
 * What `query` needs: files (config, stream, results), tool processes and
 * the environment. Anything else fails rather than prompts (`--no-prompt`),
 * even on a terminal.
 */
const PERMISSIONS = ["--allow-read", "--allow-write", "--allow-run", "--allow-env"];

/** What a finished `spillway` run printed and how it exited. */
export interface CliRun {
  readonly code: number;
  readonly signal: Deno.Signal | null;
  readonly stdout: string;
  readonly stderr: string;
  /** The bytes as written, for tests that look for raw control bytes. */
  readonly bytes: { readonly stdout: Uint8Array; readonly stderr: Uint8Array };
}

/** How spillway is started. */
export interface SpillwayOptions {
  /** The working directory: relative paths in arguments and configs start here. */
  readonly cwd: string;
  /** Variables set for spillway (`XDG_CONFIG_HOME` is set unless given). Default: none. */
  readonly env?: Readonly<Record<string, string>>;
  /** Whether spillway sees only `env` rather than this process's environment too. Default: false. */
  readonly clearEnv?: boolean;
  /** Deno flags beyond the permissions every run gets, e.g. `--allow-net=127.0.0.1`. Default: none. */
  readonly denoFlags?: readonly string[];
}

/**
 * The arguments of `deno` that run `spillway …args` (for a command line
 * another program starts, such as a terminal multiplexer).
 */
export function spillwayArgv(args: readonly string[], denoFlags: readonly string[] = []): string[] {
  return ["run", "--quiet", "--no-prompt", ...PERMISSIONS, ...denoFlags, CLI, ...args];
}

/** Starts `spillway …args`, stdin empty, stdout and stderr piped. */
export function spawnSpillway(
  args: readonly string[],
  options: SpillwayOptions,
): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: spillwayArgv(args, options.denoFlags),
    cwd: options.cwd,
    env: { XDG_CONFIG_HOME: join(options.cwd, "no-user-config"), ...options.env },
    clearEnv: options.clearEnv ?? false,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/** Waits for `child` to exit and returns what it printed. */
export async function finished(child: Deno.ChildProcess): Promise<CliRun> {
  const output = await child.output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    signal: output.signal,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
    bytes: { stdout: output.stdout, stderr: output.stderr },
  };
}

/** A temporary workspace with `config.toml` and the named files (scripts) written into it. */
export async function workspaceWith(
  config: string,
  files: Readonly<Record<string, string>> = {},
): Promise<string> {
  const workspace = await Deno.makeTempDir({ prefix: "spillway_cli_" });
  await Deno.writeTextFile(join(workspace, "config.toml"), config);
  for (const [name, text] of Object.entries(files)) {
    await Deno.writeTextFile(join(workspace, name), text);
  }
  return workspace;
}

/** Options of the `query` helpers: where it runs, and how. */
export type QueryOptions = Partial<SpillwayOptions>;

/**
 * Starts `spillway query --workspace WORKSPACE …args`, by default from the
 * workspace itself (with the user config pointed into it).
 */
export function spawnQuery(
  workspace: string,
  args: readonly string[],
  options: QueryOptions = {},
): Deno.ChildProcess {
  return spawnSpillway(["query", "--workspace", workspace, ...args], {
    ...options,
    cwd: options.cwd ?? workspace,
    env: { XDG_CONFIG_HOME: join(workspace, "no-user-config"), ...options.env },
  });
}

/** Runs `spillway query --workspace WORKSPACE …args` to its end. */
export function query(
  workspace: string,
  args: readonly string[],
  options: QueryOptions = {},
): Promise<CliRun> {
  return finished(spawnQuery(workspace, args, options));
}

/** Runs `spillway query --quiet --script SCRIPT --conversation ID PROMPT` to its end. */
export function continueQuery(
  workspace: string,
  script: string,
  conversation: string,
  prompt: string,
): Promise<CliRun> {
  return query(workspace, ["--quiet", "--script", script, "--conversation", conversation, prompt]);
}

/** The conversation id of the `Conversation <id>…` line a run printed. */
export function conversationIdOf(run: Pick<CliRun, "stdout" | "stderr">): string {
  const match = /^Conversation (\S+?):? /m.exec(run.stdout + run.stderr);
  if (match === null) {
    throw new Error(`no Conversation line in:\n${run.stdout}\n${run.stderr}`);
  }
  return match[1]!;
}

/** One event of a conversation's `events.jsonl`, as parsed. */
export interface RecordedEvent {
  readonly type: string;
  readonly [key: string]: unknown;
}

/**
 * The events of a conversation, parsed from its `events.jsonl`.
 *
 * @throws {Error} when the log does not end with a complete line
 */
export async function eventsOf(workspace: string, conversation: string): Promise<RecordedEvent[]> {
  const text = await Deno.readTextFile(
    join(workspace, "conversations", conversation, "events.jsonl"),
  );
  if (text !== "" && !text.endsWith("\n")) {
    throw new Error(`the log ends in a cut line: ${JSON.stringify(text.slice(-200))}`);
  }
  return text.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line));
}

/** A recorded `tool_call_response`. */
export interface RecordedResponse extends RecordedEvent {
  readonly type: "tool_call_response";
  readonly id: string;
  readonly content: string;
  readonly is_error: boolean;
}

/** The recorded responses of a conversation, by call id (the last, when an id recurs). */
export async function responsesOf(
  workspace: string,
  conversation: string,
): Promise<Map<string, RecordedResponse>> {
  const responses = new Map<string, RecordedResponse>();
  for (const event of await eventsOf(workspace, conversation)) {
    if (event.type !== "tool_call_response") continue;
    const response = event as RecordedResponse;
    responses.set(response.id, response);
  }
  return responses;
}
