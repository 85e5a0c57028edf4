/**
 * Spilled outputs belong to the client that produced them: through
 * `spillway serve --http` with clients of their own tokens, a client pages
 * (`read_tool_output`), lists and reads (`resources/*`) only its own stored
 * outputs; another's gets exactly the answer of an output that was never
 * stored. Outputs are content addressed: the same output produced by two
 * clients is one blob, readable by both and by no third.
 */

import assert from "node:assert/strict";
import type { Client } from "../src/service/sdk.ts";
import { textOf } from "./gateway_fixtures.ts";
import { clientOf, endSession, spawnClientsServe } from "./_clients.ts";

const SPILL_BIG = `[conversation.tools.big]\nsource = "mcp.conf"\nspill = true\n`;

const REFERENCE = /read_tool_output ref="(sha256:[0-9a-f]{64})" \((\d+) bytes\)\]$/;

/** The reference of the stored output of `big` with `bytes` bytes, called by `client`. */
async function spilled(client: Client, bytes: number): Promise<string> {
  const capped = textOf(await client.callTool({ name: "big", arguments: { bytes } }));
  const found = REFERENCE.exec(capped);
  assert.ok(found, capped.slice(-200));
  assert.equal(Number(found[2]), bytes);
  return found[1] ?? "";
}

/** What `read_tool_output` answers `client` for `ref`: its text, with `ref` as REF, and whether it failed. */
async function readBack(
  client: Client,
  ref: string,
  args: Record<string, unknown> = { length: 16 },
): Promise<{ text: string; isError: boolean }> {
  const result = await client.callTool({ name: "read_tool_output", arguments: { ref, ...args } });
  return { text: textOf(result).replaceAll(ref, "REF"), isError: result.isError === true };
}

/** The stored outputs `client` lists. */
async function listed(client: Client): Promise<string[]> {
  const { resources } = await client.listResources();
  return resources.map((resource) => resource.uri)
    .filter((uri) => uri.startsWith("spillway://outputs/"))
    .map((uri) => uri.slice("spillway://outputs/".length))
    .sort();
}

/** The message `client` gets reading `ref` as a resource, with `ref` as REF ("" when it is read). */
async function readRefusal(client: Client, ref: string): Promise<string> {
  try {
    await client.readResource({ uri: `spillway://outputs/${ref}` });
    return "";
  } catch (error) {
    return String(error).replaceAll(ref, "REF");
  }
}

Deno.test("serve --http: a client reads, lists and pages only the spilled outputs it produced", async () => {
  await using serve = await spawnClientsServe(SPILL_BIG);
  const url = serve.url as URL;
  const [alice, bob, other] = [
    await clientOf(url, "alice"),
    await clientOf(url, "bob"),
    await clientOf(url, "default"),
  ];
  const shared = await spilled(alice, 300_000);
  assert.equal(await spilled(bob, 300_000), shared, "the same output is one blob");
  const own = await spilled(alice, 400_000);
  // A reference that was never stored: what any client gets for it.
  const never = `sha256:${"0".repeat(64)}`;

  const page = await readBack(alice, own);
  assert.deepEqual(page, { text: "0123456789abcdef", isError: false });
  assert.deepEqual(await readBack(bob, shared), page, "bob produced it too");
  for (const args of [{ length: 16 }, { pattern: "line" }, { offset: 5 }]) {
    const refused = await readBack(bob, own, args);
    assert.ok(refused.isError, JSON.stringify(args));
    assert.match(refused.text, /no output REF in this workspace/);
    assert.deepEqual(refused, await readBack(bob, never, args), "the answer of a missing output");
  }
  assert.deepEqual(await readBack(other, shared), await readBack(other, never));

  assert.deepEqual(await listed(alice), [own, shared].sort());
  assert.deepEqual(await listed(bob), [shared]);
  assert.deepEqual(await listed(other), []);

  assert.equal(await readRefusal(alice, own), "");
  assert.equal(await readRefusal(bob, shared), "");
  const refused = await readRefusal(bob, own);
  assert.match(refused, /no stored output REF in this workspace/);
  assert.equal(refused, await readRefusal(bob, never));
  assert.equal(await readRefusal(other, shared), await readRefusal(other, never));
  for (const client of [alice, bob, other]) await endSession(client);
});
