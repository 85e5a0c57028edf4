/**
 * Golden tests for an entry that picks a tool its upstream server does not
 * list (`source = "mcp.demo.ech"`): `config check` warns that query and
 * serve will not start, and `query` and `serve` report it as a problem of
 * the configuration (the entry, the server, the missing tool, the closest
 * one it lists) and exit 1, with the server stopped and nothing recorded.
 * The commands run in-process through the CLI's `main`, against the
 * example upstream server, in a temporary workspace.
 *
 * Regenerate after an intended change with
 * `UPDATE_GOLDEN=1 deno test -A tests/unlisted_tool_golden_test.ts`, then review the diff.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { main } from "../src/cli.ts";
import { captureCommandIo } from "../src/commands/command_io.ts";

const REPO = fileURLToPath(new URL("../", import.meta.url));
const FIXTURES = join(REPO, "tests", "fixtures", "unlisted_tool");
const UPDATE = Deno.env.get("UPDATE_GOLDEN") === "1";

/** A workspace holding the fixture's config (this Deno, the server's absolute path) and script. */
async function workspace(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "spillway_unlisted_" });
  const config = await Deno.readTextFile(join(FIXTURES, "config.toml"));
  await Deno.writeTextFile(
    join(dir, "config.toml"),
    config.replaceAll('"deno"', JSON.stringify(Deno.execPath()))
      .replaceAll('"examples/', JSON.stringify(join(REPO, "examples")).slice(0, -1) + "/"),
  );
  await Deno.copyFile(join(FIXTURES, "script.toml"), join(dir, "script.toml"));
  return dir;
}

/** Runs spillway with `args` in `dir` and renders the transcript the golden file holds. */
async function transcript(dir: string, args: readonly string[]): Promise<string> {
  // No HOME or XDG_CONFIG_HOME: the machine's own user config never leaks in.
  const io = captureCommandIo({ env: {}, cwd: dir });
  const code = await main(args, io);
  const shown = args.map((arg) => /^[\w./=-]+$/.test(arg) ? arg : `'${arg}'`).join(" ");
  let text = `$ spillway ${shown}\nexit code: ${code}\n`;
  if (io.out() !== "") text += `--- stdout\n${io.out()}`;
  if (io.err() !== "") text += `--- stderr\n${io.err()}`;
  return text;
}

async function assertGolden(name: string, actual: string): Promise<void> {
  const path = join(FIXTURES, `${name}.expected.txt`);
  if (UPDATE) await Deno.writeTextFile(path, actual);
  assert.equal(actual, await Deno.readTextFile(path));
}

const COMMANDS: readonly (readonly [string, string, readonly string[]])[] = [
  ["config check", "config_check", ["config", "check", "--config", "config.toml", "--quiet"]],
  ["query", "query", ["query", "--config", "config.toml", "--script", "script.toml", "Say hello"]],
  ["serve", "serve", ["serve", "--stdio", "--config", "config.toml"]],
];

for (const [command, name, args] of COMMANDS) {
  Deno.test(`spillway ${command} on an entry naming a tool its server does not list matches tests/fixtures/unlisted_tool/${name}.expected.txt`, async () => {
    const dir = await workspace();
    try {
      await assertGolden(name, await transcript(dir, args));
      const entries = [];
      for await (const entry of Deno.readDir(dir)) entries.push(entry.name);
      assert.deepEqual(entries.sort(), ["config.toml", "script.toml"], "nothing was recorded");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}
