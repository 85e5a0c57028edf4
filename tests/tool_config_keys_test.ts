/**
 * Every key a `[conversation.tools.<name>]` table accepts is known to the
 * two places that describe an entry back to the user: the unknown-tool
 * warnings (which cite where the entry is set) and `config check` (which
 * shows the key's row). The keys are read from the validator's own "unknown
 * key" message, not from the list under test, so a key the validator gains
 * is checked here without anyone listing it again.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "../src/cli.ts";
import { captureCommandIo } from "../src/commands/command_io.ts";
import { parseConfig } from "../src/config/parse_config.ts";
import { unknownToolWarnings } from "../src/config/unknown_tool_warnings.ts";
import { reasonText } from "../src/errors/reason_text.ts";

/**
 * A value each key accepts, as TOML, with what else the entry needs to be
 * valid on a later line (a local tool's `source`) or in the `'*'` table
 * (`truncation_split` is only used with `truncation = "head_tail"`).
 */
const SAMPLES: Readonly<Record<string, { value: string; entry?: string; star?: string }>> = {
  source: { value: '"builtin"' },
  command: { value: '["make"]', entry: 'source = "local"' },
  pass_env: { value: '["GITHUB_TOKEN"]', entry: 'source = "local"\ncommand = ["make"]' },
  timeout: { value: "30" },
  run: { value: '"ask"' },
  result: { value: '"edit"' },
  size_threshold: { value: '"1MB"' },
  truncation: { value: '"tail"' },
  truncation_split: { value: '"20/80"', star: 'truncation = "head_tail"' },
  spill: { value: "true" },
  cancellation_response: { value: '"stopped by the user"' },
  "style.inline_results": { value: "3" },
  "style.results_file_link": { value: '"full"' },
  description: { value: '"a tool nobody provides"' },
};

const TOOL = "typo_tool";

/** The keys listed by the validator's message for an unknown key at `prefix.not_a_key`. */
function listedKeys(prefix: string): string[] | undefined {
  const key = prefix === "" ? "not_a_key" : `${prefix}.not_a_key`;
  try {
    parseConfig(`[conversation.tools.${TOOL}]\n${key} = 1\n`, "probe.toml");
  } catch (error) {
    const message = reasonText(error);
    const path = `conversation.tools.${TOOL}.${key}`.replaceAll(".", "\\.");
    const match = new RegExp(`unknown key ${path} \\(expected one of: ([^)]*)\\)`).exec(message);
    return match?.[1]?.split(", ");
  }
  return undefined;
}

/** Every key the validator accepts, a table's keys spelled `table.key` as in `describe()`. */
function acceptedKeys(): string[] {
  const top = listedKeys("");
  assert.ok(top !== undefined && top.length > 0, "the validator lists the keys it accepts");
  return top.flatMap((key) => {
    const inner = listedKeys(key);
    return inner === undefined ? [key] : inner.map((item) => `${key}.${item}`);
  });
}

function configText(key: string): string {
  const sample = SAMPLES[key];
  assert.ok(sample !== undefined, `tests/tool_config_keys_test.ts: add a sample value for ${key}`);
  const lines = [`[conversation.tools.${TOOL}]`, `${key} = ${sample.value}`];
  if (sample.entry !== undefined) lines.push(sample.entry);
  if (sample.star !== undefined) lines.push("[conversation.tools.'*']", sample.star);
  return lines.join("\n") + "\n";
}

Deno.test("the validator accepts every key of a tool table, table keys included", () => {
  const keys = acceptedKeys();
  // A floor, not the list: the test must not pass by reading no keys at all.
  assert.ok(keys.length >= 13, keys.join(", "));
  assert.ok(keys.includes("style.inline_results"), keys.join(", "));
  for (const key of keys) parseConfig(configText(key), "c.toml");
});

Deno.test("the unknown-tool warnings cite where an entry is set, whichever key it sets", () => {
  for (const key of acceptedKeys()) {
    const config = parseConfig(configText(key), "c.toml");
    const local = config.tool(TOOL).source()?.kind === "local";
    // A local entry is its own source: it is never reported.
    const expected = local ? [] : [
      `conversation.tools.${TOOL} (c.toml:2): no source provides a tool named ${TOOL}, ` +
      "so these settings are never used",
    ];
    assert.deepEqual(unknownToolWarnings(config, { tools: [] }), expected, key);
  }
});

Deno.test("config check shows every key a tool sets, from the file that sets it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "spillway_keys_" });
  try {
    for (const key of acceptedKeys()) {
      await Deno.writeTextFile(join(dir, "c.toml"), configText(key));
      const io = captureCommandIo({ env: {}, cwd: dir });
      assert.equal(await main(["config", "check", "--config", "c.toml"], io), 0, io.err());
      assert.deepEqual(rowsOf(io.out(), TOOL).filter((row) => row.key === key), [
        { key, from: "c.toml" },
      ], `${key}:\n${io.out()}`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** The SETTING and FROM cells of `tool`'s rows in the report's tools table. */
function rowsOf(report: string, tool: string): { key: string; from: string }[] {
  const rows: { key: string; from: string }[] = [];
  let inTool = false;
  for (const line of report.split("\n")) {
    // Columns are three spaces apart; a value holds at most single spaces.
    const cells = line.trim().split(/ {3,}/);
    if (cells.length === 4) inTool = cells[0] === tool;
    else if (cells.length !== 3 || !line.startsWith(" ".repeat(4))) inTool = false;
    if (inTool) rows.push({ key: cells.at(-3) ?? "", from: cells.at(-1) ?? "" });
  }
  return rows;
}
