/**
 * Shared by the durability end-to-end tests: `spillway` run the way a person
 * runs it (`deno run … src/cli.ts`, directly, so signals reach spillway
 * itself and not a `deno task` in between), in a temporary workspace, and
 * the conversation's events read back from disk.
 *
 * @module
 */

import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const REPO = fileURLToPath(new URL("..", import.meta.url));

/** What a finished `spillway` run printed and how it exited. */
export interface CliRun {
  readonly code: number;
  readonly signal: Deno.Signal | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A temporary workspace with `config.toml` and the named scripts written into it. */
export async function workspaceWith(
  config: string,
  scripts: Readonly<Record<string, string>> = {},
): Promise<string> {
  const workspace = await Deno.makeTempDir({ prefix: "spillway_durability_" });
  await Deno.writeTextFile(join(workspace, "config.toml"), config);
  for (const [name, text] of Object.entries(scripts)) {
    await Deno.writeTextFile(join(workspace, name), text);
  }
  return workspace;
}

/** Starts `spillway query --workspace WORKSPACE …args`, stdio piped, from the repository root. */
export function spawnQuery(workspace: string, args: readonly string[]): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--allow-read",
      "--allow-write",
      "--allow-run",
      "--allow-env",
      join(REPO, "src", "cli.ts"),
      "query",
      "--workspace",
      workspace,
      ...args,
    ],
    cwd: workspace,
    // The machine's own user config must not leak in.
    env: { XDG_CONFIG_HOME: join(workspace, "no-user-config") },
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
  };
}

/** Runs `spillway query` to its end. */
export function query(workspace: string, ...args: string[]): Promise<CliRun> {
  return finished(spawnQuery(workspace, args));
}

/** Runs `spillway query --quiet --script SCRIPT --conversation ID PROMPT` to its end. */
export function continueQuery(
  workspace: string,
  script: string,
  conversation: string,
  prompt: string,
): Promise<CliRun> {
  return query(workspace, "--quiet", "--script", script, "--conversation", conversation, prompt);
}

/** The conversation id of the `Conversation <id>…` line a run printed. */
export function conversationIdOf(run: CliRun): string {
  const match = /^Conversation (\S+?):? /m.exec(run.stdout + run.stderr);
  if (match === null) {
    throw new Error(`no Conversation line in:\n${run.stdout}\n${run.stderr}`);
  }
  return match[1]!;
}

/** The events of a conversation, parsed from its `events.jsonl`. */
export async function eventsOf(
  workspace: string,
  conversation: string,
): Promise<{ type: string; [key: string]: unknown }[]> {
  const text = await Deno.readTextFile(
    join(workspace, "conversations", conversation, "events.jsonl"),
  );
  return text.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line));
}
