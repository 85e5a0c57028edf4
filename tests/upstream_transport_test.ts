/**
 * Integration tests of {@linkcode LineStdioClientTransport} against real
 * processes: `cat` as an echo "server" for framing and size, shell scripts
 * for exits, stubborn servers and process groups.
 */

import assert from "node:assert/strict";
import type { JSONRPCMessage } from "../src/service/sdk.ts";
import { LineStdioClientTransport } from "../src/service/upstream/line_stdio_client_transport.ts";

function isAlive(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

async function assertDies(pid: number): Promise<void> {
  for (let waited = 0; isAlive(pid); waited += 10) {
    assert.ok(waited < 2_000, `process ${pid} survived`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

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

async function waitForFile(path: string): Promise<string> {
  for (;;) {
    const text = await Deno.readTextFile(path);
    if (text.trim() !== "") return text;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
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
  await transport.send({ jsonrpc: "2.0", id: 9, result: { content: [{ type: "text", text }] } });
  const [message] = await received;
  await transport.close();
  const result = (message as { result?: { content?: { text?: string }[] } }).result;
  const echoed = result?.content?.[0]?.text ?? "";
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
  const pidFile = await Deno.makeTempFile();
  try {
    const transport = new LineStdioClientTransport({
      command: "sh",
      args: [
        "-c",
        'trap "" TERM; sleep 30 & echo $! > "$1"; while :; do sleep 1; done',
        "sh",
        pidFile,
      ],
      closeGraceMs: 200,
    });
    await transport.start();
    const grandchild = Number(await waitForFile(pidFile));
    const started = performance.now();
    await transport.close();
    assert.ok(performance.now() - started < 3_000);
    assert.equal(transport.exitStatus?.signal, "SIGKILL");
    await assertDies(grandchild);
  } finally {
    await Deno.remove(pidFile);
  }
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
  assert.match(errors[0]?.message ?? "", /not JSON: "debug: starting"/);
});
