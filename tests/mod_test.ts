/**
 * Keeps `src/mod.ts` honest: it only re-exports, nothing inside `src/`
 * imports it, and its runtime exports are exactly the public API.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import * as mod from "../src/mod.ts";

const SRC = join(import.meta.dirname!, "..", "src");

Deno.test("mod.ts exports exactly the public values", () => {
  assert.deepEqual(Object.keys(mod).sort(), [
    "ByteSize",
    "DEFAULT_WORKSPACE",
    "MAX_TOOL_RESPONSE_BATCH_BYTES",
    "MIN_SIZE_THRESHOLD_BYTES",
    "ScriptedProvider",
    "SizeThreshold",
    "SpillwayConfig",
    "SpillwayError",
    "ToolConfigWithDefaults",
    "acceptedReview",
    "capReview",
    "capText",
    "createRuntime",
    "formatNotice",
    "loadConfig",
    "parseConfig",
    "parseScript",
    "replacedReview",
    "spendBatchBudget",
  ]);
  assert.equal(mod.MAX_TOOL_RESPONSE_BATCH_BYTES, 2 * 1024 * 1024);
});

Deno.test("mod.ts only re-exports", async () => {
  const text = await Deno.readTextFile(join(SRC, "mod.ts"));
  const code = text.replace(/\/\*\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  const statements = code.split(";").map((s) => s.trim()).filter((s) => s !== "");
  for (const statement of statements) {
    assert.match(statement, /^export (type )?\{[^}]*\} from "\.\/[a-z_/]+\.ts"$/s, statement);
  }
});

Deno.test("nothing inside src/ imports mod.ts", async () => {
  for await (const path of walk(SRC)) {
    if (path.endsWith("/mod.ts")) continue;
    const text = await Deno.readTextFile(path);
    assert.doesNotMatch(text, /from "(\.\.?\/)+mod\.ts"/, path);
  }
});

async function* walk(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* walk(path);
    else if (entry.name.endsWith(".ts")) yield path;
  }
}
