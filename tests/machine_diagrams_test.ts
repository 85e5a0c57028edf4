import assert from "node:assert/strict";
import { and, type AnyStateMachine, createActor, setup } from "xstate";
import { machineToMermaid } from "../src/inspector/machine_diagram.ts";
import { allOf, anyOf, notGuard } from "../src/machines/guard_combinators.ts";
import { machinesMarkdown, SPILLWAY_MACHINES } from "../src/inspector/machines_markdown.ts";
import { mermaidStates, parseMermaid } from "./_mermaid.ts";

/** The parts of a state node these tests walk. */
interface Node {
  readonly key: string;
  readonly states: Readonly<Record<string, Node>>;
  readonly invoke: readonly { readonly src: unknown }[];
  readonly transitions: ReadonlyMap<string, readonly { guard?: unknown }[]>;
  readonly always?: readonly { guard?: unknown }[];
}

/**
 * Where each state should be drawn: its Mermaid id and the id of its
 * parent block, computed from the definition independently of the drawing
 * (an invoked machine's states sit in the block of the state invoking it).
 */
function expectedParents(machine: AnyStateMachine): Map<string, string | undefined> {
  const parents = new Map<string, string | undefined>();
  const walk = (node: Node, machine: AnyStateMachine, prefix: string | undefined) => {
    for (const child of Object.values(node.states)) {
      const id = prefix === undefined ? child.key : `${prefix}_${child.key}`;
      parents.set(id, prefix);
      walk(child, machine, id);
      if (Object.keys(child.states).length > 0) continue;
      for (const { src } of child.invoke) {
        const logic = typeof src === "string"
          ? (machine.implementations.actors as Record<string, unknown>)[src]
          : src;
        if (typeof logic === "object" && logic !== null && "root" in logic) {
          const inner = logic as AnyStateMachine;
          walk(inner.root as unknown as Node, inner, id);
        }
      }
    }
  };
  walk(machine.root as unknown as Node, machine, undefined);
  return parents;
}

/** Mermaid's shapes for what is not a state: `[*]` start and end points, notes. */
const NOT_STATES = new Set(["stateStart", "stateEnd", "note", "noteGroup"]);

Deno.test("Mermaid's parser rejects what inspect used to print: diagrams concatenated", async () => {
  const twice = machineToMermaid(SPILLWAY_MACHINES.commit as AnyStateMachine).repeat(2);
  await assert.rejects(parseMermaid(twice), /Parse error/);
});

Deno.test("every machine's diagram parses with Mermaid, substates filed under their parents", async () => {
  for (const [name, machine] of Object.entries(SPILLWAY_MACHINES)) {
    for (const nested of [true, false]) {
      const text = machineToMermaid(machine, { nested });
      await parseMermaid(text);
      const drawn = new Map(
        (await mermaidStates(text))
          .filter((state) => !NOT_STATES.has(state.shape))
          .map((state) => [state.id, state.parentId]),
      );
      const expected = nested ? expectedParents(machine) : flatParents(machine);
      assert.deepEqual(drawn, expected, `${name} (nested: ${nested})`);
    }
  }
});

/** Without `nested`: the machine's own states only. */
function flatParents(machine: AnyStateMachine): Map<string, string | undefined> {
  const parents = new Map<string, string | undefined>();
  const walk = (node: Node, prefix: string | undefined) => {
    for (const child of Object.values(node.states)) {
      const id = prefix === undefined ? child.key : `${prefix}_${child.key}`;
      parents.set(id, prefix);
      walk(child, id);
    }
  };
  walk(machine.root as unknown as Node, undefined);
  return parents;
}

