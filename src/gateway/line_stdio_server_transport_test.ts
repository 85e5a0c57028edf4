import assert from "node:assert/strict";
import type { JSONRPCMessage } from "../service/sdk.ts";
import { LineStdioServerTransport } from "./line_stdio_server_transport.ts";

const encoder = new TextEncoder();

/** A transport on an input the test feeds and an output it collects. */
function pipes() {
  const input = new TransformStream<Uint8Array, Uint8Array>();
  const feeder = input.writable.getWriter();
  const written: string[] = [];
  const decoder = new TextDecoder();
  const transport = new LineStdioServerTransport({
    readable: input.readable,
    writable: new WritableStream({ write: (chunk) => void written.push(decoder.decode(chunk)) }),
  });
  const received: JSONRPCMessage[] = [];
  const errors: string[] = [];
  let closes = 0;
  transport.onmessage = (message) => void received.push(message);
  transport.onerror = (error) => void errors.push(error.message);
  transport.onclose = () => void (closes += 1);
  return {
    transport,
    received,
    errors,
    written,
    closes: () => closes,
    feed: (bytes: Uint8Array | string) =>
      feeder.write(typeof bytes === "string" ? encoder.encode(bytes) : bytes),
    end: () => feeder.close(),
  };
}

const ping = (id: number) => ({ jsonrpc: "2.0", id, method: "ping" }) as const;

Deno.test("LineStdioServerTransport: messages split anywhere across chunks arrive whole and in order", async () => {
  const p = pipes();
  await p.transport.start();
  const bytes = encoder.encode(`${JSON.stringify(ping(1))}\n\n${JSON.stringify(ping(2))}\n`);
  for (let i = 0; i < bytes.length; i += 7) await p.feed(bytes.slice(i, i + 7));
  await p.end();
  await p.transport.ended;
  assert.deepEqual(p.received, [ping(1), ping(2)]);
  assert.deepEqual(p.errors, []);
  assert.equal(p.closes(), 1);
});

Deno.test("LineStdioServerTransport: a 12 MB request in 64 KiB chunks arrives (the SDK's transport refuses over 10 MB)", async () => {
  const p = pipes();
  await p.transport.start();
  const text = "x".repeat(12 * 1024 * 1024);
  const request = {
    jsonrpc: "2.0",
    id: 7,
    method: "tools/call",
    params: { name: "write", arguments: { text } },
  };
  const bytes = encoder.encode(`${JSON.stringify(request)}\n`);
  for (let i = 0; i < bytes.length; i += 65_536) await p.feed(bytes.slice(i, i + 65_536));
  await p.end();
  await p.transport.ended;
  assert.equal(p.received.length, 1);
  assert.deepEqual(p.received[0], request);
});

Deno.test("LineStdioServerTransport: a line that is not JSON-RPC is reported and skipped; later messages still arrive", async () => {
  const p = pipes();
  await p.transport.start();
  await p.feed(`not json\n{"jsonrpc":"2.0","id":1}\n${JSON.stringify(ping(3))}\n{"jsonrpc":"2.0",`);
  await p.end();
  await p.transport.ended;
  assert.deepEqual(p.received, [ping(3)]);
  assert.deepEqual(p.errors, [
    'the client sent a line that is not JSON: "not json"; skipped',
    'the client sent a line that is not a JSON-RPC message: "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":1}"; skipped',
    'the client sent an unterminated last line (17 bytes) before closing stdin: "{\\"jsonrpc\\":\\"2.0\\","; skipped',
  ]);
});

Deno.test("LineStdioServerTransport: send writes one line per message, in order, and refuses once closed", async () => {
  const p = pipes();
  await p.transport.start();
  await Promise.all([
    p.transport.send({ jsonrpc: "2.0", id: 1, result: {} }),
    p.transport.send({ jsonrpc: "2.0", method: "notifications/progress", params: { progress: 1 } }),
  ]);
  assert.deepEqual(p.written, [
    '{"jsonrpc":"2.0","id":1,"result":{}}\n',
    '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}\n',
  ]);
  await p.transport.close();
  await p.transport.close();
  assert.equal(p.closes(), 1);
  await assert.rejects(
    p.transport.send({ jsonrpc: "2.0", id: 2, result: {} }),
    /LineStdioServerTransport is not open/,
  );
});

Deno.test("LineStdioServerTransport: close lets a message being written out first", async () => {
  const input = new TransformStream<Uint8Array, Uint8Array>();
  const slow = Promise.withResolvers<void>();
  const written: string[] = [];
  const transport = new LineStdioServerTransport({
    readable: input.readable,
    writable: new WritableStream({
      write: async (chunk) => {
        await slow.promise;
        written.push(new TextDecoder().decode(chunk));
      },
    }),
  });
  await transport.start();
  const sent = transport.send({ jsonrpc: "2.0", id: 1, result: {} });
  const closed = transport.close();
  slow.resolve();
  await Promise.all([sent, closed]);
  assert.deepEqual(written, ['{"jsonrpc":"2.0","id":1,"result":{}}\n']);
});
