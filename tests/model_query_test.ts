/**
 * `spillway query` against each model API on a fake server that replays the
 * documented wire format: the caps protect what a real conversation sends.
 * A local tool's 1 MB goes to the model capped (exact marker, at most the
 * threshold) under the call's id; parallel calls together over 2 MiB meet
 * the batch ceiling before the next request; a continued conversation sends
 * its recorded history, compaction stubs included. What was sent is what
 * the stream recorded.
 */

import assert from "node:assert/strict";
import { fakeTestLog } from "../examples/fake_test_log.ts";
import { MAX_TOOL_RESPONSE_BATCH_BYTES } from "../src/review/max_tool_response_batch_bytes.ts";
import { ByteSize } from "../src/size/byte_size.ts";
import type { ChatRequestEvent, ChatResponseEvent } from "../src/stream/events.ts";
import { main } from "../src/cli.ts";
import { captureCommandIo } from "../src/commands/command_io.ts";
import { APIS, queryModel, recordedEvents, withFake } from "./_model_apis.ts";
import { conversationIdOf, REPO, responsesOf } from "./_cli.ts";

const utf8Bytes = (text: string) => new TextEncoder().encode(text).length;
const ONE_MB = 1024 * 1024;
const LOG = fakeTestLog(ONE_MB);

/** The marker of a text cut from `original` to `cap` bytes, computed here from ByteSize. */
const marker = (originalBytes: number, cap: number) =>
  `\n... [truncated, ${ByteSize.fromBytes(originalBytes).human()} → ${
    ByteSize.fromBytes(cap).human()
  }]`;

