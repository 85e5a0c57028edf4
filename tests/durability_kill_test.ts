/**
 * Kill -9 during commit (rule 2 of docs/architecture.md: flush before release): a child
 * process runs turns through the real pipeline (createRuntime, the
 * in-process execution service, the file store) and prints a `released`
 * line the moment each result is released to its caller
 * (tests/fixtures/kill/commit_loop.ts). The parent kills it with SIGKILL,
 * at a random moment or where the child stopped itself (see `KILLS`), then
 * checks that
 *
 * - the log parses: every line but the last is a JSON event, and
 *   `FileStreamStore` loads it with at most one warning (a torn last line),
 *   never an error;
 * - every result the child claimed to release is recorded, as a
 *   `tool_call_response` with the same id, the same UTF-8 size and the same
 *   SHA-256: nothing reached a caller that the stream does not hold;
 * - the conversation goes on: opening it repairs what the kill cut short
 *   (unanswered calls recorded as interrupted, a missing `turn_end` added,
 *   one warning), the model is sent a history where every call is
 *   answered, and the new turn finishes and is readable.
 *
 * SIGKILL does not drop the page cache, so this proves the order (recorded
 * before released) and the torn-line handling, not the fsync itself; the
 * fsync count is covered by the flush tests and the commit benchmark.
 *
 * Every random choice (each trial's kill delay or stopping point, and the
 * seed each child draws its sizes and call counts from) comes from one test
 * seed, printed when the test fails and replayed with `SPILLWAY_TEST_SEED`.
 * Where in its work a child is when a timed kill lands still depends on the
 * machine's load; where a stopped child is does not.
 */

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { Buffer } from "node:buffer";
import { join } from "node:path";
import { parseConfig } from "../src/config/parse_config.ts";
import { createRuntime } from "../src/runtime/create_runtime.ts";
import type { StreamEvent } from "../src/stream/events.ts";
import type { ConversationMessage } from "../src/provider/provider.ts";
import { FileStreamStore } from "../src/stream/file_stream_store.ts";
import { planTurnRepair, turnRepairWarning } from "../src/stream/repair_interrupted_turn.ts";
import { seededRandom, withTestSeed } from "../src/testing/seed.ts";
import { spawnKillChild } from "./fixtures/kill/_kill_child.ts";

/**
 * How each child is killed, one entry per trial. Two kinds:
 *
 * - timed: at a random moment (0–400 ms) after its spawn (20 ms at the
 *   earliest; possibly before the runtime is up), after `ready` (often
 *   before the first commit), or after its first release (in the middle of
 *   later turns): wherever that falls;
 * - stopped: the child stops itself at a point that matters, the Nth time
 *   it gets there (N from the seed), and is killed there: halfway through
 *   an append to the log (a torn last line, every time), in the tool
 *   running a call (the call asked for and unanswered, to repair on open),
 *   or at a release (recorded, claimed, not yet delivered).
 *
 * Each stopping point is reached by every trial aimed at it, so four of
 * each prove what they are for; the timed kills sample every other moment.
 * (Timed kills alone reached a torn last line about once in 100 trials.)
 */
const KILLS = [
  ...Array<Kill>(2).fill({ timedFrom: "spawn" }),
  ...Array<Kill>(2).fill({ timedFrom: "ready" }),
  ...Array<Kill>(4).fill({ timedFrom: "release" }),
  ...Array<Kill>(4).fill({ stopAt: "append" }),
  ...Array<Kill>(4).fill({ stopAt: "call" }),
  ...Array<Kill>(4).fill({ stopAt: "release" }),
];
type Kill =
  | { readonly timedFrom: "spawn" | "ready" | "release" }
  | { readonly stopAt: "append" | "call" | "release" };
/** How many children are killed. */
const TRIALS = KILLS.length;
/** Children alive at once: enough to keep 2 cores busy while the parent checks. */
const PARALLEL = 4;
/** The random part of every timed kill's delay, in ms. */
const MAX_KILL_DELAY_MS = 400;
/** A stopped child stops the Nth time it gets to its point, N up to this (the first turns). */
const MAX_NTH = 16;
/**
 * Not a wait: a guard that kills a child that never reaches the moment its
 * kill is timed from or the point it stops at (it is broken), so the trial
 * fails instead of hanging.
 */
