/**
 * One turn through `createRuntime` with two real local tools whose outputs
 * together overflow the 2 MiB batch ceiling: a test run configured with
 * `truncation = "tail"` and a report with `truncation = "head_tail"`. Each
 * must be cut by the ceiling with its own strategy, and what the stream
 * records (which is what the assistant receives) must stay within 2 MiB.
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { fileURLToPath } from "node:url";
import { fakeTestLog } from "../examples/fake_test_log.ts";
import { parseConfig } from "../src/config/parse_config.ts";
import type { NoticeFact } from "../src/review/notice.ts";
import { MAX_TOOL_RESPONSE_BATCH_BYTES } from "../src/review/max_tool_response_batch_bytes.ts";
import { createRuntime } from "../src/runtime/create_runtime.ts";
import { capText, truncationMarker } from "../src/size/cap_text.ts";
import type { ToolCallResponseEvent } from "../src/stream/events.ts";

const REPO = fileURLToPath(new URL("..", import.meta.url));
const MIB = 1024 * 1024;
const TEST_LOG_BYTES = 3 * MIB;
const REPORT_ROWS = 150_000;

// The report: a title and a table head, 150,000 rows, and the summary last.
const REPORT_SCRIPT = `
const rows = [];
for (let i = 0; i < ${REPORT_ROWS}; i++) rows.push("| row " + i + " | ok |");
const text = "# Nightly report\\n| name | state |\\n" + rows.join("\\n") + "\\n## Summary: 3 regressions\\n";
await Deno.stdout.write(new TextEncoder().encode(text));
`;

function expectedReport(): string {
  const rows: string[] = [];
  for (let i = 0; i < REPORT_ROWS; i++) rows.push(`| row ${i} | ok |`);
  return `# Nightly report\n| name | state |\n${rows.join("\n")}\n## Summary: 3 regressions\n`;
}

Deno.test("a turn's tail and head_tail tools are each cut by the batch ceiling their own way, within 2 MiB", async () => {
  const workspace = await Deno.makeTempDir({ prefix: "spillway_truncation_" });
  const deno = JSON.stringify(Deno.execPath());
  const config = parseConfig(
    `
[conversation.tools.test_run]
source = "local"
command = [${deno}, "run", "examples/tools/noisy_test_run.ts"]
size_threshold = "unlimited"
truncation = "tail"

[conversation.tools.report]
source = "local"
command = [${deno}, "eval", ${JSON.stringify(REPORT_SCRIPT)}]
size_threshold = "unlimited"
truncation = "head_tail"
`,
    "truncation.toml",
  );
  const notices: NoticeFact[] = [];
  const runtime = await createRuntime({
    workspace,
    config,
    cwd: REPO,
    noticeSink: { notice: (fact) => notices.push(fact) },
    provider: ({ cycle }) =>
      Promise.resolve(
        cycle === 0
          ? {
            text: "Running the tests and the report.",
            toolCalls: [
              {
                id: "call_tests",
                name: "test_run",
                arguments: { megabytes: TEST_LOG_BYTES / MIB },
              },
              { id: "call_report", name: "report", arguments: {} },
            ],
          }
          : { text: "Done.", toolCalls: [] },
      ),
  });
  try {
    const result = await runtime.query("run everything");
    const lines = (await Deno.readTextFile(result.location)).trimEnd().split("\n");
    const responses = new Map(
      lines.map((line) => JSON.parse(line) as { type: string })
        .filter((event): event is ToolCallResponseEvent => event.type === "tool_call_response")
        .map((event) => [event.id, event]),
    );
    const tests = responses.get("call_tests")!.content;
    const report = responses.get("call_report")!.content;
    const log = fakeTestLog(TEST_LOG_BYTES);
    const fullReport = expectedReport();
    const total = Buffer.byteLength(tests) + Buffer.byteLength(report);
    assert.ok(total <= MAX_TOOL_RESPONSE_BATCH_BYTES, `${total} bytes recorded`);

    // Both were cut by the ceiling, to one share, and the notices say so (in the order the
    // two processes finished: either).
    assert.deepEqual(notices.map((n) => [n.callId, n.cause]).sort(), [
      ["call_report", "batch ceiling"],
      ["call_tests", "batch ceiling"],
    ]);
    const share = notices[0]!.capBytes;
    assert.equal(notices[1]!.capBytes, share);
    assert.equal(share, MAX_TOOL_RESPONSE_BATCH_BYTES / 2);

    // The test run keeps its end, where the verdict is.
    const testsMarker = truncationMarker(TEST_LOG_BYTES, share);
    assert.ok(tests.startsWith(testsMarker + "\n"), tests.slice(0, 80));
    assert.ok(log.endsWith(tests.slice(testsMarker.length + 1)));
    assert.match(tests, /\ntest result: (ok|FAILED)\. \d+ passed; \d+ failed\n$/);
    assert.equal(tests, capText(log, share, { strategy: "tail" }).text);

    // The report keeps both ends, the marker between them.
    const reportMarker = truncationMarker(Buffer.byteLength(fullReport), share);
    const [head, tail, ...more] = report.split("\n" + reportMarker + "\n");
    assert.equal(more.length, 0);
    assert.ok(head!.startsWith("# Nightly report\n| name | state |\n| row 0 | ok |"));
    assert.ok(fullReport.startsWith(head!));
    assert.ok(tail!.endsWith("## Summary: 3 regressions\n"));
    assert.ok(fullReport.endsWith(tail!));
    assert.ok(Math.abs(Buffer.byteLength(head!) - Buffer.byteLength(tail!)) <= 3);
    assert.equal(result.text, "Done.");
  } finally {
    await runtime.close();
    await Deno.remove(workspace, { recursive: true });
  }
});
