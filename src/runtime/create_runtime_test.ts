import assert from "node:assert/strict";
import { parseConfig } from "../config/parse_config.ts";
import { SpillwayError } from "../errors/spillway_error.ts";
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

Deno.test("createRuntime() refuses an upstream type it cannot reach yet", async () => {
  const error = await startError(
    `[providers.mcp.docs]\ntype = "http"\nurl = "http://127.0.0.1:1/mcp"`,
  );
  assert.equal(error.code, "config_invalid");
  assert.equal(
    error.message,
    `providers.mcp.docs: type = "http" is not supported by this runtime yet (expected "stdio")`,
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