const STALL_GUARD_MS = 60_000;

/** One trial's random choices, drawn from the test seed before any child runs. */
interface TrialPlan {
  readonly trial: number;
  readonly kill: Kill;
  /** When a timed kill lands, in ms after the moment it is timed from. */
  readonly delayMs: number;
  /** Where a stopped child stops, e.g. `call:3`; `none` for a timed kill. */
  readonly stop: string;
  /** The child's own seed (sizes, call counts). */
  readonly childSeed: number;
}

function planTrials(seed: number): TrialPlan[] {
  const random = seededRandom(seed);
  return KILLS.map((kill, trial) => {
    const delayMs = "timedFrom" in kill && kill.timedFrom === "spawn"
      ? 20 + random() * (MAX_KILL_DELAY_MS - 20)
      : random() * MAX_KILL_DELAY_MS;
    const nth = 1 + Math.floor(random() * MAX_NTH);
    const stop = "stopAt" in kill ? `${kill.stopAt}:${nth}` : "none";
    return { trial, kill, delayMs, stop, childSeed: Math.floor(random() * 2 ** 32) | 0 };
  });
}

interface Claim {
  readonly id: string;
  readonly sha256: string;
  readonly bytes: number;
}

interface TrialResult {
  readonly claims: readonly Claim[];
  readonly torn: boolean;
  readonly responses: number;
  /** Calls the kill left unanswered, recorded as interrupted when the conversation was opened. */
  readonly repairedCalls: number;
}

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

/** Runs one child in `workspace`, kills it as planned, and returns its claims. */
async function runChild(workspace: string, plan: TrialPlan): Promise<Claim[]> {
  const { trial, kill: how, delayMs } = plan;
  const timedFrom = "timedFrom" in how ? how.timedFrom : undefined;
  const child = spawnKillChild("commit_loop.ts", [workspace, String(plan.childSeed), plan.stop]);
  const stderr = new Response(child.stderr).text();
  const killed = Promise.withResolvers<void>();
  const timers: ReturnType<typeof setTimeout>[] = [];
  const kill = () => {
    try {
      child.kill("SIGKILL");
    } catch {
      // Already gone: its exit status says why.
    }
    killed.resolve();
  };
  const schedule = (ms: number) => {
    for (const timer of timers.splice(0)) clearTimeout(timer);
    timers.push(setTimeout(kill, ms));
  };
  schedule(timedFrom === "spawn" ? delayMs : STALL_GUARD_MS);

  const lines: string[] = [];
  let pending = "";
  let ready = false;
  let frozen: string | undefined;
  for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
    pending += chunk;
    const parts = pending.split("\n");
    pending = parts.pop() ?? "";
    for (const line of parts) {
      if (line === "ready" && !ready) {
        ready = true;
        if (timedFrom === "ready") schedule(delayMs);
        continue;
      }
      if (line.startsWith("frozen ")) {
        frozen = line.slice("frozen ".length);
        kill();
        continue;
      }
      if (lines.length === 0 && timedFrom === "release") schedule(delayMs);
      lines.push(line);
    }
  }
  const status = await child.status;
  for (const timer of timers) clearTimeout(timer);
  await killed.promise;
  const errors = await stderr;
  assert.equal(
    status.signal,
    "SIGKILL",
    `trial ${trial}: the child ended on its own (code ${status.code}): ${errors}`,
  );
  assert.ok(ready || timedFrom === "spawn", `trial ${trial}: never ready: ${errors}`);
  if ("stopAt" in how) {
    assert.ok(frozen?.startsWith(how.stopAt), `trial ${trial}: never stopped at ${plan.stop}`);
  }
  const releases = timedFrom === "release" || ("stopAt" in how && how.stopAt === "release");
  assert.ok(lines.length > 0 || !releases, `trial ${trial}: never released: ${errors}`);
  // The child writes whole lines in one write, so a kill never splits one.
  assert.equal(pending, "", `trial ${trial}: partial stdout line ${JSON.stringify(pending)}`);
  return lines.map((line) => {
    const match = /^released (\S+) ([0-9a-f]{64}) (\d+)$/.exec(line);
    assert.ok(match, `trial ${trial}: unexpected child output ${JSON.stringify(line)}`);
    return { id: match[1]!, sha256: match[2]!, bytes: Number(match[3]) };
  });
}

