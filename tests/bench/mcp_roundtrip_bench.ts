/**
 * What the barrier costs: one `tools/call` round trip over the in-memory
 * transport to a plain McpServer tool (the baseline), against the same call
 * through the ExecutionService and the McpExecutor (park on the Record
 * barrier, outcome, immediate `deliver` release, delivery check). Also a
 * batch of 1,000 concurrent calls through the executor, for the
 * pipeline target of docs/performance.md (the service's share of it).
 *
 * @module
 */

import { BuiltinToolSource } from "../../src/service/builtin/builtin_tool_source.ts";
import { ExecutionService } from "../../src/service/execution_service.ts";
import { McpExecutor } from "../../src/service/mcp_executor.ts";
import { Client, InMemoryTransport, McpServer } from "../../src/service/sdk.ts";

const PAYLOAD = "x".repeat(1024);
const BATCH = 1000;
const live = new AbortController().signal;

// Baseline: a bare McpServer tool, no barrier.
const bare = new McpServer({ name: "bare", version: "1.0.0" });
bare.registerTool(
  "echo",
  { description: "1 KB of text" },
  () => ({ content: [{ type: "text", text: PAYLOAD }] }),
);
const [bareClientTransport, bareServerTransport] = InMemoryTransport.createLinkedPair();
await bare.connect(bareServerTransport);
const bareClient = new Client({ name: "bench", version: "1.0.0" });
await bareClient.connect(bareClientTransport);

// Through the service: builtin source, Record barrier, McpExecutor.
const source = new BuiltinToolSource({ cwd: ".", tools: [] }).register({
  name: "echo",
  description: "1 KB of text",
  inputSchema: { type: "object" },
  run: () => Promise.resolve(PAYLOAD),
});
const service = new ExecutionService({ sources: [source], barrierFor: () => "record" });
await service.start();
const executor = await McpExecutor.connect(service);

let next = 0;
async function throughExecutor(): Promise<void> {
  const id = `call_${next++}`;
  const handle = executor.start({ id, name: "echo", arguments: {} }, { signal: live });
  const outcome = await handle.outcome;
  if (outcome.kind !== "executed") throw new Error(`unexpected outcome ${outcome.kind}`);
  const delivery = await handle.release({ kind: "deliver" }, outcome.response);
  if (delivery.kind !== "delivered") throw new Error(`unexpected delivery ${delivery.kind}`);
}

Deno.bench({
  name: "bare McpServer tool, in-memory callTool",
  group: "one call",
  baseline: true,
  fn: async () => {
    await bareClient.callTool({ name: "echo", arguments: {} });
  },
});

Deno.bench({
  name: "ExecutionService + McpExecutor, park + deliver",
  group: "one call",
  fn: throughExecutor,
});

Deno.bench({
  name: `bare McpServer tool, ${BATCH} concurrent calls`,
  group: "batch",
  baseline: true,
  fn: async () => {
    await Promise.all(
      Array.from({ length: BATCH }, () => bareClient.callTool({ name: "echo", arguments: {} })),
    );
  },
});

Deno.bench({
  name: `ExecutionService + McpExecutor, ${BATCH} concurrent calls`,
  group: "batch",
  fn: async () => {
    await Promise.all(Array.from({ length: BATCH }, throughExecutor));
  },
});

globalThis.addEventListener("unload", () => {
  void bareClient.close();
  void bare.close();
  void executor.close();
  void service.close();
});