Deno.test("the turn's diagram shows the phase inside toolPhase and the commit inside committing", async () => {
  const states = await mermaidStates(machineToMermaid(SPILLWAY_MACHINES.turn as AnyStateMachine, {
    nested: true,
  }));
  const parentOf = (id: string) => states.find((state) => state.id === id)?.parentId;
  assert.equal(parentOf("toolPhase_executing"), "toolPhase");
  assert.equal(parentOf("toolPhase_committing_flushing"), "toolPhase_committing");
  assert.equal(parentOf("closing"), undefined);
  const text = machineToMermaid(SPILLWAY_MACHINES.turn as AnyStateMachine, { nested: true });
  assert.match(
    text,
    /^ {2}state "toolPhase · invokes phase · phase invokes superviseCalls while it runs" as toolPhase \{$/m,
  );
  assert.match(text, /^ {4}state "committing · invokes commit" as toolPhase_committing \{$/m);
});

Deno.test("every guard of every machine is named on its edge, and every invoked actor on its state", () => {
  let guards = 0;
  for (const [name, machine] of Object.entries(SPILLWAY_MACHINES)) {
    const text = machineToMermaid(machine);
    const walk = (node: Node) => {
      const transitions = [...[...node.transitions.values()].flat(), ...(node.always ?? [])];
      for (const { guard } of transitions) {
        if (guard === undefined) continue;
        guards += 1;
        const guardName = typeof guard === "string" ? guard : (guard as { type: string }).type;
        assert.ok(text.includes(`[${guardName}]`), `${name}: guard ${guardName}`);
      }
      for (const { src } of node.invoke) {
        assert.match(text, new RegExp(`invokes ${String(src)}\\b`), `${name}: invokes ${src}`);
      }
      for (const child of Object.values(node.states)) walk(child);
    };
    walk(machine.root as unknown as Node);
  }
  assert.ok(guards >= 14, `only ${guards} guards were checked`);
});

Deno.test("composite guards are spelled out, inline guards still read as guards", async () => {
  const machine = setup({
    guards: { ready: () => true, late: () => false, forced: () => false },
  }).createMachine({
    id: "m",
    initial: "idle",
    states: {
      idle: {
        on: {
          GO: [
            { guard: allOf(["ready", notGuard("late")]), target: "busy" },
            { guard: anyOf(["forced", allOf(["ready", { type: "late" }])]), target: "busy" },
            { guard: () => true, target: "busy" },
            // XState's own combinators keep their parts in private fields: not read.
            { guard: and(["ready", "forced"]), target: "busy" },
          ],
        },
      },
      busy: { type: "final" },
    },
  });
  const text = machineToMermaid(machine);
  assert.equal(
    text,
    `stateDiagram-v2
  [*] --> idle
  idle
  busy
  idle --> busy : GO [ready and not late]
  idle --> busy : GO [forced or (ready and late)]
  idle --> busy : GO [unnamed guard]
  idle --> busy : GO [unnamed guard]
  busy --> [*]
`,
  );
  await parseMermaid(text);
});

Deno.test("composite guards made with our combinators decide as XState's do", () => {
  const machine = setup({
    types: { context: {} as { ready: boolean; late: boolean } },
    guards: {
      ready: ({ context }) => context.ready,
      late: ({ context }) => context.late,
    },
  }).createMachine({
    id: "m",
    context: ({ input }) => input as { ready: boolean; late: boolean },
    initial: "idle",
    states: {
      idle: {
        always: [
          { guard: allOf(["ready", notGuard("late")]), target: "onTime" },
          { guard: anyOf(["ready", "late"]), target: "other" },
        ],
      },
      onTime: {},
      other: {},
    },
  });
  const cases: [boolean, boolean, string][] = [
    [true, false, "onTime"],
    [true, true, "other"],
    [false, true, "other"],
    [false, false, "idle"],
  ];
  for (const [ready, late, expected] of cases) {
    const actor = createActor(machine, { input: { ready, late } }).start();
    assert.equal(actor.getSnapshot().value, expected, JSON.stringify({ ready, late }));
    actor.stop();
  }
});

Deno.test("a state's exit actions are drawn like its entry actions", () => {
  const machine = setup({ actions: { hello: () => {}, bye: () => {} } }).createMachine({
    id: "m",
    initial: "a",
    states: { a: { entry: "hello", exit: ["bye"], on: { GO: "b" } }, b: {} },
  });
  assert.match(machineToMermaid(machine), /^ {2}a : entry hello\n {2}a : exit bye$/m);
});

Deno.test("the toolCall diagram, golden: substates in their blocks, edges out of them at the top level", () => {
  assert.equal(
    machineToMermaid(SPILLWAY_MACHINES.toolCall as AnyStateMachine, { nested: true }),
    `stateDiagram-v2
  [*] --> execute
  state execute {
    [*] --> execute_deciding
    state "deciding" as execute_deciding
    state "approving" as execute_approving
    execute_approving : invokes approveRun
    state "running" as execute_running
    execute_running : invokes runCall
    execute_running : entry tellStarted
    execute_deciding --> execute_approving : always [runNeedsApproval]
    execute_deciding --> execute_running : always
    execute_approving --> execute_running : done
  }
  state resultPrompt {
    [*] --> resultPrompt_choosing
    state "choosing" as resultPrompt_choosing
    state "prompting" as resultPrompt_prompting
    resultPrompt_prompting : invokes promptResult
    resultPrompt_choosing --> resultPrompt_prompting : always
  }
  state "reviewSlot" as reviewSlot
  reviewSlot : entry tellResult, writeSlot
  state "barrierAcknowledge" as barrierAcknowledge
  barrierAcknowledge : invokes awaitRelease
  released
  reviewSlot --> barrierAcknowledge : always
  barrierAcknowledge --> released : done
  released --> [*]
  execute_deciding --> reviewSlot : always [runIsSkipped]
  execute_approving --> reviewSlot : done [approvalEndedCall]
  execute_running --> resultPrompt : done [wasParked]
  execute_running --> reviewSlot : done
  resultPrompt_choosing --> reviewSlot : always [resultIsUnattended]
  resultPrompt_choosing --> reviewSlot : always [resultIsWithheld]
  resultPrompt_prompting --> reviewSlot : done
`,
  );
});

Deno.test("the upstreamConnection diagram, golden: its delays and guards on their edges, what it reports on leaving stopping", () => {
  assert.equal(
    machineToMermaid(SPILLWAY_MACHINES.upstreamConnection as AnyStateMachine, { nested: true }),
    `stateDiagram-v2
  [*] --> idle
  idle
  state "starting · entry openLink" as starting {
    [*] --> starting_initializing
    state "initializing" as starting_initializing
    starting_initializing : invokes initialize
    starting_initializing : entry beginStep
    state "listing" as starting_listing
    starting_listing : invokes listTools
    starting_listing : entry beginStep
    starting_initializing --> starting_listing : done
  }
  state "stopping" as stopping
  stopping : invokes stopLink
  stopping : exit settleStartFailure, forgetVerdict, logStartFailure, tellStartFailed
  state "ready · entry resetFailedStarts, announceReady" as ready {
    [*] --> ready_serving
    state "serving" as ready_serving
    state "relisting" as ready_relisting
    ready_relisting : invokes listTools
    ready_serving --> ready_relisting : tools.changed
    ready_relisting --> ready_relisting : tools.changed
    ready_relisting --> ready_serving : done
    ready_relisting --> ready_serving : error
    ready_relisting --> ready_serving : after startupTimeout
  }
  lost
  restarting
  state "closing" as closing
  closing : invokes closeLink
  closed
  idle --> starting : connect
  idle --> closed : close
  starting --> stopping : close
  starting --> stopping : after startupTimeout
  stopping --> closed : done [isClosing]
  stopping --> restarting : done [restartsInBackground]
  stopping --> idle : done
  ready --> lost : server.gone
  ready --> closing : close
  lost --> restarting : connect
  lost --> closed : close
  lost --> restarting : always [restartsInBackground]
  restarting --> restarting : connect [failedBefore]
  restarting --> closed : close
  restarting --> starting : after restartBackoff
  restarting --> starting : always [restartsAtOnce]
  closing --> closed : done
  closing --> closed : error
  closed --> [*]
  starting_initializing --> stopping : error
  starting_listing --> ready : done [restartsInBackground]
  starting_listing --> ready : done
  starting_listing --> stopping : error
`,
  );
});

Deno.test("every block of the Markdown page parses with Mermaid", async () => {
  const page = machinesMarkdown();
  const blocks = [...page.matchAll(/^```mermaid\n([\s\S]*?)^```$/gm)].map((match) => match[1]);
  assert.equal(blocks.length, Object.keys(SPILLWAY_MACHINES).length);
  for (const block of blocks) await parseMermaid(block as string);
});

Deno.test("docs/machines.md is what `spillway inspect` prints today", async () => {
  const path = new URL("../docs/machines.md", import.meta.url);
  const onDisk = await Deno.readTextFile(path);
  assert.ok(
    onDisk === machinesMarkdown(),
    "docs/machines.md is stale: regenerate it with `deno task spillway inspect > docs/machines.md`",
  );
});

Deno.test("state names that are not words still make a valid diagram, named as written", async () => {
  const machine = setup({}).createMachine({
    id: "m",
    initial: "waiting for input",
    states: {
      "waiting for input": { initial: 'a "quoted" one', states: { 'a "quoted" one': {} } },
      "done-ish": { type: "final" },
    },
  });
  const text = machineToMermaid(machine);
  await parseMermaid(text);
  assert.match(text, /^ {2}state "waiting for input" as waiting_for_input \{$/m);
  assert.match(text, /^ {4}state "a 'quoted' one" as waiting_for_input_a__quoted__one$/m);
  const states = await mermaidStates(text);
  assert.equal(
    states.find((state) => state.id === "waiting_for_input_a__quoted__one")?.parentId,
    "waiting_for_input",
  );
});
