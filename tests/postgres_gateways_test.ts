/**
 * Several gateways on one PostgreSQL database, with real processes, a real
 * HAProxy and SDK clients: sessions pinned by `Mcp-Session-Id` and spread
 * over three gateways; a spilled output written through one gateway read
 * back through another; a gateway killed (SIGKILL) with calls in flight,
 * after which every delivered result is in its conversation, its
 * conversations' locks are free, and its clients go on elsewhere; and the
 * database stopped under a gateway, which fails the call with "not
 * recorded" and recovers by itself.
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import type { ServeProcess } from "./gateway_fixtures.ts";
import { textOf } from "./gateway_fixtures.ts";
import {
  balancedTest,
  type Balancer,
  gatewayClient,
  startGateways,
  startHaproxy,
} from "./_gateways.ts";
import { PG_PASSWORD, pgTest, startPostgres, stopPostgresTest } from "./_postgres.ts";
import { PostgresDatabase } from "../src/postgres/postgres_database.ts";
import { PostgresStreamStore } from "../src/postgres/postgres_stream_store.ts";
import type { Client } from "../src/service/sdk.ts";

/** The pid of the gateway a client's calls reach. */
async function gatewayOf(client: Client): Promise<string> {
  return textOf(await client.callTool({ name: "pid", arguments: {} }));
}

/** The gateway of process id `pid` (what `gatewayOf` answers). */
function gatewayWithUpstream(gateways: readonly ServeProcess[], pid: string): ServeProcess {
  const found = gateways.find((gateway) => gateway.child.pid === Number(pid));
  assert.ok(found !== undefined, `no gateway has pid ${pid}`);
  return found;
}

interface Database {
  readonly url: string;
  readonly admin: import("postgres").Sql;
  close(): Promise<void>;
}

async function database(): Promise<Database> {
  const server = await startPostgres();
  const url = await server.database("gw");
  const admin = server.admin(new URL(url).pathname.slice(1));
  return { url, admin, close: () => admin.end() };
}

/** Every recorded tool response: content by conversation. */
async function recordedResponses(admin: import("postgres").Sql): Promise<Map<string, string[]>> {
  const rows = await admin<{ conversation_id: string; content: string }[]>`
    select conversation_id, event->>'content' as content from spillway_events
    where type = 'tool_call_response' order by conversation_id, seq`;
  const found = new Map<string, string[]>();
  for (const row of rows) {
    found.set(row.conversation_id, [...(found.get(row.conversation_id) ?? []), row.content]);
  }
  return found;
}

async function disposeAll(items: readonly AsyncDisposable[]): Promise<void> {
  for (const item of items) await item[Symbol.asyncDispose]();
}

