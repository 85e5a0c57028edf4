/**
 * The client side of MCP's stdio transport, in time linear in the bytes it
 * reads: spillway spawns an upstream MCP server (`providers.mcp.<name>`,
 * `type = "stdio"`) and talks newline-delimited JSON-RPC over its stdin and
 * stdout. It replaces the SDK's `StdioClientTransport`, whose reader re-scans
 * its whole buffer on every chunk (≈600 ms for one 5 MB message here) and
 * refuses messages over 10 MB.
 *
 * Reading: {@linkcode JsonRpcLineReader} frames the bytes in linear time,
 * decodes and parses each line once and checks it against the SDK's
 * `JSONRPCMessageSchema`. There is no maximum message size: a message in
 * transit costs about its size in chunks, twice that while it is joined,
 * plus its decoded text and parsed strings, which briefly coexist (a few
 * times its size at the peak; the bytes are dropped as soon as they are
 * decoded).
 *
 * Replies: the transport keeps the ids of the requests it sent that wait
 * for an answer. A reply to none of them is reported through `onerror` and
 * dropped (a late answer to a request the client cancelled is dropped
 * quietly: that is how cancellation works). A malformed line is reported as
 * a {@linkcode MalformedReplyError}; when it names exactly one waiting
 * request, that request is answered at once with a JSON-RPC error whose
 * `data` carries `MALFORMED_REPLY_DATA_KEY`, so the call fails
 * instead of waiting. A reply that names no request at all (no id,
 * `"id": null`: what a server sends when it could not read a request) may
 * answer any request waiting, and the one it answers would wait forever: every
 * request waiting is answered that way. Any other line that names no waiting
 * request (a server logging to stdout, a reply to an id never sent) cannot
 * be attributed: the requests still waiting end at their timeout at the latest.
 *
 * The server runs in its own process group ({@linkcode killProcessGroup}), so
 * `close()` stops it together with anything it started. When the server
 * exits or closes its stdout, the transport closes itself: `onclose` runs
 * after {@linkcode LineStdioClientTransport.exitStatus} is known, so the
 * owner can say why in-flight requests failed.
 *
 * @module
 */

import { killProcessGroup } from "../subprocess/kill_process_group.ts";
import { settlesWithin } from "../subprocess/settles_within.ts";
import type { JSONRPCMessage, Transport } from "../sdk.ts";
import { AwaitedRequests } from "./awaited_requests.ts";
import { JsonRpcLineReader, type MalformedLine } from "./json_rpc_line_reader.ts";
import { LineBatchWriter } from "./line_batch_writer.ts";
import {
  malformedReplyAnswer,
  MalformedReplyError,
  quotedPreview,
  replyNamingNoRequest,
} from "./malformed_reply_error.ts";
import { type ChildProcess, type ExitStatus, spawnProcess } from "../../platform/processes.ts";
import { pipeText, type StderrSink } from "./stderr_sink.ts";

/**
 * How long `close()` waits for the server to exit after its stdin closed
 * (MCP's stdio shutdown), and again after SIGTERM before SIGKILL; also how
 * long output may keep flowing after the server exited.
 */
export const STDIO_CLOSE_GRACE_MS = 2_000;

/** Options of {@linkcode LineStdioClientTransport}. */
export interface LineStdioClientTransportOptions {
  /** The server's executable. */
  readonly command: string;
  /** Its arguments. Default: none. */
  readonly args?: readonly string[];
  /** Variables added to the inherited environment (or the whole environment, with `clearEnv`). Default: none. */
  readonly env?: Readonly<Record<string, string>>;
  /** Whether the server gets `env` alone, nothing of spillway's own environment. Default: `false`. */
  readonly clearEnv?: boolean;
  /** Working directory. Default: the current directory. */
  readonly cwd?: string;
  /**
   * Where the server's stderr goes: `"inherit"` (our stderr), `"null"`, a
   * callback receiving it as decoded text chunks, or a {@linkcode StderrSink}
   * (which also hears when it ends). Default: `"inherit"`.
   */
  readonly stderr?: "inherit" | "null" | ((text: string) => void) | StderrSink;
  /** Shutdown grace, see {@linkcode STDIO_CLOSE_GRACE_MS}. Default: that constant. */
  readonly closeGraceMs?: number;
}

/** One spawned server and the tasks draining its pipes. */
interface Connection {
  readonly child: ChildProcess;
  readonly writer: WritableStreamDefaultWriter<Uint8Array>;
  /** Our messages to the server's stdin, in order; a burst of them goes out in a few writes. */
  readonly lines: LineBatchWriter;
  readonly stdout: ReadableStreamDefaultReader<Uint8Array>;
  readonly stderr: ReadableStreamDefaultReader<Uint8Array> | undefined;
  readonly status: Promise<ExitStatus>;
  readonly stdoutDone: Promise<void>;
  readonly stderrDone: Promise<void>;
}

