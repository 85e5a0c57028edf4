/**
 * `deno task demo` end to end: the demo's command runs in a copy of the
 * repository (the files a fresh clone has: `deno.json`, `deno.lock`, `src/`,
 * `examples/`), so the test leaves nothing in the working tree and sees the
 * demo exactly as a new user does, with no `.spillway/` yet.
 *
 * The demo's batch holds a 2 MB local result (cut by the default 256KB
 * threshold) and a 5 MB upstream report with `size_threshold = "unlimited"`
 * (cut by the 2 MiB batch ceiling). The ceiling's share is computed here from
 * what the stream recorded for the other calls, by the rule of docs/caps.md (largest first).
 */

import assert from "node:assert/strict";
import { cp } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { fakeTestLog } from "../examples/fake_test_log.ts";
import { MAX_TOOL_RESPONSE_BATCH_BYTES } from "../src/review/max_tool_response_batch_bytes.ts";
import { ByteSize } from "../src/size/byte_size.ts";

const REPO = fileURLToPath(new URL("..", import.meta.url));

/** The `demo` task of deno.json as an argv, with `--quiet` so Deno itself adds nothing to stderr. */
async function demoTaskArgs(): Promise<string[]> {
  const config = JSON.parse(await Deno.readTextFile(join(REPO, "deno.json"))) as {
    tasks: Record<string, string>;
  };
  const words = (config.tasks.demo ?? "").split(" ");
  assert.deepEqual(words.slice(0, 2), ["deno", "run"], `the demo task: ${config.tasks.demo}`);
  return ["run", "--quiet", ...words.slice(2)];
}

interface ResponseEvent {
  readonly type: "tool_call_response";
  readonly id: string;
  readonly content: string;
}

const utf8Bytes = (text: string) => new TextEncoder().encode(text).length;

async function copyOfRepository(): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "spillway_demo_" });
  for (const file of ["deno.json", "deno.lock"]) {
    await Deno.copyFile(join(REPO, file), join(root, file));
  }
  for (const dir of ["src", "examples"]) {
    await cp(join(REPO, dir), join(root, dir), { recursive: true });
  }
  return root;
}

Deno.test("deno task demo caps two multi-megabyte results, prints two notices and writes the stream", async () => {
  const root = await copyOfRepository();
  try {
    const output = await new Deno.Command(Deno.execPath(), {
      args: await demoTaskArgs(),
      cwd: root,
      env: { XDG_CONFIG_HOME: join(root, "no-user-config") },
      stdin: "null",
    }).output();
    const stdout = new TextDecoder().decode(output.stdout);
    const stderr = new TextDecoder().decode(output.stderr);
    assert.equal(output.code, 0, stderr);

    const closing = /\nConversation (\S+) \(2 model requests, 2 cut responses\): (\S+)\n$/.exec(
      stdout,
    );
    assert.ok(closing, `no closing line in:\n${stdout.slice(-400)}`);
    const [, id, shown] = closing;
    const path = join(".spillway", "demo", "conversations", id!, "events.jsonl");
    assert.equal(shown, path, "the stream path is shown relative to the repository");
    const log = await Deno.readTextFile(join(root, path));
    const responses = new Map<string, string>();
    for (const line of log.trimEnd().split("\n")) {
      const event = JSON.parse(line) as { type: string };
      if (event.type === "tool_call_response") {
        const response = event as ResponseEvent;
        responses.set(response.id, response.content);
      }
    }
    assert.deepEqual([...responses.keys()].sort(), ["call_1", "call_2", "call_3", "call_4"]);

    // call_2: noisy_test_run, 2 MB, default threshold. call_3: big_report, 5 MB, unlimited.
    const testLogBytes = utf8Bytes(fakeTestLog(2 * 1024 * 1024));
    const reportBytes = utf8Bytes(fakeTestLog(5 * 1024 * 1024));
    const threshold = ByteSize.parse("256KB");
    // Largest first: only the report exceeds the level, so it gets what the others leave.
    const others = ["call_1", "call_2", "call_4"]
      .reduce((sum, call) => sum + utf8Bytes(responses.get(call)!), 0);
    const share = ByteSize.fromBytes(MAX_TOOL_RESPONSE_BATCH_BYTES - others);
    assert.equal(
      stderr,
      `noisy_test_run: sent ${threshold.human()} of ${
        ByteSize.fromBytes(testLogBytes).human()
      } to the assistant (size_threshold)\n` +
        `big_report: sent ${share.human()} of ${
          ByteSize.fromBytes(reportBytes).human()
        } to the assistant (batch ceiling)\n`,
    );
    assert.equal(
      stderr,
      "noisy_test_run: sent 256.0 KB of 2.0 MB to the assistant (size_threshold)\n" +
        "big_report: sent 1.7 MB of 5.0 MB to the assistant (batch ceiling)\n",
    );
    const report = responses.get("call_3")!;
    assert.ok(report.endsWith(`\n... [truncated, 5.0 MB → ${share.human()}]`));
    assert.ok(utf8Bytes(report) <= share.bytes);
    assert.ok(others + utf8Bytes(report) <= MAX_TOOL_RESPONSE_BATCH_BYTES);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
