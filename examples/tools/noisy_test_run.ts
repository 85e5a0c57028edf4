/**
 * A local tool for spillway that behaves like a chatty test runner: it
 * prints a fake test log of about 1 MB (or `{ "megabytes": N }`) and, with
 * `{ "fail": true }`, exits with code 1 and a message on stderr.
 *
 * ```toml
 * [conversation.tools.noisy_test_run]
 * source = "local"
 * command = ["deno", "run", "examples/tools/noisy_test_run.ts"]
 * size_threshold = "64KB"
 * ```
 *
 * Its output is far larger than a useful tool result: with the threshold
 * above spillway sends the assistant the first 64 KB and a marker, and the
 * terminal still shows the whole run. No permissions needed.
 *
 * @module
 */

import { fakeTestLog } from "../fake_test_log.ts";

const input = await new Response(Deno.stdin.readable).text();
const args: { megabytes?: unknown; fail?: unknown } = input.trim() === "" ? {} : JSON.parse(input);
const megabytes = typeof args.megabytes === "number" && args.megabytes > 0 ? args.megabytes : 1;
const log = fakeTestLog(Math.max(200, Math.round(megabytes * 1024 * 1024)));

// One write of the whole log: stdout is a pipe, and Deno waits for it to drain.
const bytes = new TextEncoder().encode(log);
for (let written = 0; written < bytes.length;) {
  written += await Deno.stdout.write(bytes.subarray(written));
}
if (args.fail === true) {
  console.error("noisy_test_run: 1 or more tests failed");
  Deno.exit(1);
}
