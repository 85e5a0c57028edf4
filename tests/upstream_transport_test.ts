/**
 * Integration tests of {@linkcode LineStdioClientTransport} against real
 * processes: `cat` as an echo "server" for framing and size, shell scripts
 * for exits, stubborn servers and process groups.
 */

import assert from "node:assert/strict";
import type { JSONRPCMessage } from "../src/service/sdk.ts";
import { LineStdioClientTransport } from "../src/service/upstream/line_stdio_client_transport.ts";
import {
  MALFORMED_REPLY_DATA_KEY,
  MalformedReplyError,
} from "../src/service/upstream/malformed_reply_error.ts";
import { HOLD_PROBE, ProcessProbe } from "./_process_probe.ts";

/** Resolves with the next `count` messages. */
function nextMessages(
  transport: LineStdioClientTransport,
  count: number,
): Promise<JSONRPCMessage[]> {
  const messages: JSONRPCMessage[] = [];
  return new Promise((resolve) => {
    transport.onmessage = (message) => {
      messages.push(message);
      if (messages.length === count) resolve(messages);
    };
  });
}

Deno.test("messages round-trip through an echoing server, in order", async () => {
  const transport = new LineStdioClientTransport({ command: "cat" });
  let closes = 0;
  transport.onclose = () => closes++;
  const received = nextMessages(transport, 3);
  await transport.start();
  const sent: JSONRPCMessage[] = [
    {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "a", arguments: { q: "ü\n€" } },
    },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", id: 1, result: { content: [] } },
  ];
  await Promise.all(sent.map((message) => transport.send(message)));
  assert.deepEqual(await received, sent);
  await transport.close();
  await transport.close();
  assert.equal(closes, 1);
  assert.equal(transport.exitStatus?.success, true);
  assert.equal(transport.closedByUs, true);
  await assert.rejects(transport.send({ jsonrpc: "2.0", method: "x" }), /closed/);
});

Deno.test("a 100 MB message goes through both ways, beyond the SDK's 10 MB limit", async () => {
  const transport = new LineStdioClientTransport({ command: "cat" });
  const received = nextMessages(transport, 1);
  await transport.start();
  const text = `${"0123456789abcdef".repeat(100 * 1024 * 1024 / 16 - 1)}ünïcödé-end`;
  await transport.send({
    jsonrpc: "2.0",
    id: 9,
    method: "tools/call",
    params: { name: "store", arguments: { text } },
  });
  const [message] = await received;
  await transport.close();
  const params = (message as { params?: { arguments?: { text?: string } } }).params;
  const echoed = params?.arguments?.text ?? "";
  assert.equal(echoed.length, text.length);
  assert.equal(echoed.slice(0, 64), text.slice(0, 64));
  assert.equal(echoed.slice(-64), text.slice(-64));
  assert.equal(echoed === text, true);
});

Deno.test("a server that exits closes the transport with its exit status", async () => {
  const transport = new LineStdioClientTransport({
    command: "sh",
    args: ["-c", `printf '%s\\n' '{"jsonrpc":"2.0","method":"hello"}'; read line; exit 7`],
  });
  const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
  const received = nextMessages(transport, 1);
  await transport.start();
  assert.deepEqual(await received, [{ jsonrpc: "2.0", method: "hello" }]);
  await transport.send({ jsonrpc: "2.0", method: "bye" });
  await closed;
  assert.equal(transport.exitStatus?.code, 7);
  assert.equal(transport.closedByUs, false);
  await assert.rejects(transport.send({ jsonrpc: "2.0", method: "late" }), /closed/);
  await transport.close();
});

Deno.test("close() kills a server that ignores stdin EOF and SIGTERM, with its children", async () => {
  await using probe = await ProcessProbe.create();
  const transport = new LineStdioClientTransport({
    command: "sh",
    args: [
      "-c",
      `trap "" TERM; ${HOLD_PROBE}; sleep 600 & echo $! >&3; while :; do sleep 1; done`,
      "sh",
      probe.path,
    ],
    closeGraceMs: 200,
  });
  await transport.start();
  await probe.starts.reached(1);
  await transport.close();
  assert.equal(transport.exitStatus?.signal, "SIGKILL");
  // End-of-file on the probe: the shell and the sleep it started are both gone.
  await probe.stops.reached(1);
  assert.equal(probe.pids.length, 2);
});

