/**
 * Group "stdio-5MB": one 5 MB tool result from an upstream stdio MCP server
 * (examples/upstream_server.ts), per iteration one `tools/call`:
 *
 * - baseline: `JSON.stringify` + `JSON.parse` of an equivalent 5 MB JSON-RPC
 *   message, the floor any stdio transport pays (the target in docs/performance.md: ours ≤ 3× it);
 * - ours: {@linkcode McpUpstreamSource} over {@linkcode LineStdioClientTransport};
 * - the SDK's `StdioClientTransport` (its 10 MB buffer limit raised);
 * - ours, client side only: the recorded bytes of the 5 MB response, in
 *   64 KiB chunks, through {@linkcode JsonRpcLineReader}.
 *
 * The two servers are started once, before the first bench, and stopped
 * when the bench process unloads. Run: `deno task bench tests/bench/stdio_bench.ts`.
 *
 * @module
 */

import { fakeTestLog } from "../../examples/fake_test_log.ts";
import { Client, StdioClientTransport } from "../../src/service/sdk.ts";
import { killProcessGroup } from "../../src/service/subprocess/kill_process_group.ts";
import { JsonRpcLineReader } from "../../src/service/upstream/json_rpc_line_reader.ts";
import { McpUpstreamSource } from "../../src/service/upstream/mcp_upstream_source.ts";

const MEGABYTES = 5;
const SERVER_ARGS = [
  "run",
  "--allow-env",
  new URL("../../examples/upstream_server.ts", import.meta.url).pathname,
];
const GROUP = "stdio-5MB";
const signal = new AbortController().signal;

// The same result the server sends, as the message the client receives.
const message = {
  jsonrpc: "2.0",
  id: 7,
  result: { content: [{ type: "text", text: fakeTestLog(MEGABYTES * 1024 * 1024) }] },
};
const recorded = new TextEncoder().encode(`${JSON.stringify(message)}\n`);
const CHUNK = 64 * 1024;

const ours = new McpUpstreamSource({
  name: "mcp.bench",
  command: Deno.execPath(),
  args: SERVER_ARGS,
});
const sdkTransport = new StdioClientTransport({
  command: Deno.execPath(),
  args: SERVER_ARGS,
  maxBufferSize: 256 * 1024 * 1024,
});
const sdkClient = new Client({ name: "spillway-bench", version: "0" });
await sdkClient.connect(sdkTransport);

async function callOurs(): Promise<void> {
  const result = await ours.call("big_report", { megabytes: MEGABYTES }, { signal });
  if ((result.content[0]?.text as string).length !== message.result.content[0]?.text.length) {
    throw new Error("ours: wrong result size");
  }
}

async function callSdk(): Promise<void> {
  const result = await sdkClient.callTool({
    name: "big_report",
    arguments: { megabytes: MEGABYTES },
  });
  const block = Array.isArray(result.content) ? result.content[0] : undefined;
  if (block?.type !== "text" || block.text.length !== message.result.content[0]?.text.length) {
    throw new Error("sdk: wrong result");
  }
}

// Warm up: both servers render and cache the report, and ours starts its server.
await callOurs();
await callSdk();

globalThis.addEventListener("unload", () => {
  // Benches have no async teardown hook, and unload cannot await: stop both
  // servers with a signal (ours leads its own process group).
  const ourPid = ours.pid;
  if (ourPid !== undefined) killProcessGroup(ourPid, "SIGTERM");
  if (sdkTransport.pid !== null) Deno.kill(sdkTransport.pid, "SIGTERM");
});

Deno.bench({
  name: "JSON.stringify + JSON.parse of the 5 MB message",
  group: GROUP,
  baseline: true,
  fn() {
    const parsed = JSON.parse(JSON.stringify(message));
    if (parsed.id !== 7) throw new Error("unreachable");
  },
});

Deno.bench({
  name: "ours: McpUpstreamSource over LineStdioClientTransport",
  group: GROUP,
  fn: callOurs,
});

Deno.bench({ name: "SDK StdioClientTransport + Client", group: GROUP, fn: callSdk });

Deno.bench({
  name: "ours, client side only: recorded bytes → JsonRpcLineReader",
  group: GROUP,
  fn() {
    let received = 0;
    const reader = new JsonRpcLineReader({
      onMessage: () => received++,
      onMalformed: (line) => {
        throw new Error(`${line.problem}: ${line.preview}`);
      },
      onError: (error) => {
        throw error;
      },
    });
    for (let offset = 0; offset < recorded.byteLength; offset += CHUNK) {
      reader.push(recorded.subarray(offset, offset + CHUNK));
    }
    reader.end();
    if (received !== 1) throw new Error("expected one message");
  },
});
