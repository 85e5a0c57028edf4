/**
 * One XState inspection event, reduced to a record that can be written
 * and sent: actor references are circular and contexts hold dependencies
 * (stores, services, an upstream server's headers), so a record keeps what
 * a reader needs and nothing that could carry a secret: which actor (its
 * XState session id, its parent's and its root's), which event, which
 * state, when, the machine's definition the first time the machine
 * appears, and for the events that carry them, the sizes before and after
 * each cap (`facts`, see `inspection_facts.ts`). An event's other fields
 * become their sizes and SHA-256 digests (`payload`); the contents
 * themselves only when a person asked for them (`contents`), and an
 * actor's input never.
 *
 * @module
 */

import type { InspectionEvent } from "xstate";
import { type ContentDigest, contentDigest, plainJson } from "./content_digest.ts";
import { type InspectionFacts, inspectionFacts } from "./inspection_facts.ts";

/** One line of the inspection log (`--inspect FILE`), one message's worth of `--inspect-ws`. */
export interface InspectionRecord {
  /** `@xstate.actor`, `@xstate.event`, `@xstate.snapshot`, `@xstate.action`, `@xstate.microstep`. */
  readonly type: string;
  /** The actor's id (`turn`, `phase`, `call.3`), or its session id when it has none. */
  readonly actor: string;
  /** The event's type (`@xstate.event`, `@xstate.snapshot`). */
  readonly event?: string;
  readonly state?: unknown;
  readonly status?: string;
  readonly action?: string;
  /** Sizes, budget and notices, on the events that carry them. */
  readonly facts?: InspectionFacts;
  /** The client session whose actor this is (`spillway serve`); absent for a `query` turn. */
  readonly session?: string;
  /** The actor's XState session id (`x:12`), unique in the process. Absent in older recordings. */
  readonly sessionId?: string;
  /** The session id of the actor that started this one (`@xstate.actor`); absent for a root. */
  readonly parentId?: string;
  /** The session id of the root of the actor's system (the turn, a client session, a connection). */
  readonly rootId?: string;
  /** When it happened, in ms since the epoch. */
  readonly time?: number;
  /** The machine's id (`@xstate.actor` of a machine): a key of `spillway inspect --format xstate`. */
  readonly machine?: string;
  /** The machine's `createMachine` config as JSON, on the first `@xstate.actor` of each machine. */
  readonly definition?: string;
  /** The session id of the actor that sent the event (`@xstate.event`), if an actor did. */
  readonly source?: string;
  /** The event's other fields (`@xstate.event`), each as its size and digest. */
  readonly payload?: Readonly<Record<string, ContentDigest>>;
  /**
   * Names an actor's input gives it (`xstate.init`): a client session's
   * `conversationId`, an upstream connection's source `name`. Its other
   * input fields are never recorded.
   */
  readonly names?: { readonly conversationId?: string; readonly name?: string };
  /** The event's other fields themselves, only when asked for; never written to a file. */
  readonly contents?: Readonly<Record<string, unknown>>;
}

/** Options of {@linkcode InspectionRecorder}. */
export interface InspectionRecorderOptions {
  /** Keep events' contents in `contents` (besides their digests). Default: `false`. */
  readonly contents?: boolean;
  /** The clock of `time`. Default: `Date.now`. */
  readonly now?: () => number;
}

/** The parts of an actor reference read here (`_parent` is how XState links a child to its parent). */
interface ActorLike {
  readonly id?: string;
  readonly sessionId: string;
  readonly _parent?: { readonly sessionId: string };
  readonly logic?: { readonly config?: unknown };
}

/** Fields of an event that are never recorded: an actor's input is its dependencies and settings. */
const NEVER_SENT = ["input"];

/**
 * Reduces inspection events to records, in order: it remembers which
 * machines' definitions it has given, so each definition comes once.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createActor, createMachine } from "xstate";
 * import { InspectionRecorder } from "./inspection_recorder.ts";
 * const recorder = new InspectionRecorder();
 * const records: unknown[] = [];
 * const machine = createMachine({ id: "light", initial: "red", states: { red: {} } });
 * createActor(machine, { inspect: (event) => records.push(recorder.record(event)) }).start();
 * const [actor] = records as { type: string; machine?: string; definition?: string }[];
 * assert.equal(actor?.type, "@xstate.actor");
 * assert.equal(actor?.machine, "light");
 * assert.equal(JSON.parse(actor?.definition ?? "{}").initial, "red");
 * ```
 */
