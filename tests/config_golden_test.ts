/**
 * Golden tests for the user-visible text of configuration: for every
 * `tests/fixtures/config/<name>.toml`, run `spillway config check --config
 * <name>.toml` (plus one `--cfg` per line of `<name>.cfg`, then one argument
 * per line of `<name>.flags`, when present) and compare exit code, stdout and
 * stderr with `<name>.expected.txt`.
 *
 * Regenerate after an intended change with
 * `UPDATE_GOLDEN=1 deno test -A tests/config_golden_test.ts`, then review the diff.
 *
 * @module
 */

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { main } from "../src/cli.ts";
import { captureCommandIo } from "../src/commands/command_io.ts";

const FIXTURES = fileURLToPath(new URL("./fixtures/config/", import.meta.url));
const UPDATE = Deno.env.get("UPDATE_GOLDEN") === "1";

/** Runs the check for one fixture and renders the transcript the golden file holds. */
async function transcript(name: string): Promise<string> {
  const cfg = await readOptional(`${FIXTURES}${name}.cfg`);
  const cfgFlags = (cfg ?? "").split("\n").filter((line) => line !== "")
    .flatMap((line) => ["--cfg", line]);
  const extra = ((await readOptional(`${FIXTURES}${name}.flags`)) ?? "").split("\n")
    .filter((line) => line !== "");
  const args = ["config", "check", "--config", `${name}.toml`, ...cfgFlags, ...extra];
  // No HOME or XDG_CONFIG_HOME: the user layer is skipped, so the machine's own config never leaks in.
  const env = Object.fromEntries(
    ((await readOptional(`${FIXTURES}${name}.env`)) ?? "").split("\n").filter((line) => line !== "")
      .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
  );
  const io = captureCommandIo({ env, cwd: FIXTURES });
  const code = await main(args, io);
  const shown = args.map(shellQuote).join(" ");
  const envShown = Object.keys(env).map((key) => `${key}=… `).join("");
  let text = `$ ${envShown}spillway ${shown}\nexit code: ${code}\n`;
  if (io.out() !== "") text += `--- stdout\n${io.out()}`;
  if (io.err() !== "") text += `--- stderr\n${io.err()}`;
  return text;
}

/** Quotes an argument the way a POSIX shell user would type it. */
function shellQuote(arg: string): string {
  if (/^[\w./=-]+$/.test(arg)) return arg;
  if (!arg.includes("'")) return `'${arg}'`;
  return `"${arg.replace(/["$`\\]/g, "\\$&")}"`;
}

async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

const names: string[] = [];
for (const entry of Deno.readDirSync(FIXTURES)) {
  if (entry.isFile && entry.name.endsWith(".toml")) names.push(entry.name.slice(0, -5));
}
names.sort();

Deno.test("config golden fixtures exist", () => {
  assert.ok(names.length >= 10, `only ${names.length} fixtures in ${FIXTURES}`);
});

for (const name of names) {
  Deno.test(`config check matches tests/fixtures/config/${name}.expected.txt`, async () => {
    const actual = await transcript(name);
    const expectedPath = `${FIXTURES}${name}.expected.txt`;
    if (UPDATE) await Deno.writeTextFile(expectedPath, actual);
    const expected = await readOptional(expectedPath);
    assert.ok(
      expected !== undefined,
      `missing ${expectedPath}; run with UPDATE_GOLDEN=1 to create it`,
    );
    assert.equal(actual, expected);
  });
}
