/**
 * The client ceiling (`--client-ceiling`): the effective limit of a tool is
 * the lower of it and the tool's `size_threshold`; the notice names the
 * setting that decided; the `_meta` hint of every listed tool is the limit
 * actually enforced.
 */

import assert from "node:assert/strict";
import { ByteSize } from "../src/size/byte_size.ts";
import { startHttpGateway, textOf, upstreamConfig } from "./gateway_fixtures.ts";

const HINT = "anthropic/maxResultSizeChars";

Deno.test("a client ceiling below the threshold caps, and the notice names it", async () => {
  await using gw = await startHttpGateway({
    gateway: { clientCeiling: ByteSize.parse("20KB") },
  });
  const client = await gw.client();
  const { tools } = await client.listTools();
  for (const tool of tools) assert.equal(tool._meta?.[HINT], 20_480, tool.name);
  const result = await client.callTool({ name: "big", arguments: { bytes: 3_355_443 } });
  const text = textOf(result);
  assert.ok(text.endsWith("\n... [truncated, 3.1 MB → 20.0 KB]"), text.slice(-60));
  assert.equal(new TextEncoder().encode(text).length, 20_480);
  assert.ok(text.length <= (tools.find((t) => t.name === "big")?._meta?.[HINT] as number));
  assert.deepEqual(gw.notices.map((n) => n.cause), ["client ceiling"]);
});

Deno.test("a client ceiling above the threshold leaves the threshold in charge", async () => {
  await using gw = await startHttpGateway({
    config: upstreamConfig(
      `[conversation.tools.echo_free]\nsource = "mcp.conf.big"\n` +
        `size_threshold = "unlimited"\n`,
    ),
    gateway: { clientCeiling: ByteSize.parse("1MB") },
  });
  const client = await gw.client();
  const { tools } = await client.listTools();
  const hint = (name: string) => tools.find((t) => t.name === name)?._meta?.[HINT];
  assert.equal(hint("test_simple_text"), 262_144, "256KB default threshold");
  assert.equal(hint("echo_free"), 1_048_576, "unlimited threshold: the ceiling");
  const result = await client.callTool({ name: "test_simple_text", arguments: {} });
  assert.equal(textOf(result), "This is a simple text response for testing.");
  const capped = await client.callTool({ name: "echo_free", arguments: { bytes: 2_000_000 } });
  assert.ok(textOf(capped).endsWith("\n... [truncated, 1.9 MB → 1.0 MB]"));
  assert.deepEqual(gw.notices.map((n) => n.cause), ["client ceiling"]);
});
