/**
 * The signals go to a child process (tests/fixtures/signals/stop_signals_child.ts)
 * that holds a `StopSignals` and reports what it saw: a test must never
 * signal its own runner, which a signal arriving while no listener holds it
 * kills (exit 129 for SIGHUP), taking the whole run with it.
 */

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import type { StopSignalName } from "./stop_signals.ts";

const CHILD = fileURLToPath(
  new URL("../../tests/fixtures/signals/stop_signals_child.ts", import.meta.url),
);
const CONFIG = fileURLToPath(new URL("../../deno.json", import.meta.url));

/** The child, and its stdout read line by line. */
class StopSignalsChild implements AsyncDisposable {
  readonly #process: Deno.ChildProcess;
  readonly #lines: AsyncIterator<string>;
  readonly #stdin: WritableStreamDefaultWriter<Uint8Array>;
  /** Every line read so far, for failure messages. */
  readonly seen: string[] = [];

  constructor(args: readonly string[]) {
    this.#process = new Deno.Command(Deno.execPath(), {
      args: ["run", "--quiet", "--no-prompt", "--config", CONFIG, CHILD, ...args],
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#stdin = this.#process.stdin.getWriter();
    this.#lines = linesOf(this.#process.stdout)[Symbol.asyncIterator]();
  }

  /** Reads the next line; it must be `expected`. */
  async expect(expected: string): Promise<void> {
    const next = await this.#lines.next();
    if (next.done) {
      const { code } = await this.#process.status;
      const stderr = await new Response(this.#process.stderr).text();
      assert.fail(
        `expected ${JSON.stringify(expected)}, the child exited ${code} after ` +
          `${JSON.stringify(this.seen)}; stderr: ${stderr}`,
      );
    }
    this.seen.push(next.value);
    assert.equal(next.value, expected, `after ${JSON.stringify(this.seen.slice(0, -1))}`);
  }

  /** Sends `signal` to the child (never to this process). */
  kill(signal: StopSignalName): void {
    this.#process.kill(signal);
  }

  /** Ends its stdin (its cue to report and exit), then reads its last line and exit code. */
  async end(lastLine: string): Promise<number> {
    await this.#stdin.close();
    await this.expect(lastLine);
    const rest = await this.#lines.next();
    assert.equal(rest.done, true, `nothing after the last line, got ${JSON.stringify(rest.value)}`);
    const stderr = await new Response(this.#process.stderr).text();
    assert.equal(stderr, "", "nothing on stderr");
    return (await this.#process.status).code;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    try {
      this.#process.kill("SIGKILL");
    } catch {
      // Already exited: the usual case.
    }
    await this.#stdin.close().catch(() => {});
    await this.#lines.return?.();
    await this.#process.stderr.cancel().catch(() => {});
    await this.#process.status;
  }
}

async function* linesOf(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let pending = "";
  for await (const text of stream.pipeThrough(new TextDecoderStream())) {
    pending += text;
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    yield* lines;
  }
  if (pending !== "") yield pending;
}

const unix = { ignore: Deno.build.os === "windows" };

Deno.test({
  name: "StopSignals turns the first SIGTERM into an abort, tells onStop once, and exits 143; " +
    "later signals change nothing",
  ...unix,
  async fn() {
    await using child = new StopSignalsChild([]);
    await child.expect("before none 1");
    await child.expect("ready");
    child.kill("SIGTERM");
    await child.expect("onStop SIGTERM terminated (SIGTERM)");
    await child.expect("aborted AbortError: terminated (SIGTERM)");
    await child.expect("received SIGTERM 143");
    await child.expect("listening");
    // Each later signal reaches StopSignals' listener, then the child's own.
    for (const signal of ["SIGHUP", "SIGTERM", "SIGINT"] as const) {
      child.kill(signal);
      await child.expect(`saw ${signal}`);
    }
    assert.equal(await child.end("end SIGTERM onStop×1"), 143);
  },
});

for (
  const [signal, code, says] of [
    ["SIGHUP", 129, "hung up (SIGHUP)"],
    ["SIGINT", 130, "interrupted (Ctrl-C)"],
  ] as const
) {
  Deno.test({
    name: `StopSignals: ${signal} exits ${code}, saying so`,
    ...unix,
    async fn() {
      await using child = new StopSignalsChild([]);
      await child.expect("before none 1");
      await child.expect("ready");
      child.kill(signal);
      await child.expect(`onStop ${signal} ${says}`);
      await child.expect(`aborted AbortError: ${says}`);
      await child.expect(`received ${signal} ${code}`);
      await child.expect("listening");
      assert.equal(await child.end(`end ${signal} onStop×1`), code);
    },
  });
}

Deno.test({
  name: "StopSignals still aborts when onStop throws (a terminal that hung up)",
  ...unix,
  async fn() {
    await using child = new StopSignalsChild(["--throw-on-stop"]);
    await child.expect("before none 1");
    await child.expect("ready");
    child.kill("SIGHUP");
    await child.expect("onStop SIGHUP hung up (SIGHUP)");
    await child.expect("aborted AbortError: hung up (SIGHUP)");
    await child.expect("received SIGHUP 129");
    await child.expect("listening");
    assert.equal(await child.end("end SIGHUP onStop×1"), 129);
  },
});
