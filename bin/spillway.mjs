#!/usr/bin/env node
// The `spillway` command of the npm package. spillway's command line is a
// Deno program (dist/cli.js, bundled with every dependency inside); this
// starts it with the Deno binary of the `deno` npm package, so Node and npm
// are all a machine needs. `deno` is a peer dependency, which npm installs:
// as a dependency, Deno's own task runner in a checkout would take its bin
// for `deno`. Arguments, stdio, the exit code and stop signals pass through.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

/** What the command line may touch: the same as `deno task spillway`. */
const PERMISSIONS = [
  "--allow-read",
  "--allow-write",
  "--allow-run",
  "--allow-env",
  "--allow-net",
  "--allow-sys",
];
/** The signals spillway stops on; a second one changes nothing there. */
const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"];

const deno = denoBinary();
const cli = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
const child = spawn(
  deno,
  ["run", "--quiet", "--no-config", "--no-lock", ...PERMISSIONS, cli, ...process.argv.slice(2)],
  {
    stdio: "inherit",
    env: { ...process.env, DENO_NO_UPDATE_CHECK: "1", SPILLWAY_PROGRAM: "spillway" },
  },
);
for (const signal of STOP_SIGNALS) process.on(signal, () => child.kill(signal));
child.on("error", (error) => {
  process.stderr.write(`spillway: could not start Deno at ${deno}: ${error.message}\n`);
  process.exit(1);
});
child.on("exit", (code, signal) => {
  if (signal === null) process.exit(code ?? 1);
  // Killed by a signal spillway does not handle: die of the same one.
  process.removeAllListeners(signal);
  process.kill(process.pid, signal);
});

/** The path of the Deno binary of the `deno` package (installed on first use if its script did not run). */
function denoBinary() {
  const require = createRequire(import.meta.url);
  try {
    return require("deno/install_api.cjs").runInstall();
  } catch (error) {
    process.stderr.write(
      `spillway: the Deno binary of the "deno" npm package is missing (${error.message}).\n` +
        "Reinstall spillway with npm 7 or later, without --legacy-peer-deps: it installs the peer\n" +
        "dependency deno, whose optional dependency @deno/<platform> holds the binary.\n",
    );
    process.exit(1);
  }
}
