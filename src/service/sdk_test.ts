import assert from "node:assert/strict";
import { Client, InMemoryTransport, McpServer, type Transport } from "./sdk.ts";

Deno.test("sdk.ts re-exports real SDK types, not any", () => {
  const server = new McpServer({ name: "probe", version: "1.0.0" });
  const client = new Client({ name: "probe", version: "1.0.0" });
  const [transport]: [Transport, Transport] = InMemoryTransport.createLinkedPair();
  // Each line fails `deno check` (unused directive) if its type is `any`.
  // @ts-expect-error McpServer has no such property
  assert.equal(server.notAProperty, undefined);
  // @ts-expect-error Client has no such property
  assert.equal(client.notAProperty, undefined);
  // @ts-expect-error Transport has no such property
  assert.equal(transport.notAProperty, undefined);
});
