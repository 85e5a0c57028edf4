/**
 * The upstream connection machine at work, against the scripted server in
 * real subprocesses and on a simulated clock: relisting on
 * `notifications/tools/list_changed` (and a relisting that runs out of
 * time), the states a lost server passes on demand, restarting in the
 * background after a back-off that grows, and connections that share
 * nothing.
 */

import assert from "node:assert/strict";
import { SimulatedClock } from "xstate";
import { join } from "node:path";
import { SpillwayError } from "../src/errors/spillway_error.ts";
import { Milestones } from "../src/testing/tool_source_contract.ts";
import { McpUpstreamSource } from "../src/service/upstream/mcp_upstream_source.ts";
import { UpstreamConnection } from "../src/service/upstream/upstream_connection.ts";
import type { UpstreamServer } from "../src/service/upstream/upstream_link.ts";
import { Announcements, SCRIPTED_SERVER } from "./_scripted_server.ts";
import { captureLogs } from "./_upstream_logs.ts";

const never = new AbortController().signal;

function scripted(announcements: Announcements, flags: readonly string[] = []): UpstreamServer {
  return {
    kind: "stdio",
    process: {
      command: Deno.execPath(),
      args: ["run", "--quiet", SCRIPTED_SERVER, ...flags],
      stderr: announcements.sink,
      closeGraceMs: 300,
    },
  };
}

/** The text of a `tools/call` result's first block. */
function textOf(result: object): string {
  const content = (result as { content?: { text?: string }[] }).content;
  return content?.[0]?.text ?? "";
}

Deno.test("a server's list_changed lists its tools anew and tells the listeners; list() has the new tool", async () => {
  const announcements = new Announcements();
  const source = new McpUpstreamSource({
    name: "mcp.scripted",
    command: Deno.execPath(),
    args: ["run", "--quiet", SCRIPTED_SERVER],
    stderr: announcements.sink,
    closeGraceMs: 300,
  });
  try {
    const changes = new Milestones();
    source.onToolsChanged(() => changes.add());
    assert.equal((await source.list()).some((tool) => tool.name === "added"), false);
    const result = await source.call("change", {}, { signal: never });
    assert.equal(result.content[0]?.text, "changed");
    await changes.reached(1);
    assert.equal(announcements.listings.count, 2);
    assert.equal((await source.list()).some((tool) => tool.name === "added"), true);
    assert.equal(
      textOf(await source.call("echo", { text: "same server" }, { signal: never })),
      "same server",
    );
  } finally {
    await source.close();
  }
});

Deno.test("a relisting that outlives the start-up timeout keeps the tools listed before, and says why", async () => {
  await using logs = await captureLogs();
  const announcements = new Announcements();
  const clock = new SimulatedClock();
  const connection = new UpstreamConnection({
    name: "mcp.scripted",
    server: scripted(announcements),
    startupTimeoutMs: 400,
    warn: () => {},
    clock,
  });
  try {
    const { link, names } = await connection.ready();
    await link.client.callTool({ name: "change", arguments: { text: "and hang" } });
    await announcements.listings.reached(2);
    assert.deepEqual(connection.state, { ready: "relisting" });
    clock.increment(399);
    assert.deepEqual(connection.state, { ready: "relisting" });
    clock.increment(1);
    assert.deepEqual(connection.state, { ready: "serving" });
    assert.deepEqual(logs.lines, [
      "mcp.scripted: its tools changed, but listing them failed: deadline of 400 ms passed",
    ]);
    assert.equal((await connection.ready()).names, names, "the tools listed before stay");
  } finally {
    await connection.close();
  }
});

