/**
 * The routes of docs/architecture.md, derived from the machine definitions
 * with `xstate/graph`: every simple path of each machine from its start to a
 * final state, as the sequence of top-level states it passes. The path tools
 * do not run invoked actors, so each state's invoked actors are answered
 * here with their done (or error) events, one per outcome they can have.
 *
 * For `toolCall`, every path is one of the eight routes a call can take to
 * its slot (executed, lost, failed, cancelled, skipped, withheld, asked,
 * edited), each with the states the documentation names; for `phase`,
 * `commit`, `turn` and `parkedCall`, the set of paths is exactly the
 * documented one; for `upstreamConnection`, under each restart policy, the
 * documented paths are among them and none takes a way the policy rules
 * out; a `session` ends only the two documented ways, and every state of its
 * chart lies on some path to its end.
 */

import assert from "node:assert/strict";
import {
  type AnyMachineSnapshot,
  type AnyStateMachine,
  createEmptyActor,
  type EventObject,
} from "xstate";
import { getSimplePaths } from "xstate/graph";
import { capSlots } from "../src/machines/cap_slots.ts";
import type { CommitOutput } from "../src/machines/commit_machine.ts";
import { commitMachine } from "../src/machines/commit_machine.ts";
import { ExecutionLink } from "../src/machines/execution_link.ts";
import { phaseMachine } from "../src/machines/phase_machine.ts";
import { toolCallMachine } from "../src/machines/tool_call_machine.ts";
import { turnMachine } from "../src/machines/turn_machine.ts";
import type { ToolPolicy } from "../src/machines/turn_dependencies.ts";
import { acceptedReview, replacedReview } from "../src/review/review.ts";
import type { ToolCall } from "../src/review/tool_call.ts";
import type { ExecutionOutcome } from "../src/service/executor.ts";
import type { RestartPolicy } from "../src/service/upstream/restart_policy.ts";
import { UpstreamCallRelays } from "../src/service/upstream/upstream_call_relays.ts";
import type { UpstreamConnectionInput } from "../src/service/upstream/upstream_connection_events.ts";
import { ProtocolVerdict } from "../src/service/upstream/upstream_protocol.ts";
import { upstreamConnectionMachine } from "../src/service/upstream/upstream_connection_machine.ts";
import { MemoryStreamStore } from "../src/stream/memory_stream_store.ts";
import { CollectingNoticeSink } from "../src/testing/collecting_notice_sink.ts";
import { fixedClock } from "../src/testing/fixed_clock.ts";
import { MockExecutor } from "../src/testing/mock_executor.ts";
import { scriptedPrompter } from "../src/testing/scripted_prompter.ts";
import { StepProvider } from "../src/testing/step_provider.ts";
import { policies, policy } from "./machines_fixtures.ts";
import { ClientCall } from "../src/gateway/_client_call.ts";
import { sessionMachine } from "../src/gateway/session_machine.ts";
import { ExecutionService } from "../src/service/execution_service.ts";
import { parkedCallMachine } from "../src/service/parked_call_machine.ts";

type Route =
  | "executed"
  | "lost"
  | "failed"
  | "cancelled"
  | "skipped"
  | "withheld"
  | "asked"
  | "edited";

/** The top-level state a snapshot is in. */
function topState(snapshot: AnyMachineSnapshot): string {
  const value: unknown = snapshot.value;
  return typeof value === "string" ? value : Object.keys(value as object)[0] ?? "";
}

interface Microstep {
  readonly type: string;
  readonly actorRef: unknown;
  readonly snapshot: AnyMachineSnapshot;
  readonly _transitions?: readonly { readonly source: { readonly path: readonly string[] } }[];
}

/**
 * The top-level states a path passes, consecutive repeats dropped. The path
 * tools keep only the snapshot each event settles in; the states passed
 * through eventless transitions on the way (`reviewSlot`, `spendingBudget`)
 * are in the microsteps, so the path's events are replayed with an actor
 * scope that collects them (no action runs, as in the path tools).
 */
