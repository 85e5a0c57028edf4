/**
 * The tables spillway keeps in PostgreSQL, created and versioned by
 * spillway itself when a store first talks to the database: each schema
 * version is one migration, applied in one transaction under a lock (two
 * gateways starting together apply it once) and noted in
 * `spillway_schema`. A database whose schema is newer than this spillway
 * knows is refused, naming both versions: an old binary must not write
 * rows a newer one reads differently.
 *
 * A commit is one row of `spillway_commits`: its events as the text of one
 * JSON array, each event exactly as written (lone surrogates and key order
 * included; `jsonb` keeps neither), numbered from `first_seq`. Text, not
 * `json`: checking 2 MiB of JSON on the server took longer than inserting
 * it, and spillway writes it with `JSON.stringify`. One row per commit costs
 * about one insert of the batch's bytes; one row per event cost about four
 * times that (measured, docs/performance.md). The view
 * `spillway_events` shows one row per event, so plain SQL reads a
 * conversation; each carries the event's `type` and call id as plain
 * columns, since PostgreSQL's JSON operators refuse an event whose text
 * holds U+0000 or a lone surrogate (hostile tool output does).
 * docs/deployment.md shows the schema.
 *
 * Every write is one statement, a transaction by itself (a commit is one
 * call of `spillway_commit`): a connection that drops mid-way leaves the
 * server to roll it back, and the client never has a transaction to tidy
 * up on a dead connection.
 *
 * @module
 */

import type postgres from "postgres";
import { SpillwayError } from "../errors/spillway_error.ts";

/** One schema version. */
export interface Migration {
  /** Its number: 1, 2, … */
  readonly version: number;
  /** What it holds, in words (what a refusal names). */
  readonly name: string;
  /** The body of a PL/pgSQL block that creates it. */
  readonly body: string;
}

/** Every schema version this spillway knows, oldest first. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "conversations, events and stored outputs",
    body: `
      create table spillway_conversations (
        id text primary key,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      create table spillway_commits (
        conversation_id text not null references spillway_conversations (id),
        first_seq integer not null,
        batch uuid not null unique,
        types text[] not null,
        call_ids text[] not null,
        events text not null,
        committed_at timestamptz not null default now(),
        primary key (conversation_id, first_seq)
      );
      create view spillway_events as
        select c.conversation_id, c.first_seq + x.n::integer - 1 as seq, c.batch,
          x.type, x.call_id, x.event, c.committed_at
        from spillway_commits c
        cross join lateral (
          select e.n, t.type, t.call_id, e.event
          from json_array_elements(c.events::json) with ordinality as e(event, n)
          join unnest(c.types, c.call_ids) with ordinality as t(type, call_id, n) on t.n = e.n
        ) as x;
      create table spillway_blobs (
        ref text primary key,
        upload uuid not null unique,
        bytes bigint not null,
        chunk_bytes integer not null,
        touched_at timestamptz not null default now()
      );
      create table spillway_blob_chunks (
        upload uuid not null,
        seq integer not null,
        digest bytea not null,
        data bytea not null,
        written_at timestamptz not null default now(),
        primary key (upload, seq)
      );
      if exists (select 1 from pg_settings
          where name = 'default_toast_compression' and 'lz4' = any (enumvals)) then
        -- lz4 compresses about twice as fast as pglz.
        alter table spillway_commits alter column events set compression lz4;
        alter table spillway_blob_chunks alter column data set compression lz4;
      end if;
      create function spillway_commit(
        p_conversation text, p_after integer, p_batch uuid, p_uncertain uuid[],
        p_types text[], p_call_ids text[], p_events text, p_lock bigint
      ) returns void language plpgsql as $commit$
      begin
        -- A commit of this conversation still in flight elsewhere ends first.
        perform pg_advisory_xact_lock(p_lock);
        if cardinality(p_uncertain) > 0 then
          delete from spillway_commits
          where conversation_id = p_conversation and batch = any (p_uncertain);
        end if;
        if cardinality(p_types) > 0 then
          insert into spillway_commits (conversation_id, first_seq, batch, types, call_ids, events)
          values (p_conversation, p_after + 1, p_batch, p_types, p_call_ids, p_events);
          update spillway_conversations set updated_at = now() where id = p_conversation;
        end if;
      end
      $commit$;`,
  },
  {
    version: 2,
    name: "commits numbered by the database for conversations several gateways write",
    // A 2026-07-28 conversation is written by every gateway its requests reach
    // (each holding its lock shared): such a commit passes no sequence number
    // (p_after null) and is numbered here, after the conversation's commits
    // in flight ended (the transaction lock), so none is lost or numbered
    // twice. A taken-out commit of unknown fate may leave a gap: readers
    // follow first_seq's order, not its contiguity.
    body: `
      create or replace function spillway_commit(
        p_conversation text, p_after integer, p_batch uuid, p_uncertain uuid[],
        p_types text[], p_call_ids text[], p_events text, p_lock bigint
      ) returns void language plpgsql as $commit$
      declare
        v_first integer;
      begin
        -- A commit of this conversation still in flight elsewhere ends first.
        perform pg_advisory_xact_lock(p_lock);
        if cardinality(p_uncertain) > 0 then
          delete from spillway_commits
          where conversation_id = p_conversation and batch = any (p_uncertain);
        end if;
        if cardinality(p_types) > 0 then
          -- A new snapshot per statement: this sees every commit that ended before the lock.
          -- The last commit by the primary key's index, not a scan of the conversation.
          v_first := coalesce(p_after, (
            select first_seq + cardinality(types) - 1 from spillway_commits
            where conversation_id = p_conversation order by first_seq desc limit 1), 0) + 1;
          insert into spillway_commits (conversation_id, first_seq, batch, types, call_ids, events)
          values (p_conversation, v_first, p_batch, p_types, p_call_ids, p_events);
          update spillway_conversations set updated_at = now() where id = p_conversation;
        end if;
      end
      $commit$;`,
  },
];

/** The newest schema version this spillway knows. */
export const SCHEMA_VERSION: number = MIGRATIONS.at(-1)?.version ?? 0;

