import assert from "node:assert/strict";
import { StopSignals } from "./stop_signals.ts";

/**
 * Resolves when `signal` aborts. Deno's signal listeners do not keep the
 * event loop alive, so an idle interval does until then (it never fires
 * anything the test waits for: the abort is the condition).
 */
function aborted(signal: AbortSignal): Promise<void> {
  const keepAlive = setInterval(() => {}, 60_000);
  return new Promise((resolve) =>
    signal.addEventListener("abort", () => {
      clearInterval(keepAlive);
      resolve();
    })
  );
}

Deno.test({
  name: "StopSignals turns the first SIGTERM into an abort, tells onStop once, and exits 143",
  ignore: Deno.build.os === "windows",
  async fn() {
    const told: string[] = [];
    using stop = StopSignals.listen({ onStop: (signal, says) => told.push(`${signal} ${says}`) });
    assert.equal(stop.received, undefined);
    assert.equal(stop.exitCode(1), 1);
    const stopped = aborted(stop.signal);
    Deno.kill(Deno.pid, "SIGTERM");
    await stopped;
    Deno.kill(Deno.pid, "SIGHUP"); // a second signal changes nothing
    Deno.kill(Deno.pid, "SIGTERM");
    assert.equal(stop.received, "SIGTERM");
    assert.equal(stop.exitCode(1), 143);
    assert.equal(stop.exitCode(0), 143);
    assert.ok(stop.signal.reason instanceof DOMException);
    assert.equal(stop.signal.reason.name, "AbortError");
    assert.equal(stop.signal.reason.message, "terminated (SIGTERM)");
    // The later signals are delivered too: wait until a listener of our own sees one.
    const seen = new AbortController();
    const onHangup = () => seen.abort();
    Deno.addSignalListener("SIGHUP", onHangup);
    const hungUp = aborted(seen.signal);
    Deno.kill(Deno.pid, "SIGHUP");
    await hungUp;
    Deno.removeSignalListener("SIGHUP", onHangup);
    assert.deepEqual(told, ["SIGTERM terminated (SIGTERM)"]);
  },
});

// SIGINT is not sent here: `deno test` itself stops on it. The end-to-end
// signal tests cover Ctrl-C (130) on a real `spillway query`.
Deno.test({
  name: "StopSignals: SIGHUP exits 129, saying so",
  ignore: Deno.build.os === "windows",
  async fn() {
    using stop = StopSignals.listen();
    const stopped = aborted(stop.signal);
    Deno.kill(Deno.pid, "SIGHUP");
    await stopped;
    assert.equal(stop.received, "SIGHUP");
    assert.equal(stop.exitCode(0), 129);
    assert.equal((stop.signal.reason as DOMException).message, "hung up (SIGHUP)");
  },
});

Deno.test({
  name: "StopSignals still aborts when onStop throws (a terminal that hung up)",
  ignore: Deno.build.os === "windows",
  async fn() {
    using stop = StopSignals.listen({
      onStop: () => {
        throw new Error("Input/output error (os error 5)");
      },
    });
    const stopped = aborted(stop.signal);
    Deno.kill(Deno.pid, "SIGHUP");
    await stopped;
    assert.equal(stop.exitCode(0), 129);
  },
});
