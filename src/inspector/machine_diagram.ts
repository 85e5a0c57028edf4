/**
 * Machines as pictures: a Mermaid `stateDiagram-v2` for any XState machine,
 * drawn from its definition (its state nodes, transitions, guards and
 * invocations), so the diagrams always match the machines that run.
 *
 * What the drawing keeps, and why it is laid out as it is:
 *
 * - every substate is declared inside its parent's block, and a transition
 *   is written inside a block only when both its ends live in that block
 *   (Mermaid files a state under the last block that mentions it, so an edge
 *   written elsewhere would pull it out of its parent);
 * - edge labels name the event (`done` / `error` for the state's own invoked
 *   actor, `always` for eventless transitions, `after <delay>` for a named
 *   delay) and, in brackets, the guard, composites made with
 *   `src/machines/guard_combinators.ts` spelled out (`[a and not b]`): no
 *   guarded edge reads as an unconditional one;
 * - a state that invokes an actor says so (`invokes commit`), and so do its
 *   entry and exit actions (`entry spendBudget`, `exit tellStartFailed`);
 * - with `nested`, an invoked machine is drawn inside the state that invokes
 *   it, so one diagram shows where the turn runs the phase and the phase
 *   runs the commit.
 *
 * Mermaid ids are state paths joined with `_` (`execute_running`; nested:
 * `toolPhase_committing_recording`); labels stay the plain state names.
 *
 * @module
 */

import type { AnyStateMachine } from "xstate";
import { guardParts } from "../machines/guard_combinators.ts";

/** How {@linkcode machineToMermaid} draws. */
export interface MachineDiagramOptions {
  /**
   * Draw each machine a state invokes inside that state (the turn's
   * `toolPhase` then holds the phase, whose `committing` holds the commit).
   * Default: `false` (an invoked machine is named, not drawn).
   */
  readonly nested?: boolean;
  /** Which way the top level flows: `TB` (top to bottom) or `LR`. Default: Mermaid's, `TB`. */
  readonly direction?: "TB" | "LR";
}

/**
 * The Mermaid `stateDiagram-v2` source of `machine`: one valid document.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMachine } from "xstate";
 * import { machineToMermaid } from "./machine_diagram.ts";
 * const m = createMachine({
 *   id: "m",
 *   initial: "a",
 *   states: {
 *     a: { initial: "x", states: { x: { on: { NEXT: "y" } }, y: {} }, on: { GO: "b" } },
 *     b: { type: "final" },
 *   },
 * });
 * assert.equal(
 *   machineToMermaid(m),
 *   [
 *     "stateDiagram-v2",
 *     "  [*] --> a",
 *     "  state a {",
 *     "    [*] --> a_x",
 *     '    state "x" as a_x',
 *     '    state "y" as a_y',
 *     "    a_x --> a_y : NEXT",
 *     "  }",
 *     "  b",
 *     "  a --> b : GO",
 *     "  b --> [*]",
 *     "",
 *   ].join("\n"),
 * );
 * ```
 */
export function machineToMermaid(
  machine: AnyStateMachine,
  options: MachineDiagramOptions = {},
): string {
  const layout: Layout = { ids: new Map(), blocks: new Map() };
  const root: Drawn = { id: "", node: machine.root, machine, children: [] };
  collect(root, options.nested === true, layout, new Set());
  const edges = root.children.flatMap((child) => edgesOf(child, layout));
  const lines = ["stateDiagram-v2"];
  if (options.direction !== undefined) lines.push(`  direction ${options.direction}`);
  draw(root, edges, layout, lines, "  ");
  // What the machine invokes for its whole life has no state to be written in.
  const top = machine.root as StateNode;
  const lifelong = top.invoke.map(({ src }) => actorName(src));
  const initial = top.initial?.target[0];
  if (lifelong.length > 0 && initial !== undefined) {
    lines.push(
      `  note left of ${layout.ids.get(initial)} : ${lifelongNote(machine.id, lifelong)}`,
    );
  }
  // Edges whose ends live in different blocks go last, outside every block.
  for (const edge of edges) if (edge.block === undefined) lines.push(`  ${edge.line}`);
  return lines.join("\n") + "\n";
}

/**
 * The Mermaid id of the state at `path` (state names from the top, an
 * invoked machine's states after the state invoking it, as `nested` draws
 * them): the names joined with `_`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mermaidStateId } from "./machine_diagram.ts";
 * assert.equal(mermaidStateId(["toolPhase", "committing", "flushing"]), "toolPhase_committing_flushing");
 * ```
 */
export function mermaidStateId(path: readonly string[]): string {
  return path.map(mermaidWord).join("_");
}

