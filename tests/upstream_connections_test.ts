/**
 * One upstream server, several principals (`spillway serve` clients): each
 * principal's calls run on a connection of its own, a server process of its
 * own. The first principal takes over the process that listed the tools at
 * start, if it served no call; a released principal's process is stopped
 * and its next call starts another. The tools are listed once for
 * everyone, again from whichever connection says they changed; prompts and
 * resources are listed on the asking principal's connection, and word of
 * their change names whose connection sent it.
 */

import assert from "node:assert/strict";
import { McpUpstreamSource } from "../src/service/upstream/mcp_upstream_source.ts";
import { textOf, UPSTREAM_ARGS } from "./gateway_fixtures.ts";
import { isAlive } from "./_process_probe.ts";

function source(): McpUpstreamSource {
  return new McpUpstreamSource({
    name: "mcp.conf",
    command: Deno.execPath(),
    args: UPSTREAM_ARGS,
    stderr: "null",
  });
}

const signal = () => AbortSignal.timeout(60_000);

async function pidFor(upstream: McpUpstreamSource, principal?: string): Promise<number> {
  const result = await upstream.call("pid", {}, {
    signal: signal(),
    ...(principal === undefined ? {} : { principal }),
  });
  return Number(textOf(result));
}

Deno.test("the first principal takes over the process that listed; the next gets its own", async () => {
  await using upstream = { source: source(), [Symbol.asyncDispose]: () => upstream.source.close() };
  const { source: mcp } = upstream;
  await mcp.list();
  const listing = mcp.pid;
  assert.equal(typeof listing, "number");
  const alice = await pidFor(mcp, "alice");
  assert.equal(alice, listing, "it only listed: alice's calls run on it");
  assert.equal(mcp.pid, undefined, "spillway keeps no process of its own meanwhile");
  const bob = await pidFor(mcp, "bob");
  assert.notEqual(bob, alice);
  assert.deepEqual([mcp.pidOf("alice"), mcp.pidOf("bob")], [alice, bob]);
  await mcp.release("alice");
  assert.equal(mcp.pidOf("alice"), undefined);
  assert.equal(isAlive(alice), false, "a released principal's server is stopped");
  assert.equal(await pidFor(mcp, "bob"), bob, "the others' run on");
  const again = await pidFor(mcp, "alice");
  assert.ok(again !== alice && again !== bob, "alice's next call starts a process of her own");
});

Deno.test("spillway's own connection, once it served a call, is nobody else's", async () => {
  await using upstream = { source: source(), [Symbol.asyncDispose]: () => upstream.source.close() };
  const { source: mcp } = upstream;
  const own = await pidFor(mcp);
  const alice = await pidFor(mcp, "alice");
  assert.notEqual(alice, own);
  assert.equal(await pidFor(mcp), own);
});

Deno.test("the tools are listed again from the connection that said they changed", async () => {
  await using upstream = { source: source(), [Symbol.asyncDispose]: () => upstream.source.close() };
  const { source: mcp } = upstream;
  const before = (await mcp.list()).map((tool) => tool.name);
  assert.ok(!before.includes("late"));
  await pidFor(mcp, "alice");
  const changed = Promise.withResolvers<void>();
  const stop = mcp.onToolsChanged(() => changed.resolve());
  await mcp.call("add_tool", {}, { signal: signal(), principal: "bob" });
  await changed.promise;
  stop();
  assert.ok((await mcp.list()).some((tool) => tool.name === "late"), "bob's server lists it now");
  const late = await mcp.call("late", {}, { signal: signal(), principal: "bob" });
  assert.equal(textOf(late), "a late tool answers");
  // alice's server never added it: calling it there is her server's unknown tool.
  await assert.rejects(
    () => mcp.call("late", {}, { signal: signal(), principal: "alice" }),
    /mcp\.conf has no tool `late`/,
  );
});

Deno.test("prompts and resources are listed on the asking principal's connection, and a change names whose connection said it", async () => {
  const pages = new URL("./fixtures/gateway/pages_upstream.ts", import.meta.url).pathname;
  await using upstream = {
    source: new McpUpstreamSource({
      name: "mcp.pages",
      command: Deno.execPath(),
      args: ["run", "--quiet", "--allow-env", pages],
      stderr: "null",
    }),
    [Symbol.asyncDispose]: () => upstream.source.close(),
  };
  const { source: mcp } = upstream;
  const { catalog } = mcp;
  const own = (await catalog.listResources(undefined)).items.map((item) => item.uri);
  assert.deepEqual(own, [`page://${mcp.pid}/home`]);
  const uris = async (principal: string) =>
    (await catalog.listResources(undefined, principal)).items.map((item) => item.uri);
  assert.deepEqual(await uris("alice"), own, "alice took over the connection that only listed");
  const bob = await uris("bob");
  assert.deepEqual(bob, [`page://${mcp.pidOf("bob")}/home`]);
  assert.notDeepEqual(bob, own);
  const told: string[] = [];
  const both = Promise.withResolvers<void>();
  catalog.onCatalogChanged((kind, principal) => {
    told.push(`${kind} ${principal}`);
    if (told.length === 2) both.resolve();
  });
  await mcp.call("open_page", { name: "x" }, { signal: signal(), principal: "alice" });
  await both.promise;
  assert.deepEqual(told.toSorted(), ["prompts alice", "resources alice"]);
  assert.equal((await uris("alice")).length, 2);
  assert.deepEqual(await uris("bob"), bob);
});
