import assert from "node:assert/strict";
import { parseConfig } from "../config/parse_config.ts";
import { SpillwayError } from "../errors/spillway_error.ts";
import { CollectingNoticeSink } from "../testing/collecting_notice_sink.ts";
import { FakeToolSource, text } from "../testing/fake_tool_source.ts";
import { StepProvider } from "../testing/step_provider.ts";
import { createRuntime } from "./create_runtime.ts";

const provider = () => Promise.resolve({ text: "ok", toolCalls: [] });

async function startError(toml: string): Promise<SpillwayError> {
  const workspace = await Deno.makeTempDir();
  try {
    await createRuntime({ workspace, config: parseConfig(toml, "c.toml"), provider });
  } catch (error) {
    assert.ok(error instanceof SpillwayError);
    return error;
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
  throw new Error("createRuntime started");
}

Deno.test("createRuntime() refuses ask/edit without a prompter, naming the entry to change", async () => {
  const inherited = await startError(`[conversation.tools.'*']\nresult = "ask"`);
  assert.equal(inherited.code, "terminal_required");
  assert.equal(
    inherited.message,
    `conversation.tools.'*'.result = "ask" (used by fs_list_files) needs a person to ask, and no ` +
      `terminal is attached: run in a terminal, or set result = "unattended" ` +
      `(e.g. --cfg conversation.tools.'*'.result=unattended)`,
  );
  const own = await startError(`[conversation.tools.fs_read_file]\nrun = "edit"`);
  assert.equal(
    own.message,
    `conversation.tools.fs_read_file.run = "edit" needs a person to ask, and no terminal is ` +
      `attached: run in a terminal, or set run = "unattended" ` +
      `(e.g. --cfg conversation.tools.fs_read_file.run=unattended)`,
  );
});

Deno.test("createRuntime() says so when an HTTP upstream cannot be reached", async () => {
  const error = await startError(
    `[providers.mcp.docs]\ntype = "http"\nurl = "http://127.0.0.1:9/mcp"`,
  );
  assert.equal(error.code, "tool_unavailable");
  assert.equal(
    error.message,
    "cannot start upstream server mcp.docs: http://127.0.0.1:9/mcp: it cannot be reached",
  );
});

Deno.test("createRuntime() continues a conversation with its history", async () => {
  const workspace = await Deno.makeTempDir();
  const seen: number[] = [];
  const runtime = await createRuntime({
    workspace,
    config: parseConfig(""),
    provider: ({ messages }) => {
      seen.push(messages.length);
      return Promise.resolve({ text: "ok", toolCalls: [] });
    },
  });
  try {
    const first = await runtime.query("one");
    await runtime.query("two", { conversationId: first.conversationId });
    assert.deepEqual(seen, [1, 3]); // [user] then [user, assistant, user]
  } finally {
    await runtime.close();
    await Deno.remove(workspace, { recursive: true });
  }
});

Deno.test("createRuntime() runs the tools of a tool source passed in code, configured by their own entry, and closes it", async () => {
  const workspace = await Deno.makeTempDir();
  const source = new FakeToolSource("app", {
    lookup: (args) => Promise.resolve(text(`found ${String(args.key)} `.repeat(1000))),
  });
  const provider = new StepProvider([
    { text: "Looking.", toolCalls: [{ id: "c1", name: "lookup", arguments: { key: "k" } }] },
    { text: "Done.", toolCalls: [] },
  ]);
  const runtime = await createRuntime({
    workspace,
    config: parseConfig(`[conversation.tools.lookup]\nsize_threshold = "1KB"`),
    provider,
    toolSources: [source],
    noticeSink: new CollectingNoticeSink(),
  });
  try {
    assert.ok(runtime.tools.some((tool) => tool.name === "lookup"));
    const turn = await runtime.query("look it up");
    assert.equal(turn.status, "finished");
    assert.deepEqual(source.calls, [{ tool: "lookup", args: { key: "k" } }]);
    const sent = provider.requests[1]?.messages.at(-1);
    assert.equal(sent?.role, "tool");
    assert.ok(sent?.role === "tool" && sent.content.endsWith("\n... [truncated, 7.8 KB → 1.0 KB]"));
  } finally {
    await runtime.close();
    await Deno.remove(workspace, { recursive: true });
  }
  assert.equal(source.closed, true);
});
