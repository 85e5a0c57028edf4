/**
 * Golden tests for configurations that load but cannot start, because of
 * what the upstream servers list: an entry picking a tool its server does
 * not list (`unlisted_tool`), two servers listing tools of the same name
 * (`shared_name`). `query` and `serve` report each as a problem of the
 * configuration and exit 1, with the servers stopped and nothing recorded;
 * `config check` warns about what it can see. The commands run in-process
 * through the CLI's `main`, against the example upstream server, in a
 * temporary workspace.
 *
 * Regenerate after an intended change with
 * `UPDATE_GOLDEN=1 deno test -A tests/start_problems_golden_test.ts`, then review the diff.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { main } from "../src/cli.ts";
import { captureCommandIo } from "../src/commands/command_io.ts";

const REPO = fileURLToPath(new URL("../", import.meta.url));
const FIXTURES = join(REPO, "tests", "fixtures", "start_problems");
const UPDATE = Deno.env.get("UPDATE_GOLDEN") === "1";

/** Each command, by the name its golden file takes. */
const COMMANDS: Readonly<Record<string, readonly string[]>> = {
  config_check: ["config", "check", "--config", "config.toml", "--quiet"],
  query: ["query", "--config", "config.toml", "--script", "script.toml", "Say hello"],
  serve: ["serve", "--stdio", "--config", "config.toml"],
};

/** Each fixture and the commands it is run with. */
const CASES: Readonly<Record<string, readonly string[]>> = {
  unlisted_tool: ["config_check", "query", "serve"],
  // config check does not resolve the routes, so it does not see this one.
  shared_name: ["query", "serve"],
};

/** A workspace holding the fixture's config (this Deno, the server's absolute path) and script. */
async function workspace(fixture: string): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "spillway_start_" });
  const config = await Deno.readTextFile(join(FIXTURES, `${fixture}.toml`));
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

for (const [fixture, commands] of Object.entries(CASES)) {
  for (const command of commands) {
    const args = COMMANDS[command] ?? [];
    const golden = `tests/fixtures/start_problems/${fixture}.${command}.expected.txt`;
    Deno.test(`spillway ${command.replace("_", " ")} on ${fixture}.toml matches ${golden}`, async () => {
      const dir = await workspace(fixture);
      try {
        const actual = await transcript(dir, args);
        const path = join(REPO, golden);
        if (UPDATE) await Deno.writeTextFile(path, actual);
        assert.equal(actual, await Deno.readTextFile(path));
        const entries = [];
        for await (const entry of Deno.readDir(dir)) entries.push(entry.name);
        assert.deepEqual(entries.sort(), ["config.toml", "script.toml"], "nothing was recorded");
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    });
  }
}
