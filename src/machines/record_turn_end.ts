/**
 * The last record of a turn: `turn_end`, finished or failed with its
 * reason, flushed. Run by the turn's `closing` state.
 *
 * @module
 */

import type { ConversationStream } from "../stream/stream_store.ts";

/** What `turn_end` needs. */
export interface RecordTurnEndInput {
  /** Where the event goes. */
  readonly stream: ConversationStream;
  /** The turn that ends. */
  readonly turnId: string;
  /** Why the turn failed; absent when it finished. */
  readonly failureReason: string | undefined;
  /** The timestamp. */
  readonly at: string;
}

/** Appends `turn_end` and flushes. Rejects with the store's error. */
export async function recordTurnEnd({ input }: { input: RecordTurnEndInput }): Promise<void> {
  const { stream, turnId, failureReason, at } = input;
  await stream.append([
    failureReason === undefined
      ? { type: "turn_end", turn_id: turnId, status: "finished", at }
      : { type: "turn_end", turn_id: turnId, status: "failed", reason: failureReason, at },
  ]);
  await stream.flush();
}
