/**
 * package.json, the npm package's manifest, beside deno.json: the two carry
 * one version, and the Deno binary the package runs on is a peer
 * dependency (npm installs it), never a dependency Deno itself would read:
 * `deno task` resolves a task's `deno` to the bin of a `deno` npm package
 * listed there, and every task would run that one instead.
 */

import assert from "node:assert/strict";
import { join } from "./_paths.ts";

const ROOT = join(import.meta.dirname!, "..");

async function manifest(name: string): Promise<Record<string, unknown>> {
  return JSON.parse(await Deno.readTextFile(join(ROOT, name)));
}

Deno.test("package.json and deno.json carry the same version and license", async () => {
  const npm = await manifest("package.json");
  const deno = await manifest("deno.json");
  assert.equal(npm["version"], deno["version"]);
  assert.equal(npm["license"], deno["license"]);
});

Deno.test("package.json names deno as a peer dependency only, pinned to one version", async () => {
  const npm = await manifest("package.json");
  for (const kind of ["dependencies", "devDependencies", "optionalDependencies"]) {
    const listed = (npm[kind] ?? {}) as Record<string, string>;
    assert.equal(listed["deno"], undefined, `"deno" in ${kind} would replace deno in every task`);
  }
  const peers = npm["peerDependencies"] as Record<string, string>;
  assert.match(peers["deno"] ?? "", /^\d+\.\d+\.\d+$/);
});
