/**
 * A call that asks its client for input while it runs, across the protocol
 * eras, through `spillway serve --http`: a 2026-07-28 client (the v2 SDK
 * client pinned to it, fulfilling `input_required` with its elicitation,
 * sampling and roots handlers) in front of an upstream that asks the 2025
 * way (server-to-client requests) and one that asks the 2026 way
 * (`input_required`); a 2025-11-25 client in front of the 2026 one; several
 * requests in one round and several rounds; a declined elicitation; and
 * what crossed recorded with the call.
 */

import assert from "node:assert/strict";
import { spawnHttpServe, textOf } from "./gateway_fixtures.ts";
import { fixtureConfig, modernClient, recordedEvents } from "./_input_rounds.ts";
import { main } from "../src/cli.ts";
import { captureCommandIo } from "../src/commands/command_io.ts";
import { join } from "./_paths.ts";
import { StdioClientTransport } from "../src/service/sdk.ts";
import { CLI } from "./gateway_fixtures.ts";

for (const protocol of ["2025-11-25", "2026-07-28"] as const) {
  Deno.test(`a 2026-07-28 client, a ${protocol} upstream: three kinds asked in one round, answered, recorded`, async () => {
    await using serve = await spawnHttpServe(["--no-auth"], { config: fixtureConfig(protocol) });
    const client = await modernClient(serve.url as URL);
    try {
      const result = await client.callTool({
        name: "test_input_required_result_multiple_inputs",
        arguments: {},
      });
      assert.equal(textOf(result), "Good day, Ada (1 root(s) visible)");
      const events = recordedEvents(serve.workspace);
      const inputs = events.filter((e) => e.type === "tool_call_input");
      assert.deepEqual(inputs.map((e) => e.kind).sort(), ["elicitation", "roots", "sampling"]);
      for (const input of inputs) {
        assert.equal(input.via, "input_required");
        assert.ok((input.request_bytes as number) > 0);
      }
      const responses = events.filter((e) => e.type === "tool_call_response");
      assert.equal(responses.length, 1, "one call recorded, not one per round");
      assert.equal(responses[0]?.content, textOf(result));
    } finally {
      await client.close();
    }
  });

  Deno.test(`a 2026-07-28 client, a ${protocol} upstream: two rounds, then a declined elicitation`, async () => {
    await using serve = await spawnHttpServe(["--no-auth"], { config: fixtureConfig(protocol) });
    const client = await modernClient(serve.url as URL);
    try {
      const result = await client.callTool({
        name: "test_input_required_result_multi_round",
        arguments: {},
      });
      assert.equal(textOf(result), "Multi-round complete: Ada likes teal");
    } finally {
      await client.close();
    }
    const declining = await modernClient(serve.url as URL, { decline: true });
    try {
      const result = await declining.callTool({
        name: "test_input_required_result_elicitation",
        arguments: {},
      });
      assert.equal((result as { isError?: boolean }).isError, true);
      assert.match(
        textOf(result),
        /the client declined the elicitation request \(action: decline\)/,
      );
    } finally {
      await declining.close();
    }
  });
}

Deno.test("a 2025-11-25 client, a 2026-07-28 upstream: its input_required asked as requests, two rounds, recorded", async () => {
  await using serve = await spawnHttpServe(["--no-auth"], { config: fixtureConfig("2026-07-28") });
  const client = await modernClient(serve.url as URL, { era: "2025-11-25" });
  try {
    assert.equal(client.getNegotiatedProtocolVersion(), "2025-11-25");
    const result = await client.callTool({
      name: "test_input_required_result_multi_round",
      arguments: {},
    });
    assert.equal(textOf(result), "Multi-round complete: Ada likes teal");
    const multiple = await client.callTool({
      name: "test_input_required_result_multiple_inputs",
      arguments: {},
    });
    assert.equal(textOf(multiple), "Good day, Ada (1 root(s) visible)");
    const events = recordedEvents(serve.workspace);
    const inputs = events.filter((e) => e.type === "tool_call_input");
    assert.equal(inputs.length, 5);
    assert.ok(inputs.every((e) => e.via === "request" && e.outcome !== "failed"));
  } finally {
    await client.close();
  }
});

Deno.test("conversation show prints what a call asked its client; with record_input_contents the contents are recorded too", async () => {
  await using serve = await spawnHttpServe(["--no-auth"], {
    config: fixtureConfig("2025-11-25") + "\n[serve]\nrecord_input_contents = true\n",
  });
  const client = await modernClient(serve.url as URL);
  try {
    await client.callTool({ name: "test_input_required_result_elicitation", arguments: {} });
  } finally {
    await client.close();
  }
  const [input] = recordedEvents(serve.workspace).filter((e) => e.type === "tool_call_input");
  assert.deepEqual(input?.answer, { action: "accept", content: { name: "Ada" } });
  assert.equal((input?.request as { message?: string })?.message, "What is your name?");
  const [id] = [...Deno.readDirSync(join(serve.workspace, "conversations"))].map((e) => e.name);
  const io = captureCommandIo({ env: {}, cwd: serve.workspace });
  assert.equal(await main(["conversation", "show", "--workspace", serve.workspace, id!], io), 0);
  // A 2026-07-28 conversation's call ids carry the gateway's tag (`call_1.3f9a2c1b`).
  const shown = io.out().split("\n").filter((line) => /^\s+[▸↔◂]/.test(line))
    .map((line) => line.replace(/\(call_1\.[0-9a-f]+\)/, "(call_1.TAG)"));
  assert.deepEqual(shown, [
    `  ▸ test_input_required_result_elicitation {}  (call_1.TAG)`,
    `    ↔ asked its client: elicitation (input_required), 170 B → 44 B, accept`,
    `    ◂ result: 11 B`,
  ]);
});

Deno.test("serve --stdio, a 2026-07-28 client, a 2025-11-25 upstream: two rounds answered, recorded once", async () => {
  const dir = await Deno.makeTempDir({ prefix: "spillway-rounds-" });
  try {
    const config = join(dir, "config.toml");
    await Deno.writeTextFile(config, fixtureConfig("2025-11-25"));
    const workspace = join(dir, "ws");
    const transport = new StdioClientTransport({
      command: Deno.execPath(),
      args: ["run", "-A", CLI, "serve", "--stdio", "--workspace", workspace, "--config", config],
      cwd: dir,
      env: { ...Deno.env.toObject(), XDG_CONFIG_HOME: join(dir, "no-user-config") },
      stderr: "pipe",
    });
    const client = await modernClient(transport);
    try {
      assert.equal(client.getNegotiatedProtocolVersion(), "2026-07-28");
      const result = await client.callTool({
        name: "test_input_required_result_multi_round",
        arguments: {},
      });
      assert.equal(textOf(result), "Multi-round complete: Ada likes teal");
    } finally {
      await client.close();
    }
    const events = recordedEvents(workspace);
    assert.equal(events.filter((e) => e.type === "tool_call_response").length, 1);
    assert.equal(events.filter((e) => e.type === "tool_call_input").length, 2);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
