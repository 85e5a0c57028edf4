/**
 * Tests, doc examples and test helpers run inside the test runner: one that
 * signals its own process can kill the whole run (a SIGHUP that arrives
 * while no listener holds it ends `deno test` with exit 129). Signals go to
 * a child (tests/fixtures/** run as children, so they may signal
 * themselves).
 */

import assert from "node:assert/strict";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const REPO = fileURLToPath(new URL("..", import.meta.url));
/** This file: it spells the forms out to test the pattern. */
const SELF = fileURLToPath(import.meta.url);

/** `Deno.kill(Deno.pid, …)`, `process.kill(process.pid, …)`, and the group forms (`-pid`, `0`). */
const SELF_SIGNAL =
  /\b(?:Deno\.kill|process\.kill)\(\s*-?\s*(?:Deno\.pid|process\.pid|process\.ppid|0\s*,)/;

async function* sourceFiles(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) {
      if (relative(REPO, path) === join("tests", "fixtures")) continue;
      yield* sourceFiles(path);
    } else if (/\.(?:ts|js|md)$/.test(entry.name) && path !== SELF) {
      yield path;
    }
  }
}

Deno.test("no test, doc example or test helper signals the test runner's own process", async () => {
  const offenders: string[] = [];
  let scanned = 0;
  for (const root of ["src", "tests"]) {
    for await (const path of sourceFiles(join(REPO, root))) {
      scanned++;
      const lines = (await Deno.readTextFile(path)).split("\n");
      lines.forEach((line, index) => {
        if (SELF_SIGNAL.test(line)) {
          offenders.push(`${relative(REPO, path)}:${index + 1}: ${line.trim()}`);
        }
      });
    }
  }
  assert.ok(scanned > 100, `only ${scanned} files scanned: is REPO right?`);
  assert.deepEqual(offenders, [], "signal a child process instead");
});

Deno.test("the self-signal pattern matches the forms it is meant to catch", () => {
  for (
    const line of [
      'Deno.kill(Deno.pid, "SIGHUP");',
      'Deno.kill(-Deno.pid, "SIGTERM")',
      'process.kill(process.pid, "SIGTERM")',
      'Deno.kill(0, "SIGINT")',
    ]
  ) assert.match(line, SELF_SIGNAL);
  for (
    const line of [
      'Deno.kill(child.pid, "SIGTERM")',
      'Deno.kill(-pid, "SIGKILL")',
      "const note = `${Deno.pid} started`;",
    ]
  ) assert.doesNotMatch(line, SELF_SIGNAL);
});
