/**
 * A run replayed from its inspection records (`query --inspect FILE`), step
 * by step, as the inspector page shows it: which states of the turn, its
 * phase and its commit are current, each call's state on the `toolCall`
 * route, its size before and after each cap, the batch budget spent and the
 * notices. A step is a record that changes what is shown: a state change of
 * a machine, or facts (see `inspection_facts.ts`).
 *
 * A `spillway serve --inspect FILE` recording has no turn: each client
 * session's phases, side by side, each record naming its session. Each
 * phase is a batch, and the phase that acted last is lit where a turn would
 * run it (`toolPhase`).
 *
 * Calls nobody is asked about have no actor: they take the same route
 * driven by the phase, so their state is read from the phase's progress
 * (`execute` until their slot is written, `reviewSlot`, then
 * `barrierAcknowledge` while the commit runs, `released` once it is done).
 *
 * @module
 */

import type { CallFact, InspectionFacts, NoticeRecord } from "./inspection_facts.ts";
import type { InspectionRecord } from "./inspection_recorder.ts";
import type { InspectorView } from "./inspector_view.ts";
import { LONG_LIVED, ReplayModel } from "./_replay_model.ts";
import { CALL_ACTOR, shortSession, size, statePath, statePaths } from "./_replay_paths.ts";

/**
 * Records in, views out: add records as the file grows, ask for any step.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { InspectionReplay } from "./inspection_replay.ts";
 * const replay = new InspectionReplay();
 * replay.addLine('{"type":"@xstate.snapshot","actor":"turn","state":"requesting","status":"active"}');
 * replay.addLine('{"type":"@xstate.snapshot","actor":"turn","state":"closing","status":"active"}');
 * replay.addLine("not a record");
 * assert.equal(replay.steps, 2);
 * assert.deepEqual(replay.viewAt(1).active, ["requesting"]);
 * assert.equal(replay.viewAt().said, "turn → closing");
 * assert.equal(replay.viewAt().unreadable, 1);
 * ```
 */
export class InspectionReplay {
  /** The records that matter to the view, in order. */
  readonly #records: InspectionRecord[] = [];
  /** For each step, how many of `#records` it covers, and what it said. */
  readonly #steps: { readonly end: number; readonly said: string }[] = [];
  /** The last state seen of each actor (by session): a snapshot that repeats it is no step. */
  readonly #last = new Map<string, string>();
  /** The ids of each session's latest batch's calls, to name an asked-about call's actor. */
  readonly #callIds = new Map<string | undefined, readonly string[]>();
  /** The sessions of a `spillway serve` recording, in order of appearance. */
  readonly #sessions = new Set<string>();
  /** The actors of client sessions and upstream connections: their machine by session id. */
  readonly #tracked = new Map<string, string>();
  /** The upstream connections' session ids: their records are no client session's. */
  readonly #upstreamRoots = new Set<string>();
  #unreadable = 0;

  /** How many steps there are so far. */
  get steps(): number {
    return this.#steps.length;
  }