/**
 * An MCP client transport over a spawned server's stdio.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LineStdioClientTransport } from "./line_stdio_client_transport.ts";
 * // `cat` echoes every message back: enough to see the framing work.
 * const transport = new LineStdioClientTransport({ command: "cat" });
 * const received = new Promise((resolve) => (transport.onmessage = resolve));
 * await transport.start();
 * await transport.send({ jsonrpc: "2.0", method: "notifications/initialized" });
 * assert.deepEqual(await received, { jsonrpc: "2.0", method: "notifications/initialized" });
 * await transport.close();
 * assert.equal(transport.exitStatus?.success, true);
 * ```
 */
export class LineStdioClientTransport implements Transport {
  /** Called once when the connection ended: closed by us, or the server exited. */
  onclose?: Transport["onclose"];
  /**
   * Called for replies that cannot be delivered ({@linkcode MalformedReplyError})
   * and for I/O faults.
   */
  onerror?: Transport["onerror"];
  /** Called for every message received. */
  onmessage?: Transport["onmessage"];
  /** Stdio has no sessions. */
  sessionId?: string;

  readonly #options: LineStdioClientTransportOptions;
  readonly #graceMs: number;
  #connection: Connection | undefined;
  #exitStatus: ExitStatus | undefined;
  #starting = false;
  #shutdown: Promise<void> | undefined;
  #closedByUs = false;
  /** Requests sent and not yet answered, and those the client cancelled. */
  readonly #awaiting = new AwaitedRequests();

  /**
   * Prepares the transport; the server is spawned by `start()`.
   *
   * @param options the server command and where its stderr goes
   */
  constructor(options: LineStdioClientTransportOptions) {
    this.#options = options;
    this.#graceMs = options.closeGraceMs ?? STDIO_CLOSE_GRACE_MS;
  }

  /**
   * Always `null`: the server's stderr goes where the `stderr` option says.
   * It is here because the SDK's client tells a stdio transport by its
   * `stderr` and `pid`, and on stdio takes a server silent to the era probe
   * (`server/discover`) for a 2025 one rather than an outage.
   */
  get stderr(): null {
    return null;
  }

  /** The server's pid, once started. */
  get pid(): number | undefined {
    return this.#connection?.child.pid;
  }

  /** How the server exited; set before `onclose` runs. */
  get exitStatus(): ExitStatus | undefined {
    return this.#exitStatus;
  }

  /** Whether the connection is ending or ended (closed by us, or the server went away). */
  get closing(): boolean {
    return this.#shutdown !== undefined;
  }

  /** Whether `close()` was called (rather than the server going away first). */
  get closedByUs(): boolean {
    return this.#closedByUs;
  }

  /** How many requests wait for their answer. */
  get awaiting(): number {
    return this.#awaiting.size;
  }

