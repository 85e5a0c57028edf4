/**
 * Machines as pictures: a Mermaid `stateDiagram-v2` for any XState machine,
 * drawn from `xstate/graph`'s directed graph, so the diagrams always match
 * the machines that run. Nested states become composite states; transition
 * labels name the event (`done` / `error` for an invoked actor's result,
 * `always` for eventless transitions).
 *
 * @module
 */

import type { AnyStateMachine } from "xstate";
import { type DirectedGraphNode, toDirectedGraph } from "xstate/graph";

/**
 * The Mermaid `stateDiagram-v2` source of `machine`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createMachine } from "xstate";
 * import { machineToMermaid } from "./machine_diagram.ts";
 * const m = createMachine({ id: "m", initial: "a", states: { a: { on: { GO: "b" } }, b: { type: "final" } } });
 * assert.equal(machineToMermaid(m), "stateDiagram-v2\n  [*] --> a\n  a --> b : GO\n  b --> [*]\n");
 * ```
 */
export function machineToMermaid(machine: AnyStateMachine): string {
  const root = toDirectedGraph(machine);
  const lines = ["stateDiagram-v2"];
  const finals: string[] = [];
  drawStates(root, lines, finals, "  ");
  collectEdges(root, lines);
  for (const final of finals) lines.push(`  ${final} --> [*]`);
  return lines.join("\n") + "\n";
}

function drawStates(node: DirectedGraphNode, lines: string[], finals: string[], indent: string) {
  const initial = node.children.find((c) => c.stateNode.key === node.stateNode.config.initial);
  if (initial !== undefined) lines.push(`${indent}[*] --> ${name(initial)}`);
  for (const child of node.children) {
    if (child.children.length > 0) {
      lines.push(`${indent}state ${name(child)} {`);
      drawStates(child, lines, finals, indent + "  ");
      lines.push(`${indent}}`);
    }
    if (child.stateNode.type === "final") finals.push(name(child));
  }
}

type Transition = {
  readonly eventType: string;
  readonly target?: readonly { readonly path: readonly string[] }[] | undefined;
  readonly guard?: unknown;
};

function collectEdges(node: DirectedGraphNode, out: string[]): void {
  const source = node.stateNode;
  const transitions: Transition[] = [
    ...node.edges.map((edge) => edge.transition as Transition),
    // Eventless (`always`) transitions are not edges of the directed graph.
    ...((source.always ?? []) as readonly Transition[]),
  ];
  for (const transition of transitions) {
    for (const target of transition.target ?? []) {
      out.push(`  ${id(source)} --> ${id(target)} : ${label(transition)}`);
    }
  }
  for (const child of node.children) collectEdges(child, out);
}

function name(node: DirectedGraphNode): string {
  return id(node.stateNode);
}

/** A Mermaid-safe id: the state's path below the root, joined with `_`. */
function id(stateNode: { readonly path: readonly string[] }): string {
  return stateNode.path.join("_") || "root";
}

/** The event's short name, and the guard's name when there is one: `done [recordFailed]`. */
function label(transition: Transition): string {
  const event = transition.eventType;
  let text = event;
  if (event === "") text = "always";
  else if (event.startsWith("xstate.done.actor.")) text = "done";
  else if (event.startsWith("xstate.error.actor.")) text = "error";
  else if (event.startsWith("xstate.after.")) text = "after";
  const guard = guardName(transition.guard);
  return guard === undefined ? text : `${text} [${guard}]`;
}

function guardName(guard: unknown): string | undefined {
  if (typeof guard === "string") return guard;
  if (typeof guard === "object" && guard !== null && "type" in guard) {
    return typeof guard.type === "string" ? guard.type : undefined;
  }
  return undefined;
}