function statesOf(
  machine: AnyStateMachine,
  input: unknown,
  events: readonly EventObject[],
): string[] {
  const states: string[] = [];
  const push = (state: string | undefined) => {
    if (state !== undefined && states.at(-1) !== state) states.push(state);
  };
  // A fresh empty actor's own system, told to hand its microsteps to us.
  const empty = createEmptyActor();
  const system = empty.system as unknown as { _sendInspectionEvent: (event: Microstep) => void };
  system._sendInspectionEvent = (event: Microstep) => {
    // The machine's own microsteps, not those of the children it creates.
    if (event.type !== "@xstate.microstep" || event.actorRef !== empty) return;
    for (const transition of event._transitions ?? []) push(transition.source.path[0]);
    push(topState(event.snapshot));
  };
  const scope = {
    self: empty,
    logger: () => {},
    id: "",
    sessionId: "routes",
    defer: () => {},
    system,
    stopChild: () => {},
    emit: () => {},
    actionExecutor: () => {},
  } as unknown as Parameters<AnyStateMachine["transition"]>[2];
  let snapshot = machine.getInitialSnapshot(scope, input);
  assert.equal(snapshot.status, "active", String(snapshot.error));
  if (states.length === 0) push(topState(snapshot));
  for (const event of events) {
    snapshot = machine.transition(snapshot, event, scope);
    assert.equal(snapshot.status === "error", false, String(snapshot.error));
    push(topState(snapshot));
  }
  return states;
}

/** The paths of `machine` that end in a final state, with the events that took them. */
function finalPaths(
  machine: AnyStateMachine,
  input: unknown,
  events: (snapshot: AnyMachineSnapshot) => EventObject[],
) {
  const paths = getSimplePaths(machine, {
    input,
    events: events as never,
    serializeState: (snapshot) =>
      JSON.stringify([(snapshot as AnyMachineSnapshot).value, serial(snapshot)]),
  });
  return paths
    .filter((path) => (path.state as AnyMachineSnapshot).status === "done")
    .map((path) => {
      const taken = path.steps.map(({ event }) => event as EventObject & { output?: unknown });
      return { states: statesOf(machine, input, taken), events: taken };
    });
}

/** What distinguishes two snapshots in the same state: what the guards read, and which slots are written. */
function serial(snapshot: unknown): unknown {
  const context = (snapshot as AnyMachineSnapshot).context as Record<string, unknown>;
  const { input: _input, records, ...rest } = context;
  const written = Array.isArray(records)
    ? records.map((record: { review?: unknown }) => record.review !== undefined)
    : undefined;
  return { ...rest, written };
}

function done(id: string, output: unknown): EventObject {
  return { type: `xstate.done.actor.${id}`, output } as EventObject;
}

function error(id: string, reason: string): EventObject {
  return { type: `xstate.error.actor.${id}`, error: new Error(reason) } as EventObject;
}

const CALL: ToolCall = { id: "call_1", name: "probe", arguments: {} };
const RAW = { id: "call_1", content: "raw", isError: false };
const OUTCOMES: readonly ExecutionOutcome[] = [
  { kind: "executed", response: RAW },
  { kind: "lost", reason: "the source exited" },
  { kind: "failed", reason: "transport closed" },
  { kind: "cancelled", reason: "Ctrl-C" },
];

/** The done events of whatever a toolCall state has invoked, one per outcome it can have. */
function toolCallEvents(snapshot: AnyMachineSnapshot): EventObject[] {
  if (snapshot.matches({ execute: "approving" })) {
    return [
      done("approveRun", { call: CALL }),
      done("approveRun", { call: { ...CALL, arguments: { path: "/tmp" } } }),
      done("approveRun", {
        review: replacedReview("probe", {
          id: "call_1",
          content: "The user skipped this tool call.",
          isError: true,
        }),
      }),
    ];
  }
  if (snapshot.matches({ execute: "running" })) return OUTCOMES.map((o) => done("runCall", o));
  if (snapshot.matches({ resultPrompt: "prompting" })) {
    return [
      done("promptResult", acceptedReview("probe", RAW)),
      done("promptResult", replacedReview("probe", { ...RAW, content: "edited" })),
    ];
  }
  if (snapshot.matches("barrierAcknowledge")) {
    return [done("awaitRelease", { kind: "delivered", response: RAW })];
  }
  return [];
}

