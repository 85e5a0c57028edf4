/**
 * Builds what the npm package ships in `dist/`: the command line
 * (`cli.js`, run by the Deno binary of the `deno` npm dependency) and the
 * library (`mod.js` and `testing.js`, imported by Node and Deno alike), as
 * ES modules with every npm dependency inside, so nothing is fetched at run
 * time. `deno bundle` resolves the imports of deno.json (whichever packages
 * they name) and splits what the entry points share into chunks; esbuild
 * then lowers the syntax Node 20 lacks (`using`) in place, and puts in the
 * one standard function it lacks (`Promise.withResolvers`).
 *
 * Run by `npm pack` (the `prepack` script), or by hand:
 * `deno run --allow-read --allow-write --allow-run --allow-env scripts/build.ts`.
 *
 * @module
 */

import * as esbuild from "esbuild";

const ROOT = new URL("../", import.meta.url);
const DIST = new URL("dist/", ROOT);
/**
 * The entry points; each one's bundle keeps its place under `src/`
 * (`dist/cli.js`, `dist/mod.js`, `dist/testing/mod.js`).
 */
const ENTRIES: readonly string[] = ["src/cli.ts", "src/mod.ts", "src/testing/mod.ts"];
/** The oldest Node the package supports (package.json `engines`). */
const NODE_TARGET = "node20";
/**
 * What Node 20 lacks beyond syntax, put in place at the top of each module
 * when missing: `Promise.withResolvers` (Node 22), as the standard defines it.
 */
const NODE_20_POLYFILLS = `Promise.withResolvers ??= function withResolvers() {
  let resolve, reject;
  const promise = new this((yes, no) => { resolve = yes; reject = no; });
  return { promise, resolve, reject };
};`;

await Deno.remove(DIST, { recursive: true }).catch((error) => {
  if (!(error instanceof Deno.errors.NotFound)) throw error;
});
await bundle();
const modules = modulesIn(DIST.pathname);
await lower(modules);
const bytes = modules.reduce((sum, path) => sum + Deno.statSync(path).size, 0);
console.log(`dist/: ${modules.length} modules, ${(bytes / 2 ** 20).toFixed(1)} MiB`);

/** Every `.js` file under `dir`, as paths. */
function modulesIn(dir: string): string[] {
  return [...Deno.readDirSync(dir)].flatMap((entry) => {
    const path = `${dir}${entry.name}`;
    if (entry.isDirectory) return modulesIn(`${path}/`);
    return entry.name.endsWith(".js") ? [path] : [];
  });
}

/** `deno bundle` of every entry point into `dist/`, shared code in chunks. */
async function bundle(): Promise<void> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--platform=deno",
      "--format=esm",
      "--code-splitting",
      `--outdir=${DIST.pathname}`,
      ...ENTRIES,
    ],
    cwd: ROOT,
    stdout: "inherit",
    stderr: "piped",
  }).output();
  const problems = new TextDecoder().decode(output.stderr).split("\n")
    .filter((line) => /\berror\b/i.test(line)).join("\n");
  if (!output.success) {
    throw new Error(`deno bundle ${ENTRIES.join(" ")} failed:\n${problems}`);
  }
}

/** Rewrites each module in place with only the syntax `NODE_TARGET` knows. */
async function lower(paths: readonly string[]): Promise<void> {
  try {
    await esbuild.build({
      entryPoints: [...paths],
      outdir: DIST.pathname,
      outbase: DIST.pathname,
      allowOverwrite: true,
      bundle: false,
      format: "esm",
      platform: "node",
      target: NODE_TARGET,
      banner: { js: NODE_20_POLYFILLS },
      logLevel: "warning",
    });
  } finally {
    await esbuild.stop();
  }
}
