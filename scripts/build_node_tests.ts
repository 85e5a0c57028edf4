/**
 * Bundles the test suites that run on Node (tests/node/suites.ts) into one
 * ES module and its chunks in OUTDIR, for `node OUTDIR/suites.js`:
 * `deno run --allow-read --allow-write --allow-run --allow-env scripts/build_node_tests.ts OUTDIR`.
 * Use a folder directly in the checkout (`.ci/run`: `.node-tests`): tests
 * that find the repository from their own file (`import.meta.url`) then
 * find it from the bundle too.
 *
 * @module
 */

import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { bundleForNode } from "./_bundle_for_node.ts";

const [outdir] = Deno.args;
if (outdir === undefined || Deno.args.length !== 1) {
  console.error("usage: scripts/build_node_tests.ts OUTDIR (the folder to write suites.js into)");
  Deno.exit(2);
}
const ROOT = new URL("../", import.meta.url);
await bundleForNode(ROOT, ["tests/node/suites.ts"], pathToFileURL(`${resolve(outdir)}/`));
console.log(`${outdir}/suites.js: run it with node`);