/** Names a toolCall path by what decided its review. */
function routeOf(path: ReturnType<typeof finalPaths>[number], called: ToolPolicy): Route {
  for (const event of path.events) {
    if (event.type === "xstate.done.actor.runCall") {
      const outcome = event.output as ExecutionOutcome;
      if (outcome.kind !== "executed") return outcome.kind;
    }
    if (event.type === "xstate.done.actor.approveRun" && "review" in (event.output as object)) {
      return "skipped";
    }
    if (event.type === "xstate.done.actor.promptResult") {
      return called.result === "edit" ? "edited" : "asked";
    }
  }
  if (called.run === "skip") return "skipped";
  if (called.result === "skip") return "withheld";
  return "executed";
}

/** The states each route passes, as docs/architecture.md names them. */
const ROUTES: Readonly<Record<Route, readonly string[]>> = {
  executed: ["execute", "resultPrompt", "reviewSlot", "barrierAcknowledge", "released"],
  lost: ["execute", "reviewSlot", "barrierAcknowledge", "released"],
  failed: ["execute", "reviewSlot", "barrierAcknowledge", "released"],
  cancelled: ["execute", "reviewSlot", "barrierAcknowledge", "released"],
  skipped: ["execute", "reviewSlot", "barrierAcknowledge", "released"],
  withheld: ["execute", "resultPrompt", "reviewSlot", "barrierAcknowledge", "released"],
  asked: ["execute", "resultPrompt", "reviewSlot", "barrierAcknowledge", "released"],
  edited: ["execute", "resultPrompt", "reviewSlot", "barrierAcknowledge", "released"],
};

Deno.test("every path of toolCall is one of the eight routes, through the states the docs name", () => {
  const seen = new Map<Route, number>();
  const scenarios: Partial<ToolPolicy>[] = [
    {},
    { run: "skip" },
    { result: "skip" },
    { result: "ask" },
    { result: "edit" },
    { run: "ask" },
    { run: "edit", result: "edit" },
  ];
  for (const overrides of scenarios) {
    const called = policy(overrides);
    const link = new ExecutionLink(CALL.id, { executor: new MockExecutor({}) });
    const input = { index: 0, call: CALL, policy: called, link, prompter: scriptedPrompter() };
    // The path tools run without a parent: the slot goes nowhere (sendParent would throw).
    const standalone = toolCallMachine.provide({ actions: { writeSlot: () => {} } });
    const paths = finalPaths(standalone, input, toolCallEvents);
    assert.ok(paths.length > 0, JSON.stringify(overrides));
    for (const path of paths) {
      const route = routeOf(path, called);
      assert.deepEqual(path.states, ROUTES[route], `${route} under ${JSON.stringify(overrides)}`);
      seen.set(route, (seen.get(route) ?? 0) + 1);
    }
  }
  assert.deepEqual([...seen.keys()].sort(), Object.keys(ROUTES).sort());
});

const CALLS: ToolCall[] = [
  { id: "c0", name: "probe", arguments: {} },
  { id: "c1", name: "asked", arguments: {} },
  { id: "c2", name: "missing", arguments: {} },
];
const COMMITTED: CommitOutput = { status: "done", recorded: [], notices: [], deliveries: [] };