/** Mermaid ids are words: anything else in a state's name becomes `_` (its label keeps it). */
function mermaidWord(name: string): string {
  return name.replace(/\W/g, "_");
}

/** The parts of XState's `StateNode` the drawing reads. */
interface StateNode {
  readonly key: string;
  /** Its path from the machine's id: `upstreamConnection.ready.relisting`. */
  readonly id: string;
  readonly type: string;
  readonly states: Readonly<Record<string, StateNode>>;
  readonly initial?: { readonly target: readonly StateNode[] } | undefined;
  readonly transitions: ReadonlyMap<string, readonly Transition[]>;
  readonly always?: readonly Transition[] | undefined;
  readonly invoke: readonly { readonly id: string; readonly src: unknown }[];
  readonly entry: readonly unknown[];
  readonly exit: readonly unknown[];
}

interface Transition {
  readonly eventType: string;
  readonly target?: readonly StateNode[] | undefined;
  readonly guard?: unknown;
}

/** One box of the drawing: a state node, or the root of a machine drawn inside one. */
interface Drawn {
  /** The Mermaid id ("" for the diagram itself); a machine drawn inside a state shares its id. */
  readonly id: string;
  readonly node: StateNode;
  readonly machine: AnyStateMachine;
  readonly children: Drawn[];
  /** With `nested`: the machine this state invokes, drawn inside it. */
  inner?: Drawn;
}

/** Where each state node is drawn: its Mermaid id, and the id of the block it sits in. */
interface Layout {
  readonly ids: Map<StateNode, string>;
  readonly blocks: Map<StateNode, string>;
}

interface Edge {
  /** The block both ends sit in; `undefined` when they sit in different ones. */
  readonly block: string | undefined;
  readonly line: string;
}

function collect(drawn: Drawn, nested: boolean, layout: Layout, taken: Set<string>): void {
  for (const node of Object.values(drawn.node.states)) {
    const id = drawn.id === "" ? mermaidWord(node.key) : `${drawn.id}_${mermaidWord(node.key)}`;
    if (taken.has(id)) throw new Error(`two states would both be drawn as "${id}"`);
    taken.add(id);
    layout.ids.set(node, id);
    layout.blocks.set(node, drawn.id);
    const child: Drawn = { id, node, machine: drawn.machine, children: [] };
    drawn.children.push(child);
    collect(child, nested, layout, taken);
    const invoked = nested && child.children.length === 0
      ? invokedMachines(node, drawn.machine)
      : [];
    if (invoked.length === 1) {
      const machine = invoked[0] as AnyStateMachine;
      const inner: Drawn = { id, node: machine.root as StateNode, machine, children: [] };
      collect(inner, nested, layout, taken);
      child.inner = inner;
    }
  }
}

/** The machines `node` invokes (an actor given by name is looked up in the machine's `setup`). */
function invokedMachines(node: StateNode, machine: AnyStateMachine): AnyStateMachine[] {
  const actors = machine.implementations.actors as Record<string, unknown>;
  return node.invoke.flatMap(({ src }) => {
    const logic = typeof src === "string" ? actors[src] : src;
    return isMachine(logic) ? [logic] : [];
  });
}

function isMachine(logic: unknown): logic is AnyStateMachine {
  return typeof logic === "object" && logic !== null && "root" in logic && "config" in logic;
}

/** Writes `drawn`'s contents: initial state, states (blocks for compound ones), edges, finals. */
function draw(drawn: Drawn, edges: readonly Edge[], layout: Layout, out: string[], indent: string) {
  const initial = drawn.node.initial?.target[0];
  if (initial !== undefined) out.push(`${indent}[*] --> ${layout.ids.get(initial)}`);
  for (const child of drawn.children) {
    const notes = notesOf(child);
    const box = child.inner ?? child;
    if (box.children.length > 0) {
      const title = [child.node.key, ...notes].join(" · ");
      out.push(
        title === child.id
          ? `${indent}state ${child.id} {`
          : `${indent}state "${quotable(title)}" as ${child.id} {`,
      );
      draw(box, edges, layout, out, indent + "  ");
      out.push(`${indent}}`);
    } else {
      // A state with notes needs its name as its first line, or Mermaid shows only the notes.
      out.push(
        child.node.key === child.id && notes.length === 0
          ? `${indent}${child.id}`
          : `${indent}state "${quotable(child.node.key)}" as ${child.id}`,
      );
      for (const note of notes) out.push(`${indent}${child.id} : ${note}`);
    }
  }
  for (const edge of edges) if (edge.block === drawn.id) out.push(`${indent}${edge.line}`);
  for (const node of Object.values(drawn.node.states)) {
    if (node.type === "final") out.push(`${indent}${layout.ids.get(node)} --> [*]`);
  }
}

