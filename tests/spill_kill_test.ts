/**
 * SIGKILL while a spilling tool's outputs are being stored and released
 * (`spill = true`): a child runs turns of many spilling calls
 * (tests/fixtures/kill/spill_loop.ts) and claims every reference it
 * releases; the parent kills it at a random moment and checks that no
 * delivered reference, and no recorded one, points to a missing or partial
 * blob. Every blob that exists is whole (its bytes hash to its name), and a
 * write the kill interrupted leaves only a temporary file, which
 * `collectBlobGarbage` removes once stale.
 *
 * The trials must reach the windows that matter: some kills land while a
 * blob is being written (a temporary file is left), and some after blobs
 * were stored but before their calls were released. Both are counted, and too few of either fails the test. Every random
 * choice comes from one test seed (`SPILLWAY_TEST_SEED` replays it).
 */

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { blobRefsIn } from "../src/blobs/blob_ref.ts";
import { BLOB_TEMP_PREFIX } from "../src/blobs/blob_store.ts";
import { seededRandom, withTestSeed } from "../src/testing/seed.ts";
import { spawnKillChild } from "./fixtures/kill/_kill_child.ts";

const TRIALS = 20;
const PARALLEL = 4;
/** The kill lands this long (random up to it, in ms) after the child's first release. */
const MAX_KILL_DELAY_MS = 600;
/** Not a wait: kills a child that never releases anything, so the trial fails instead of hanging. */
const STALL_GUARD_MS = 60_000;

interface Trial {
  readonly claims: ReadonlyMap<string, readonly string[]>;
  readonly unfinished: number;
  /** Blobs stored whose call was not released yet when the kill landed. */
  readonly unreleased: number;
}

async function runTrial(workspace: string, delayMs: number, childSeed: number): Promise<Trial> {
  const child = spawnKillChild("spill_loop.ts", [workspace, String(childSeed)]);
  const stderr = new Response(child.stderr).text();
  let timer = setTimeout(() => child.kill("SIGKILL"), STALL_GUARD_MS);
  const claims = new Map<string, readonly string[]>();
  let pending = "";
  for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
    pending += chunk;
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) {
      if (line === "ready") continue;
      const [word, id, ...refs] = line.split(" ");
      assert.equal(word, "released", `unexpected child output ${JSON.stringify(line)}`);
      if (claims.size === 0) {
        clearTimeout(timer);
        timer = setTimeout(() => child.kill("SIGKILL"), delayMs);
      }
      claims.set(id!, refs);
    }
  }
  const status = await child.status;
  clearTimeout(timer);
  const errors = await stderr;
  assert.equal(status.signal, "SIGKILL", `the child ended on its own (${status.code}): ${errors}`);
  assert.ok(claims.size > 0, `the child never released anything: ${errors}`);
  return { claims, ...await checkWorkspace(workspace, claims) };
}

/** Every blob whole; every claimed and every recorded reference present. */
async function checkWorkspace(
  workspace: string,
  claims: ReadonlyMap<string, readonly string[]>,
): Promise<{ unfinished: number; unreleased: number }> {
  const dir = join(workspace, "blobs");
  const blobs = new Set<string>();
  let unfinished = 0;
  for await (const entry of Deno.readDir(dir)) {
    if (entry.name.startsWith(BLOB_TEMP_PREFIX)) {
      unfinished++;
      continue;
    }
    const bytes = await Deno.readFile(join(dir, entry.name));
    assert.equal(createHash("sha256").update(bytes).digest("hex"), entry.name, "a torn blob");
    blobs.add(`sha256:${entry.name}`);
  }
  for (const [id, refs] of claims) {
    for (const ref of refs) assert.ok(blobs.has(ref), `${id} was released with a missing ${ref}`);
  }
  const recorded = new Set<string>();
  for await (const conversation of Deno.readDir(join(workspace, "conversations"))) {
    const log = await Deno.readTextFile(
      join(workspace, "conversations", conversation.name, "events.jsonl"),
    );
    for (const ref of blobRefsIn(log)) recorded.add(ref);
  }
  for (const ref of recorded) assert.ok(blobs.has(ref), `the stream refers to a missing ${ref}`);
  const claimed = new Set([...claims.values()].flat());
  return { unfinished, unreleased: [...blobs].filter((ref) => !claimed.has(ref)).length };
}

Deno.test("SIGKILL while outputs are spilled never leaves a delivered or recorded reference to a missing blob", () =>
  withTestSeed(async (seed) => {
    const random = seededRandom(seed);
    const plans = Array.from({ length: TRIALS }, () => ({
      delayMs: random() * MAX_KILL_DELAY_MS,
      childSeed: Math.floor(random() * 2 ** 32) | 0,
    }));
    const results: Trial[] = [];
    for (let at = 0; at < plans.length; at += PARALLEL) {
      results.push(
        ...await Promise.all(
          plans.slice(at, at + PARALLEL).map(async (plan) => {
            const workspace = await Deno.makeTempDir({ prefix: "spillway_spill_kill_" });
            try {
              return await runTrial(workspace, plan.delayMs, plan.childSeed);
            } finally {
              await Deno.remove(workspace, { recursive: true });
            }
          }),
        ),
      );
    }
    const midWrite = results.filter((trial) => trial.unfinished > 0).length;
    const beforeRelease = results.filter((trial) => trial.unreleased > 0).length;
    const released = results.reduce((n, trial) => n + trial.claims.size, 0);
    console.log(
      `spill kill: ${TRIALS} children killed after ${released} releases; ${midWrite} kills ` +
        `landed mid-write (a temporary file left), ${beforeRelease} after a blob was stored ` +
        `and before its call was released`,
    );
    assert.ok(midWrite >= 3, `only ${midWrite} kills landed while a blob was being written`);
    assert.ok(
      beforeRelease >= 3,
      `only ${beforeRelease} kills landed between a store and its release`,
    );
  }));