  /** Adds one line of an inspection file (a line that is not a record is counted, not fatal). */
  addLine(line: string): void {
    if (line.trim() === "") return;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      record = undefined;
    }
    if (isRecord(record)) this.add(record);
    else this.#unreadable += 1;
  }

  /** Adds one record (records that change nothing shown are left out). */
  add(record: InspectionRecord): void {
    if (record.rootId !== undefined && this.#upstreamRoots.has(record.rootId)) {
      return this.#addTracked(record);
    }
    if (record.type === "@xstate.actor" && record.machine === "upstreamConnection") {
      this.#upstreamRoots.add(record.sessionId ?? "");
      return this.#addTracked(record);
    }
    if (record.session !== undefined) this.#sessions.add(record.session);
    if (
      (record.type === "@xstate.actor" && record.machine !== undefined &&
        record.machine in LONG_LIVED) || this.#tracked.has(record.sessionId ?? "")
    ) return this.#addTracked(record);
    if (record.facts !== undefined) {
      const { kind, calls } = record.facts as { kind: string; calls?: readonly CallFact[] };
      if ((kind === "calls" || kind === "joined") && calls !== undefined && calls.length > 0) {
        this.#callIds.set(record.session, calls.map((call) => call.id));
      }
      this.#step(record, this.#bySession(record, factsSaid(record.facts)));
    } else if (record.type === "@xstate.actor" && lifecycleActor(record.actor)) {
      this.#records.push(record);
    } else if (record.type === "@xstate.snapshot" && machineActor(record.actor)) {
      const path = statePath(record.state).join(".");
      const seen = `${path}|${record.status}`;
      const actor = `${record.session ?? ""}|${record.actor}`;
      if (this.#last.get(actor) === seen) return;
      this.#last.set(actor, seen);
      // A phase or commit that ended is no longer drawn: no step to show (in a turn, the turn's
      // next state is). A serve session's phase that ended is: nothing runs until its next one.
      const ended = lifecycleActor(record.actor) && record.status !== "active";
      if (ended && !(record.session !== undefined && record.actor === "phase")) {
        this.#records.push(record);
        return;
      }
      const status = record.status === "active" || record.status === undefined
        ? ""
        : ` (${record.status})`;
      const said = `${this.#actorName(record)} → ${path || "—"}${status}`;
      this.#step(record, this.#bySession(record, said));
    }
  }

  /** A record of a client session's or upstream connection's own actor (their children are left out). */
  #addTracked(record: InspectionRecord): void {
    const id = record.sessionId ?? "";
    if (record.type === "@xstate.actor" && record.machine !== undefined) {
      this.#tracked.set(id, record.machine);
      this.#records.push(record);
      return;
    }
    const machine = this.#tracked.get(id);
    if (machine === undefined) return;
    if (record.type === "@xstate.event" && (record.names ?? record.facts) !== undefined) {
      this.#records.push(record);
      return;
    }
    if (record.type !== "@xstate.snapshot") return;
    const seen = `${JSON.stringify(record.state)}|${record.status}`;
    if (this.#last.get(id) === seen) return;
    this.#last.set(id, seen);
    const paths = statePaths(record.state).map((path) => path.join("."));
    const leaves = paths.filter((path) => !paths.some((other) => other.startsWith(`${path}.`)));
    const status = record.status === "active" || record.status === undefined
      ? ""
      : ` (${record.status})`;
    const who = machine === "session"
      ? `session ${shortSession(record.session ?? "")}`
      : (record.session ?? machine);
    this.#step(record, `${who}: ${machine} → ${leaves.join(", ") || "—"}${status}`);
  }

  #step(record: InspectionRecord, said: string): void {
    this.#records.push(record);
    this.#steps.push({ end: this.#records.length, said });
  }

  /** `call_4 (asked about)` for the actor `call.3`; other actors by their own names. */
  #actorName({ actor, session }: InspectionRecord): string {
    const index = CALL_ACTOR.exec(actor)?.[1];
    const id = index === undefined ? undefined : this.#callIds.get(session)?.[Number(index)];
    return id === undefined ? actor : `${id} (asked about)`;
  }

  /** What a step said, prefixed with its session in a `spillway serve` recording. */
  #bySession(record: InspectionRecord, said: string): string {
    return record.session === undefined ? said : `session ${shortSession(record.session)}: ${said}`;
  }

  /** The view after `step` steps (clamped to the steps there are; the last by default). */
  viewAt(step: number = this.steps): InspectorView {
    const at = Math.max(0, Math.min(Math.trunc(step), this.steps));
    const model = new ReplayModel();
    const end = at === 0 ? 0 : (this.#steps[at - 1]?.end ?? 0);
    for (const record of this.#records.slice(0, end)) model.apply(record);
    return {
      step: at,
      steps: this.steps,
      said: at === 0 ? "" : (this.#steps[at - 1]?.said ?? ""),
      turn: {
        state: model.turn.length === 0 ? undefined : model.turn.join("."),
        status: model.turnStatus,
      },
      active: model.active(),
      batches: model.batches.map((batch) => batch.view(model)),
      sessions: [...this.#sessions],
      clients: model.clients(),
      upstreams: model.upstreams(),
      unreadable: this.#unreadable,
    };
  }
}

function isRecord(value: unknown): value is InspectionRecord {
  return typeof value === "object" && value !== null && "type" in value && "actor" in value &&
    typeof value.type === "string" && typeof value.actor === "string";
}

/** The actors whose states are shown: the turn, its phase, its commit, asked-about calls. */
function machineActor(actor: string): boolean {
  return actor === "turn" || actor === "phase" || actor === "commit" || CALL_ACTOR.test(actor);
}

/** Actors whose start begins a new life of theirs (a new batch, a new commit). */
function lifecycleActor(actor: string): boolean {
  return actor === "phase" || actor === "commit";
}

function factsSaid(facts: InspectionFacts): string {
  switch (facts.kind) {
    case "tools":
      return `an upstream server listed ${plural(facts.tools.length, "tool")}`;
    case "joined":
      return `a phase started: ${plural(facts.calls.length, "call")} from the client`;
    case "calls":
      return facts.calls.length === 0
        ? "the model answered without tool calls"
        : `the model asked for ${plural(facts.calls.length, "tool call")}`;
    case "slots":
      return facts.slots.length === 1
        ? `slot written: ${facts.slots[0]?.id} (${size(facts.slots[0]?.bytes)?.text})`
        : `${plural(facts.slots.length, "slot")} written by the calls nobody is asked about`;
    case "capped":
      return facts.notices.length === 0
        ? "phase end: every response within its size_threshold"
        : `phase end: ${cutList(facts.notices)} by size_threshold`;
    case "committed":
      if (facts.status === "failed") return `commit failed: ${facts.error ?? "not recorded"}`;
      return `commit: ${plural(facts.calls.length, "response")} recorded and released, ` +
        `${size(facts.budget.spent)?.text} of the ${size(facts.budget.limit)?.text} ceiling spent`;
  }
}

function cutList(notices: readonly NoticeRecord[]): string {
  return notices.map((notice) => `${notice.callId} cut to ${size(notice.capBytes)?.text}`).join(
    ", ",
  );
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
