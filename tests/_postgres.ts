/**
 * Test helper: a real PostgreSQL server for the tests of the PostgreSQL
 * store, never a mock. Debian's `postgresql` package (15 here; `.ci/run`
 * installs it) provides `initdb` and `pg_ctl`; each test file that needs a
 * server starts one with {@linkcode startPostgres}: a cluster in a
 * temporary folder, on a free loopback port, run as the unprivileged
 * `postgres` user when the tests run as root (PostgreSQL refuses root), with
 * password authentication over TCP so that every connection really sends
 * its password. Its cases share it, each in a database of its own
 * ({@linkcode PostgresServer.database}).
 *
 * A file registers {@linkcode stopPostgresTest} as its last test; an
 * `unload` handler stops a server still running when the file ends another
 * way (a filtered run, a failure that ends the file), so no server outlives
 * its tests.
 *
 * Without PostgreSQL the tests are ignored, their names saying why
 * ({@linkcode pgTest}); `.ci/run` sets `SPILLWAY_REQUIRE_POSTGRES=1`, under
 * which a missing PostgreSQL fails them instead.
 *
 * @module
 */

import { join } from "node:path";
import postgres from "postgres";
import { freePort } from "./_free_port.ts";

/** The superuser every test cluster is created with. */
export const PG_USER = "spillway";
/** Its password (TCP connections must send it). */
export const PG_PASSWORD = "test-password-不要";

const REQUIRED = Deno.env.get("SPILLWAY_REQUIRE_POSTGRES") === "1";
const INSTALL = "apt-get install -y postgresql, or set SPILLWAY_PG_BIN to its bin folder";