Deno.test("the phase has one way through, whatever its phase end does: executing → capping → committing → released", async () => {
  const store = new MemoryStreamStore();
  const input = {
    calls: CALLS,
    executor: new MockExecutor({ probe: "p", asked: "a" }),
    policyFor: policies({ asked: { result: "ask" } }),
    available: ["probe", "asked"],
    prompter: scriptedPrompter(),
    stream: await store.open("c"),
    noticeSink: new CollectingNoticeSink(),
  };
  const events = (snapshot: AnyMachineSnapshot): EventObject[] => {
    const context = snapshot.context as {
      records: Parameters<typeof capSlots>[0];
      unreleased: number;
    };
    if (snapshot.matches("executing")) {
      return [
        done("runUnattendedCalls", [{ index: 0, review: acceptedReview("probe", RAW) }]),
        { type: "slot.written", index: 1, review: acceptedReview("asked", RAW) } as EventObject,
      ];
    }
    if (snapshot.matches("capping")) {
      return [done("capSlots", capSlots(context.records)), error("capSlots", "broken")];
    }
    if (snapshot.matches("committing")) {
      // Each actor ends once: the asked-about call's done event comes while it has not.
      const released = { index: 1, callId: "c1", delivery: { kind: "delivered", response: RAW } };
      return [
        done("commit", COMMITTED),
        ...(context.unreleased > 0 ? [done("call.1", released)] : []),
      ];
    }
    return [];
  };
  const paths = finalPaths(phaseMachine, input, events);
  assert.ok(paths.length >= 2, "both ends of the phase end are reached");
  for (const path of paths) {
    assert.deepEqual(path.states, ["executing", "capping", "committing", "released"]);
  }
});

Deno.test("the commit ends done, or failed after recording or flushing failed, and always passes releasing", async () => {
  const store = new MemoryStreamStore();
  const input = {
    records: [],
    notices: [],
    stream: await store.open("c"),
    noticeSink: new CollectingNoticeSink(),
  };
  const events = (snapshot: AnyMachineSnapshot): EventObject[] => {
    if (snapshot.matches("recording")) {
      return [done("recordResponses", undefined), error("recordResponses", "disk full")];
    }
    if (snapshot.matches("flushing")) {
      return [done("flushStream", undefined), error("flushStream", "fsync failed")];
    }
    if (snapshot.matches("releasing")) return [done("releaseCalls", [])];
    return [];
  };
  const found = finalPaths(commitMachine, input, events).map(({ states }) => states.join(" → "));
  assert.deepEqual(found.sort(), [
    "merging → spendingBudget → recording → flushing → releasing → done",
    "merging → spendingBudget → recording → flushing → releasing → failed",
    "merging → spendingBudget → recording → releasing → failed",
  ]);
});

Deno.test("the turn requests, runs a tool phase or closes, and ends finished or failed", async () => {
  const store = new MemoryStreamStore();
  const input = {
    turnId: "t",
    prompt: "go",
    provider: new StepProvider([]),
    tools: [],
    stream: await store.open("c"),
    executor: new MockExecutor({}),
    prompter: scriptedPrompter(),
    policyFor: policies(),
    noticeSink: new CollectingNoticeSink(),
    clock: fixedClock(),
    maxCycles: 2,
  };
  const events = (snapshot: AnyMachineSnapshot): EventObject[] => {
    if (snapshot.matches("requesting")) {
      return [
        done("requestModel", { text: "calls", toolCalls: [CALL] }),
        done("requestModel", { text: "done", toolCalls: [] }),
        error("requestModel", "prompt is too long"),
      ];
    }
    if (snapshot.matches("toolPhase")) {
      return [
        done("phase", COMMITTED),
        done("phase", { ...COMMITTED, status: "failed" }),
        error("phase", "bug"),
      ];
    }
    if (snapshot.matches("closing")) {
      return [done("recordTurnEnd", undefined), error("recordTurnEnd", "disk full")];
    }
    return [];
  };
  const found = new Set(
    finalPaths(turnMachine, input, events).map(({ states }) => states.join(" → ")),
  );
  assert.deepEqual([...found].sort(), [
    "requesting → closing → failed",
    "requesting → closing → finished",
    "requesting → toolPhase → closing → failed",
    "requesting → toolPhase → requesting → closing → failed",
    "requesting → toolPhase → requesting → closing → finished",
    "requesting → toolPhase → requesting → toolPhase → closing → failed",
  ]);
});

