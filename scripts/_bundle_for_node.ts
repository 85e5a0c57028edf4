/**
 * Bundles TypeScript entry points into ES modules that Node 20 and Deno
 * both run: `deno bundle` (the imports of deno.json, whichever packages
 * they name, all inside; what the entries share split into chunks), then
 * esbuild lowers the syntax Node 20 lacks (`using`) in place and puts in
 * the standard functions it lacks (`Promise.withResolvers`, `Array.fromAsync`).
 *
 * @module
 */

import * as esbuild from "esbuild";

/** The oldest Node the package supports (package.json `engines`). */
const NODE_TARGET = "node20";
/**
 * What Node 20 lacks beyond syntax, put in place at the top of each module
 * when missing (both came with Node 22): `Promise.withResolvers`, and
 * `Array.fromAsync` of an iterable or async iterable (the tests use it).
 */
const NODE_20_POLYFILLS = `Promise.withResolvers ??= function withResolvers() {
  let resolve, reject;
  const promise = new this((yes, no) => { resolve = yes; reject = no; });
  return { promise, resolve, reject };
};
Array.fromAsync ??= async function fromAsync(items, map = (item) => item) {
  const array = [];
  for await (const item of items) array.push(await map(item, array.length));
  return array;
};`;

/**
 * Bundles `entries` (paths from `root`) into `outdir` (emptied first); each
 * bundle keeps its place relative to the entries' common folder.
 *
 * @returns the modules written, as paths
 * @throws {Error} when `deno bundle` fails, with its error lines
 */
export async function bundleForNode(
  root: URL,
  entries: readonly string[],
  outdir: URL,
): Promise<string[]> {
  await Deno.remove(outdir, { recursive: true }).catch((error) => {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  });
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--platform=deno",
      "--format=esm",
      "--code-splitting",
      `--outdir=${outdir.pathname}`,
      ...entries,
    ],
    cwd: root,
    stdout: "inherit",
    stderr: "piped",
  }).output();
  if (!output.success) {
    const problems = new TextDecoder().decode(output.stderr).split("\n")
      .filter((line) => /\berror\b/i.test(line)).join("\n");
    throw new Error(`deno bundle ${entries.join(" ")} failed:\n${problems}`);
  }
  const modules = modulesIn(outdir.pathname);
  try {
    await esbuild.build({
      entryPoints: modules,
      outdir: outdir.pathname,
      outbase: outdir.pathname,
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
  return modules;
}

/** Every `.js` file under `dir`, as paths. */
function modulesIn(dir: string): string[] {
  return [...Deno.readDirSync(dir)].flatMap((entry) => {
    const path = `${dir.endsWith("/") ? dir : `${dir}/`}${entry.name}`;
    if (entry.isDirectory) return modulesIn(path);
    return entry.name.endsWith(".js") ? [path] : [];
  });
}
