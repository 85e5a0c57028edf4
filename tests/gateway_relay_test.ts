/**
 * What an upstream sends while a call runs reaches the client that made the
 * call through `spillway serve`: log messages at the client's level,
 * progress on its token, sampling and elicitation requests with the answers
 * back. An inquiry the client declines or cannot answer ends that call with
 * an error response, recorded exactly as delivered. A change of the
 * upstream's tool list reaches the clients.
 */

import assert from "node:assert/strict";

import { startHttpGateway, textOf } from "./gateway_fixtures.ts";

Deno.test("log messages reach the client at or above the level it set", async () => {
  await using gw = await startHttpGateway();
  const levels: string[] = [];
  const client = await gw.client({
    setup: (c) =>
      c.setNotificationHandler("notifications/message", (n) => {
        levels.push(`${n.params.level} ${n.params.data}`);
      }),
  });
  await client.setLoggingLevel("error");
  await client.callTool({ name: "test_tool_with_logging", arguments: {} });
  await client.setLoggingLevel("info");
  await client.callTool({ name: "test_tool_with_logging", arguments: {} });
  // Relayed notifications are written before the result they came with.
  assert.deepEqual(levels, [
    "info Tool execution started",
    "info Tool processing data",
    "info Tool execution completed",
  ]);
});

Deno.test("progress reaches the client on its own token, every update", async () => {
  await using gw = await startHttpGateway();
  const client = await gw.client();
  const seen: number[] = [];
  const result = await client.callTool(
    { name: "test_tool_with_progress", arguments: {} },
    { onprogress: (update) => seen.push(update.progress) },
  );
  assert.equal(textOf(result), "Progress tool completed");
  assert.deepEqual(seen, [0, 50, 100]);
});

Deno.test("sampling and elicitation go to the client and their answers back", async () => {
  await using gw = await startHttpGateway();
  const asked: string[] = [];
  const client = await gw.client({
    setup: (c) => {
      c.setRequestHandler("sampling/createMessage", (request) => {
        asked.push(`sampling ${JSON.stringify(request.params.messages[0]?.content)}`);
        return {
          role: "assistant",
          content: { type: "text", text: "forty-two" },
          model: "test-model",
        };
      });
      c.setRequestHandler("elicitation/create", (request) => {
        asked.push(`elicitation ${request.params.message}`);
        return { action: "accept", content: { username: "ada", email: "ada@example.org" } };
      });
    },
  });
  const sampled = await client.callTool({ name: "test_sampling", arguments: { prompt: "6×7?" } });
  assert.equal(textOf(sampled), "LLM response: forty-two");
  const elicited = await client.callTool({
    name: "test_elicitation",
    arguments: { message: "Who are you?" },
  });
  assert.equal(
    textOf(elicited),
    'User response: action=accept, content={"username":"ada","email":"ada@example.org"}',
  );
  assert.deepEqual(asked, ['sampling {"type":"text","text":"6×7?"}', "elicitation Who are you?"]);
});

Deno.test("a declined elicitation ends the call with an error response, recorded as delivered", async () => {
  await using gw = await startHttpGateway();
  const client = await gw.client({
    setup: (c) => c.setRequestHandler("elicitation/create", () => ({ action: "decline" })),
  });
  const result = await client.callTool({
    name: "test_elicitation",
    arguments: { message: "Who are you?" },
  });
  assert.equal(result.isError, true);
  assert.equal(
    textOf(result),
    "tool call failed: mcp.conf: the client declined the elicitation request (action: decline)",
  );
  const events = await gw.events();
  const response = events.find((e) => e.type === "tool_call_response");
  assert.ok(response?.type === "tool_call_response");
  assert.deepEqual([response.content, response.is_error], [textOf(result), true]);
});

Deno.test("a client that cannot sample gets an error response for that call only", async () => {
  await using gw = await startHttpGateway();
  const client = await gw.client({ capabilities: {} });
  const result = await client.callTool({ name: "test_sampling", arguments: { prompt: "hi" } });
  assert.equal(result.isError, true);
  assert.equal(
    textOf(result),
    "tool call failed: mcp.conf: the client failed the sampling request: " +
      "the client does not support sampling",
  );
  const after = await client.callTool({ name: "test_simple_text", arguments: {} });
  assert.equal(textOf(after), "This is a simple text response for testing.");
});

Deno.test("an upstream's tool list change reaches the clients, and the new tool is served", async () => {
  await using gw = await startHttpGateway();
  const changed = Promise.withResolvers<void>();
  const client = await gw.client({
    setup: (c) =>
      c.setNotificationHandler("notifications/tools/list_changed", () => changed.resolve()),
  });
  const before = (await client.listTools()).tools.map((tool) => tool.name);
  assert.ok(!before.includes("late"));
  await client.callTool({ name: "add_tool", arguments: {} });
  await changed.promise;
  const late = (await client.listTools()).tools.find((tool) => tool.name === "late");
  assert.equal(late?._meta?.["anthropic/maxResultSizeChars"], 262_144);
  assert.equal(
    textOf(await client.callTool({ name: "late", arguments: {} })),
    "a late tool answers",
  );
});
