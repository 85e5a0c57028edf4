/**
 * `--inspect FILE`: the XState inspection events of a run as JSON lines,
 * one per event, for visualizers, post-mortems and `spillway inspect
 * --serve`. Actor references are circular, so each event is reduced to what
 * a reader needs: which actor, which event, which state, and for the few
 * events that carry them, the sizes before and after each cap, the budget
 * and the notices (`facts`, see `inspection_facts.ts`). `spillway serve
 * --inspect FILE` records every client session's phases in one file, each
 * record naming its `session`.
 *
 * @module
 */

import type { InspectionEvent } from "xstate";
import { type InspectionFacts, inspectionFacts } from "./inspection_facts.ts";

/** One line of the inspection log. */
export interface InspectionRecord {
  readonly type: string;
  readonly actor: string;
  readonly event?: string;
  readonly state?: unknown;
  readonly status?: string;
  readonly action?: string;
  /** Sizes, budget and notices, on the events that carry them. */
  readonly facts?: InspectionFacts;
  /** The client session whose phase this is (`spillway serve`); absent for a `query` turn. */
  readonly session?: string;
}

/** Reduces an inspection event to a plain, serializable record (of `session`, if given). */
export function inspectionRecord(event: InspectionEvent, session?: string): InspectionRecord {
  const record = reduced(event);
  return session === undefined ? record : { ...record, session };
}

function reduced(event: InspectionEvent): InspectionRecord {
  // Every actor has a session id; actors created by the runtime also have a readable id.
  const ref = event.actorRef as { readonly id?: string; readonly sessionId: string };
  const actor = ref.id ?? ref.sessionId;
  switch (event.type) {
    case "@xstate.snapshot": {
      const snapshot = event.snapshot as { value?: unknown; status?: string };
      return {
        type: event.type,
        actor,
        event: event.event.type,
        state: snapshot.value,
        ...(snapshot.status === undefined ? {} : { status: snapshot.status }),
      };
    }
    case "@xstate.event": {
      const facts = inspectionFacts(event);
      return {
        type: event.type,
        actor,
        event: event.event.type,
        ...(facts === undefined ? {} : { facts }),
      };
    }
    case "@xstate.action":
      return { type: event.type, actor, action: event.action.type };
    default:
      return { type: event.type, actor };
  }
}

/** Writes inspection events to `path` as JSON lines; `close()` flushes and closes. */
export class InspectionLog {
  readonly #file: Deno.FsFile;
  readonly #encoder = new TextEncoder();

  private constructor(file: Deno.FsFile) {
    this.#file = file;
  }

  /** Creates (or truncates) the log file. */
  static async create(path: string): Promise<InspectionLog> {
    return new InspectionLog(await Deno.open(path, { write: true, create: true, truncate: true }));
  }

  /** The observer to hand to the runtime. */
  readonly observe = (event: InspectionEvent): void => this.#write(inspectionRecord(event));

  /** An observer whose records name `session` (one per client session of `spillway serve`). */
  observer(session: string): (event: InspectionEvent) => void {
    return (event) => this.#write(inspectionRecord(event, session));
  }

  #write(record: InspectionRecord): void {
    let bytes = this.#encoder.encode(JSON.stringify(record) + "\n");
    while (bytes.length > 0) bytes = bytes.subarray(this.#file.writeSync(bytes));
  }

  /** Closes the file. */
  close(): void {
    this.#file.close();
  }
}
