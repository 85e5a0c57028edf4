/**
 * `spill = true` through `spillway serve`: a client's capped result names
 * the stored output; the client pages it with `read_tool_output` and reads
 * it whole as an MCP resource (`spillway://outputs/sha256:…`), and both give
 * back exactly what the upstream returned.
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { startHttpGateway, textOf, upstreamConfig } from "./gateway_fixtures.ts";

const REFERENCE =
  /\n\.\.\. \[full output: read_tool_output ref="(sha256:[0-9a-f]{64})" \((\d+) bytes\)\]$/;

Deno.test("a gateway client reads a spilled output back as pages and as a resource", async () => {
  await using gw = await startHttpGateway({
    config: upstreamConfig(`[conversation.tools.big]\nsource = "mcp.conf"\nspill = true\n`),
  });
  const client = await gw.client();
  assert.ok(client.getServerCapabilities()?.resources !== undefined);
  const { tools } = await client.listTools();
  assert.ok(tools.some((tool) => tool.name === "read_tool_output"));
  // The upstream's `big` tool: numbered lines, cut at `bytes`.
  const line = "0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz-line\n";
  const original = line.repeat(Math.ceil(700_000 / line.length)).slice(0, 700_000);
  const capped = textOf(await client.callTool({ name: "big", arguments: { bytes: 700_000 } }));
  const found = REFERENCE.exec(capped);
  assert.ok(found, capped.slice(-200));
  const [, ref = "", bytes] = found;
  assert.equal(Number(bytes), 700_000);
  assert.ok(Buffer.byteLength(capped) <= 262_144);
  assert.ok(capped.includes("\n... [truncated, 683.5 KB → 256.0 KB]\n"));

  const pages: string[] = [];
  for (let offset = 0; offset < 700_000; offset += 200_000) {
    const page = await client.callTool({
      name: "read_tool_output",
      arguments: { ref, offset, length: 200_000 },
    });
    pages.push(textOf(page));
  }
  const whole = pages.join("");
  assert.equal(whole, original);

  const { resources } = await client.listResources();
  assert.deepEqual(resources.map((r) => [r.uri, r.size, r.mimeType]), [
    [`spillway://outputs/${ref}`, 700_000, "text/plain"],
  ]);
  const read = await client.readResource({ uri: `spillway://outputs/${ref}` });
  assert.deepEqual(read.contents, [{
    uri: `spillway://outputs/${ref}`,
    mimeType: "text/plain",
    text: whole,
  }]);
  await assert.rejects(
    () => client.readResource({ uri: "spillway://outputs/sha256:nope" }),
    /unknown resource "spillway:\/\/outputs\/sha256:nope"/,
  );
});