/** Text that can stand between double quotes in Mermaid. */
function quotable(text: string): string {
  return text.replaceAll('"', "'");
}

/** What a state does besides its transitions: the actors it invokes, its entry actions. */
function notesOf(drawn: Drawn): string[] {
  const notes: string[] = [];
  const invoked = drawn.node.invoke.map(({ src }) => actorName(src));
  if (invoked.length > 0) notes.push(`invokes ${invoked.join(", ")}`);
  // A machine drawn inside this state: what it invokes for its whole life.
  const inner = drawn.inner?.node.invoke.map(({ src }) => actorName(src)) ?? [];
  if (inner.length > 0) notes.push(lifelongNote(drawn.inner?.machine.id ?? "", inner));
  const entry = drawn.node.entry.flatMap((action) => actionName(action) ?? []);
  if (entry.length > 0) notes.push(`entry ${entry.join(", ")}`);
  const exit = drawn.node.exit.flatMap((action) => actionName(action) ?? []);
  if (exit.length > 0) notes.push(`exit ${exit.join(", ")}`);
  return notes;
}

/** The note on what a machine invokes for its whole life. */
function lifelongNote(machine: string, actors: readonly string[]): string {
  return `${machine} invokes ${actors.join(", ")} while it runs`;
}

function edgesOf(drawn: Drawn, layout: Layout): Edge[] {
  const node = drawn.node;
  const own = new Set(node.invoke.map(({ id }) => id));
  const transitions = [...[...node.transitions.values()].flat(), ...(node.always ?? [])];
  const edges: Edge[] = [];
  const block = layout.blocks.get(node);
  for (const transition of transitions) {
    for (const target of transition.target ?? []) {
      const targetId = layout.ids.get(target);
      if (targetId === undefined) continue;
      edges.push({
        block: layout.blocks.get(target) === block ? block : undefined,
        line: `${drawn.id} --> ${targetId} : ${label(transition, own, node.id)}`,
      });
    }
  }
  for (const child of [...drawn.children, ...(drawn.inner?.children ?? [])]) {
    edges.push(...edgesOf(child, layout));
  }
  return edges;
}

/** The event's short name, and the guard in brackets when there is one: `done [wasParked]`. */
function label(transition: Transition, ownActors: ReadonlySet<string>, source: string): string {
  const guard = transition.guard === undefined ? undefined : guardText(transition.guard, true);
  const event = eventText(transition.eventType, ownActors, source);
  return guard === undefined ? event : `${event} [${guard}]`;
}

function eventText(event: string, ownActors: ReadonlySet<string>, source: string): string {
  if (event === "") return "always";
  for (
    const [prefix, short] of [["xstate.done.actor.", "done"], ["xstate.error.actor.", "error"]]
  ) {
    if (!event.startsWith(prefix as string)) continue;
    const actor = event.slice((prefix as string).length);
    return ownActors.has(actor) ? short as string : `${short} ${actor}`;
  }
  // A delay's event is `xstate.after.<delay>.<state id>`: the delay is what the edge says.
  if (event.startsWith("xstate.after.")) {
    const delay = event.slice("xstate.after.".length);
    return `after ${delay.endsWith(`.${source}`) ? delay.slice(0, -source.length - 1) : delay}`;
  }
  return event;
}

/**
 * A guard as text: its name, or for a composite made with `allOf` /
 * `anyOf` / `notGuard` the guards it combines. A guard without a name (an
 * inline function, or XState's own `and` / `or` / `not`, whose parts only
 * XState's private fields hold) is drawn as `unnamed guard`, so that the
 * edge still reads as conditional.
 */
function guardText(guard: unknown, top: boolean): string {
  if (typeof guard === "string") return guard;
  if (typeof guard === "object" && guard !== null && "type" in guard) {
    if (typeof guard.type === "string") return guard.type;
  }
  const composite = guardParts(guard);
  if (composite === undefined) return "unnamed guard";
  const parts = composite.guards.map((inner) => guardText(inner, false));
  if (composite.kind === "not") return `not ${parts[0]}`;
  const text = parts.join(` ${composite.kind} `);
  return top ? text : `(${text})`;
}

function actorName(src: unknown): string {
  if (typeof src === "string") return src;
  if (isMachine(src)) return src.id;
  return "an unnamed actor";
}

function actionName(action: unknown): string | undefined {
  if (typeof action === "string") return action;
  if (typeof action === "object" && action !== null && "type" in action) {
    return typeof action.type === "string" ? action.type : undefined;
  }
  return undefined;
}
