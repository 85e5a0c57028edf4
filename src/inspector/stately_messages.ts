/**
 * Inspection records as the messages of Stately's inspection protocol, the
 * ones `@statelyai/inspect` 0.7.2 sends over a WebSocket: `@xstate.actor`
 * (with the machine's config as `definition`), `@xstate.event` (with the
 * `sourceId` of its sender) and `@xstate.snapshot`, each with `sessionId`,
 * `rootId`, `createdAt`, `_version` and `id`. Any tool that reads that
 * protocol (Stately's inspector behind its relay) can follow a spillway run,
 * live or from a recording. What differs on purpose: snapshots carry their
 * state and status but an empty `context` (a context holds dependencies),
 * and an event's fields are their sizes and digests unless the record
 * carries its contents.
 *
 * @module
 */

import type { InspectionRecord } from "./inspection_recorder.ts";

/** The `_version` of each message: the `@statelyai/inspect` release whose messages these are. */
export const STATELY_INSPECT_VERSION = "0.7.2";

/** Fields every message has. */
interface StatelyBase {
  /** The actor's session id. */
  readonly sessionId: string;
  /** The session id of the actor's root. */
  readonly rootId: string;
  /** When, in ms since the epoch, as a string. */
  readonly createdAt: string;
  readonly _version: string;
  readonly id: null;
}

/**
 * A snapshot as sent: its state value and status, in the shape of an
 * XState snapshot; its context and children stay home.
 */
export interface StatelySnapshot {
  readonly status: string;
  readonly value?: unknown;
  readonly context: Record<string, never>;
  readonly children: Record<string, never>;
  readonly historyValue: Record<string, never>;
  readonly tags: readonly never[];
}

function snapshotOf(status: string, value?: unknown): StatelySnapshot {
  return {
    status,
    ...(value === undefined ? {} : { value }),
    context: {},
    children: {},
    historyValue: {},
    tags: [],
  };
}

/** An actor was created. */
export interface StatelyActorMessage extends StatelyBase {
  readonly type: "@xstate.actor";
  readonly name: string;
  readonly parentId?: string;
  /** The machine's config as JSON (`{"id":name}` for an actor that is no machine). */
  readonly definition: string;
  readonly snapshot: StatelySnapshot;
}

/** An actor received an event. */
export interface StatelyEventMessage extends StatelyBase {
  readonly type: "@xstate.event";
  readonly event: { readonly type: string; readonly [field: string]: unknown };
  /** The session id of the sender, if an actor sent it. */
  readonly sourceId?: string;
}

/** An actor's snapshot changed. */
export interface StatelySnapshotMessage extends StatelyBase {
  readonly type: "@xstate.snapshot";
  readonly event: { readonly type: string };
  readonly snapshot: StatelySnapshot;
}

/** One message of the protocol. */
export type StatelyMessage = StatelyActorMessage | StatelyEventMessage | StatelySnapshotMessage;

/**
 * Turns records into messages, in order: it keeps each machine's
 * definition from the first record that carries it, so every
 * `@xstate.actor` message carries its own.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { StatelyMessages } from "./stately_messages.ts";
 * const messages = new StatelyMessages();
 * const actor = messages.of({
 *   type: "@xstate.actor", actor: "turn", sessionId: "x:0", rootId: "x:0", time: 1,
 *   machine: "turn", definition: '{"id":"turn"}',
 * });
 * assert.equal(actor?.type, "@xstate.actor");
 * assert.equal(actor?.createdAt, "1");
 * assert.equal(messages.of({ type: "@xstate.microstep", actor: "turn" }), undefined);
 * ```
 */
export class StatelyMessages {
  readonly #definitions = new Map<string, string>();

  /**
   * The message of `record`; `undefined` for the kinds the protocol does
   * not carry (`@xstate.action`, `@xstate.microstep`).
   *
   * @throws {TypeError} when the record has no session ids (written by a spillway before them)
   */
  of(record: InspectionRecord): StatelyMessage | undefined {
    if (
      record.type !== "@xstate.actor" && record.type !== "@xstate.event" &&
      record.type !== "@xstate.snapshot"
    ) return undefined;
    const { sessionId, rootId, time } = record;
    if (sessionId === undefined || rootId === undefined || time === undefined) {
      throw new TypeError(
        `a ${record.type} record of "${record.actor}" has no sessionId, rootId or time: ` +
          "it was recorded by an older spillway; record the run again to send it",
      );
    }
    const base = { sessionId, rootId, createdAt: String(time), _version: STATELY_INSPECT_VERSION };
    switch (record.type) {
      case "@xstate.actor": {
        if (record.machine !== undefined && record.definition !== undefined) {
          this.#definitions.set(record.machine, record.definition);
        }
        const name = record.machine !== undefined && record.actor === sessionId
          ? record.machine
          : record.actor;
        return {
          type: "@xstate.actor",
          name,
          ...base,
          id: null,
          ...(record.parentId === undefined ? {} : { parentId: record.parentId }),
          definition:
            (record.machine === undefined ? undefined : this.#definitions.get(record.machine)) ??
              JSON.stringify({ id: name }),
          snapshot: snapshotOf("active"),
        };
      }
      case "@xstate.event":
        return {
          type: "@xstate.event",
          event: {
            type: record.event ?? "",
            ...(record.contents ?? record.payload),
            ...(record.facts === undefined ? {} : { facts: record.facts }),
          },
          ...(record.source === undefined ? {} : { sourceId: record.source }),
          ...base,
          id: null,
        };
      case "@xstate.snapshot":
        return {
          type: "@xstate.snapshot",
          event: { type: record.event ?? "" },
          snapshot: snapshotOf(record.status ?? "active", record.state),
          ...base,
          id: null,
        };
    }
  }
}
