/**
 * What the commands that only look at conversations need from a store
 * (`conversation ls`, `show`, `compact --dry-run`, `gc`): reading one
 * without opening it for writing (no lock, so it works while another
 * process writes it), its size, and the stored outputs the conversations
 * refer to. The file and PostgreSQL stores both provide it.
 *
 * @module
 */

import type { BlobRef } from "../blobs/blob_ref.ts";
import type { LoadedStream, StreamStore } from "./stream_store.ts";

/** A conversation's place and size. */
export interface ConversationFacts {
  /** Where it lives, for people (a file path, a database). */
  readonly location: string;
  /** Its size as JSON lines, in bytes (for the file store: the log's size). */
  readonly bytes: number;
}

/** A stream store that can also be read without writing. */
export interface ConversationReader extends StreamStore {
  /** Where the conversations are, for people: a folder, or a database. */
  readonly where: string;
  /**
   * Reads conversation `id`'s events without opening it for writing.
   *
   * @throws {SpillwayError} `store_failed` when it cannot be read, or there is no such conversation
   */
  read(id: string): Promise<LoadedStream>;
  /** Where conversation `id` is and how large. */
  describe(id: string): Promise<ConversationFacts>;
  /** Adds every blob reference any conversation mentions to `into`. */
  blobRefs(into: Set<BlobRef>): Promise<void>;
}