/** Checks the raw log: complete lines are JSON events; only an unterminated tail may not be. */
function checkRawLog(bytes: Uint8Array, trial: number): { lines: number; torn: boolean } {
  const text = new TextDecoder().decode(bytes);
  const lines = text.split("\n");
  const tail = lines.pop() ?? "";
  for (const [index, line] of lines.entries()) {
    let event: unknown;
    try {
      event = JSON.parse(line);
    } catch (error) {
      assert.fail(`trial ${trial}: line ${index + 1} of ${lines.length} is not JSON: ${error}`);
    }
    assert.equal(typeof (event as { type?: unknown }).type, "string");
  }
  return { lines: lines.length, torn: tail !== "" };
}

/** Loads the killed conversation, checks the claims, then runs one more turn on it. */
async function verify(workspace: string, claims: readonly Claim[], trial: number) {
  const store = new FileStreamStore(join(workspace, "conversations"));
  const ids = await store.list();
  assert.ok(ids.length <= 1, `trial ${trial}: ${ids.length} conversations`);
  const conversationId = ids[0];
  if (conversationId === undefined) {
    assert.deepEqual(claims, [], `trial ${trial}: released without a conversation`);
    return { claims, torn: false, responses: 0, repairedCalls: 0 };
  }
  const path = join(workspace, "conversations", conversationId, "events.jsonl");
  const raw = checkRawLog(await Deno.readFile(path), trial);

  const stream = await store.open(conversationId);
  let events: readonly StreamEvent[];
  try {
    const loaded = await stream.load();
    events = loaded.events;
    assert.equal(loaded.warnings.length, raw.torn ? 1 : 0, `trial ${trial}: ${loaded.warnings}`);
    if (raw.torn) assert.match(loaded.warnings[0]!, /skipped a torn last line/);
    assert.equal(events.length, raw.lines, `trial ${trial}: every complete line loads`);
  } finally {
    await stream.close();
  }

  const recorded = new Map<string, string>();
  for (const event of events) {
    if (event.type === "tool_call_response") recorded.set(event.id, event.content);
  }
  for (const claim of claims) {
    const content = recorded.get(claim.id);
    assert.ok(content !== undefined, `trial ${trial}: ${claim.id} was released, not recorded`);
    assert.equal(Buffer.byteLength(content, "utf8"), claim.bytes, `trial ${trial}: ${claim.id}`);
    assert.equal(sha256(content), claim.sha256, `trial ${trial}: ${claim.id} content differs`);
  }

  // Whatever the kill left (a torn line, calls without responses, no
  // turn_end), the conversation is repaired when opened, the person is told
  // once, and the model is sent a history where every call is answered.
  const repair = planTurnRepair(events, "");
  const warnings: string[] = [];
  const sent: (readonly ConversationMessage[])[] = [];
  const runtime = await createRuntime({
    workspace,
    cwd: workspace,
    config: parseConfig(""),
    provider: (request) => {
      sent.push(request.messages);
      return Promise.resolve({ text: "resumed", toolCalls: [] });
    },
    noticeSink: { notice: () => {} },
    warn: (message) => warnings.push(message),
  });
  try {
    const resumed = await runtime.query("go on", { conversationId });
    assert.equal(resumed.status, "finished", `trial ${trial}: ${resumed.reason}`);
    assert.equal(resumed.text, "resumed");
  } finally {
    await runtime.close();
  }
  assert.deepEqual(
    warnings,
    repair === undefined ? [] : [turnRepairWarning(conversationId, repair)],
    `trial ${trial}`,
  );
  assert.equal(sent.length, 1);
  assertEveryCallAnswered(sent[0]!, trial);
  const again = await store.open(conversationId);
  try {
    const loaded = await again.load();
    assert.deepEqual(loaded.warnings, [], `trial ${trial}: the reopened log is clean`);
    assert.ok(loaded.events.length > events.length);
    assert.equal(planTurnRepair(loaded.events, ""), undefined, `trial ${trial}: still broken`);
  } finally {
    await again.close();
  }
  return { claims, torn: raw.torn, responses: recorded.size, repairedCalls: repair?.calls ?? 0 };
}