/** What each state of upstreamConnection can be told, and how what it invoked can end. */
function connectionEvents(snapshot: AnyMachineSnapshot): EventObject[] {
  const after = (delay: string, state: string) =>
    ({ type: `xstate.after.${delay}.upstreamConnection.${state}` }) as EventObject;
  const close = { type: "close" };
  if (snapshot.matches("idle")) return [{ type: "connect" }, close];
  if (snapshot.matches({ starting: "initializing" })) {
    return [
      done("initialize", undefined),
      error("initialize", "refused"),
      after("startupTimeout", "starting"),
      close,
    ];
  }
  if (snapshot.matches({ starting: "listing" })) {
    return [done("listTools", []), error("listTools", "bad page"), close];
  }
  if (snapshot.matches("stopping")) return [done("stopLink", undefined), close];
  if (snapshot.matches({ ready: "serving" })) {
    return [{ type: "tools.changed" }, { type: "server.gone" }, close];
  }
  if (snapshot.matches({ ready: "relisting" })) {
    return [
      done("listTools", []),
      error("listTools", "bad page"),
      after("startupTimeout", "ready.relisting"),
      close,
    ];
  }
  if (snapshot.matches("lost")) return [{ type: "connect" }, close];
  if (snapshot.matches("restarting")) {
    return [{ type: "connect" }, after("restartBackoff", "restarting"), close];
  }
  if (snapshot.matches("closing")) return [done("closeLink", undefined)];
  return [];
}

function connectionInput(restart: RestartPolicy): UpstreamConnectionInput {
  return {
    name: "mcp.probe",
    server: { kind: "stdio", process: { command: "probe" } },
    startupTimeoutMs: 1_000,
    restart,
    relays: new UpstreamCallRelays("mcp.probe"),
    warn: () => {},
    protocol: "auto",
    verdict: new ProtocolVerdict(),
  };
}

/** Started, lost, started again (on demand: by the next `connect`), closed. */
const RESTARTED: readonly EventObject[] = [
  { type: "connect" },
  done("initialize", undefined),
  done("listTools", []),
  { type: "server.gone" },
  { type: "connect" },
  done("initialize", undefined),
  done("listTools", []),
  { type: "close" },
  done("closeLink", undefined),
];

/** Every path of upstreamConnection under `restart`, as its top-level states joined with →. */
function connectionPaths(restart: RestartPolicy): Set<string> {
  const input = connectionInput(restart);
  const paths = getSimplePaths(upstreamConnectionMachine, {
    input,
    events: connectionEvents as never,
    // What the guards read: whether a start failed before, and whether close was asked for.
    serializeState: (snapshot) => {
      const { value, context } = snapshot as AnyMachineSnapshot;
      const { failedStarts, closing } = context as { failedStarts: number; closing: boolean };
      return JSON.stringify([value, failedStarts > 0, closing]);
    },
  });
  return new Set(
    paths
      .filter((path) => (path.state as AnyMachineSnapshot).status === "done")
      .map((path) =>
        statesOf(
          upstreamConnectionMachine,
          input,
          path.steps.map(({ event }) => event as EventObject),
        ).join(" → ")
      ),
  );
}

Deno.test("upstreamConnection on demand: a failed start goes back to idle, a lost server restarts at once when needed, every path ends closed", () => {
  const paths = connectionPaths({ when: "demand" });
  for (
    const expected of [
      "idle → closed",
      "idle → starting → ready → closing → closed",
      "idle → starting → stopping → idle → closed",
      "idle → starting → stopping → closed",
      "idle → starting → ready → lost → closed",
      "idle → starting → stopping → idle → starting → ready → closing → closed",
    ]
  ) {
    assert.ok(paths.has(expected), expected);
  }
  for (const path of paths) {
    assert.ok(path.endsWith("→ closed"), path);
    // Nothing waits in restarting on demand: it is passed on the way to starting.
    assert.doesNotMatch(path, /restarting → (?!starting)/, path);
    assert.doesNotMatch(path, /stopping → restarting/, path);
  }
  // A simple path passes `ready` once; the restart after a loss, to `ready` again, is this one.
  const restarted = statesOf(
    upstreamConnectionMachine,
    connectionInput({ when: "demand" }),
    RESTARTED,
  );
  assert.deepEqual(restarted, [
    "idle",
    "starting",
    "ready",
    "lost",
    "restarting",
    "starting",
    "ready",
    "closing",
    "closed",
  ]);
  // Every state is on some path.
  const visited = new Set([...[...paths].flatMap((path) => path.split(" → ")), ...restarted]);
  assert.deepEqual(
    [...visited].sort(),
    Object.keys(upstreamConnectionMachine.root.states).sort(),
  );
});