for (const api of APIS) {
  Deno.test(`${api.name}: a two-cycle turn sends the local tool's 1 MB capped, under its call id, as recorded`, async () => {
    await withFake(async (server, workspace) => {
      server.reply(
        api.answer({
          text: "Running the tests.",
          toolCalls: [{ id: "call_run", name: "noisy_test_run", arguments: { megabytes: 1 } }],
          pieces: 5,
          usage: { input: 1200, output: 30 },
        }),
        api.answer({
          text: "The log was cut at 64 KB; the failures are near the top.",
          usage: { input: 18000, output: 25 },
        }),
      );
      const run = await queryModel(api, server, workspace, "Run the tests");
      assert.equal(run.code, 0, run.stderr);
      assert.equal(
        run.stderr,
        "noisy_test_run: sent 64.0 KB of 1.0 MB to the assistant (size_threshold)\n",
      );
      assert.match(
        run.stdout,
        /^assistant: Running the tests\.\n▸ noisy_test_run \{"megabytes":1\} {2}\(call_run\)\n/,
      );
      assert.match(
        run.stdout,
        /\nassistant: The log was cut at 64 KB; the failures are near the top\.\n/,
      );
      assert.match(
        run.stdout,
        /\nConversation \S+ \(2 model requests, 1 cut response, 19,200 input \+ 55 output tokens\): \S+\n$/,
      );

      // The first request offered the configured tools with their descriptions.
      assert.equal(server.requests.length, 2);
      const offered = api.toolNames(server.requests[0]!);
      for (const name of ["noisy_test_run", "unbounded_test_run", "fs_read_file"]) {
        assert.ok(offered.includes(name), `${name} offered in ${offered}`);
      }
      // The second request carries the capped text under the call's id.
      const sent = api.toolResults(server.requests[1]!);
      assert.deepEqual(sent.map((r) => r.id), ["call_run"]);
      const content = sent[0]!.content;
      const cap = 64 * 1024;
      assert.ok(content.endsWith(marker(utf8Bytes(LOG), cap)), content.slice(-80));
      assert.ok(utf8Bytes(content) <= cap, `${utf8Bytes(content)} bytes sent`);
      assert.ok(LOG.startsWith(content.slice(0, -marker(utf8Bytes(LOG), cap).length)));

      // The stream recorded exactly what was sent, the model asked and what it cost.
      const id = conversationIdOf(run);
      const events = await recordedEvents(workspace, id);
      assert.equal((await responsesOf(workspace, id)).get("call_run")?.content, content);
      const requests = events.filter((e): e is ChatRequestEvent => e.type === "chat_request");
      assert.deepEqual(requests.map((e) => e.model), [
        `${api.name}/test-model`,
        `${api.name}/test-model`,
      ]);
      const answers = events.filter((e): e is ChatResponseEvent => e.type === "chat_response");
      assert.deepEqual(answers.map((e) => [e.input_tokens, e.output_tokens]), [[1200, 30], [
        18000,
        25,
      ]]);
      assert.deepEqual(answers.map((e) => e.text), [
        "Running the tests.",
        "The log was cut at 64 KB; the failures are near the top.",
      ]);
    });
  });

  Deno.test(`${api.name}: parallel calls over 2 MiB together meet the batch ceiling before the next request`, async () => {
    await withFake(async (server, workspace) => {
      const calls = ["call_a", "call_b", "call_c"].map((id) => ({
        id,
        name: "unbounded_test_run",
        arguments: { megabytes: 1 },
      }));
      server.reply(
        api.answer({ toolCalls: calls, pieces: 4 }),
        api.answer({ text: "Three logs, each cut." }),
      );
      const run = await queryModel(api, server, workspace, "Run all three suites");
      assert.equal(run.code, 0, run.stderr);
      // Largest first: three equal responses share the 2 MiB ceiling equally.
      const level = Math.floor(MAX_TOOL_RESPONSE_BATCH_BYTES / 3);
      const notice = `unbounded_test_run: sent ${
        ByteSize.fromBytes(level).human()
      } of 1.0 MB to the assistant (batch ceiling)\n`;
      assert.equal(run.stderr, notice.repeat(3));
      const sent = api.toolResults(server.requests[1]!);
      assert.deepEqual(sent.map((r) => r.id), ["call_a", "call_b", "call_c"]);
      let total = 0;
      for (const { content } of sent) {
        assert.ok(content.endsWith(marker(utf8Bytes(LOG), level)), content.slice(-80));
        total += utf8Bytes(content);
      }
      assert.ok(total <= MAX_TOOL_RESPONSE_BATCH_BYTES, `${total} bytes sent in one batch`);
      const recorded = await responsesOf(workspace, conversationIdOf(run));
      assert.deepEqual(sent.map((r) => recorded.get(r.id)?.content), sent.map((r) => r.content));
    });
  });

  Deno.test(`${api.name}: --conversation sends the recorded history, compaction stubs included`, async () => {
    await withFake(async (server, workspace) => {
      server.reply(
        api.answer({
          text: "Running.",
          toolCalls: [{ id: "call_1", name: "noisy_test_run", arguments: {} }],
        }),
        api.answer({ text: "It failed." }),
      );
      const first = await queryModel(api, server, workspace, "Run the tests");
      assert.equal(first.code, 0, first.stderr);
      const id = conversationIdOf(first);
      // The repair `query` names when a conversation outgrows the context window.
      const io = captureCommandIo({ cwd: REPO });
      const compact = [
        "conversation",
        "compact",
        "--workspace",
        workspace,
        "--tools=strip-responses",
      ];
      assert.equal(await main([...compact, "--over", "16KB", id], io), 0, io.err());

      server.reply(api.answer({ text: "Fixed, I think." }));
      const second = await queryModel(api, server, workspace, "--conversation", id, "Fix it");
      assert.equal(second.code, 0, second.stderr);
      assert.equal(conversationIdOf(second), id);
      const request = server.requests[2]!;
      assert.deepEqual(api.prompts(request), ["Run the tests", "Fix it"]);
      assert.deepEqual(api.toolResults(request), [{
        id: "call_1",
        content:
          "[response removed by compaction: noisy_test_run, 64.0 KB — the original stays in storage]",
      }]);
      const assistantTexts = JSON.stringify(request.body["messages"]);
      assert.ok(assistantTexts.includes("Running.") && assistantTexts.includes("It failed."));
      // The stream still holds the payload the model no longer gets.
      const recorded = await responsesOf(workspace, id);
      assert.ok(recorded.get("call_1")!.content.endsWith(marker(utf8Bytes(LOG), 64 * 1024)));
    });
  });
}
