/**
 * What the inspector page shows at one step of a replayed run: the types of
 * `view.json`, built by `InspectionReplay` and drawn by the page.
 *
 * @module
 */

/** A size as shown: exact bytes, and the short form the terminal uses. */
export interface SizeView {
  readonly bytes: number;
  readonly text: string;
}

/** One call of a batch at a step. */
export interface CallView {
  /** Its position in the batch. */
  readonly index: number;
  readonly id: string;
  readonly tool: string;
  /** `answered`, `unattended`, `attended` or `joined`, once the phase end told. */
  readonly route?: string;
  /** Its state on the `toolCall` route, dotted: `execute.running`, `released`. */
  readonly state: string;
  /** The Mermaid ids lit in the `toolCall` diagram. */
  readonly active: readonly string[];
  /** Before any cap. */
  readonly raw?: SizeView;
  /** After its tool's `size_threshold`. */
  readonly threshold?: SizeView;
  /** As recorded, after the batch ceiling. */
  readonly recorded?: SizeView;
  /** The caps that cut it: `size_threshold`, `batch ceiling`. */
  readonly cutBy: readonly string[];
  readonly isError: boolean;
  /** When its batch's calls were known (the model's answer, the phase's start), in ms from the recording's start. */
  readonly startedAt?: number;
  /** When its slot was written (its raw result), in ms from the recording's start. */
  readonly slotAt?: number;
  /** When its batch's commit ended (recorded and released), in ms from the recording's start. */
  readonly endedAt?: number;
  /**
   * Why it ended as it did: the transition that ended its actor, or its
   * phase, read from the definition (`phase: committing → released on
   * xstate.done.actor.commit, then always [committedAndReleased]`).
   */
  readonly ended?: string;
  /** The upstream connection it went through (`mcp.<server>`), when an upstream server lists its tool. */
  readonly upstream?: string;
}

/** One batch (the calls of one model answer) at a step. */
export interface BatchView {
  /**
   * Which model request of the turn asked for these calls (1 for the first);
   * in a `spillway serve` recording, which phase of the file (1 for the first).
   */
  readonly cycle: number;
  /** The client session whose phase this batch is (`spillway serve`; a UUID by its first 8 characters). */
  readonly session?: string;
  readonly calls: readonly CallView[];
  /** The batch ceiling, and what the batch asks of it and spent. */
  readonly budget: {
    readonly limit: SizeView;
    /** The responses after their thresholds, once the phase end capped them. */
    readonly asked?: SizeView;
    /** The responses as recorded, once the commit spent the budget. */
    readonly spent?: SizeView;
    /** `done` or `failed` once the commit ended. */
    readonly commit?: string;
  };
  /** The notices, as the terminal printed them. */
  readonly notices: readonly string[];
}

/** A client session of a `spillway serve` recording, at a step. */
export interface ClientView {
  /** Its id (a UUID by its first 8 characters). */
  readonly session: string;
  /** The conversation it records into. */
  readonly conversation?: string;
  /** Its `session` machine's state, dotted (its regions' first leaves). */
  readonly state: string;
  /** The Mermaid ids lit in the `session` diagram (every region's). */
  readonly active: readonly string[];
  readonly status?: string;
  /** Its batches (phases) and calls so far. */
  readonly batches: number;
  readonly calls: number;
}

/** An upstream server's connection, at a step. */
export interface UpstreamView {
  /** Its source name, `mcp.<server>`. */
  readonly name: string;
  /** Its `upstreamConnection` machine's state, dotted. */
  readonly state: string;
  /** The Mermaid ids lit in the `upstreamConnection` diagram. */
  readonly active: readonly string[];
  readonly status?: string;
}

/** What the page shows at one step. */
export interface InspectorView {
  /** 0 before the first step, up to `steps`. */
  readonly step: number;
  readonly steps: number;
  /** What this step was, in a few words. */
  readonly said: string;
  /** The turn's state and status (`active`, `done`), once it started. */
  readonly turn: { readonly state: string | undefined; readonly status: string | undefined };
  /** The Mermaid ids lit in the turn's diagram (its phase and commit drawn inside it). */
  readonly active: readonly string[];
  readonly batches: readonly BatchView[];
  /**
   * The client sessions of a `spillway serve` recording (whole ids), in the
   * order they first appear in the file; empty for a `query` turn.
   */
  readonly sessions: readonly string[];
  /** The client sessions of a `spillway serve` recording, with their `session` machines' states. */
  readonly clients: readonly ClientView[];
  /** The upstream connections of a `spillway serve` recording, with their machines' states. */
  readonly upstreams: readonly UpstreamView[];
  /** Lines of the file that were not inspection records. */
  readonly unreadable: number;
}