/** Where `initdb` and `pg_ctl` are, or why they are not. */
async function findBin(): Promise<{ bin: string } | { missing: string }> {
  const given = Deno.env.get("SPILLWAY_PG_BIN");
  const candidates = given !== undefined ? [given] : await debianBins();
  for (const bin of candidates) {
    try {
      if ((await Deno.stat(join(bin, "initdb"))).isFile) return { bin };
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  return { missing: `PostgreSQL is not installed (no initdb found): ${INSTALL}` };
}

/** `/usr/lib/postgresql/<version>/bin`, newest first. */
async function debianBins(): Promise<string[]> {
  const versions: number[] = [];
  try {
    for await (const entry of Deno.readDir("/usr/lib/postgresql")) {
      if (entry.isDirectory && /^\d+$/.test(entry.name)) versions.push(Number(entry.name));
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return versions.sort((a, b) => b - a).map((v) => `/usr/lib/postgresql/${v}/bin`);
}

const found = await findBin();

/** Why the PostgreSQL tests cannot run here, or `undefined` when they can. */
export const POSTGRES_MISSING: string | undefined = "missing" in found ? found.missing : undefined;

/**
 * `Deno.test` for a case that needs PostgreSQL: ignored without it (its name
 * then says why), unless `SPILLWAY_REQUIRE_POSTGRES=1`.
 */
export function pgTest(name: string, fn: () => Promise<void>): void {
  const ignore = POSTGRES_MISSING !== undefined && !REQUIRED;
  Deno.test({
    name: ignore ? `${name} (ignored: ${POSTGRES_MISSING})` : name,
    ignore,
    fn: async () => {
      if (POSTGRES_MISSING !== undefined) {
        throw new Error(`${POSTGRES_MISSING} (SPILLWAY_REQUIRE_POSTGRES=1)`);
      }
      await fn();
    },
  });
}

/** A running test cluster. */
export interface PostgresServer {
  /** Its TCP port on 127.0.0.1. */
  readonly port: number;
  /** The folder holding the cluster, its socket and its log. */
  readonly dir: string;
  /** `postgres://spillway@127.0.0.1:PORT/NAME`: no password (send {@linkcode PG_PASSWORD}). */
  url(database?: string): string;
  /** A new, empty database; returns its URL (without the password). */
  database(prefix?: string): Promise<string>;
  /** An administrative client on database `postgres` (end it when done). */
  admin(database?: string): postgres.Sql;
  /** Stops the server: `"fast"` (clients are disconnected) or `"immediate"` (a crash). */
  stop(mode?: "fast" | "immediate"): Promise<void>;
  /** Starts it again after {@linkcode stop}, on the same port. */
  start(): Promise<void>;
  /** Stops it for good and removes its folder. */
  remove(): Promise<void>;
}

let shared: Promise<PostgresServer> | undefined;
let running: { dir: string; bin: string; data: string } | undefined;

/**
 * The test file's server, started on first use (about a second) and shared
 * by its cases.
 */
export function startPostgres(): Promise<PostgresServer> {
  shared ??= launch();
  return shared;
}

/** The last test of a file that used {@linkcode startPostgres}: stops its server. */
export function stopPostgresTest(): void {
  pgTest("(stops the test PostgreSQL server)", async () => {
    if (shared === undefined) return;
    const server = await shared;
    shared = undefined;
    await server.remove();
  });
}

globalThis.addEventListener("unload", () => {
  if (running === undefined) return;
  // Synchronous: nothing asynchronous runs once the file is unloading.
  new Deno.Command(join(running.bin, "pg_ctl"), {
    args: ["-D", running.data, "stop", "-m", "immediate"],
    ...asPostgres(),
    stdout: "null",
    stderr: "null",
  }).outputSync();
  try {
    Deno.removeSync(running.dir, { recursive: true });
  } catch {
    // Best effort: the folder is under the system's temporary folder.
  }
  running = undefined;
});

const isRoot = Deno.uid() === 0;

/**
 * Runs PostgreSQL's programs as `postgres` when we are root: it refuses root.
 * They run in `/`, since `postgres` may not enter the folder the tests run
 * in (a clone under a private temporary folder): the spawn itself fails then.
 */
function asPostgres(): { uid?: number; gid?: number; cwd?: string } {
  if (!isRoot) return {};
  const ids = (flag: string) =>
    Number(
      new TextDecoder().decode(
        new Deno.Command("id", { args: [flag, "postgres"], stdout: "piped" }).outputSync().stdout,
      ).trim(),
    );
  return { uid: ids("-u"), gid: ids("-g"), cwd: "/" };
}

async function run(bin: string, program: string, args: string[]): Promise<void> {
  const output = await new Deno.Command(join(bin, program), {
    args,
    ...asPostgres(),
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) {
    const text = new TextDecoder().decode(output.stderr) + new TextDecoder().decode(output.stdout);
    throw new Error(`${program} ${args.join(" ")} failed (${output.code}):\n${text}`);
  }
}

async function launch(): Promise<PostgresServer> {
  if ("missing" in found) throw new Error(found.missing);
  const { bin } = found;
  const dir = await Deno.makeTempDir({ prefix: "spillway_pg_" });
  const ids = asPostgres();
  if (ids.uid !== undefined) await Deno.chown(dir, ids.uid, ids.gid ?? null);
  const data = join(dir, "data");
  const pwfile = join(dir, "pwfile");
  await Deno.writeTextFile(pwfile, `${PG_PASSWORD}\n`);
  if (ids.uid !== undefined) await Deno.chown(pwfile, ids.uid, ids.gid ?? null);
  await run(bin, "initdb", [
    "-D",
    data,
    "-U",
    PG_USER,
    "--auth-local=trust",
    "--auth-host=scram-sha-256",
    `--pwfile=${pwfile}`,
    "--no-sync",
  ]);
  const port = freePort();
  const options = [
    `-p ${port}`,
    `-k ${dir}`,
    "-c listen_addresses=127.0.0.1",
    "-c max_connections=300",
    "-c shared_buffers=32MB",
  ].join(" ");
  const start = () =>
    run(bin, "pg_ctl", ["-D", data, "-o", options, "-l", join(dir, "log"), "-w", "start"]);
  await start();
  running = { dir, bin, data };
  const url = (database = "postgres") => `postgres://${PG_USER}@127.0.0.1:${port}/${database}`;
  const admin = (database = "postgres") =>
    postgres(url(database), { password: PG_PASSWORD, onnotice: () => {}, max: 1 });
  let databases = 0;
  return {
    port,
    dir,
    url,
    admin,
    async database(prefix = "t") {
      const name = `${prefix}_${++databases}_${crypto.randomUUID().slice(0, 8)}`;
      const sql = admin();
      try {
        await sql.unsafe(`create database "${name}" template template0`);
      } finally {
        await sql.end();
      }
      return url(name);
    },
    stop: (mode = "fast") => run(bin, "pg_ctl", ["-D", data, "-m", mode, "-w", "stop"]),
    start,
    async remove() {
      // Immediate: the cluster is removed, its shutdown checkpoint would be wasted.
      await run(bin, "pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]).catch(() => {});
      running = undefined;
      await Deno.remove(dir, { recursive: true });
    },
  };
}