/** The oldest PostgreSQL spillway runs on (per-column compression). */
export const MIN_SERVER_VERSION = 140000;

/** Serializes migrations across processes: `pg_advisory_xact_lock` key. */
const MIGRATION_LOCK = "7324051009115341";

/**
 * Brings the database to the newest version of `migrations`, each missing
 * one in a transaction of its own.
 *
 * @param where the database as people are shown it, for messages
 * @throws {SpillwayError} `store_failed` when the schema is newer than this
 *   spillway knows, or the server is older than PostgreSQL 14
 */
export async function migrate(
  sql: postgres.Sql,
  where: string,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<void> {
  const known = migrations.at(-1) ?? { version: 0, name: "none" };
  const [server] = await sql<{ version: string }[]>`
    select current_setting('server_version_num') as version`;
  if (Number(server?.version) < MIN_SERVER_VERSION) {
    throw new SpillwayError(
      "store_failed",
      `${where} runs PostgreSQL ${server?.version}: spillway needs PostgreSQL 14 or later`,
      { where },
    );
  }
  const newest = await newestVersion(sql);
  if (newest !== undefined && newest.version > known.version) {
    throw new SpillwayError(
      "store_failed",
      `${where} holds spillway schema version ${newest.version} ("${newest.name}"), newer ` +
        `than this spillway knows (version ${known.version}, "${known.name}"): nothing was ` +
        `changed; run a spillway that knows schema ${newest.version}, or use another database`,
      { where, version: newest.version, name: newest.name, known: known.version },
    );
  }
  for (const migration of migrations) {
    if (migration.version <= (newest?.version ?? 0)) continue;
    // One simple query is one transaction: the lock, the table of versions,
    // and the block that applies the version unless a process that held
    // the lock first already did.
    await sql.unsafe(`
      select pg_advisory_xact_lock(${MIGRATION_LOCK});
      create table if not exists spillway_schema (
        version integer primary key,
        name text not null,
        applied_at timestamptz not null default now()
      );
      do $migrate$
      begin
        if exists (select 1 from spillway_schema where version >= ${migration.version}) then
          return;
        end if;
        ${migration.body}
        insert into spillway_schema (version, name)
        values (${migration.version}, ${quote(migration.name)});
      end
      $migrate$;`);
  }
}

/** The newest version noted in `spillway_schema`, if the table exists. */
async function newestVersion(
  sql: postgres.Sql,
): Promise<{ version: number; name: string } | undefined> {
  const [exists] = await sql<{ found: boolean }[]>`
    select to_regclass('spillway_schema') is not null as found`;
  if (exists?.found !== true) return undefined;
  const [row] = await sql<{ version: number; name: string }[]>`
    select version, name from spillway_schema order by version desc limit 1`;
  return row;
}

/** A SQL string literal. */
function quote(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
