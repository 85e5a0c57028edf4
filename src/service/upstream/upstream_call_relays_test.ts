import assert from "node:assert/strict";
import { z } from "zod";
import { CallToolResultSchema, Client, InMemoryTransport, McpServer } from "../sdk.ts";
import type { LogMessage, ToolCallRelay } from "../tool_call_relay.ts";
import { UpstreamCallRelays } from "./upstream_call_relays.ts";

/**
 * A server whose `wait` tool ends when `go` is called, and whose `ask`
 * tool sends a log message and a sampling request, and returns what became
 * of them.
 */
async function connected() {
  const server = new McpServer({ name: "s", version: "1" }, { capabilities: { logging: {} } });
  const go = Promise.withResolvers<void>();
  server.registerTool("wait", { inputSchema: z.object({ n: z.number() }) }, async () => {
    await go.promise;
    return { content: [{ type: "text", text: "waited" }] };
  });
  server.registerTool("ask", {}, async () => {
    await server.sendLoggingMessage({ level: "info", data: "asking" });
    try {
      const answer = await server.server.createMessage({ messages: [], maxTokens: 1 });
      return { content: [{ type: "text", text: `answer: ${JSON.stringify(answer.content)}` }] };
    } catch (error) {
      return { content: [{ type: "text", text: `refused: ${(error as Error).message}` }] };
    }
  });
  const relays = new UpstreamCallRelays("mcp.s", { inquiries: true });
  const client = new Client({ name: "c", version: "1" }, { capabilities: relays.capabilities });
  relays.install(client);
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(a), client.connect(b)]);
  const call = (name: string, relay: ToolCallRelay, args: Record<string, unknown> = {}) =>
    relays.run(relay, new AbortController().signal, ({ signal, meta }) =>
      client.request(
        {
          method: "tools/call",
          params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
        },
        CallToolResultSchema,
        { signal },
      ));
  return {
    call,
    go: () => go.resolve(),
    async [Symbol.asyncDispose]() {
      go.resolve();
      await client.close();
      await server.close();
    },
  };
}

/** A relay of `caller` that records what reaches it and answers sampling with `text`. */
function relayOf(caller: string, seen: string[]): ToolCallRelay {
  return {
    caller,
    log: (message: LogMessage) => seen.push(`${caller} log ${message.data}`),
    request: (request) => {
      seen.push(`${caller} ${request.method}`);
      return Promise.resolve({
        role: "assistant",
        content: { type: "text", text: caller },
        model: "m",
      });
    },
  };
}

const textOf = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

Deno.test("UpstreamCallRelays: with one call in flight, logs and requests go to its caller", async () => {
  await using s = await connected();
  const seen: string[] = [];
  const result = await s.call("ask", relayOf("alice", seen));
  assert.equal(textOf(result), 'answer: {"type":"text","text":"alice"}');
  assert.deepEqual(seen, ["alice log asking", "alice sampling/createMessage"]);
});

Deno.test("UpstreamCallRelays: calls of one caller share its logs; a request is refused", async () => {
  await using s = await connected();
  const seen: string[] = [];
  const waiting = s.call("wait", relayOf("alice", seen), { n: 1 });
  const result = await s.call("ask", relayOf("alice", seen));
  s.go();
  await waiting;
  assert.equal(
    textOf(result),
    "refused: spillway cannot tell which of your 2 calls in flight this " +
      "sampling request belongs to (MCP does not say), so it is not sent to any client",
  );
  assert.deepEqual(seen, ["alice log asking"]);
});

Deno.test("UpstreamCallRelays: with calls of two callers in flight, nobody gets the log", async () => {
  await using s = await connected();
  const seen: string[] = [];
  const waiting = s.call("wait", relayOf("bob", seen), { n: 1 });
  const result = await s.call("ask", relayOf("alice", seen));
  s.go();
  await waiting;
  assert.match(textOf(result), /^refused: .*cannot tell which of your 2 calls/);
  assert.deepEqual(seen, []);
});

Deno.test("UpstreamCallRelays: a request goes to the call not already waiting for its caller's answer", async () => {
  await using s = await connected();
  const seen: string[] = [];
  // Alice's call asks and her answer does not come until Bob's call has asked too.
  const answer = Promise.withResolvers<void>();
  const slow: ToolCallRelay = {
    caller: "alice",
    request: async (request) => {
      seen.push(`alice ${request.method}`);
      await answer.promise;
      return { role: "assistant", content: { type: "text", text: "alice" }, model: "m" };
    },
  };
  const alice = s.call("ask", slow);
  while (seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  // Past the moment two requests of one call would arrive together.
  await new Promise((resolve) => setTimeout(resolve, 150));
  const bob = await s.call("ask", relayOf("bob", seen));
  assert.equal(textOf(bob), 'answer: {"type":"text","text":"bob"}');
  answer.resolve();
  assert.equal(textOf(await alice), 'answer: {"type":"text","text":"alice"}');
  assert.deepEqual(seen, ["alice sampling/createMessage", "bob sampling/createMessage"]);
});
