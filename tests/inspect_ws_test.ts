/**
 * `--inspect-ws URL` as an inspector sees it: a WebSocket server in the
 * test collects what `query` and `serve` send, and every message must read
 * as Stately's inspection protocol (the fields `@statelyai/inspect` itself
 * sends), every definition must build with `createMachine`, the actors must
 * form one tree per turn (per client session, per upstream connection), and
 * no tool's output, argument or token may be in any message. A recorded
 * run sent with `inspect --replay FILE --to URL` is the same messages.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { finished, query, spawnSpillway, workspaceWith } from "./_cli.ts";
import {
  actorTrees,
  type ProtocolMessage,
  readProtocol,
  statelyFields,
} from "./_stately_protocol.ts";
import { wsCollector } from "./_ws_collector.ts";
import { spawnHttpServe, textOf, upstreamConfig } from "./gateway_fixtures.ts";
import { Client, StreamableHTTPClientTransport } from "../src/service/sdk.ts";

const OUTPUT = "TOOL-OUTPUT-MARK-7f3a";
const ARGUMENT = "ARGUMENT-MARK-19c2";
const TOKEN = "serve-token-inspect-0123456789abcdef";
const API_KEY = "sk-inspect-secret-value";

const LOCAL_TOOL = `[conversation.tools.mark]
source = "local"
command = ["sh", "-c", "echo ${OUTPUT}; echo ${OUTPUT} >&2"]
`;

const SCRIPT = `[[cycles]]
tool_calls = [
  { id = "call_1", name = "mark", arguments = { text = "${ARGUMENT}" } },
  { id = "call_2", name = "mark", arguments = { text = "${ARGUMENT}" } },
]

[[cycles]]
text = "done"
`;

function assertNothingLeaked(raw: readonly string[]): void {
  for (const secret of [OUTPUT, ARGUMENT, TOKEN, API_KEY]) {
    const found = raw.find((message) => message.includes(secret));
    assert.equal(found, undefined, `${secret} was sent: ${found?.slice(0, 300)}`);
  }
}

function machinesOf(messages: readonly ProtocolMessage[]): Set<string> {
  return new Set(
    messages.flatMap((m) =>
      m.type === "@xstate.actor" ? [JSON.parse(m.definition ?? "{}").id] : []
    ),
  );
}

Deno.test("query --inspect-ws sends Stately's protocol: one tree for the turn, no output, argument or key", async () => {
  const fields = await statelyFields();
  await using collector = wsCollector();
  const workspace = await workspaceWith(LOCAL_TOOL, { "script.toml": SCRIPT });
  try {
    const run = await query(
      workspace,
      ["--quiet", "--script", "script.toml", "--inspect-ws", collector.url, "go"],
      { env: { OPENAI_API_KEY: API_KEY }, denoFlags: ["--allow-net=127.0.0.1"] },
    );
    assert.equal(run.code, 0, run.stderr);
    await collector.closed();
    const messages = readProtocol(collector.raw, fields);
    assert.deepEqual([...actorTrees(messages).values()], ["turn"]);
    for (const machine of ["turn", "phase", "commit"]) {
      assert.ok(machinesOf(messages).has(machine), `the ${machine} machine was announced`);
    }
    const events = messages.flatMap((m) => m.type === "@xstate.event" ? [m.event?.type] : []);
    assert.ok(events.includes("xstate.done.actor.commit"), "the commit's end was sent");
    assertNothingLeaked(collector.raw);
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
});

Deno.test("inspect --replay FILE --to URL sends what --inspect-ws sent while the run went", async () => {
  await using live = wsCollector();
  await using replayed = wsCollector();
  const workspace = await workspaceWith(LOCAL_TOOL, { "script.toml": SCRIPT });
  try {
    const run = await query(workspace, [
      "--quiet",
      "--script",
      "script.toml",
      "--inspect-ws",
      live.url,
      "--inspect",
      "run.jsonl",
      "go",
    ], { denoFlags: ["--allow-net=127.0.0.1"] });
    assert.equal(run.code, 0, run.stderr);
    await live.closed();
    const replay = await finished(
      spawnSpillway(["inspect", "--replay", "run.jsonl", "--to", replayed.url], {
        cwd: workspace,
        denoFlags: ["--allow-net=127.0.0.1"],
      }),
    );
    assert.equal(replay.code, 0, replay.stderr);
    await replayed.closed();
    assert.ok(live.raw.length > 20);
    assert.deepEqual(replayed.raw.map((m) => JSON.parse(m)), live.raw.map((m) => JSON.parse(m)));
    assert.equal(
      replay.stdout,
      `sent ${live.raw.length} messages from run.jsonl to ${replayed.url}\n`,
    );
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
});

Deno.test("inspect --replay refuses a recording without session ids, sending nothing", async () => {
  await using collector = wsCollector();
  const dir = await Deno.makeTempDir({ prefix: "spillway_replay_old_" });
  try {
    await Deno.writeTextFile(
      join(dir, "old.jsonl"),
      '{"type":"@xstate.actor","actor":"turn"}\n{"type":"@xstate.snapshot","actor":"turn","state":"requesting"}\n',
    );
    const run = await finished(
      spawnSpillway(["inspect", "--replay", "old.jsonl", "--to", collector.url], {
        cwd: dir,
        denoFlags: ["--allow-net=127.0.0.1"],
      }),
    );
    assert.equal(run.code, 2);
    assert.match(run.stderr, /recorded by an older spillway; record the run again to send it/);
    assert.deepEqual(collector.raw, []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--inspect-contents goes to loopback only, and an address that does not answer stops the run before it starts", async () => {
  const workspace = await workspaceWith(LOCAL_TOOL, { "script.toml": SCRIPT });
  try {
    const offMachine = await query(workspace, [
      "--script",
      "script.toml",
      "--inspect-ws",
      "ws://192.0.2.1:9/",
      "--inspect-contents",
      "go",
    ]);
    assert.equal(offMachine.code, 2);
    assert.match(offMachine.stderr, /192\.0\.2\.1 is not a loopback address/);
    const port = (() => {
      const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      const { port } = listener.addr;
      listener.close();
      return port;
    })();
    const nobody = await query(
      workspace,
      ["--script", "script.toml", "--inspect-ws", `ws://127.0.0.1:${port}/`, "go"],
      { denoFlags: ["--allow-net=127.0.0.1"] },
    );
    assert.equal(nobody.code, 2);
    assert.match(nobody.stderr, /--inspect-ws: cannot connect to ws:\/\/127\.0\.0\.1:\d+\//);
    assert.equal([...Deno.readDirSync(workspace)].some((e) => e.name === "conversations"), false);
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
});

Deno.test("serve --inspect-ws sends each client session and upstream connection as its own tree, no output or token", async () => {
  const fields = await statelyFields();
  await using collector = wsCollector();
  {
    await using serve = await spawnHttpServe(["--inspect-ws", collector.url], {
      config: upstreamConfig(LOCAL_TOOL),
      env: { SPILLWAY_SERVE_TOKEN: TOKEN },
    });
    for (const name of ["alpha", "beta"]) {
      const client = new Client({ name, version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(serve.url as URL, {
          requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
        }),
      );
      try {
        assert.match(
          textOf(await client.callTool({ name: "mark", arguments: { text: ARGUMENT } })),
          new RegExp(OUTPUT),
        );
        await client.callTool({ name: "test_simple_text", arguments: {} });
      } finally {
        await client.close();
      }
    }
  }
  await collector.closed();
  const messages = readProtocol(collector.raw, fields);
  const roots = [...actorTrees(messages).values()].sort();
  assert.deepEqual(roots, ["session", "session", "upstreamConnection"]);
  for (const machine of ["session", "phase", "commit", "upstreamConnection"]) {
    assert.ok(machinesOf(messages).has(machine), `the ${machine} machine was announced`);
  }
  const ready = messages.some((m) =>
    m.type === "@xstate.snapshot" && (JSON.stringify(m.snapshot?.value) ?? "").includes("serving")
  );
  assert.ok(ready, "the upstream connection's ready.serving was sent");
  assertNothingLeaked(collector.raw);
});

Deno.test("--inspect-contents to 127.0.0.1 sends the arguments and outputs themselves, still no key", async () => {
  await using collector = wsCollector();
  const workspace = await workspaceWith(LOCAL_TOOL, { "script.toml": SCRIPT });
  try {
    const run = await query(workspace, [
      "--quiet",
      "--script",
      "script.toml",
      "--inspect-ws",
      collector.url,
      "--inspect-contents",
      "go",
    ], { env: { OPENAI_API_KEY: API_KEY }, denoFlags: ["--allow-net=127.0.0.1"] });
    assert.equal(run.code, 0, run.stderr);
    await collector.closed();
    const all = collector.raw.join("\n");
    assert.ok(all.includes(ARGUMENT), "the arguments were sent");
    assert.ok(all.includes(OUTPUT), "the outputs were sent");
    assert.ok(!all.includes(API_KEY), "the API key was not");
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
});
