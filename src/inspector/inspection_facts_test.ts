import assert from "node:assert/strict";
import type { InspectionEvent } from "xstate";
import { inspectionFacts } from "./inspection_facts.ts";

function event(carried: Record<string, unknown>): InspectionEvent {
  return { type: "@xstate.event", event: carried } as unknown as InspectionEvent;
}

const WINDOW = {
  tail: "…end\n",
  bytes: 5_000_000,
  lines: 90_000,
  path: "/spool/c1",
  temporary: true,
};

Deno.test("inspectionFacts() counts an output too large to hold by its whole size, not its head", () => {
  const held = {
    status: "accepted",
    tool: "noisy",
    response: { id: "c1", content: "head…", isError: false, window: WINDOW },
  };
  assert.deepEqual(
    inspectionFacts(event({
      type: "xstate.done.actor.runUnattendedCalls",
      output: [{ index: 0, review: held }],
    })),
    {
      kind: "slots",
      slots: [{ index: 0, id: "c1", tool: "noisy", bytes: 5_000_000, isError: false }],
    },
  );
  const cut = {
    status: "replaced",
    tool: "noisy",
    response: { id: "c1", content: "x".repeat(1000), isError: false },
    uncut: { head: "head…", tail: "…end\n", bytes: 5_000_000 },
  };
  const route = "unattended";
  const facts = inspectionFacts(event({
    type: "xstate.done.actor.capSlots",
    output: {
      records: [{ index: 0, call: { id: "c1", name: "noisy" }, route, review: cut }],
      notices: [],
    },
  }));
  assert.deepEqual(facts, {
    kind: "capped",
    calls: [{ index: 0, id: "c1", tool: "noisy", route, rawBytes: 5_000_000, bytes: 1000 }],
    notices: [],
  });
});

Deno.test("inspectionFacts() carries nothing for the events that carry no sizes", () => {
  assert.equal(inspectionFacts(event({ type: "slot.reviewed" })), undefined);
  const snapshot = { type: "@xstate.snapshot", event: { type: "xstate.done.actor.commit" } };
  assert.equal(inspectionFacts(snapshot as unknown as InspectionEvent), undefined);
});

Deno.test("inspectionFacts() names the calls that joined a phase at its start, and only those", () => {
  const call = (id: string, name: string) => ({ call: { id, name, arguments: {} } });
  assert.deepEqual(
    inspectionFacts(event({
      type: "xstate.init",
      input: { calls: [], joined: [call("call_1", "big"), call("call_2", "small")] },
    })),
    { kind: "joined", calls: [{ id: "call_1", tool: "big" }, { id: "call_2", tool: "small" }] },
  );
  // A turn's phase (its calls come with the model's answer), and actors started without input.
  const own = { calls: [{ id: "c1", name: "ls", arguments: {} }] };
  assert.equal(inspectionFacts(event({ type: "xstate.init", input: own })), undefined);
  assert.equal(
    inspectionFacts(event({ type: "xstate.init", input: { ...own, joined: [] } })),
    undefined,
  );
  assert.equal(inspectionFacts(event({ type: "xstate.init" })), undefined);
});

Deno.test("inspectionFacts() shows a json cut's fallback to the head in its notice, as printed", () => {
  const notice = {
    tool: "server_log",
    callId: "c1",
    originalBytes: 75_000,
    capBytes: 1024,
    cause: "size_threshold",
    fallback: "not_json",
  };
  const facts = inspectionFacts(event({
    type: "xstate.done.actor.capSlots",
    output: { records: [], notices: [notice] },
  }));
  assert.deepEqual(facts, {
    kind: "capped",
    calls: [],
    notices: [{
      ...notice,
      text: "server_log: sent 1.0 KB of 73.2 KB to the assistant (size_threshold); " +
        "not one JSON value: cut as head",
    }],
  });
});

Deno.test("inspectionFacts() shows a cut of structured content in its notice, and counts it in the budget spent", () => {
  const notice = {
    tool: "read_text_file",
    callId: "c1",
    originalBytes: 4_194_304,
    capBytes: 262_144,
    cause: "batch ceiling",
    structured: { originalBytes: 4_300_000, capBytes: 262_144 },
  };
  // Recorded: a cut text beside its cut structured value, and a mirror (counted once).
  const structuredContent = { bytes: 262_000, digest: "sha256:00" };
  const recorded = [
    { id: "c1", content: "x".repeat(262_144), isError: false, structuredContent },
    {
      id: "c2",
      content: "{}",
      isError: false,
      structuredContent: { bytes: 2, digest: "sha256:11", mirrored: true },
    },
  ];
  const facts = inspectionFacts(event({
    type: "xstate.done.actor.commit",
    output: { status: "committed", recorded, notices: [notice] },
  }));
  assert.ok(facts?.kind === "committed", JSON.stringify(facts));
  assert.deepEqual(facts.calls, [
    { id: "c1", bytes: 262_144, isError: false, structuredBytes: 262_000 },
    { id: "c2", bytes: 2, isError: false },
  ]);
  assert.equal(facts.budget.spent, 262_144 + 262_000 + 2);
  assert.deepEqual(facts.notices, [{
    ...notice,
    text: "read_text_file: sent 256.0 KB of 4.0 MB to the assistant (batch ceiling); " +
      "structured content cut to 256.0 KB of 4.1 MB",
  }]);
});

Deno.test("inspectionFacts() keeps the names of the tools an upstream server listed, nothing else of them", () => {
  const facts = inspectionFacts(event({
    type: "xstate.done.actor.listTools",
    output: [
      { name: "search", description: "secret description", inputSchema: { type: "object" } },
      { name: "fetch", inputSchema: { type: "object" } },
    ],
  }));
  assert.deepEqual(facts, { kind: "tools", tools: ["search", "fetch"] });
});
