import assert from "node:assert/strict";
import { JsonRpcLineReader, type MalformedLine } from "./json_rpc_line_reader.ts";

const encoder = new TextEncoder();

function collect(): {
  reader: JsonRpcLineReader;
  messages: unknown[];
  malformed: MalformedLine[];
  errors: Error[];
} {
  const messages: unknown[] = [];
  const malformed: MalformedLine[] = [];
  const errors: Error[] = [];
  const reader = new JsonRpcLineReader({
    onMessage: (m) => messages.push(m),
    onMalformed: (line) => malformed.push(line),
    onError: (e) => errors.push(e),
  });
  return { reader, messages, malformed, errors };
}

Deno.test("JsonRpcLineReader delivers requests, notifications, results and errors in order", () => {
  const { reader, messages, malformed } = collect();
  const sent = [
    { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} },
    {
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progress: 1, progressToken: "t" },
    },
    { jsonrpc: "2.0", id: 1, result: { tools: [] } },
    { jsonrpc: "2.0", id: 2, error: { code: -32601, message: "Method not found" } },
  ];
  reader.push(encoder.encode(sent.map((m) => `${JSON.stringify(m)}\r\n`).join("")));
  reader.end();
  assert.deepEqual(messages, sent);
  assert.deepEqual(malformed, []);
});

Deno.test("JsonRpcLineReader decodes a character split across chunks", () => {
  const { reader, messages } = collect();
  const bytes = encoder.encode(
    `${JSON.stringify({ jsonrpc: "2.0", id: 1, result: { text: "€😀" } })}\n`,
  );
  const euro = bytes.indexOf(0xe2);
  reader.push(bytes.subarray(0, euro + 1));
  reader.push(bytes.subarray(euro + 1, euro + 5));
  reader.push(bytes.subarray(euro + 5));
  assert.deepEqual(messages, [{ jsonrpc: "2.0", id: 1, result: { text: "€😀" } }]);
});

Deno.test("JsonRpcLineReader skips blank lines and reports bad ones without stopping", () => {
  const { reader, messages, malformed } = collect();
  reader.push(
    encoder.encode('\n   \nstarting server...\n{"id":1}\n{"jsonrpc":"2.0","id":3,"result":{}}\n'),
  );
  assert.deepEqual(messages, [{ jsonrpc: "2.0", id: 3, result: {} }]);
  assert.deepEqual(malformed, [
    { problem: "a line that is not JSON", preview: '"starting server..."', ids: [], reply: false },
    {
      problem: "a line that is not a JSON-RPC message",
      preview: '"{\\"id\\":1}"',
      ids: [1],
      reply: false,
    },
  ]);
});

Deno.test("JsonRpcLineReader names the request a parsed but invalid reply answers", () => {
  const { reader, malformed } = collect();
  const lines = [
    { jsonrpc: "2.0", id: "a-7", result: "not an object" },
    { jsonrpc: "2.0", id: 4, result: {}, extra: true },
    { jsonrpc: "1.0", id: 5, result: {} },
    { jsonrpc: "2.0", id: 6.5, result: {} },
    { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } },
    { jsonrpc: "2.0", result: {} },
    { jsonrpc: "2.0", id: 8, method: 42 },
    [{ jsonrpc: "2.0", id: 9, result: {} }],
  ];
  reader.push(encoder.encode(lines.map((line) => `${JSON.stringify(line)}\n`).join("")));
  assert.deepEqual(malformed.map((line) => line.ids), [["a-7"], [4], [5], [], [], [], [], []]);
  // The id-less ones among the replies name no request at all (the transport fails every waiting one).
  assert.deepEqual(malformed.map((line) => line.reply), [
    true,
    true,
    true,
    true,
    true,
    true,
    false,
    false,
  ]);
  assert.ok(malformed.every((line) => line.problem === "a line that is not a JSON-RPC message"));
});

Deno.test("JsonRpcLineReader finds the id of a reply that is not JSON near its start or end", () => {
  const { reader, malformed } = collect();
  const big = "x".repeat(100_000);
  reader.push(encoder.encode(
    [
      '{"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"cut',
      `{"result":{"content":[{"type":"text","text":"${big}"}]},"jsonrpc":"2.0","id":"r-2"} trailing`,
      `{"jsonrpc":"2.0","id":3,"result":{"text":"${big}"}},"id":4}`,
      '{"jsonrpc":"2.0","result":{"text":"he said \\"id\\": 5"}',
      `{"jsonrpc":"2.0","id":7,"result":{"nested":{"id":7}},}`,
      "Traceback (most recent call last):",
      '{"jsonrpc":"2.0","id":1.5e3,"result":{}',
    ].join("\n") + "\n",
  ));
  assert.deepEqual(malformed.map((line) => line.ids), [[12], ["r-2"], [3, 4], [], [7], [], []]);
});

Deno.test("JsonRpcLineReader shortens a long bad line in its report", () => {
  const { reader, malformed } = collect();
  reader.push(encoder.encode(`${"x".repeat(10_000)}\n`));
  assert.equal(malformed.length, 1);
  assert.equal(malformed[0]?.preview, JSON.stringify(`${"x".repeat(200)}…`));
});

Deno.test("JsonRpcLineReader.end() reports an unterminated message, answering nothing", () => {
  const { reader, messages, malformed } = collect();
  reader.push(encoder.encode('{"jsonrpc":"2.0","id":1,"res'));
  assert.equal(reader.pendingBytes, 28);
  reader.end();
  assert.deepEqual(messages, []);
  assert.deepEqual(malformed, [{
    problem: "an unterminated last line (28 bytes) before closing stdout",
    preview: JSON.stringify('{"jsonrpc":"2.0","id":1,"res'),
    ids: [],
    reply: false,
  }]);
});

Deno.test("JsonRpcLineReader.end() ignores trailing whitespace", () => {
  const { reader, malformed } = collect();
  reader.push(encoder.encode('{"jsonrpc":"2.0","id":1,"result":{}}\n  '));
  reader.end();
  assert.deepEqual(malformed, []);
});

Deno.test("JsonRpcLineReader keeps going when a message handler throws", () => {
  const errors: Error[] = [];
  const ids: unknown[] = [];
  const reader = new JsonRpcLineReader({
    onMessage: (message) => {
      if ("id" in message && message.id === 1) throw new Error("handler failed");
      if ("id" in message) ids.push(message.id);
    },
    onMalformed: (line) => assert.fail(line.problem),
    onError: (error) => errors.push(error),
  });
  reader.push(
    encoder.encode('{"jsonrpc":"2.0","id":1,"result":{}}\n{"jsonrpc":"2.0","id":2,"result":{}}\n'),
  );
  assert.deepEqual(ids, [2]);
  assert.deepEqual(errors.map((e) => e.message), ["handler failed"]);
});