export class InspectionRecorder {
  readonly #contents: boolean;
  readonly #now: () => number;
  readonly #defined = new Set<string>();
  /**
   * Digests of objects already digested: a promise actor's result comes
   * twice (its own resolve event, its parent's done event), the same object.
   * Events are data, never changed in place.
   */
  readonly #digests = new WeakMap<object, ContentDigest>();

  constructor(options: InspectionRecorderOptions = {}) {
    this.#contents = options.contents ?? false;
    this.#now = options.now ?? Date.now;
  }

  /** The record of `event` (of the client session `session`, if given). */
  record(event: InspectionEvent, session?: string): InspectionRecord {
    const ref = event.actorRef as unknown as ActorLike;
    const head = { type: event.type, actor: ref.id ?? ref.sessionId };
    // Who and when go last: a line reads as what happened first.
    const tail = {
      ...(session === undefined ? {} : { session }),
      sessionId: ref.sessionId,
      rootId: event.rootId,
      time: this.#now(),
    };
    switch (event.type) {
      case "@xstate.actor":
        return { ...head, ...this.#actorFields(ref), ...tail };
      case "@xstate.snapshot": {
        const snapshot = event.snapshot as { value?: unknown; status?: string };
        return {
          ...head,
          event: event.event.type,
          state: snapshot.value,
          ...(snapshot.status === undefined ? {} : { status: snapshot.status }),
          ...tail,
        };
      }
      case "@xstate.event":
        return { ...head, ...this.#eventFields(event), ...tail };
      case "@xstate.action":
        return { ...head, action: event.action.type, ...tail };
      default:
        return { ...head, ...tail };
    }
  }

  #actorFields(ref: ActorLike): Partial<InspectionRecord> {
    const parentId = ref._parent?.sessionId;
    const config = ref.logic?.config;
    // Only a machine has a config object (a promise actor's config is its function).
    const machine = typeof config === "object" && config !== null && "id" in config &&
        typeof config.id === "string"
      ? config.id
      : undefined;
    const first = machine !== undefined && !this.#defined.has(machine);
    if (first) this.#defined.add(machine);
    return {
      ...(parentId === undefined ? {} : { parentId }),
      ...(machine === undefined ? {} : { machine }),
      ...(first ? { definition: JSON.stringify(config) } : {}),
    };
  }

  #digest(value: unknown): ContentDigest {
    if (typeof value !== "object" || value === null) return contentDigest(value);
    let digest = this.#digests.get(value);
    if (digest === undefined) {
      digest = contentDigest(value);
      this.#digests.set(value, digest);
    }
    return digest;
  }

  #eventFields(event: InspectionEvent & { type: "@xstate.event" }): Partial<InspectionRecord> {
    const carried = event.event as { readonly type: string; readonly [field: string]: unknown };
    const facts = inspectionFacts(event);
    const source = (event.sourceRef as ActorLike | undefined)?.sessionId;
    const payload: Record<string, ContentDigest> = {};
    const contents: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(carried)) {
      if (key === "type" || NEVER_SENT.includes(key)) continue;
      payload[key] = this.#digest(value);
      if (this.#contents) contents[key] = JSON.parse(plainJson(value));
    }
    const names = namesOf(carried.input);
    const some = (fields: object) => Object.keys(fields).length > 0;
    return {
      event: carried.type,
      ...(source === undefined ? {} : { source }),
      ...(facts === undefined ? {} : { facts }),
      ...(some(payload) ? { payload } : {}),
      ...(some(names) ? { names } : {}),
      ...(some(contents) ? { contents } : {}),
    };
  }
}

/** The names an input carries, for a reader to tell sessions and connections apart. */
function namesOf(input: unknown): { conversationId?: string; name?: string } {
  if (typeof input !== "object" || input === null) return {};
  const { conversationId, name } = input as { conversationId?: unknown; name?: unknown };
  return {
    ...(typeof conversationId === "string" ? { conversationId } : {}),
    ...(typeof name === "string" ? { name } : {}),
  };
}