Deno.test("on demand, a lost server is lost until a call needs it: then it is started again, once, saying so", async () => {
  const announcements = new Announcements();
  const warnings: string[] = [];
  const connection = new UpstreamConnection({
    name: "mcp.scripted",
    server: scripted(announcements),
    startupTimeoutMs: 30_000,
    warn: (message) => warnings.push(message),
  });
  try {
    assert.equal(connection.state, "idle");
    const first = await connection.ready();
    assert.deepEqual(connection.state, { ready: "serving" });
    const pid = connection.pid;
    await assert.rejects(first.link.client.callTool({ name: "crash", arguments: {} }));
    await first.link.closed;
    assert.equal(connection.state, "lost");
    assert.equal(connection.pid, undefined);
    assert.equal(first.link.lossText(), "upstream server mcp.scripted exited (code 3)");
    assert.deepEqual(warnings, []);
    const again = await connection.ready();
    assert.notEqual(again.link, first.link);
    assert.notEqual(connection.pid, pid);
    assert.deepEqual(warnings, ["upstream server mcp.scripted exited (code 3); starting it again"]);
  } finally {
    await connection.close();
  }
  assert.equal(connection.state, "closed");
  await assert.rejects(connection.ready(), { message: "mcp.scripted is closed" });
});

Deno.test("in the background, a server that cannot start is retried after a back-off that grows, and its tools are listed once it answers", async () => {
  await using logs = await captureLogs();
  const dir = await Deno.makeTempDir();
  const ready = join(dir, "ready");
  const announcements = new Announcements();
  const clock = new SimulatedClock();
  const connection = new UpstreamConnection({
    name: "mcp.late",
    // Exits with code 2 until the file `ready` exists.
    server: {
      kind: "stdio",
      process: {
        command: "sh",
        args: [
          "-c",
          'test -e "$1" || exit 2; exec "$2" run --quiet "$3"',
          "sh",
          ready,
          Deno.execPath(),
          SCRIPTED_SERVER,
        ],
        stderr: announcements.sink,
        closeGraceMs: 300,
      },
    },
    startupTimeoutMs: 30_000,
    restart: { when: "background" },
    warn: () => {},
    clock,
  });
  const failure =
    "cannot start upstream server mcp.late: it exited (code 2) during the MCP handshake";
  const failed = (error: unknown) =>
    error instanceof SpillwayError && error.code === "tool_unavailable" &&
    error.message === failure;
  const listed = new Milestones();
  connection.onToolsChanged(() => listed.add());
  try {
    await assert.rejects(connection.ready(), failed);
    assert.equal(connection.state, "restarting");
    // Meanwhile a call gets the last failure at once: nothing waits for the back-off.
    await assert.rejects(connection.ready(), failed);
    assert.deepEqual(logs.lines, [failure]);

    // After 1 s it tries again (and fails again): now it waits 2 s.
    clock.increment(1_000);
    assert.deepEqual(connection.state, { starting: "initializing" });
    await logs.logged.reached(2);
    assert.equal(connection.state, "restarting");
    clock.increment(1_000);
    assert.equal(connection.state, "restarting");

    // The server can start now: at the end of the back-off it does, and says its tools.
    await Deno.writeTextFile(ready, "");
    clock.increment(1_000);
    await listed.reached(1);
    const { link, names } = await connection.ready();
    assert.ok(names.has("echo"));
    assert.equal(
      textOf(await link.client.callTool({ name: "echo", arguments: { text: "up" } })),
      "up",
    );
    assert.equal(logs.lines.length, 2);
  } finally {
    await connection.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("two connections to one server share nothing: each its own process, closing one leaves the other", async () => {
  const announcements = new Announcements();
  const options = {
    name: "mcp.scripted",
    server: scripted(announcements),
    startupTimeoutMs: 30_000,
    warn: () => {},
  };
  const one = new UpstreamConnection(options);
  const two = new UpstreamConnection(options);
  try {
    const [first, second] = await Promise.all([one.ready(), two.ready()]);
    assert.notEqual(one.pid, undefined);
    assert.notEqual(one.pid, two.pid);
    assert.notEqual(one.relays, two.relays);
    await one.close();
    assert.equal(first.link.ended, true);
    assert.equal(
      textOf(await second.link.client.callTool({ name: "echo", arguments: { text: "alone" } })),
      "alone",
    );
  } finally {
    await Promise.all([one.close(), two.close()]);
  }
});