Deno.test("upstreamConnection in the background: a failed start waits out its back-off in restarting, a lost server restarts by itself", () => {
  const paths = connectionPaths({ when: "background" });
  for (
    const expected of [
      "idle → starting → stopping → restarting → starting → ready → closing → closed",
      "idle → starting → stopping → restarting → closed",
    ]
  ) {
    assert.ok(paths.has(expected), expected);
  }
  // Lost, it starts again by itself: no `connect` in between.
  assert.deepEqual(
    statesOf(
      upstreamConnectionMachine,
      connectionInput({ when: "background" }),
      RESTARTED.filter((event, i) => !(event.type === "connect" && i > 0)),
    ),
    ["idle", "starting", "ready", "lost", "restarting", "starting", "ready", "closing", "closed"],
  );
  for (const path of paths) {
    assert.ok(path.endsWith("→ closed"), path);
    assert.doesNotMatch(path, /stopping → idle/, path);
    assert.doesNotMatch(path, /lost → closed/, path);
  }
});

Deno.test("a parked call ends released, parked and acknowledged on the way, or at once on a fault", () => {
  const events = (snapshot: AnyMachineSnapshot): EventObject[] =>
    ["park", "cancel", "fault", "acknowledge", "deliver"]
      .filter((type) => snapshot.can({ type } as never))
      .map((type) => ({ type }));
  const found = finalPaths(parkedCallMachine, undefined, events).map(({ states }) =>
    states.join(" → ")
  );
  assert.deepEqual(found.sort(), [
    "running → parked → acknowledged → released",
    "running → released",
  ]);
});

/** The `calls` region's state (`idle.timing`, `gathering`, …), or the top-level one once closing. */
function sessionState(snapshot: AnyMachineSnapshot): string {
  const value = snapshot.value as string | { open: { calls: string | Record<string, string> } };
  if (typeof value === "string") return value;
  const calls = value.open.calls;
  return typeof calls === "string"
    ? calls
    : Object.entries(calls).map(([k, v]) => `${k}.${v}`)[0] ?? "";
}

