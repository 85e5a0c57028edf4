/**
 * Builds what the npm package ships in `dist/`: the command line
 * (`cli.js`, run by the Deno binary of the `deno` npm package) and the
 * library (`mod.js` and `testing/mod.js`, imported by Node and Deno alike),
 * with every npm dependency inside, so nothing is fetched at run time.
 *
 * Run by `npm pack` (the `prepack` script), or by hand: `deno task build`.
 *
 * @module
 */

import { bundleForNode } from "./_bundle_for_node.ts";

const ROOT = new URL("../", import.meta.url);
/**
 * The entry points; each one's bundle keeps its place under `src/`
 * (`dist/cli.js`, `dist/mod.js`, `dist/testing/mod.js`, `dist/adapters/*.js`).
 */
const ENTRIES: readonly string[] = [
  "src/cli.ts",
  "src/mod.ts",
  "src/testing/mod.ts",
  // The framework adapters (package subpaths); they import their framework's types only.
  "src/adapters/ai_sdk.ts",
  "src/adapters/openai_agents.ts",
  "src/adapters/langchain.ts",
  "src/adapters/mastra.ts",
  "src/adapters/claude_agent_sdk.ts",
];

const modules = await bundleForNode(ROOT, ENTRIES, new URL("dist/", ROOT));
const bytes = modules.reduce((sum, path) => sum + Deno.statSync(path).size, 0);
console.log(`dist/: ${modules.length} modules, ${(bytes / 2 ** 20).toFixed(1)} MiB`);
