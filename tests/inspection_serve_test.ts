/**
 * `spillway serve --inspect FILE`: every client session's phases recorded in
 * one file, each record naming its session, and the inspector's replay of
 * it: each phase a batch of its session, the phase that acts lit where a
 * turn runs it. First in-process (two sessions of a gateway, one phase cut
 * by a size_threshold), then as a person runs it (an SDK client spawning
 * `serve --stdio --inspect FILE`).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { InspectionReplay } from "../src/inspector/inspection_replay.ts";
import type { InspectorView } from "../src/inspector/inspector_view.ts";
import { Client, StdioClientTransport } from "../src/service/sdk.ts";
import { spillwayArgv } from "./_cli.ts";
import { recordServe } from "./_recorded_serve.ts";

async function replayOf(file: string): Promise<InspectionReplay> {
  const replay = new InspectionReplay();
  for (const line of (await Deno.readTextFile(file)).split("\n")) replay.addLine(line);
  return replay;
}

/** The first step whose `said` is `said`. */
function stepSaying(replay: InspectionReplay, said: string): InspectorView {
  for (let step = 1; step <= replay.steps; step++) {
    const view = replay.viewAt(step);
    if (view.said === said) return view;
  }
  throw new Error(`no step says "${said}"`);
}

Deno.test("serve --inspect: each session's phases are batches of that session, lit in toolPhase", async () => {
  const dir = await Deno.makeTempDir({ prefix: "spillway-serve-inspect-" });
  const file = join(dir, "inspect.jsonl");
  try {
    await recordServe(dir, file);
    const replay = await replayOf(file);
    const last = replay.viewAt();
    assert.deepEqual(last.sessions, ["alpha", "beta"]);
    assert.equal(last.unreadable, 0);
    // No turn, and no phase running at the end: nothing lit.
    assert.deepEqual(last.turn, { state: undefined, status: undefined });
    assert.deepEqual(last.active, []);
    const summary = last.batches.map((batch) => ({
      cycle: batch.cycle,
      session: batch.session,
      calls: batch.calls.map((call) => [
        call.tool,
        call.route,
        call.state,
        call.raw?.bytes,
        call.threshold?.bytes,
        call.recorded?.text,
        call.cutBy.join(),
      ]),
      spent: batch.budget.spent?.bytes,
      commit: batch.budget.commit,
      notices: batch.notices,
    }));
    const bigRecorded = last.batches[0]?.calls[0]?.recorded;
    assert.ok(bigRecorded !== undefined && bigRecorded.bytes <= 4096, JSON.stringify(bigRecorded));
    assert.deepEqual(summary, [
      {
        cycle: 1,
        session: "alpha",
        calls: [
          [
            "big",
            "joined",
            "released",
            50_000,
            bigRecorded.bytes,
            bigRecorded.text,
            "size_threshold",
          ],
          ["small", "joined", "released", 2, 2, "2 B", ""],
        ],
        spent: bigRecorded.bytes + 2,
        commit: "done",
        notices: ["big: sent 4.0 KB of 48.8 KB to the assistant (size_threshold)"],
      },
      {
        cycle: 2,
        session: "beta",
        calls: [["small", "joined", "released", 2, 2, "2 B", ""]],
        spent: 2,
        commit: "done",
        notices: [],
      },
    ]);

    // Every step says whose it is.
    const said = Array.from({ length: replay.steps }, (_, i) => replay.viewAt(i + 1).said);
    const unnamed = said.filter((text) => !/^session (alpha|beta): /.test(text));
    assert.deepEqual(unnamed, []);
    assert.ok(
      said.includes("session alpha: a phase started: 2 calls from the client"),
      said.join("\n"),
    );

    // While alpha's commit releases: lit inside toolPhase, its calls at the barrier, beta not yet there.
    const releasing = stepSaying(replay, "session alpha: commit → releasing");
    assert.deepEqual(releasing.active, [
      "toolPhase",
      "toolPhase_committing",
      "toolPhase_committing_releasing",
    ]);
    assert.deepEqual(releasing.batches.map((batch) => batch.calls.map((call) => call.state)), [
      ["barrierAcknowledge", "barrierAcknowledge"],
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an SDK client spawning serve --stdio --inspect FILE: its session's phase in FILE", async () => {
  const dir = await Deno.makeTempDir({ prefix: "spillway-serve-inspect-" });
  try {
    await Deno.writeTextFile(join(dir, "big.txt"), "line of text\n".repeat(30_000));
    // serve offers a builtin tool only when the configuration names it.
    await Deno.mkdir(join(dir, "ws"));
    await Deno.writeTextFile(join(dir, "ws", "config.toml"), "[conversation.tools.fs_read_file]\n");
    const transport = new StdioClientTransport({
      command: Deno.execPath(),
      args: spillwayArgv([
        "serve",
        "--stdio",
        "--workspace",
        join(dir, "ws"),
        "--inspect",
        "inspect.jsonl",
      ]),
      cwd: dir,
      env: { XDG_CONFIG_HOME: join(dir, "no-user-config") },
      stderr: "pipe",
    });
    let stderr = "";
    const decoder = new TextDecoder();
    transport.stderr?.on("data", (chunk: Uint8Array) => stderr += decoder.decode(chunk));
    const client = new Client({ name: "inspect-test", version: "1.0.0" });
    await client.connect(transport);
    await client.callTool({ name: "fs_read_file", arguments: { path: "big.txt" } });
    await client.close();
    const replay = await replayOf(join(dir, "inspect.jsonl"));
    const last = replay.viewAt();
    assert.equal(last.sessions.length, 1, stderr);
    assert.equal(last.batches.length, 1);
    const [call] = last.batches[0]?.calls ?? [];
    assert.deepEqual(
      [call?.tool, call?.state, call?.raw?.text, call?.threshold?.text, call?.cutBy],
      ["fs_read_file", "released", "380.8 KB", "256.0 KB", ["size_threshold"]],
    );
    assert.deepEqual(last.batches[0]?.notices, [
      "fs_read_file: sent 256.0 KB of 380.8 KB to the assistant (size_threshold)",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("serve --inspect: each client session's own machine is lit, and each call has its times and why it ended", async () => {
  const dir = await Deno.makeTempDir({ prefix: "spillway-serve-inspect-" });
  const file = join(dir, "inspect.jsonl");
  try {
    await recordServe(dir, file);
    const replay = await replayOf(file);
    const last = replay.viewAt();
    assert.deepEqual(
      last.clients.map(({ session, state, status, batches, calls }) => ({
        session,
        state,
        status,
        batches,
        calls,
      })),
      [
        { session: "alpha", state: "closed", status: "done", batches: 1, calls: 2 },
        { session: "beta", state: "closed", status: "done", batches: 1, calls: 1 },
      ],
    );
    for (const client of last.clients) assert.match(client.conversation ?? "", /^\d{8}-\d{6}-/);
    // While alpha's phase commits, its session machine is lit in both its regions.
    const committing = stepSaying(
      replay,
      "session alpha: session → open.calls.sealed, open.commits.committing",
    );
    assert.deepEqual(committing.clients[0]?.active.filter((id) => id.endsWith("committing")), [
      "open_commits_committing",
    ]);
    assert.ok(committing.clients[0]?.active.includes("open_calls_sealed"));
    for (const call of last.batches.flatMap((batch) => batch.calls)) {
      const { startedAt = -1, slotAt = -1, endedAt = -1 } = call;
      assert.ok(0 <= startedAt && startedAt <= slotAt && slotAt <= endedAt, call.id);
      assert.equal(
        call.ended,
        "phase: committing → released on xstate.done.actor.commit, then always [committedAndReleased]",
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
