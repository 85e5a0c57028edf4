import assert from "node:assert/strict";
import { type AnyStateMachine, createMachine } from "xstate";
import { main } from "../cli.ts";
import { SPILLWAY_MACHINES } from "../inspector/machines_markdown.ts";
import { captureCommandIo } from "./command_io.ts";

/** The parts of XState's state nodes read here. */
interface Node {
  readonly id: string;
  readonly type: string;
  readonly states: Readonly<Record<string, Node>>;
  readonly transitions: ReadonlyMap<string, readonly Transition[]>;
  readonly always?: readonly Transition[];
  readonly invoke: readonly { readonly src: unknown; readonly id: string }[];
}
interface Transition {
  readonly eventType: string;
  readonly target?: readonly { readonly id: string }[];
  readonly guard?: unknown;
  readonly reenter: boolean;
}

/** Every state id and transition of a machine, as sortable lines. */
function shape(machine: AnyStateMachine): string[] {
  const lines: string[] = [];
  const guardName = (guard: unknown) =>
    typeof guard === "string" ? guard : (guard as { type?: string } | undefined)?.type ?? "";
  const walk = (node: Node) => {
    lines.push(`state ${node.id} ${node.type}`);
    for (const { src, id } of node.invoke) lines.push(`invoke ${node.id} ${String(src)} ${id}`);
    const all = [...node.transitions.values()].flat().concat(node.always ?? []);
    for (const t of all) {
      const targets = (t.target ?? []).map((target) => target.id).join(",");
      lines.push(`${node.id} -${t.eventType}[${guardName(t.guard)}]-> ${targets}`);
    }
    for (const child of Object.values(node.states)) walk(child);
  };
  walk(machine.root as unknown as Node);
  return lines.sort();
}

Deno.test("inspect --format xstate: each machine's config builds with createMachine into the same states and transitions", async () => {
  const io = captureCommandIo();
  assert.equal(await main(["inspect", "--format", "xstate"], io), 0);
  const configs = JSON.parse(io.out()) as Record<string, { id: string }>;
  assert.deepEqual(Object.keys(configs), Object.keys(SPILLWAY_MACHINES), "the machines json lists");
  let transitions = 0;
  for (const [name, config] of Object.entries(configs)) {
    const live = SPILLWAY_MACHINES[name] as AnyStateMachine;
    const built = shape(createMachine(config));
    assert.deepEqual(built, shape(live), `${name} rebuilt`);
    transitions += built.filter((line) => line.includes("->")).length;
  }
  assert.ok(transitions > 60, `the machines have their transitions (${transitions})`);
  const json = io.out();
  assert.match(json, /"after": \{\n\s+"startupTimeout"/, "delays by name");
  assert.match(json, /"guard": "allSlotsWritten"/, "guards by name");
  assert.match(json, /"src": "capSlots"/, "actors by name");
});

Deno.test("inspect --format xstate with machines named prints those configs alone", async () => {
  const io = captureCommandIo();
  assert.equal(await main(["inspect", "--format", "xstate", "commit", "phase"], io), 0);
  assert.deepEqual(Object.keys(JSON.parse(io.out())), ["phase", "commit"]);
});
