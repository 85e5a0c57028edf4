/**
 * The failures a person meets when `spillway query` talks to a model API,
 * against a fake server replaying each API's error bodies with their real
 * status codes: each is one clear line, recorded as the turn's failure, and
 * the conversation stays readable and consistent. A rate limit that passes
 * is retried; Ctrl-C while the answer streams in records what had arrived
 * as a cancelled answer. `query` without a model is a usage error.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "../src/cli.ts";
import { captureCommandIo } from "../src/commands/command_io.ts";
import type { StreamEvent } from "../src/stream/events.ts";
import { FileStreamStore } from "../src/stream/file_stream_store.ts";
import { APIS, queryModel, recordedEvents, withFake } from "./_model_apis.ts";
import { conversationIdOf, REPO, spawnQuery } from "./_cli.ts";

/** Loads a conversation through the store, as a later `query` would: no warning, every event. */
async function loadCleanly(workspace: string, id: string): Promise<StreamEvent[]> {
  const stream = await new FileStreamStore(join(workspace, "conversations")).open(id);
  try {
    const loaded = await stream.load();
    assert.deepEqual(loaded.warnings, []);
    return [...loaded.events];
  } finally {
    await stream.close();
  }
}

for (const api of APIS) {
  Deno.test(`${api.name}: the context window exceeded fails the turn in one line, names the repair, keeps the stream whole`, async () => {
    await withFake(async (server, workspace) => {
      server.reply(
        api.answer({ toolCalls: [{ id: "call_1", name: "noisy_test_run", arguments: {} }] }),
        api.contextWindow(),
      );
      const run = await queryModel(api, server, workspace, "Run the tests");
      assert.equal(run.code, 1);
      const id = conversationIdOf(run);
      const [notice, failed, where, repairHead, repair, ...rest] = run.stderr.split("\n");
      assert.equal(
        notice,
        "noisy_test_run: sent 64.0 KB of 1.0 MB to the assistant (size_threshold)",
      );
      assert.equal(failed, `The turn failed: ${expectedContextMessage(api.name)}`);
      // The first request's tokens were spent all the same.
      const path = join(workspace, "conversations", id, "events.jsonl");
      assert.equal(where, `Conversation ${id} (12 input + 34 output tokens): ${path}`);
      assert.equal(repairHead, "Repair without a model call (the log keeps every original byte):");
      assert.equal(
        repair,
        "  deno task spillway conversation compact --tools=strip-responses --over 32KB " +
          `--workspace ${workspace} ${id}`,
      );
      assert.deepEqual(rest, [""]);
      const events = await loadCleanly(workspace, id);
      assert.deepEqual(events.map((e) => e.type), [
        "turn_start",
        "chat_request",
        "chat_response",
        "tool_call_request",
        "tool_call_response",
        "chat_request",
        "turn_end",
      ]);
      assert.deepEqual(events.at(-1), {
        ...events.at(-1),
        status: "failed",
        reason: expectedContextMessage(api.name),
      });

      // The command named repairs it: run it as printed, then continue.
      const command = repair!.slice(repair!.indexOf("spillway ") + "spillway ".length).split(" ");
      const io = captureCommandIo({ cwd: REPO });
      assert.equal(await main(command, io), 0, io.err());
      server.reply(api.answer({ text: "Continuing without the log." }));
      const next = await queryModel(api, server, workspace, "--conversation", id, "Go on");
      assert.equal(next.code, 0, next.stderr);
      const sent = api.toolResults(server.requests.at(-1)!);
      assert.deepEqual(sent.map((r) => r.id), ["call_1"]);
      assert.match(sent[0]!.content, /^\[response removed by compaction: noisy_test_run, 64\.0 KB/);
    });
  });

  Deno.test(`${api.name}: a rate limit that passes is retried inside one request`, async () => {
    await withFake(async (server, workspace) => {
      server.reply(api.rateLimited(), api.answer({ text: "Here now." }));
      const run = await queryModel(api, server, workspace, "Hello");
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stderr, "");
      assert.equal(server.requests.length, 2);
      const events = await recordedEvents(workspace, conversationIdOf(run));
      assert.equal(events.filter((e) => e.type === "chat_request").length, 1);
    });
  });

  Deno.test(`${api.name}: a refused key fails the turn in one line naming the variable`, async () => {
    await withFake(async (server, workspace) => {
      server.reply(api.unauthorized());
      const run = await queryModel(api, server, workspace, "Hello");
      assert.equal(run.code, 1);
      const base = api.name === "openai" ? `${server.url}/v1` : server.url;
      const said = api.name === "openai"
        ? "Incorrect API key provided: sk-test."
        : "invalid x-api-key";
      assert.equal(
        run.stderr.split("\n")[0],
        `The turn failed: ${base} refused the API key in ${api.keyEnv} (401): ${said}`,
      );
      const events = await loadCleanly(workspace, conversationIdOf(run));
      assert.deepEqual(events.map((e) => e.type), ["turn_start", "chat_request", "turn_end"]);
    });
  });

  Deno.test(`${api.name}: Ctrl-C while the answer streams in records the partial answer as cancelled`, async () => {
    await withFake(async (server, workspace) => {
      server.reply(
        api.answer({ text: "Let me explain this at some length", truncated: true }, { hold: true }),
      );
      const child = spawnQuery(
        workspace,
        ["--model", `${api.name}/test-model`, "--cfg", api.baseUrlCfg(server), "Explain"],
        { cwd: REPO, clearEnv: true, denoFlags: ["--allow-net=127.0.0.1"] },
      );
      const errors = new Response(child.stderr).text();
      const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
      let stdout = "";
      while (!stdout.includes("at some length")) {
        const { value, done } = await reader.read();
        if (done) break;
        stdout += value;
      }
      assert.equal(stdout, "assistant: Let me explain this at some length");
      child.kill("SIGINT");
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        stdout += value;
      }
      const status = await child.status;
      const stderr = await errors;
      assert.equal(status.code, 130, stderr); // 128 + SIGINT
      // The interrupted answer's line is ended before the interrupt is reported.
      assert.equal(stdout, "assistant: Let me explain this at some length\n");
      assert.match(
        stderr,
        /^interrupted \(Ctrl-C\): cancelling; running calls get their cancellation response…\n/,
      );
      assert.match(stderr, /\nThe turn failed: the turn was cancelled\n/);
      const id = /Conversation (\S+):/.exec(stderr)?.[1];
      assert.ok(id, stderr);
      const events = await loadCleanly(workspace, id);
      const answer = events.find((e) => e.type === "chat_response");
      assert.deepEqual(answer, {
        ...answer,
        text: "Let me explain this at some length",
        cancelled: true,
      });
      assert.deepEqual(events.at(-1), {
        ...events.at(-1),
        status: "failed",
        reason: "the turn was cancelled",
      });
    });
  });
}