/** Every assistant tool call in `messages` is answered by the tool messages right after it. */
function assertEveryCallAnswered(messages: readonly ConversationMessage[], trial: number): void {
  messages.forEach((message, i) => {
    if (message.role !== "assistant") return;
    const answered = new Set<string>();
    for (const next of messages.slice(i + 1)) {
      if (next.role !== "tool") break;
      answered.add(next.id);
    }
    for (const call of message.toolCalls) {
      assert.ok(answered.has(call.id), `trial ${trial}: call ${call.id} is sent unanswered`);
    }
  });
}

Deno.test({
  name: "SIGKILL during commits never corrupts the stream nor releases an unrecorded result",
  fn: () => withTestSeed(killTrials),
});

/** Runs every trial planned from `seed`, then checks the whole run reached its cases. */
async function killTrials(seed: number): Promise<void> {
  const plans = planTrials(seed);
  const root = await Deno.makeTempDir({ prefix: "spillway_kill_" });
  const results: TrialResult[] = [];
  try {
    let next = 0;
    let failed = false;
    const worker = async () => {
      while (next < TRIALS && !failed) {
        const plan = plans[next++]!;
        const trial = plan.trial;
        const workspace = join(root, `trial_${trial}`);
        await Deno.mkdir(workspace);
        const claims = await runChild(workspace, plan);
        const result = await verify(workspace, claims, trial);
        // What a stopped child was stopped for, it left, every time.
        const stoppedAt = "stopAt" in plan.kill ? plan.kill.stopAt : undefined;
        if (stoppedAt === "append") assert.ok(result.torn, `trial ${trial}: no torn last line`);
        if (stoppedAt === "call") {
          assert.ok(result.repairedCalls > 0, `trial ${trial}: no call left to repair`);
        }
        results.push(result);
        await Deno.remove(workspace, { recursive: true });
      }
    };
    // On a failure the other workers finish their current child (each is
    // awaited to its exit) and stop, so nothing outlives the test.
    const settled = await Promise.allSettled(
      Array.from({ length: PARALLEL }, () =>
        worker().catch((error) => {
          failed = true;
          throw error;
        })),
    );
    const rejected = settled.find((s) => s.status === "rejected");
    if (rejected !== undefined) throw rejected.reason;
  } finally {
    await Deno.remove(root, { recursive: true });
  }

  assert.equal(results.length, TRIALS);
  const claimed = results.reduce((sum, r) => sum + r.claims.length, 0);
  const withClaims = results.filter((r) => r.claims.length > 0).length;
  const torn = results.filter((r) => r.torn).length;
  const unreleased = results.reduce((sum, r) => sum + r.responses - r.claims.length, 0);
  const repaired = results.filter((r) => r.repairedCalls > 0).length;
  console.log(
    `seed ${seed}, ${TRIALS} kills: ${claimed} released results checked, ${withClaims} trials released ` +
      `something, ${torn} torn last lines, ${unreleased} recorded but unreleased responses, ` +
      `${repaired} trials left calls unanswered (repaired on open)`,
  );
  // Guards against a vacuous pass: the kills after a release have claims to check.
  const releasing =
    KILLS.filter((kill) => ("timedFrom" in kill ? kill.timedFrom : kill.stopAt) === "release")
      .length;
  assert.ok(withClaims >= releasing, `only ${withClaims} trials released anything`);
}
