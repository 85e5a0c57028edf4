/**
 * 1,000 clients of a real `spillway serve --http` each open a session, make
 * a call and go away without ending it. Once a session has committed
 * nothing for the linger, it holds no file: no conversation log, no writer
 * lock, while it waits for its idle timeout; then every one of them is
 * closed (their ids get 404), and the gateway serves new clients as
 * before. Linux only (`/proc`).
 */

import assert from "node:assert/strict";
import { abandonSessions, openFiles, rssMb, until } from "./_abandoned_sessions.ts";
import { spawnHttpServe } from "./gateway_fixtures.ts";

const TOKEN = "idle-sessions-token-0123456789";
const SESSIONS = 1_000;

Deno.test({
  name:
    "serve --http: 1,000 abandoned sessions hold no file once idle, and are all closed after session_idle_timeout",
  ignore: Deno.build.os !== "linux",
  async fn() {
    await using serve = await spawnHttpServe(
      ["-v", "--cfg", "serve.session_idle_timeout=10s", "--cfg", "serve.max_sessions=2000"],
      { env: { SPILLWAY_SERVE_TOKEN: TOKEN } },
    );
    const url = serve.url as URL;
    const pid = serve.child.pid;
    const closedLine = /session "?[0-9a-f-]{36}"? closed: no request for "?10s"?/;
    const [first] = await abandonSessions(url, TOKEN, 1, {
      concurrency: 1,
      tool: "test_simple_text",
    });
    const idle = { rss: await rssMb(pid), files: await openFiles(pid, serve.workspace) };
    const ids = await abandonSessions(url, TOKEN, SESSIONS, {
      concurrency: 20,
      tool: "test_simple_text",
    });
    assert.equal(ids.length, SESSIONS);
    const opened = { rss: await rssMb(pid), files: await openFiles(pid, serve.workspace) };
    // Within the linger after their last commit, sessions still hold their conversation.
    const released = await until(
      () => openFiles(pid, serve.workspace),
      (files) => files.under.length === 0,
      30_000,
      "no file of the workspace open",
    );
    // Idle sessions holding nothing were alive: the last ones still answer.
    const alive = await fetch(url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${TOKEN}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": ids.at(-1) as string,
        "mcp-protocol-version": "2025-06-18",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "ping" }),
    });
    await alive.body?.cancel();
    const closed = (text: string) =>
      text.split("\n").filter((line) => closedLine.test(line)).length;
    await until(
      () => Promise.resolve(closed(serve.stderr.text)),
      (count) => count === SESSIONS + 1,
      60_000,
      "every session closed",
    );
    const after = { rss: await rssMb(pid), files: await openFiles(pid, serve.workspace) };
    console.log(
      `RSS: idle ${idle.rss.toFixed(1)} MB, after ${SESSIONS} sessions ${
        opened.rss.toFixed(1)
      } MB, ` +
        `after their timeout ${after.rss.toFixed(1)} MB; fds: idle ${idle.files.count}, ` +
        `after ${opened.files.count} (${opened.files.under.length} in the workspace), ` +
        `released ${released.count}, after the timeout ${after.files.count}`,
    );
    assert.equal(alive.status, 200, "the last session was alive and idle");
    assert.deepEqual(after.files.under, []);
    // What the closed sessions held is not kept: no growth once they are gone.
    assert.ok(after.rss - opened.rss < 64, `RSS ${opened.rss} MB, then ${after.rss} MB`);
    for (const id of [first, ids[0], ids.at(-1)]) {
      const late = await fetch(url, {
        method: "POST",
        headers: {
          authorization: `Bearer ${TOKEN}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-session-id": id as string,
          "mcp-protocol-version": "2025-06-18",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 4, method: "ping" }),
      });
      assert.equal(late.status, 404);
      await late.body?.cancel();
    }
    // New clients are served as before.
    assert.equal(
      (await abandonSessions(url, TOKEN, 1, { concurrency: 1, tool: "test_simple_text" })).length,
      1,
    );
  },
});
