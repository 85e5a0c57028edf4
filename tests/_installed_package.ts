/**
 * The npm package as a user gets it, for the tests that run it: the tarball
 * `npm pack` made (`.ci/run` packs it and names it in
 * `SPILLWAY_PACKAGE_TARBALL`), installed with npm into an empty folder, and
 * a `PATH` that holds node, npm, npx and sh but no deno. Without the
 * variable the package tests are ignored, unless `SPILLWAY_REQUIRE_PACKAGE`
 * is set (CI): then they fail, saying so.
 *
 * @module
 */

import { basename } from "node:path";
import { join } from "./_paths.ts";

/** The tarball to test, from `SPILLWAY_PACKAGE_TARBALL`; undefined when unset. */
export const PACKAGE_TARBALL = Deno.env.get("SPILLWAY_PACKAGE_TARBALL");

/** Whether the package tests must run (CI) rather than be ignored without a tarball. */
export const PACKAGE_REQUIRED = Deno.env.get("SPILLWAY_REQUIRE_PACKAGE") !== undefined;

/** The programs a machine with only Node and npm has (sh: npm runs scripts with it). */
const NODE_ONLY_PROGRAMS = ["node", "npm", "npx", "sh"];

/** A folder with the package installed, and the environment of a machine without Deno. */
export interface InstalledPackage {
  /** The folder: `node_modules/spillway` is the package. */
  readonly dir: string;
  /** This process's environment, with a `PATH` of node, npm, npx and sh only. */
  readonly env: Record<string, string>;
  /** Removes the folder. */
  remove(): Promise<void>;
}

/**
 * Installs the package into a new empty folder, as a user of a machine
 * without Deno would (`npm install ./spillway-<version>.tgz`).
 *
 * @throws {Error} when no tarball is named (the test should have been
 *   ignored), or when npm fails (with npm's output)
 */
export async function installPackage(): Promise<InstalledPackage> {
  if (PACKAGE_TARBALL === undefined) {
    throw new Error(
      "SPILLWAY_PACKAGE_TARBALL names no tarball: run `npm pack` first (.ci/run does)",
    );
  }
  const root = await Deno.makeTempDir({ prefix: "spillway-package-" });
  const remove = () => Deno.remove(root, { recursive: true });
  try {
    const bin = join(root, "bin");
    await Deno.mkdir(bin);
    for (const program of NODE_ONLY_PROGRAMS) {
      await Deno.symlink(await which(program), join(bin, program));
    }
    const env = { ...Deno.env.toObject(), PATH: bin, NO_COLOR: "1" };
    const dir = join(root, "app");
    await Deno.mkdir(dir);
    const tarball = join(dir, basename(PACKAGE_TARBALL));
    await Deno.copyFile(PACKAGE_TARBALL, tarball);
    const npm = await new Deno.Command(join(bin, "npm"), {
      args: ["install", "--no-audit", "--no-fund", "--prefer-offline", `./${basename(tarball)}`],
      cwd: dir,
      env,
      clearEnv: true,
    }).output();
    if (!npm.success) {
      const said = new TextDecoder().decode(new Uint8Array([...npm.stdout, ...npm.stderr]));
      throw new Error(`npm install ${basename(tarball)} failed:\n${said}`);
    }
    return { dir, env, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}

/** The real path of `program` on this process's PATH. */
async function which(program: string): Promise<string> {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    const path = join(dir, program);
    try {
      if ((await Deno.stat(path)).isFile) return await Deno.realPath(path);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  throw new Error(`${program} is not on PATH: the package tests need Node and npm`);
}
