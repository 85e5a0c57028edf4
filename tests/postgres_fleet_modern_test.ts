/**
 * A fleet for MCP 2026-07-28 clients: three gateways on one PostgreSQL
 * database behind HAProxy sending every request round robin (no
 * stickiness: the protocol has no session to pin), real processes and v2
 * SDK clients pinned to 2026-07-28. One conversation's requests are served
 * by every gateway and recorded once each, into that one conversation,
 * which `conversation show` and `ls` read; a gateway killed (SIGKILL) with
 * calls in flight fails those calls for their client, which calls again
 * elsewhere, and the others go on writing the conversation.
 */

import assert from "node:assert/strict";
import { textOf } from "./gateway_fixtures.ts";
import type { ServeProcess } from "./gateway_fixtures.ts";
import {
  balancedTest,
  type Balancer,
  gatewayClient,
  gatewayConfig,
  startGateways,
  startHaproxy,
} from "./_gateways.ts";
import { finished, spawnSpillway, workspaceWith } from "./_cli.ts";
import { PG_PASSWORD, startPostgres, stopPostgresTest } from "./_postgres.ts";
import { PostgresDatabase } from "../src/postgres/postgres_database.ts";
import { PostgresStreamStore } from "../src/postgres/postgres_stream_store.ts";
import { modernConversationId } from "../src/gateway/modern_conversation_id.ts";
import type { StreamEvent } from "../src/stream/events.ts";
import type { Client } from "../src/service/sdk.ts";

/** A fresh database of the file's server, three gateways on it, HAProxy without stickiness. */
async function fleet(): Promise<
  { url: string; gateways: ServeProcess[]; balancer: Balancer } & AsyncDisposable
> {
  const server = await startPostgres();
  const url = await server.database("fleet");
  const gateways = await startGateways(3, url, false);
  let balancer: Balancer;
  try {
    balancer = await startHaproxy(gateways.map((g) => g.url!), { sticky: false });
  } catch (error) {
    for (const gateway of gateways) await gateway[Symbol.asyncDispose]();
    throw error;
  }
  return {
    url,
    gateways,
    balancer,
    [Symbol.asyncDispose]: async () => {
      await balancer[Symbol.asyncDispose]();
      for (const gateway of gateways) await gateway[Symbol.asyncDispose]();
    },
  };
}

/** The events of conversation `id`, as any reader loads them. */
async function recorded(url: string, id: string): Promise<StreamEvent[]> {
  const db = PostgresDatabase.connect({ url, password: PG_PASSWORD, shown: url });
  try {
    return [...(await new PostgresStreamStore(db).read(id)).events];
  } finally {
    await db.close();
  }
}

/**
 * Checks the conversation's calls: each request answered by one response,
 * no call id twice, each batch whole; returns the responses' texts.
 */
function responseTexts(events: readonly StreamEvent[]): string[] {
  const requests = events.flatMap((e) => e.type === "tool_call_request" ? [e.id] : []);
  const responses = events.flatMap((e) => e.type === "tool_call_response" ? [e] : []);
  assert.equal(new Set(requests).size, requests.length, "a call id recorded twice");
  assert.deepEqual(responses.map((r) => r.id).sort(), requests.toSorted());
  return responses.map((r) => r.content);
}

/** The conversation of the test clients' requests naming `key` (one client: `default`). */
const conversationOf = (key: string) => modernConversationId("default", `header:${key}`);

/** The texts that occur more than once in `texts`. */
function repeated(texts: readonly string[]): string[] {
  const seen = new Set<string>();
  return texts.filter((text) => seen.has(text) || !seen.add(text));
}

