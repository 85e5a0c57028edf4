/**
 * SIGKILL while a spilling tool's outputs are being stored and released
 * (`spill = true`): a child runs turns of many spilling calls
 * (tests/fixtures/kill/spill_loop.ts) and claims every reference it
 * releases; the parent kills it and checks that no delivered reference, and
 * no recorded one, points to a missing or partial blob. Every blob that
 * exists is whole (its bytes hash to its name), and a write the kill
 * interrupted leaves only a temporary file, which `collectBlobGarbage`
 * removes once stale while it keeps every recorded blob.
 *
 * The kills land where they matter by construction, not by luck: the child
 * stops itself at a chosen point and says so, and the parent kills it
 * there. Two children stop halfway through a blob's write (a torn
 * temporary file is left), two once a blob is durable but before its call
 * is recorded or released, two at a release (the call recorded, not yet
 * delivered), each at the Nth time it gets there, N drawn from the seed, so
 * the rest of the child's work (other calls storing, committing,
 * releasing) is caught mid-way too. Two more are killed at a random moment
 * after their first release, wherever that falls. Every random choice
 * comes from one test seed (`SPILLWAY_TEST_SEED` replays it).
 */

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { basename, join } from "node:path";
import { blobDigest, type BlobRef, blobRefsIn } from "../src/blobs/blob_ref.ts";
import { BLOB_TEMP_PREFIX, FileBlobStore } from "../src/blobs/file_blob_store.ts";
import { collectBlobGarbage } from "../src/blobs/collect_blob_garbage.ts";
import { seededRandom, withTestSeed } from "../src/testing/seed.ts";
import { spawnKillChild } from "./fixtures/kill/_kill_child.ts";

/** Where children stop to be killed (see tests/fixtures/kill/spill_loop.ts), two of each. */
const STOPS = ["write", "write", "stored", "stored", "release", "release", "none", "none"] as const;
type Stop = typeof STOPS[number];
/** The Nth time at its stopping point a child stops: up to this many (the first turns). */
const MAX_NTH = 24;
/** Children alive at once. */
const PARALLEL = 4;
/** A `none` child is killed this long (random up to it, in ms) after its first release. */
const MAX_KILL_DELAY_MS = 600;
/** Not a wait: kills a child that never gets where it should, so the trial fails instead of hanging. */
const STALL_GUARD_MS = 60_000;

interface Plan {
  readonly stop: Stop;
  readonly nth: number;
  readonly delayMs: number;
  readonly childSeed: number;
}

interface Trial {
  readonly claims: ReadonlyMap<string, readonly string[]>;
  /** What the child said it stopped at (`write <temp>`, `stored <ref>`, `release <id>`). */
  readonly frozen: string | undefined;
}

async function runTrial(workspace: string, plan: Plan): Promise<Trial> {
  const stopArg = plan.stop === "none" ? "none" : `${plan.stop}:${plan.nth}`;
  const child = spawnKillChild("spill_loop.ts", [workspace, String(plan.childSeed), stopArg]);
  const stderr = new Response(child.stderr).text();
  const kill = () => {
    try {
      child.kill("SIGKILL");
    } catch {
      // Already gone: its exit status says why.
    }
  };
  let timer = setTimeout(kill, STALL_GUARD_MS);
  const claims = new Map<string, readonly string[]>();
  let frozen: string | undefined;
  let pending = "";
  for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
    pending += chunk;
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) {
      if (line === "ready") continue;
      if (line.startsWith("frozen ")) {
        frozen = line.slice("frozen ".length);
        kill();
        continue;
      }
      const [word, id, ...refs] = line.split(" ");
      assert.equal(word, "released", `unexpected child output ${JSON.stringify(line)}`);
      if (claims.size === 0 && plan.stop === "none") {
        clearTimeout(timer);
        timer = setTimeout(kill, plan.delayMs);
      }
      claims.set(id!, refs);
    }
  }
  const status = await child.status;
  clearTimeout(timer);
  const errors = await stderr;
  assert.equal(status.signal, "SIGKILL", `the child ended on its own (${status.code}): ${errors}`);
  if (plan.stop === "none") assert.ok(claims.size > 0, `the child never released: ${errors}`);
  else assert.match(frozen ?? "", new RegExp(`^${plan.stop} `), `never stopped: ${errors}`);
  return { claims, frozen };
}

