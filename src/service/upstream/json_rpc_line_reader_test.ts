import assert from "node:assert/strict";
import { JsonRpcLineReader } from "./json_rpc_line_reader.ts";

const encoder = new TextEncoder();

function collect(): { reader: JsonRpcLineReader; messages: unknown[]; errors: Error[] } {
  const messages: unknown[] = [];
  const errors: Error[] = [];
  const reader = new JsonRpcLineReader((m) => messages.push(m), (e) => errors.push(e));
  return { reader, messages, errors };
}

Deno.test("JsonRpcLineReader delivers requests, notifications, results and errors in order", () => {
  const { reader, messages, errors } = collect();
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
  assert.deepEqual(errors, []);
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
  const { reader, messages, errors } = collect();
  reader.push(
    encoder.encode('\n   \nstarting server...\n{"id":1}\n{"jsonrpc":"2.0","id":3,"result":{}}\n'),
  );
  assert.deepEqual(messages, [{ jsonrpc: "2.0", id: 3, result: {} }]);
  assert.equal(errors.length, 2);
  assert.ok(errors[0] instanceof SyntaxError);
  assert.equal(
    errors[0]?.message,
    'upstream server wrote a line that is not JSON: "starting server..."',
  );
  assert.ok(errors[1] instanceof TypeError);
  assert.match(errors[1]?.message ?? "", /not a JSON-RPC message: "\{\\"id\\":1\}"/);
});

Deno.test("JsonRpcLineReader shortens a long bad line in its error", () => {
  const { reader, errors } = collect();
  reader.push(encoder.encode(`${"x".repeat(10_000)}\n`));
  assert.equal(errors.length, 1);
  assert.ok((errors[0]?.message.length ?? Infinity) < 300);
  assert.ok(errors[0]?.message.includes("…"));
});

Deno.test("JsonRpcLineReader.end() reports an unterminated message", () => {
  const { reader, messages, errors } = collect();
  reader.push(encoder.encode('{"jsonrpc":"2.0","id":1,"res'));
  assert.equal(reader.pendingBytes, 28);
  reader.end();
  assert.deepEqual(messages, []);
  assert.equal(
    errors[0]?.message,
    "upstream server closed stdout inside a message (28 bytes unterminated)",
  );
});

Deno.test("JsonRpcLineReader.end() ignores trailing whitespace", () => {
  const { reader, errors } = collect();
  reader.push(encoder.encode('{"jsonrpc":"2.0","id":1,"result":{}}\n  '));
  reader.end();
  assert.deepEqual(errors, []);
});

Deno.test("JsonRpcLineReader keeps going when a message handler throws", () => {
  const errors: Error[] = [];
  const ids: unknown[] = [];
  const reader = new JsonRpcLineReader((message) => {
    if ("id" in message && message.id === 1) throw new Error("handler failed");
    if ("id" in message) ids.push(message.id);
  }, (error) => errors.push(error));
  reader.push(
    encoder.encode('{"jsonrpc":"2.0","id":1,"result":{}}\n{"jsonrpc":"2.0","id":2,"result":{}}\n'),
  );
  assert.deepEqual(ids, [2]);
  assert.deepEqual(errors.map((e) => e.message), ["handler failed"]);
});