balancedTest(
  "three gateways without affinity: one 2026-07-28 conversation served by each, every result recorded once in it",
  async () => {
    await using f = await fleet();
    const client = await gatewayClient(f.balancer.url, "fleet-test", "agent");
    try {
      assert.equal(client.getNegotiatedProtocolVersion(), "2026-07-28");
      const pids: string[] = [];
      for (let i = 0; i < 9; i++) {
        pids.push(textOf(await client.callTool({ name: "pid", arguments: {} })));
      }
      // Round robin: the conversation's requests reached every gateway.
      assert.equal(new Set(pids).size, 3, pids.join(", "));
      // Calls in flight together, spread over the gateways.
      const delivered: string[] = [];
      await Promise.all(Array.from({ length: 4 }, async (_, w) => {
        for (let j = 0; j < 15; j++) {
          const text = `worker ${w} call ${j} ` + "é😀".repeat(j * 50);
          const result = await client.callTool({ name: "echo", arguments: { text } });
          assert.equal(textOf(result), text);
          delivered.push(text);
        }
      }));
      const id = conversationOf("agent");
      const events = await recorded(f.url, id);
      const texts = responseTexts(events);
      // Every text once (the pid calls answer the same three texts).
      assert.deepEqual(repeated(texts.filter((text) => !pids.includes(text))), []);
      assert.equal(texts.filter((text) => pids.includes(text)).length, pids.length);
      for (const text of [...delivered, ...pids]) assert.ok(texts.includes(text), text);
      assert.equal(texts.length, delivered.length + pids.length);
      // Each gateway that joined the conversation said so once, not per request.
      const starts = events.filter((e) => e.type === "session_start");
      assert.equal(starts.length, 3);
      for (const start of starts) {
        assert.equal(start.protocol, "2026-07-28");
        assert.equal(start.client, "default");
      }
      // A call its client gives up is cancelled on its gateway (HAProxy closes the request
      // there too), recorded as such in its conversation.
      const quitter = await gatewayClient(f.balancer.url, "fleet-test", "quit");
      try {
        const abort = new AbortController();
        const call = quitter.callTool({ name: "hold", arguments: { key: "q" } }, {
          signal: abort.signal,
        }).then(() => "answered", () => "refused");
        const probes = await Promise.all(
          f.gateways.map((g) => gatewayClient(g.url!, "fleet-test", "probe")),
        );
        try {
          const held = async () =>
            (await Promise.all(
              probes.map(async (p) => textOf(await p.callTool({ name: "held", arguments: {} }))),
            )).map(Number).reduce((a, b) => a + b, 0);
          while (await held() === 0) continue;
          abort.abort("the user pressed Esc");
          assert.equal(await call, "refused");
          while (await held() > 0) continue;
        } finally {
          for (const probe of probes) await probe.close();
        }
      } finally {
        await quitter.close();
      }
      let cancelled: StreamEvent[] = [];
      while (!cancelled.some((e) => e.type === "tool_call_response")) {
        cancelled = await recorded(f.url, conversationOf("quit")).catch(() => []);
      }
      const response = cancelled.find((e) => e.type === "tool_call_response");
      assert.ok(response?.type === "tool_call_response" && response.is_error);
      assert.match(response.content, /the client disconnected/);
      // Nothing of the agent's anywhere else.
      const db = PostgresDatabase.connect({ url: f.url, password: PG_PASSWORD, shown: f.url });
      try {
        const others = [conversationOf("quit"), conversationOf("probe")];
        assert.deepEqual(
          (await new PostgresStreamStore(db).list()).filter((c) => !others.includes(c)),
          [id],
        );
      } finally {
        await db.close();
      }
      // The readers read it: `conversation ls` and `show`, from a machine that served nothing.
      const workspace = await workspaceWith(gatewayConfig(f.url));
      try {
        const spillway = (args: string[]) =>
          finished(
            spawnSpillway([...args.slice(0, 2), "--workspace", workspace, ...args.slice(2)], {
              cwd: workspace,
              env: { SPILLWAY_DATABASE_PASSWORD: PG_PASSWORD },
              denoFlags: ["--allow-net", "--allow-sys"],
            }),
          );
        const ls = await spillway(["conversation", "ls"]);
        assert.equal(ls.code, 0, ls.stderr);
        console.log(ls.stdout);
        assert.match(ls.stdout, new RegExp(`^ *${id} +default +2026-07-28 `, "m"));
        const show = await spillway(["conversation", "show", id]);
        assert.equal(show.code, 0, show.stderr);
        assert.equal(
          show.stdout.match(
            /^Session · .* · client default \(fleet-test 1\.0\.0\) · MCP 2026-07-28$/gm,
          )
            ?.length,
          3,
          show.stdout.slice(0, 2000),
        );
        assert.ok(show.stdout.includes("worker 3 call 14 "), "the last calls are shown");
      } finally {
        await Deno.remove(workspace, { recursive: true });
      }
    } finally {
      await client.close();
    }
  },
);