function expectedContextMessage(api: string): string {
  return api === "openai"
    ? "the conversation is too long for openai/test-model's context window: This model's maximum " +
      "context length is 8192 tokens. However, your messages resulted in 19321 tokens. Please reduce the length of the messages."
    : "the conversation is too long for anthropic/test-model's context window: prompt is too long: " +
      "215311 tokens > 200000 maximum";
}

Deno.test("query with neither a model nor --script is a usage error naming both ways", async () => {
  const workspace = await Deno.makeTempDir({ prefix: "spillway_model_" });
  try {
    const io = captureCommandIo({ cwd: workspace });
    assert.equal(await main(["query", "--workspace", workspace, "Hello"], io), 2);
    assert.equal(
      io.err(),
      "spillway query: no model to ask: pass --model PROVIDER/MODEL (e.g. --model " +
        'openai/gpt-4.1-mini, or set [assistant.model] id = "…" in config.toml), or --script FILE ' +
        "to replay a scripted model (see examples/demo/script.toml)\n" +
        "Run `deno task spillway query --help` for usage.\n",
    );
    const both = captureCommandIo({ cwd: workspace });
    const args = [
      "query",
      "--model",
      "openai/m",
      "--cfg",
      "providers.llm.openai.base_url=http://127.0.0.1:9/v1",
    ];
    assert.equal(await main([...args, "--script", "s.toml", "Hello"], both), 2);
    assert.match(both.err(), /--script and --model both choose the model: pass one of them/);
    const entries = [];
    for await (const entry of Deno.readDir(workspace)) entries.push(entry.name);
    assert.deepEqual(entries, [], "nothing recorded");
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
});