Deno.test("a server that closes its stdout is stopped and the transport closes", async () => {
  const transport = new LineStdioClientTransport({
    command: "sh",
    args: ["-c", "exec >&-; sleep 30"],
    closeGraceMs: 200,
  });
  const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
  await transport.start();
  await closed;
  assert.equal(transport.exitStatus?.signal, "SIGTERM");
  assert.equal(transport.closedByUs, false);
});

Deno.test("a missing server command makes start() reject", async () => {
  const transport = new LineStdioClientTransport({ command: "spillway-no-such-server" });
  await assert.rejects(transport.start(), Deno.errors.NotFound);
  await transport.close();
});

Deno.test("stderr can be sent to a callback as text", async () => {
  let stderr = "";
  const transport = new LineStdioClientTransport({
    command: "sh",
    args: ["-c", "printf 'warming up ü\\n' >&2; cat"],
    stderr: (text) => (stderr += text),
  });
  const received = nextMessages(transport, 1);
  await transport.start();
  await transport.send({ jsonrpc: "2.0", method: "ping" });
  await received;
  await transport.close();
  assert.equal(stderr, "warming up ü\n");
});

Deno.test("lines that are not JSON-RPC are reported through onerror and skipped", async () => {
  const transport = new LineStdioClientTransport({
    command: "sh",
    args: ["-c", `echo 'debug: starting'; printf '%s\\n' '{"jsonrpc":"2.0","method":"ok"}'; cat`],
  });
  const errors: Error[] = [];
  transport.onerror = (error) => errors.push(error);
  const received = nextMessages(transport, 1);
  await transport.start();
  assert.deepEqual(await received, [{ jsonrpc: "2.0", method: "ok" }]);
  await transport.close();
  assert.equal(errors.length, 1);
  const [error] = errors;
  assert.ok(error instanceof MalformedReplyError);
  assert.equal(error.message, 'upstream server wrote a line that is not JSON: "debug: starting"');
  assert.equal(error.requestId, undefined);
  assert.equal(error.waiting, 0);
});

Deno.test("a malformed line naming a waiting request answers it with an error at once", async () => {
  // `cat` sends back what we write: the "server's" replies are lines we choose.
  const transport = new LineStdioClientTransport({ command: "cat" });
  const errors: Error[] = [];
  transport.onerror = (error) => errors.push(error);
  const received = nextMessages(transport, 2);
  await transport.start();
  await transport.send({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "lint" } });
  assert.equal(transport.awaiting, 1);
  // Not a JSON-RPC message (result must be an object), yet it names request 7.
  await transport.send({ jsonrpc: "2.0", id: 7, result: "oops" } as unknown as JSONRPCMessage);
  const [request, answer] = await received;
  await transport.close();
  assert.equal((request as { method?: string }).method, "tools/call");
  const account = 'a line that is not a JSON-RPC message: "{\\"jsonrpc\\":\\"2.0\\",' +
    '\\"id\\":7,\\"result\\":\\"oops\\"}"';
  assert.deepEqual(answer, {
    jsonrpc: "2.0",
    id: 7,
    error: {
      code: -32700,
      message: `upstream server wrote ${account}`,
      data: { [MALFORMED_REPLY_DATA_KEY]: account },
    },
  });
  assert.equal(transport.awaiting, 0);
  assert.equal(errors.length, 1);
  assert.ok(errors[0] instanceof MalformedReplyError);
  assert.equal(errors[0].requestId, 7);
  assert.equal(errors[0].request, "tools/call `lint`");
});

Deno.test("a late answer to a cancelled request is dropped quietly; an answer to nothing is reported", async () => {
  const transport = new LineStdioClientTransport({ command: "cat" });
  const errors: Error[] = [];
  transport.onerror = (error) => errors.push(error);
  const delivered: JSONRPCMessage[] = [];
  const done = Promise.withResolvers<void>();
  transport.onmessage = (message) => {
    delivered.push(message);
    if ("method" in message && message.method === "done") done.resolve();
  };
  await transport.start();
  await transport.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "a" } });
  await transport.send({
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: 1, reason: "timed out" },
  });
  await transport.send({ jsonrpc: "2.0", id: 1, result: { content: [] } });
  await transport.send({ jsonrpc: "2.0", id: 2, result: { content: [] } });
  await transport.send({ jsonrpc: "2.0", method: "done" });
  await done.promise;
  await transport.close();
  // The echoed request and notifications arrive; neither answer does.
  assert.deepEqual(delivered.map((m) => "method" in m ? m.method : `reply ${m.id}`), [
    "tools/call",
    "notifications/cancelled",
    "done",
  ]);
  assert.deepEqual(errors.map((error) => error.message), [
    'upstream server wrote a reply to request 2, which nothing waits for: "{\\"jsonrpc\\":' +
    '\\"2.0\\",\\"id\\":2,\\"result\\":{\\"content\\":[]}}"',
  ]);
});