balancedTest(
  "a gateway of the fleet killed with 2026-07-28 calls in flight: they fail for the client, are called again elsewhere, and nothing delivered is missing",
  async () => {
    await using f = await fleet();
    const { balancer, gateways } = f;
    const clients: Client[] = [];
    const connect = async (conversation: string, url = balancer.url) => {
      const client = await gatewayClient(url, "fleet-test", conversation);
      clients.push(client);
      return client;
    };
    try {
      let agent = await connect("agent");
      // Each gateway's call ids carry its tag: learned from the `pid` calls it answers.
      const pids = new Set<string>();
      while (pids.size < 3) pids.add(textOf(await agent.callTool({ name: "pid", arguments: {} })));
      // Calls that take long (15 s), in a conversation of their own (they would hold
      // the agent's batches back), spread over the gateways.
      const holder = await connect("held");
      const outcomes: string[] = Array.from({ length: 6 }, () => "pending");
      const holds = outcomes.map((_, i) =>
        holder.callTool({ name: "hold", arguments: { key: `k${i}`, after_ms: 15_000 } }, {
          timeout: 60_000,
        }).then(
          (result) => `answered: ${textOf(result)}`,
          (error: Error) => `failed: ${error.message}`,
        ).then((outcome) => {
          outcomes[i] = outcome;
        })
      );
      // Each gateway, asked directly, says how many it holds: all six arrived.
      const probes = await Promise.all(gateways.map((g) => connect("probe", g.url!)));
      const heldBy = async () =>
        await Promise.all(
          probes.map(async (p) =>
            Number(textOf(await p.callTool({ name: "held", arguments: {} })))
          ),
        );
      let counts = await heldBy();
      while (counts.reduce((a, b) => a + b, 0) < 6) counts = await heldBy();
      const victimAt = counts.indexOf(Math.max(...counts));
      const victim = gateways[victimAt]!;
      const victimPid = String(victim.child.pid);

      // The agent calls from three workers; a call that fails is called again, as a new call.
      const delivered: string[] = [];
      const attempts: string[] = [];
      const failures: string[] = [];
      let stop = false;
      let reconnecting: Promise<void> | undefined;
      const workers = Array.from({ length: 3 }, async (_, w) => {
        for (let j = 0; !stop; j++) {
          for (let attempt = 0;; attempt++) {
            const text = `worker ${w} call ${j} attempt ${attempt}`;
            attempts.push(text);
            try {
              const result = await agent.callTool({ name: "echo", arguments: { text } }, {
                timeout: 20_000,
              });
              assert.equal(textOf(result), text);
              delivered.push(text);
              break;
            } catch (error) {
              failures.push(`${text}: ${(error as Error).message}`);
              assert.ok(attempt < 6, failures.join("\n"));
              // The SDK client gives up its connection when a stream it was reading
              // broke (the gateway died mid-answer): the agent connects again, once.
              if (/Connection closed|Not connected/.test((error as Error).message)) {
                const broken = agent;
                reconnecting ??= connect("agent").then((client) => {
                  if (agent === broken) agent = client;
                  reconnecting = undefined;
                });
                await reconnecting;
              }
            }
          }
        }
      });
      while (delivered.length < 30) await new Promise((resolve) => setTimeout(resolve, 10));
      victim.child.kill("SIGKILL");
      await victim.child.status;
      const killedAt = delivered.length;

      // The victim's held calls fail for the client: its connection closed under them.
      const heldOnVictim = counts[victimAt]!;
      const settled = () => outcomes.filter((o) => o !== "pending").length;
      while (settled() < heldOnVictim) await new Promise((resolve) => setTimeout(resolve, 20));
      const failed = outcomes.flatMap((o, i) => o.startsWith("failed: ") ? [i] : []);
      console.log(`held calls, their gateway killed: ${outcomes.join("; ")}`);
      assert.equal(failed.length, heldOnVictim, outcomes.join("; "));
      // The live gateways' held calls answer in their time, from their gateways.
      await Promise.all(holds);
      for (const [i, outcome] of outcomes.entries()) {
        if (failed.includes(i)) continue;
        assert.match(outcome, new RegExp(`^answered: k${i} on (?!${victimPid}$)\\d+$`));
      }
      // Called again, they reach a live gateway and answer.
      for (const i of failed) {
        const again = await holder.callTool({
          name: "hold",
          arguments: { key: `k${i}`, after_ms: 0 },
        });
        const [key, , pid] = textOf(again).split(" ");
        assert.equal(key, `k${i}`);
        assert.notEqual(pid, victimPid);
      }

      // The others go on writing the agent's conversation.
      while (delivered.length < killedAt + 30) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      stop = true;
      await Promise.all(workers);
      console.log(`agent calls that failed when the gateway died:\n  ${failures.join("\n  ")}`);

      const agentEvents = await recorded(f.url, conversationOf("agent"));
      const texts = responseTexts(agentEvents);
      const responses = agentEvents.flatMap((e) => e.type === "tool_call_response" ? [e] : []);
      const tagOf = (id: string) => id.slice(id.indexOf(".") + 1);
      const victimTags = new Set(
        responses.filter((r) => r.content === victimPid).map((r) => tagOf(r.id)),
      );
      assert.equal(victimTags.size, 1);
      // Every delivered result once, from a live gateway; a call is recorded twice only
      // when the dead gateway committed it and died before answering, and the client's
      // HTTP stack sent it again (HAProxy closed its keep-alive connection without an
      // answer), to another gateway, whose answer was delivered: docs/deployment.md.
      for (const text of repeated(texts.filter((t) => !pids.has(t)))) {
        const copies = responses.filter((r) => r.content === text);
        console.log(`run twice: ${copies.map((c) => `${c.id} ${c.content}`).join("; ")}`);
        assert.equal(copies.length, 2, text);
        assert.equal(copies.filter((c) => victimTags.has(tagOf(c.id))).length, 1, text);
      }
      const missing = delivered.filter((text) => !texts.includes(text));
      assert.deepEqual(missing, [], "delivered but not recorded");
      const strays = texts.filter((text) => !attempts.includes(text) && !pids.has(text));
      assert.deepEqual(strays, []);
      // The dead gateway holds no lock: its connections are gone with it.
      const admin = (await startPostgres()).admin(new URL(f.url).pathname.slice(1));
      try {
        for (;;) {
          const holders = await admin<{ name: string }[]>`
            select distinct a.application_name as name from pg_locks l
            join pg_stat_activity a on a.pid = l.pid where l.locktype = 'advisory'`;
          if (!holders.some((h) => h.name.startsWith(`spillway pid ${victimPid} `))) break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      } finally {
        await admin.end();
      }
    } finally {
      for (const client of clients) await client.close().catch(() => {});
    }
  },
);

stopPostgresTest();
