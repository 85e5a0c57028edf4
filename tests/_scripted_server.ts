/**
 * The scripted upstream server of the tests (tests/fixtures/upstream/scripted_server.ts):
 * where it is, and what it announces on stderr as events a test can wait for.
 */

import { Milestones } from "../src/testing/tool_source_contract.ts";

/** The scripted server's path. */
export const SCRIPTED_SERVER: string =
  new URL("./fixtures/upstream/scripted_server.ts", import.meta.url).pathname;

/** What the scripted server announced on stderr, as events a test can wait for. */
export class Announcements {
  /** Calls of `hang` and `wait` the server received. */
  readonly starts = new Milestones();
  /** `notifications/cancelled` it received. */
  readonly stops = new Milestones();
  /** `tools/list` requests it received. */
  readonly listings = new Milestones();
  /** `initialize` requests it left unanswered, with its pid. */
  readonly silentInitialize = Promise.withResolvers<number>();
  /** Sessions ended by an HTTP DELETE (`--http`), by id. */
  readonly deleted: string[] = [];
  /** One per DELETE. */
  readonly deletions = new Milestones();
  #pending = "";

  /** The `stderr` option of the source. */
  readonly sink = (text: string): void => {
    const lines = (this.#pending + text).split("\n");
    this.#pending = lines.pop() ?? "";
    for (const line of lines) {
      const [event, , pid] = line.split(" ");
      if (event === "started") this.starts.add();
      else if (event === "cancelled") this.stops.add();
      else if (event === "listing") this.listings.add();
      else if (event === "initialize") this.silentInitialize.resolve(Number(pid));
      else if (event === "deleted") {
        this.deleted.push(line.slice("deleted ".length));
        this.deletions.add();
      }
    }
  };
}

/** The scripted server over HTTP (`--http`), running until `stop()`. */
export interface ScriptedHttpServer {
  /** Its MCP endpoint. */
  readonly url: string;
  /** What it announced. */
  readonly announcements: Announcements;
  /** Its process id. */
  readonly pid: number;
  /** Kills it and waits until it is gone. */
  stop(): Promise<void>;
}

/** Starts the scripted server over HTTP with `flags` (e.g. `--quiet`). */
export async function startScriptedHttpServer(
  flags: readonly string[] = [],
): Promise<ScriptedHttpServer> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--allow-net=127.0.0.1", SCRIPTED_SERVER, "--http", ...flags],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const announcements = new Announcements();
  const stderr = child.stderr.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({ write: (text) => announcements.sink(text) }),
  );
  const stdout = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  let port: string | undefined;
  while (port === undefined) {
    const { done, value } = await stdout.read();
    if (done) throw new Error(`the scripted server ended before listening: ${out}`);
    out += value;
    port = out.match(/^listening on (\d+)$/m)?.[1];
  }
  const drained = (async () => {
    while (!(await stdout.read()).done) { /* nothing else is printed */ }
  })();
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    announcements,
    pid: child.pid,
    async stop() {
      try {
        child.kill("SIGKILL");
      } catch {
        // Already gone (a crash the test asked for).
      }
      await child.status;
      await Promise.all([stderr, drained]);
    },
  };
}