Deno.test("a session closes through closing, from draining after a stop or from idle after its timeout; it releases its stream after the linger; every state of its chart is on the way", async () => {
  const store = new MemoryStreamStore();
  const stream = await store.open("c");
  const service = new ExecutionService({ sources: [], barrierFor: () => "record" });
  const base = {
    session: "s",
    service,
    store,
    conversationId: "c",
    policyFor: policies(),
    prompter: scriptedPrompter(),
    noticeSink: new CollectingNoticeSink(),
    available: () => [],
    interrupt: new AbortController(),
  };
  const ready = {
    call: { id: "call_1", name: "probe", arguments: {} },
    handle: ClientCall.unanswered("call_1"),
    unavailable: true,
  };
  // One phase: it opens once, seals, and completes or is dropped; the invoked actors end each way
  // they can.
  const events = (snapshot: AnyMachineSnapshot): EventObject[] => {
    const context = snapshot.context as {
      gathering: number;
      complete: readonly unknown[];
      committing: unknown;
      stream: unknown;
    };
    const fresh = context.gathering === 0 && context.complete.length === 0 &&
      context.committing === undefined && context.stream === undefined;
    const found: EventObject[] = [];
    if (fresh && snapshot.matches({ open: { calls: "idle" } })) {
      found.push({ type: "phase.opened" });
    }
    if (snapshot.matches({ open: { calls: "gathering" } })) found.push({ type: "phase.sealed" });
    else if (context.gathering > 0) {
      found.push({ type: "phase.complete", batch: [ready] } as EventObject, {
        type: "phase.dropped",
      });
    }
    if (snapshot.matches({ open: { calls: { idle: "timing" } } })) {
      found.push(
        { type: "xstate.after.idleTimeout.session.open.calls.idle.timing" },
        { type: "activity" },
      );
    }
    if (snapshot.matches({ open: { commits: { waiting: "lingering" } } })) {
      found.push({ type: "xstate.after.streamLinger.session.open.commits.waiting.lingering" });
    }
    if (snapshot.matches({ open: { commits: "releasing" } })) {
      found.push(done("releaseStream", undefined), error("releaseStream", "disk gone"));
    }
    if (snapshot.matches("open") && !snapshot.matches({ open: { calls: "draining" } })) {
      found.push({ type: "stop", reason: "bye" } as EventObject);
    }
    if (snapshot.matches({ open: { commits: "opening" } })) {
      found.push(done("openStream", stream), error("openStream", "disk gone"));
    }
    if (snapshot.matches({ open: { commits: "committing" } })) {
      found.push(
        done("phase", COMMITTED),
        done("phase", { ...COMMITTED, status: "failed" }),
        error("phase", "bug"),
      );
    }
    if (snapshot.matches("closing")) found.push(done("closeStream", undefined));
    return found;
  };
  // With an idle timeout, and without one (the session rests when idle).
  const paths = [{ ...base, idleTimeoutMs: 1_000 }, base].flatMap((input) =>
    getSimplePaths(sessionMachine, {
      input,
      events: events as never,
      serializeState: (snapshot) => {
        const { input: _input, ...rest } = (snapshot as AnyMachineSnapshot).context;
        return JSON.stringify([(snapshot as AnyMachineSnapshot).value, rest]);
      },
    }).filter((path) => (path.state as AnyMachineSnapshot).status === "done")
  );
  assert.ok(paths.length > 0);
  const ends = new Set<string>();
  const passed = new Set<string>();
  for (const path of paths) {
    // Each step's state is the one its event led to.
    const states = path.steps.map((step) => sessionState(step.state as AnyMachineSnapshot));
    for (const state of states) passed.add(state);
    for (const step of path.steps) {
      const snapshot = step.state as AnyMachineSnapshot;
      if (snapshot.matches({ open: { commits: "opening" } })) passed.add("commits.opening");
      if (snapshot.matches({ open: { commits: "committing" } })) passed.add("commits.committing");
      if (snapshot.matches({ open: { commits: { waiting: "lingering" } } })) {
        passed.add("commits.lingering");
      }
      if (snapshot.matches({ open: { commits: "releasing" } })) passed.add("commits.releasing");
    }
    // How it closed: by the event that took it to `closing`, and the state it left for it.
    const events = path.steps.map((step) => step.event.type);
    const stopped = events.indexOf("stop");
    const after = states.slice(Math.max(stopped, 0), -2);
    if (stopped >= 0) {
      assert.ok(after.every((state) => state === "draining"), `after stop: ${after.join(", ")}`);
      ends.add("stop → draining → closing → closed");
    } else {
      assert.equal(events.at(-2), "xstate.after.idleTimeout.session.open.calls.idle.timing");
      ends.add(`${states.at(-3)} → after idleTimeout → closing → closed`);
    }
  }
  assert.deepEqual([...ends].sort(), [
    "idle.timing → after idleTimeout → closing → closed",
    "stop → draining → closing → closed",
  ]);
  assert.deepEqual([...passed].sort(), [
    "closed",
    "closing",
    "commits.committing",
    "commits.lingering",
    "commits.opening",
    "commits.releasing",
    "draining",
    "gathering",
    "idle.resting",
    "idle.timing",
    "sealed",
  ]);
});
