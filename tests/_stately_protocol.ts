/**
 * Test helper: what Stately's inspection protocol looks like, taken from
 * `@statelyai/inspect` 0.7.2 itself (its `createInspector` run on a parent
 * machine and the child it invokes), and checks that what spillway sent
 * reads as that protocol: the same fields on each kind of message, every
 * `definition` a config `createMachine` builds, every parent announced
 * before its child.
 *
 * @module
 */

import assert from "node:assert/strict";
import { createInspector, type StatelyInspectionEvent } from "@statelyai/inspect";
import { createActor, createMachine, sendParent, waitFor } from "xstate";

/** Per message type: the fields every message of it has, and those some have. */
export type ProtocolFields = ReadonlyMap<string, { always: Set<string>; sometimes: Set<string> }>;

/** The fields `@statelyai/inspect` sends, from a parent that invokes a child that answers it. */
export async function statelyFields(): Promise<ProtocolFields> {
  const sent: StatelyInspectionEvent[] = [];
  const inspector = createInspector({ send: (event) => sent.push(event), start() {}, stop() {} });
  const child = createMachine({ id: "child", entry: sendParent({ type: "hello" }) });
  const parent = createMachine({
    id: "parent",
    initial: "a",
    invoke: { src: child },
    states: { a: { on: { hello: "b" } }, b: {} },
  });
  const actor = createActor(parent, { inspect: inspector.inspect }).start();
  await waitFor(actor, (snapshot) => snapshot.value === "b");
  // The inspector converts on a timer (no window here): wait until the last snapshot came.
  while (!sent.some((event) => event.type === "@xstate.snapshot" && event.event.type === "hello")) {
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  actor.stop();
  const fields = new Map<string, { always: Set<string>; sometimes: Set<string> }>();
  for (const event of JSON.parse(JSON.stringify(sent)) as Record<string, unknown>[]) {
    const keys = Object.keys(event);
    const seen = fields.get(event.type as string);
    if (seen === undefined) {
      fields.set(event.type as string, { always: new Set(keys), sometimes: new Set(keys) });
    } else {
      for (const key of seen.always) if (!keys.includes(key)) seen.always.delete(key);
      for (const key of keys) seen.sometimes.add(key);
    }
  }
  assert.ok(fields.get("@xstate.actor")?.sometimes.has("parentId"), "the reference has a child");
  assert.ok(fields.get("@xstate.event")?.sometimes.has("sourceId"), "the reference has a sender");
  return fields;
}

/** A message as read back. */
export interface ProtocolMessage {
  readonly type: string;
  readonly sessionId: string;
  readonly rootId: string;
  readonly parentId?: string;
  readonly name?: string;
  readonly definition?: string;
  readonly event?: { readonly type: string };
  readonly snapshot?: { readonly status: string; readonly value?: unknown };
}

/**
 * Parses `raw` and checks each message against `fields`: its kind is one
 * of the protocol's, it has every field that kind always has and none it
 * never has, and its values have the protocol's types.
 */
export function readProtocol(raw: readonly string[], fields: ProtocolFields): ProtocolMessage[] {
  return raw.map((text) => {
    const message = JSON.parse(text) as Record<string, unknown>;
    const expected = fields.get(message.type as string);
    assert.ok(expected !== undefined, `not a protocol message: ${text.slice(0, 200)}`);
    for (const key of expected.always) assert.ok(key in message, `${message.type} lacks ${key}`);
    for (const key of Object.keys(message)) {
      assert.ok(
        expected.sometimes.has(key),
        `${message.type} has a field ${key} the protocol has not`,
      );
    }
    assert.equal(message._version, "0.7.2");
    assert.equal(message.id, null);
    assert.match(message.createdAt as string, /^\d{13}$/);
    assert.equal(typeof message.sessionId, "string");
    assert.equal(typeof message.rootId, "string");
    if (message.type === "@xstate.actor") {
      assert.equal(typeof message.name, "string");
      createMachine(JSON.parse(message.definition as string));
    } else {
      assert.equal(typeof (message.event as { type?: unknown }).type, "string");
    }
    return message as unknown as ProtocolMessage;
  });
}

/**
 * Checks that the actors form trees: each child's parent announced before
 * it, under the same root, and each root its own root. Returns the roots'
 * names by session id.
 */
export function actorTrees(messages: readonly ProtocolMessage[]): Map<string, string> {
  const actors = new Map<string, ProtocolMessage>();
  for (const message of messages) {
    if (message.type !== "@xstate.actor") {
      assert.ok(actors.has(message.sessionId), `${message.type} of an unannounced actor`);
      continue;
    }
    assert.ok(!actors.has(message.sessionId), `${message.sessionId} announced twice`);
    if (message.parentId === undefined) {
      assert.equal(message.rootId, message.sessionId, `the root ${message.name} is its own root`);
    } else {
      const parent = actors.get(message.parentId);
      assert.ok(parent !== undefined, `${message.name}'s parent was not announced before it`);
      assert.equal(message.rootId, parent.rootId, `${message.name} is under its parent's root`);
    }
    actors.set(message.sessionId, message);
  }
  return new Map(
    [...actors.values()].filter((actor) => actor.parentId === undefined).map((
      actor,
    ) => [actor.sessionId, actor.name ?? ""]),
  );
}
