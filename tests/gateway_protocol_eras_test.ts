/**
 * `spillway serve` answers both MCP protocol eras, on both transports: a
 * real SDK client pinned to 2026-07-28, one negotiating (`auto`) and one on
 * 2025-11-25 (legacy) each call a tool whose upstream returns 5 MB. Each
 * gets 256 KB with the exact marker, the conversation records exactly what
 * was delivered, and its `session_start` names the client's protocol
 * revision. A 2026-07-28 client that goes away mid-call has the call
 * recorded as cancelled, never as delivered.
 */

import assert from "node:assert/strict";
import { Client, type ClientOptions, StreamableHTTPClientTransport } from "../src/service/sdk.ts";
import { spawnHttpServe, textOf, upstreamConfig } from "./gateway_fixtures.ts";
import { join } from "./_paths.ts";
import { serveStdio } from "./_serve_stdio.ts";

type Negotiation = NonNullable<ClientOptions["versionNegotiation"]>;

const ERAS: readonly { name: string; negotiation: Negotiation; protocol: string }[] = [
  {
    name: "pinned to 2026-07-28",
    negotiation: { mode: { pin: "2026-07-28" } },
    protocol: "2026-07-28",
  },
  { name: "negotiating (auto)", negotiation: { mode: "auto" }, protocol: "2026-07-28" },
  { name: "on 2025-11-25 (legacy)", negotiation: { mode: "legacy" }, protocol: "2025-11-25" },
];

const FIVE_MB = 5 * 1024 * 1024;
const MARKER = "\n... [truncated, 5.0 MB → 256.0 KB]";

/** Every conversation's events in `workspace`, by conversation id. */
function conversations(workspace: string): Map<string, Record<string, unknown>[]> {
  const dir = join(workspace, "conversations");
  const found = new Map<string, Record<string, unknown>[]>();
  for (const entry of Deno.readDirSync(dir)) {
    let lines: string[];
    try {
      lines = Deno.readTextFileSync(join(dir, entry.name, "events.jsonl")).split("\n");
    } catch (error) {
      // A conversation whose first batch is not recorded yet has no log yet.
      if (error instanceof Deno.errors.NotFound) continue;
      throw error;
    }
    found.set(entry.name, lines.filter((line) => line !== "").map((line) => JSON.parse(line)));
  }
  return found;
}

/** The one conversation's events, checked: its start names `protocol`, then the call as delivered. */
function assertRecordedAsDelivered(workspace: string, delivered: string, protocol: string) {
  const [events, ...others] = [...conversations(workspace).values()];
  assert.equal(others.length, 0, "one conversation");
  assert.ok(events !== undefined);
  assert.deepEqual(events.map((e) => e.type), [
    "session_start",
    "tool_call_request",
    "tool_call_response",
  ]);
  assert.equal(events[0]?.protocol, protocol);
  assert.equal(events[0]?.client, "default");
  assert.equal(events[2]?.content, delivered);
}

for (const era of ERAS) {
  Deno.test(`serve --http, a client ${era.name}: 5 MB is cut to 256 KB, recorded as delivered`, async () => {
    await using serve = await spawnHttpServe(["--no-auth"]);
    const client = new Client({ name: "eras-test", version: "1.0.0" }, {
      versionNegotiation: era.negotiation,
    });
    await client.connect(new StreamableHTTPClientTransport(serve.url as URL));
    try {
      assert.equal(client.getNegotiatedProtocolVersion(), era.protocol);
      const result = await client.callTool({ name: "big", arguments: { bytes: FIVE_MB } });
      const text = textOf(result);
      assert.ok(text.endsWith(MARKER), text.slice(-80));
      assert.ok(new TextEncoder().encode(text).length <= 256 * 1024);
      assertRecordedAsDelivered(serve.workspace, text, era.protocol);
    } finally {
      await client.close();
    }
  });

  Deno.test(`serve --stdio, a client ${era.name}: 5 MB is cut to 256 KB, recorded as delivered`, async () => {
    const dir = await Deno.makeTempDir({ prefix: "spillway-eras-" });
    try {
      const config = join(dir, "config.toml");
      await Deno.writeTextFile(config, upstreamConfig());
      const { client } = await serveStdio(dir, config, {}, { negotiation: era.negotiation });
      try {
        assert.equal(client.getNegotiatedProtocolVersion(), era.protocol);
        const result = await client.callTool({ name: "big", arguments: { bytes: FIVE_MB } });
        const text = textOf(result);
        assert.ok(text.endsWith(MARKER), text.slice(-80));
        assertRecordedAsDelivered(join(dir, "ws"), text, era.protocol);
      } finally {
        await client.close();
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("serve --http: a 2026-07-28 client that goes away mid-call has it recorded as cancelled, not delivered", async () => {
  await using serve = await spawnHttpServe(["--no-auth"]);
  // Two conversations: a call in flight holds back the results of its own batch only.
  const modern = async (conversation: string) => {
    const client = new Client({ name: "eras-test", version: "1.0.0" }, {
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    });
    await client.connect(
      new StreamableHTTPClientTransport(serve.url as URL, {
        requestInit: { headers: { "spillway-conversation": conversation } },
      }),
    );
    return client;
  };
  const client = await modern("agent");
  const watcher = await modern("watcher");
  try {
    const abort = new AbortController();
    const held = client.callTool({ name: "hold", arguments: { key: "k" } }, {
      signal: abort.signal,
    }).then(() => "answered", () => "refused");
    await watcher.callTool({ name: "until_held", arguments: { key: "k" } });
    abort.abort("the user pressed Esc");
    assert.equal(await held, "refused");
    // The upstream's call was cancelled with it.
    const seen = await watcher.callTool({ name: "until_cancelled", arguments: { key: "k" } });
    assert.equal(textOf(seen), "k was cancelled");
    // The cancelled call's batch is committed once the cancellation parked it.
    const holdResponse = () => {
      const events = [...conversations(serve.workspace).values()].flat();
      return events.find((e) =>
        e.type === "tool_call_response" &&
        events.some((r) => r.type === "tool_call_request" && r.id === e.id && r.name === "hold")
      );
    };
    let response = holdResponse();
    for (let tries = 0; response === undefined && tries < 200; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      response = holdResponse();
    }
    assert.ok(response !== undefined, "the cancelled call is recorded");
    assert.equal(response.is_error, true);
    assert.match(String(response.content), /the client disconnected/);
  } finally {
    await client.close();
    await watcher.close();
  }
});

Deno.test("serve --http: 2026-07-28 calls are grouped into conversations by the Spillway-Conversation header, within their client", async () => {
  await using serve = await spawnHttpServe(["--no-auth"]);
  const call = async (conversation: string | undefined) => {
    const client = new Client({ name: "eras-test", version: "1.0.0" }, {
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    });
    const headers: Record<string, string> = conversation === undefined
      ? {}
      : { "spillway-conversation": conversation };
    await client.connect(
      new StreamableHTTPClientTransport(serve.url as URL, { requestInit: { headers } }),
    );
    try {
      await client.callTool({ name: "big", arguments: { bytes: 10 } });
    } finally {
      await client.close();
    }
  };
  await call("review");
  await call("review");
  await call("build");
  await call(undefined);
  await call(undefined);
  const calls = [...conversations(serve.workspace).values()].map((events) =>
    events.filter((e) => e.type === "tool_call_response").length
  ).sort();
  // "review" twice, "build" once, and the two without a header: one rolling conversation.
  assert.deepEqual(calls, [1, 2, 2]);
});