balancedTest(
  "three gateways behind HAProxy: sessions spread and pinned; a spilled output read back through another gateway",
  async () => {
    const db = await database();
    const gateways = await startGateways(3, db.url);
    let balancer: Balancer | undefined;
    const clients: Client[] = [];
    try {
      balancer = await startHaproxy(gateways.map((g) => g.url!));
      for (let i = 0; i < 6; i++) clients.push(await gatewayClient(balancer.url, `client-${i}`));
      const onGateway: string[] = [];
      for (const [i, client] of clients.entries()) {
        const pid = await gatewayOf(client);
        onGateway.push(pid);
        for (let j = 0; j < 3; j++) {
          const text = `client ${i} call ${j}`;
          assert.equal(textOf(await client.callTool({ name: "echo", arguments: { text } })), text);
          // Pinned: every call of the session reaches the gateway that created it.
          assert.equal(await gatewayOf(client), pid);
        }
      }
      assert.equal(new Set(onGateway).size, 3, `sessions on ${onGateway.join(", ")}`);
      // Each session is one conversation holding exactly its client's calls.
      const recorded = await recordedResponses(db.admin);
      const echoes = [...recorded.values()].map((contents) =>
        contents.filter((c) => c.startsWith("client ")).map((c) => c.split(" ")[1])
      ).filter((owners) => owners.length > 0);
      assert.equal(echoes.length, 6);
      for (const owners of echoes) assert.equal(new Set(owners).size, 1, owners.join(","));

      // A 1 MB result is cut, spilled into the database through the client's gateway…
      const line = "spilled line é 😀\n";
      const cut = textOf(
        await clients[0]!.callTool({ name: "echo", arguments: { text: line, repeat: 60_000 } }),
      );
      const ref = /read_tool_output ref="(sha256:[0-9a-f]{64})"/.exec(cut)?.[1];
      assert.ok(ref !== undefined, cut.slice(-300));
      // …and the same client, starting over on another gateway, reads it back from there.
      const home = gatewayWithUpstream(gateways, onGateway[0]!);
      const elsewhere = gateways.find((g) => g !== home)!;
      const again = await gatewayClient(elsewhere.url!, "client-0-again");
      clients.push(again);
      assert.notEqual(await gatewayOf(again), onGateway[0]);
      const page = textOf(
        await again.callTool({
          name: "read_tool_output",
          arguments: { ref, offset: 0, length: Buffer.byteLength(line) * 3 },
        }),
      );
      assert.equal(page, line.repeat(3));
      const found = textOf(
        await again.callTool({ name: "read_tool_output", arguments: { ref, pattern: "é" } }),
      );
      assert.match(found, /^more than 1000 lines match \/é\/ in sha256:/);
    } finally {
      for (const client of clients) await client.close().catch(() => {});
      if (balancer !== undefined) await balancer[Symbol.asyncDispose]();
      await disposeAll(gateways);
      await db.close();
    }
  },
);

