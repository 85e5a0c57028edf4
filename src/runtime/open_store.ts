/**
 * The store `[store]` names, opened: where conversations and stored
 * outputs live. `type = "file"` (the default) is the workspace's own
 * `conversations/` and `blobs/` folders; `type = "postgres"` is one
 * database, shared by every workspace (and machine) configured with it.
 * Every command that reads or writes conversations opens it here, so
 * `query`, `serve` and `conversation …` all see the same ones.
 *
 * @module
 */

import { join } from "node:path";
import type { BlobStore } from "../blobs/blob_store.ts";
import { FileBlobStore } from "../blobs/file_blob_store.ts";
import type { SpillwayConfig } from "../config/spillway_config.ts";
import { PostgresBlobStore } from "../postgres/postgres_blob_store.ts";
import { PostgresDatabase } from "../postgres/postgres_database.ts";
import { PostgresStreamStore } from "../postgres/postgres_stream_store.ts";
import { postgresTarget } from "../postgres/postgres_target.ts";
import type { ConversationReader } from "../stream/conversation_reader.ts";
import { FileStreamStore } from "../stream/file_stream_store.ts";
import { blobDirectory } from "./spill_from_config.ts";

/** An opened store. Close it when done: the database's connections are its. */
export interface OpenedStore {
  /** Its kind. */
  readonly type: "file" | "postgres";
  /** The conversations. */
  readonly conversations: ConversationReader;
  /** Spilled outputs and payloads. */
  readonly blobs: BlobStore;
  /** Where, for people: the workspace's folders, or the database (never a password). */
  readonly where: string;
  /**
   * Makes sure the store can be used: for PostgreSQL, connects and brings
   * the schema up to date.
   *
   * @throws {SpillwayError} `store_failed` naming the store and why
   */
  check(): Promise<void>;
  /** Releases what the store holds (connections, locks). Idempotent. */
  close(): Promise<void>;
}

/**
 * Opens the store `config` names for `workspace`. Nothing connects yet.
 *
 * @param env where `store.password_env` and the `PG*` variables are read
 * @throws {SpillwayError} `config_invalid` when `store.password_env` names an unset variable
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseConfig } from "../config/parse_config.ts";
 * import { openStore } from "./open_store.ts";
 * const store = openStore(parseConfig(""), "/tmp/ws", {});
 * assert.equal(store.type, "file");
 * assert.equal(store.where, "/tmp/ws/conversations");
 * await store.close();
 * ```
 */
export function openStore(
  config: SpillwayConfig,
  workspace: string,
  env: Readonly<Record<string, string | undefined>>,
): OpenedStore {
  const settings = config.store();
  if (settings.type.value === "file") {
    const conversations = new FileStreamStore(join(workspace, "conversations"));
    return {
      type: "file",
      conversations,
      blobs: new FileBlobStore(blobDirectory(workspace)),
      where: conversations.root,
      check: () => Promise.resolve(),
      close: () => Promise.resolve(),
    };
  }
  const db = PostgresDatabase.connect(postgresTarget(settings, env));
  return {
    type: "postgres",
    conversations: new PostgresStreamStore(db),
    blobs: new PostgresBlobStore(db),
    where: db.shown,
    check: () => db.ready(),
    close: () => db.close(),
  };
}