/**
 * Every blob whole; every claimed and every recorded reference present;
 * where the child stopped, what that point leaves; garbage collection
 * removes what the kill left unfinished and keeps what is recorded.
 */
async function checkWorkspace(workspace: string, trial: Trial): Promise<void> {
  const dir = join(workspace, "blobs");
  const blobs = new Set<string>();
  const unfinished = new Set<string>();
  for await (const entry of Deno.readDir(dir)) {
    if (entry.name.startsWith(BLOB_TEMP_PREFIX)) {
      unfinished.add(entry.name);
      continue;
    }
    const bytes = await Deno.readFile(join(dir, entry.name));
    assert.equal(createHash("sha256").update(bytes).digest("hex"), entry.name, "a torn blob");
    blobs.add(`sha256:${entry.name}`);
  }
  for (const [id, refs] of trial.claims) {
    for (const ref of refs) assert.ok(blobs.has(ref), `${id} was released with a missing ${ref}`);
  }
  const recorded = new Set<BlobRef>();
  for await (const conversation of Deno.readDir(join(workspace, "conversations"))) {
    const log = await Deno.readTextFile(
      join(workspace, "conversations", conversation.name, "events.jsonl"),
    );
    for (const ref of blobRefsIn(log)) recorded.add(ref);
  }
  for (const ref of recorded) assert.ok(blobs.has(ref), `the stream refers to a missing ${ref}`);

  const [stop, what] = (trial.frozen ?? "none").split(" ") as [Stop, string | undefined];
  if (stop === "write") {
    assert.ok(unfinished.has(basename(what!)), `no temporary file ${what} left by the kill`);
  } else if (stop === "stored") {
    assert.ok(blobs.has(what!), `the stored ${what} is gone`);
    const claimed = new Set([...trial.claims.values()].flat());
    assert.ok(!claimed.has(what!) && !recorded.has(what as BlobRef), `${what} was already used`);
  } else if (stop === "release") {
    assert.ok(trial.claims.has(what!), `the call ${what} stopped at was not claimed`);
  }

  // Once stale, what the kill left unfinished goes; every recorded blob stays.
  const later = new Date(Date.now() + 24 * 60 * 60 * 1000);
  const garbage = await collectBlobGarbage(new FileBlobStore(dir), recorded, { now: later });
  assert.equal(garbage.unfinished, unfinished.size);
  assert.equal(garbage.kept, recorded.size);
  for (const ref of recorded) assert.ok((await Deno.stat(join(dir, blobDigest(ref)))).isFile);
}

Deno.test("SIGKILL while outputs are spilled never leaves a delivered or recorded reference to a missing blob", () =>
  withTestSeed(async (seed) => {
    const random = seededRandom(seed);
    const plans: Plan[] = STOPS.map((stop) => ({
      stop,
      nth: 1 + Math.floor(random() * MAX_NTH),
      delayMs: random() * MAX_KILL_DELAY_MS,
      childSeed: Math.floor(random() * 2 ** 32) | 0,
    }));
    let released = 0;
    for (let at = 0; at < plans.length; at += PARALLEL) {
      // Settled, not raced: a failing trial's neighbours are awaited to their exit.
      const settled = await Promise.allSettled(
        plans.slice(at, at + PARALLEL).map(async (plan) => {
          const workspace = await Deno.makeTempDir({ prefix: "spillway_spill_kill_" });
          try {
            const trial = await runTrial(workspace, plan);
            await checkWorkspace(workspace, trial);
            released += trial.claims.size;
          } catch (error) {
            throw new Error(`child stopping at ${plan.stop}:${plan.nth}: ${error}`, {
              cause: error,
            });
          } finally {
            await Deno.remove(workspace, { recursive: true });
          }
        }),
      );
      const failed = settled.find((result) => result.status === "rejected");
      if (failed !== undefined) throw failed.reason;
    }
    console.log(`spill kill: ${plans.length} children killed after ${released} releases`);
  }));