Deno.test("a reply that names no request fails every request waiting; with none waiting it is only reported", async () => {
  // `cat` sends back what we write: the "server's" replies are lines we choose.
  const transport = new LineStdioClientTransport({ command: "cat" });
  const errors: Error[] = [];
  transport.onerror = (error) => errors.push(error);
  const delivered: JSONRPCMessage[] = [];
  let arrived = Promise.withResolvers<void>();
  transport.onmessage = (message) => {
    delivered.push(message);
    arrived.resolve();
  };
  /** Resolves once `count` messages were delivered in all. */
  const deliveredCount = async (count: number) => {
    while (delivered.length < count) {
      await arrived.promise;
      arrived = Promise.withResolvers<void>();
    }
  };
  await transport.start();
  const idNull = {
    jsonrpc: "2.0",
    id: null,
    error: { code: -32700, message: "Parse error" },
  } as unknown as JSONRPCMessage;
  const noId: JSONRPCMessage = { jsonrpc: "2.0", error: { code: -32600, message: "Invalid" } };
  // Nothing waits: reported, nothing delivered (the echoed `mark` shows it was read).
  await transport.send(idNull);
  await transport.send({ jsonrpc: "2.0", method: "mark" });
  await deliveredCount(1);
  // Two requests wait (each echoed back by `cat`), then both are answered by the one reply.
  await transport.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "a" } });
  await transport.send({ jsonrpc: "2.0", id: 2, method: "ping" });
  assert.equal(transport.awaiting, 2);
  await transport.send(idNull);
  await deliveredCount(5);
  assert.equal(transport.awaiting, 0);
  await transport.send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "b" } });
  await transport.send(noId);
  await deliveredCount(7);
  await transport.close();
  const nullPreview = '"{\\"jsonrpc\\":\\"2.0\\",\\"id\\":null,\\"error\\":{\\"code\\":-32700,' +
    '\\"message\\":\\"Parse error\\"}}"';
  const noIdPreview = '"{\\"jsonrpc\\":\\"2.0\\",\\"error\\":{\\"code\\":-32600,' +
    '\\"message\\":\\"Invalid\\"}}"';
  const answer = (id: number, preview: string): JSONRPCMessage => ({
    jsonrpc: "2.0",
    id,
    error: {
      code: -32700,
      message: `upstream server wrote a reply that names no request: ${preview}`,
      data: {
        [MALFORMED_REPLY_DATA_KEY]: `a reply that names no request: ${preview}; it cannot be ` +
          "matched to one call, so every call waiting fails",
      },
    },
  });
  // The echoed requests, then an error answer to each one waiting, at once.
  assert.deepEqual(delivered.filter((m) => !("method" in m)), [
    answer(1, nullPreview),
    answer(2, nullPreview),
    answer(3, noIdPreview),
  ]);
  assert.equal(transport.awaiting, 0);
  assert.deepEqual(
    errors.map((error) => {
      assert.ok(error instanceof MalformedReplyError);
      return [error.preview, error.waiting, error.failed];
    }),
    [
      [nullPreview, 0, []],
      [nullPreview, 2, ["tools/call `a`", "ping"]],
      [noIdPreview, 1, ["tools/call `b`"]],
    ],
  );
});

Deno.test("a transport closed while its server is being spawned stops that server: nothing is left running", async () => {
  const marker = `spillway-spawn-race-${crypto.randomUUID()}`;
  const transport = new LineStdioClientTransport({
    command: Deno.execPath(),
    args: ["eval", "setInterval(() => {}, 1 << 30)", marker],
    stderr: "null",
  });
  const started = transport.start();
  await transport.close();
  await assert.rejects(started, /closed while its server started/);
  const running = await new Deno.Command("pgrep", { args: ["-f", marker], stdout: "piped" })
    .output();
  assert.equal(new TextDecoder().decode(running.stdout).trim(), "", "no server left running");
});
