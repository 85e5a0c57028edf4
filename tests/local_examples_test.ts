/**
 * The example local tools (examples/tools/) run through the `local` tool
 * source exactly as the demo configures them: argv commands reading JSON
 * arguments on stdin.
 */

import assert from "node:assert/strict";
import { fakeTestLog } from "../examples/fake_test_log.ts";
import { LocalToolSource } from "../src/service/local/local_tool_source.ts";

const never = new AbortController().signal;
const tool = (
  file: string,
) => [Deno.execPath(), "run", new URL(`../examples/tools/${file}`, import.meta.url).pathname];

Deno.test("example tools run as local tools", async (t) => {
  const source = new LocalToolSource({
    tools: [
      { name: "word_count", command: tool("word_count.ts") },
      { name: "noisy_test_run", command: tool("noisy_test_run.ts") },
    ],
  });
  try {
    await t.step("word_count counts the words of its text argument", async () => {
      const result = await source.call("word_count", { text: "one two  three\nfour" }, {
        signal: never,
      });
      assert.deepEqual(result, {
        content: [{ type: "text", text: "4 words, 2 lines, 19 bytes\n" }],
      });
    });

    await t.step("word_count without text is an error result with its usage", async () => {
      const result = await source.call("word_count", {}, { signal: never });
      assert.equal(result.isError, true);
      assert.equal(
        result.content[0]?.text,
        'exit code 2\n\nstderr:\nword_count: expected arguments like {"text": "some words"}\n',
      );
    });

    await t.step("noisy_test_run prints about 1 MB of test log by default", async () => {
      const result = await source.call("noisy_test_run", {}, { signal: never });
      assert.equal(result.content[0]?.text, fakeTestLog(1024 * 1024));
    });

    await t.step("noisy_test_run with fail exits 1 and keeps its log", async () => {
      const result = await source.call("noisy_test_run", { megabytes: 0.01, fail: true }, {
        signal: never,
      });
      assert.equal(result.isError, true);
      const text = result.content[0]?.text as string;
      assert.ok(
        text.startsWith(
          "exit code 1\n\nstderr:\nnoisy_test_run: 1 or more tests failed\n\nstdout:\nrunning ",
        ),
      );
      assert.ok(text.endsWith(fakeTestLog(Math.round(0.01 * 1024 * 1024))));
    });
  } finally {
    await source.close();
  }
});