  /**
   * Spawns the server and starts reading its stdout.
   *
   * @throws {Deno.errors.NotFound} when the command does not exist (and other spawn errors)
   * @throws {Error} when already started or closed
   */
  async start(): Promise<void> {
    if (this.#starting || this.#connection !== undefined || this.#shutdown !== undefined) {
      throw new Error("LineStdioClientTransport already started");
    }
    this.#starting = true;
    const { command, args = [], env, clearEnv = false, cwd, stderr = "inherit" } = this.#options;
    const child = await spawnProcess(command, {
      args,
      ...(env === undefined ? {} : { env }),
      clearEnv,
      ...(cwd === undefined ? {} : { cwd }),
      stderr: typeof stderr === "string" ? stderr : "piped",
      detached: true,
    });
    if (this.#shutdown !== undefined) {
      // Closed while the server was being spawned: it is stopped at once, never served.
      killProcessGroup(child.pid, "SIGKILL");
      await child.status;
      await Promise.allSettled([
        child.stdout.cancel(),
        ...(typeof stderr === "string" ? [] : [child.stderr.cancel()]),
        child.stdin.close(),
      ]);
      throw new Error("LineStdioClientTransport was closed while its server started");
    }
    const stdout = child.stdout.getReader();
    const stderrSink: StderrSink | undefined = typeof stderr === "string"
      ? undefined
      : typeof stderr === "function"
      ? { write: stderr, end: () => {} }
      : stderr;
    const stderrReader = stderrSink === undefined ? undefined : child.stderr.getReader();
    const status = child.status.then((s) => {
      this.#exitStatus = s;
      // Anything the server left running in its group is an orphan now.
      killProcessGroup(child.pid, "SIGKILL");
      return s;
    });
    const writer = child.stdin.getWriter();
    const connection: Connection = {
      child,
      writer,
      lines: new LineBatchWriter(writer),
      stdout,
      stderr: stderrReader,
      status,
      stdoutDone: this.#readStdout(stdout),
      stderrDone: stderrReader === undefined || stderrSink === undefined
        ? Promise.resolve()
        : pipeText(stderrReader, stderrSink),
    };
    this.#connection = connection;
    // Whichever ends first, the server's stdout or the server, the connection is over.
    void Promise.race([status, connection.stdoutDone]).then(() => this.#end(connection));
  }

  /**
   * Writes one message and its newline, waiting while the pipe is full.
   *
   * @throws {Error} when the transport is not started or already closed, or the pipe broke
   */
  async send(message: JSONRPCMessage): Promise<void> {
    const connection = this.#connection;
    if (connection === undefined) throw new Error("LineStdioClientTransport is not started");
    if (this.#shutdown !== undefined) throw new Error("LineStdioClientTransport is closed");
    this.#awaiting.sent(message);
    await connection.lines.write(`${JSON.stringify(message)}\n`);
  }

  /** Delivers a message from the server, unless it is a reply to nothing that waits. */
  #received(message: JSONRPCMessage): void {
    if ("method" in message) {
      this.onmessage?.(message);
      return;
    }
    if (message.id === undefined) {
      // An error answer without an id: what a server sends when it could not read a request.
      this.#namesNoRequest(quotedPreview(JSON.stringify(message)));
      return;
    }
    if (this.#awaiting.take(message.id) !== undefined) {
      this.onmessage?.(message);
      return;
    }
    if (this.#awaiting.takeCancelled(message.id)) return;
    this.onerror?.(
      new MalformedReplyError({
        problem: `a reply to request ${JSON.stringify(message.id)}, which nothing waits for`,
        preview: quotedPreview(JSON.stringify(message)),
        waiting: this.#awaiting.size,
      }),
    );
  }

  /**
   * Reports a malformed line and, when it names exactly one waiting request,
   * fails that request at once; a reply that names none fails them all.
   */
  #malformed(line: MalformedLine): void {
    if (line.reply && line.ids.length === 0) {
      this.#namesNoRequest(line.preview);
      return;
    }
    const waiting = this.#awaiting.size;
    const named = new Set(line.ids.map(String).filter((key) => this.#awaiting.has(key)));
    const key = named.size === 1 ? named.values().next().value : undefined;
    const answered = key === undefined ? undefined : this.#awaiting.take(key);
    const error = new MalformedReplyError({
      problem: line.problem,
      preview: line.preview,
      requestId: answered?.id,
      request: answered?.label,
      waiting,
    });
    this.onerror?.(error);
    if (answered !== undefined) this.onmessage?.(malformedReplyAnswer(answered.id, error));
  }

  /**
   * Reports a reply that names no request and fails every request waiting:
   * it may answer any of them, and the one it answers would wait forever.
   */
  #namesNoRequest(preview: string): void {
    const { error, answers } = replyNamingNoRequest(preview, this.#awaiting.takeAll());
    this.onerror?.(error);
    for (const answer of answers) this.onmessage?.(answer);
  }

  /**
   * Closes the server's stdin, gives it {@linkcode STDIO_CLOSE_GRACE_MS} to
   * exit, then SIGTERMs its process group, then SIGKILLs it; waits until it
   * was reaped and its pipes are drained, then calls `onclose`. Idempotent.
   */
  close(): Promise<void> {
    if (this.#shutdown === undefined) this.#closedByUs = true;
    const connection = this.#connection;
    if (connection === undefined) {
      this.#shutdown ??= Promise.resolve().then(() => this.onclose?.());
      return this.#shutdown;
    }
    return this.#end(connection);
  }

  /** The one shutdown sequence, shared by `close()` and the server going away. */
  #end(connection: Connection): Promise<void> {
    this.#shutdown ??= (async () => {
      const { child, writer, lines, status, stdoutDone, stderrDone } = connection;
      // EOF on stdin is MCP's polite "please exit"; pending writes drain first.
      const stdinClosed = lines.settled().then(() => writer.close()).catch(() => {});
      if (!(await settlesWithin(status, this.#graceMs))) {
        killProcessGroup(child.pid, "SIGTERM");
        if (!(await settlesWithin(status, this.#graceMs))) killProcessGroup(child.pid, "SIGKILL");
      }
      await status;
      // Writes can still be pending when a process that escaped the group
      // holds the pipe without reading: drop them.
      if (!(await settlesWithin(stdinClosed, 0))) {
        await settlesWithin(writer.abort(), this.#graceMs);
      }
      // Such a process can also hold stdout or stderr open: stop waiting for it.
      if (!(await settlesWithin(stdoutDone, this.#graceMs))) {
        await connection.stdout.cancel().catch(() => {});
      }
      if (!(await settlesWithin(stderrDone, this.#graceMs))) {
        await connection.stderr?.cancel().catch(() => {});
      }
      await Promise.all([stdoutDone, stderrDone]);
      // The client fails whatever still waits when it hears of the close.
      this.#awaiting.clear();
      this.onclose?.();
    })();
    return this.#shutdown;
  }

  async #readStdout(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    const lines = new JsonRpcLineReader({
      onMessage: (message) => this.#received(message),
      onMalformed: (line) => this.#malformed(line),
      onError: (error) => this.onerror?.(error),
    });
    await lines.readAll(reader, (error) => {
      if (this.#shutdown === undefined) this.onerror?.(asError(error));
    });
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
