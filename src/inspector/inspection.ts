/**
 * The inspection of a run: XState's inspection events, each reduced once
 * to a record (`inspection_recorder.ts`) and handed to every sink the
 * person named: a file (`--inspect FILE`), a WebSocket speaking Stately's
 * protocol (`--inspect-ws URL`), or both. One recorder, several ways out.
 *
 * @module
 */

import type { InspectionEvent } from "xstate";
import { type InspectionRecord, InspectionRecorder } from "./inspection_recorder.ts";

/** Where inspection records go. */
export interface InspectionSink {
  /** Takes one record, in order; must not throw for a record it cannot deliver. */
  write(record: InspectionRecord): void;
  /** Delivers what is pending and lets go of the file or connection. */
  close(): void | Promise<void>;
}

/**
 * Receives a run's inspection events and passes their records to `sinks`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createActor, createMachine } from "xstate";
 * import { Inspection } from "./inspection.ts";
 * const types: string[] = [];
 * const inspection = new Inspection([{ write: (r) => types.push(r.type), close: () => {} }]);
 * const machine = createMachine({ id: "m", initial: "a", states: { a: {} } });
 * createActor(machine, { inspect: inspection.observe }).start();
 * await inspection.close();
 * assert.deepEqual(types, ["@xstate.actor", "@xstate.event", "@xstate.snapshot"]);
 * ```
 */
export class Inspection {
  readonly #sinks: readonly InspectionSink[];
  readonly #recorder: InspectionRecorder;

  /**
   * @param sinks where each record goes
   * @param options `contents`: keep events' contents in records (for a WebSocket on loopback). Default `false`.
   */
  constructor(sinks: readonly InspectionSink[], options: { readonly contents?: boolean } = {}) {
    this.#sinks = sinks;
    this.#recorder = new InspectionRecorder({ contents: options.contents ?? false });
  }

  /** The observer to hand to the runtime (a `query` turn). */
  readonly observe = (event: InspectionEvent): void => this.#write(event, undefined);

  /** An observer whose records name `session` (one per client session of `spillway serve`). */
  observer(session: string): (event: InspectionEvent) => void {
    return (event) => this.#write(event, session);
  }

  #write(event: InspectionEvent, session: string | undefined): void {
    const record = this.#recorder.record(event, session);
    for (const sink of this.#sinks) sink.write(record);
  }

  /** Closes every sink (a socket's pending messages are sent first). */
  async close(): Promise<void> {
    await Promise.allSettled(this.#sinks.map((sink) => sink.close()));
  }
}