balancedTest(
  "a gateway killed with calls in flight: every delivered result is recorded, its locks are free, its clients go on elsewhere",
  async () => {
    const db = await database();
    const gateways = await startGateways(3, db.url);
    let balancer: Balancer | undefined;
    const clients: Client[] = [];
    const stores: PostgresDatabase[] = [];
    try {
      balancer = await startHaproxy(gateways.map((g) => g.url!));
      const url = balancer.url;
      for (let i = 0; i < 6; i++) clients.push(await gatewayClient(url, `client-${i}`));
      const pids = await Promise.all(clients.map(gatewayOf));
      const victim = gatewayWithUpstream(gateways, pids[0]!);
      const victims = new Set(pids.flatMap((pid, i) => pid === pids[0] ? [i] : []));
      const delivered: string[] = [];
      // Every client keeps one call in flight that never ends, and calls in a loop.
      const held = clients.map((client, i) =>
        client.callTool({ name: "hold", arguments: { key: `k${i}` } }, {
          // The SDK waits this long for a call whose gateway died (its default: 60 s).
          timeout: 5_000,
        }).then(() => "answered", (error: Error) => `rejected: ${error.message}`)
      );
      const failures: string[] = [];
      let stop = false;
      const first = [...clients];
      const loops = first.map(async (client, i) => {
        let current = client;
        for (let j = 0; !stop; j++) {
          const text = `client ${i} call ${j}`;
          try {
            // A call in flight when its gateway dies waits for its own timeout (the SDK's
            // default is 60 s; 10 s here).
            const result = await current.callTool(
              { name: "echo", arguments: { text } },
              { timeout: 10_000 },
            );
            assert.equal(textOf(result), text);
            delivered.push(text);
          } catch (error) {
            failures.push(`client ${i} call ${j}: ${(error as Error).message}`);
            // Its gateway died: start a new session, which HAProxy sends to a live one.
            current = await gatewayClient(url, `client-${i}-again`);
            clients.push(current);
          }
        }
      });
      while (delivered.length < 60) await new Promise((resolve) => setTimeout(resolve, 20));
      victim.child.kill("SIGKILL");
      await victim.child.status;
      const killedAt = delivered.length;
      // The in-flight calls of the dead gateway's sessions: what their clients see.
      const outcomes = await Promise.all(
        held.map((outcome, i) => victims.has(i) ? outcome : Promise.resolve("alive")),
      );
      for (const [i, outcome] of outcomes.entries()) {
        if (victims.has(i)) assert.match(outcome, /^rejected: /, `client ${i}`);
      }
      console.log(`in flight on the killed gateway: ${[...new Set(outcomes)].join("; ")}`);
      // Until every client, the dead gateway's too, has delivered results since.
      const since = () => new Set(delivered.slice(killedAt).map((t) => Number(t.split(" ")[1])));
      while (since().size < first.length || delivered.length < killedAt + 60) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      stop = true;
      await Promise.all(loops);
      console.log(`calls that failed when the gateway died:\n  ${failures.join("\n  ")}`);
      // Only the dead gateway's clients saw a call fail.
      for (const failure of failures) {
        assert.ok(victims.has(Number(failure.split(" ")[1])), failure);
      }
      // The clients of the dead gateway went on: each delivered results after the kill.
      for (const i of victims) {
        assert.ok(
          delivered.slice(killedAt).some((t) => t.startsWith(`client ${i} `)),
          `client ${i}`,
        );
      }
      const recorded = await recordedResponses(db.admin);
      const all = new Set([...recorded.values()].flat());
      const missing = delivered.filter((text) => !all.has(text));
      assert.deepEqual(missing, [], "delivered but not recorded");
      // Every commit is whole: a batch's requests and responses together.
      const torn = await db.admin`select batch from spillway_events
        group by batch having count(*) filter (where type = 'tool_call_request') <>
          count(*) filter (where type = 'tool_call_response')`;
      assert.equal(torn.length, 0);
      // The dead gateway's conversations can be opened for writing again; a live one's cannot.
      const store = PostgresDatabase.connect({ url: db.url, password: PG_PASSWORD, shown: db.url });
      stores.push(store);
      const streams = new PostgresStreamStore(store);
      const owner = (contents: string[]) =>
        Number(contents.find((c) => c.startsWith("client "))?.split(" ")[1] ?? -1);
      let freed = 0;
      let refused = 0;
      for (const [id, contents] of recorded) {
        const i = owner(contents);
        if (i < 0 || i >= 6) continue;
        // A first session starts with the `pid` call; a session started again, with an echo.
        const again = contents[0]?.startsWith("client ") === true;
        if (victims.has(i) && !again) {
          const stream = await streams.open(id);
          await stream.close();
          freed++;
        } else {
          await assert.rejects(
            streams.open(id),
            /is open in another process \(pid \d+/,
            `${id} of client ${i}: ${contents.join(" | ").slice(0, 300)}`,
          );
          refused++;
        }
      }
      assert.ok(freed >= 1 && refused >= 1, `freed ${freed}, refused ${refused}`);
    } finally {
      for (const client of clients) await client.close().catch(() => {});
      if (balancer !== undefined) await balancer[Symbol.asyncDispose]();
      await disposeAll(gateways);
      for (const store of stores) await store.close();
      await db.close();
    }
  },
);

pgTest(
  "the database stopped under a gateway: the call is not recorded and says so, and the gateway recovers by itself",
  async () => {
    const db = await database();
    const server = await startPostgres();
    const [gateway] = await startGateways(1, db.url);
    let client: Client | undefined;
    try {
      client = await gatewayClient(gateway!.url!);
      assert.equal(
        textOf(await client.callTool({ name: "echo", arguments: { text: "before" } })),
        "before",
      );
      await db.close();
      await server.stop("immediate");
      let during;
      try {
        during = await client.callTool({ name: "echo", arguments: { text: "during" } });
      } finally {
        await server.start();
      }
      assert.equal(during.isError, true);
      assert.match(
        textOf(during),
        /^the result of call call_\d+ was not recorded: could not flush postgres:\/\/.*\/conversations\/\S+: /,
      );
      assert.equal(
        textOf(await client.callTool({ name: "echo", arguments: { text: "after" } })),
        "after",
      );
      const admin = server.admin(new URL(db.url).pathname.slice(1));
      try {
        const rows = await admin`select event->>'content' as content from spillway_events
          where type = 'tool_call_response' order by seq`;
        assert.deepEqual(rows.map((r) => r.content), ["before", "after"]);
      } finally {
        await admin.end();
      }
    } finally {
      await client?.close().catch(() => {});
      await gateway?.[Symbol.asyncDispose]();
    }
  },
);

stopPostgresTest();
