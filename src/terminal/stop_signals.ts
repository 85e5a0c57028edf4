/**
 * The signals that stop a run (Ctrl-C, a supervisor's SIGTERM, a closed
 * terminal's SIGHUP), turned into one `AbortSignal`. Without listeners Deno
 * dies on SIGTERM and SIGHUP on the spot: local tools' process groups keep
 * running under PID 1 and the conversation stops at its `tool_call_request`s.
 * With them, every stop goes the way Ctrl-C does: the run aborts, calls are
 * cancelled (their process groups killed), the cancellations and `turn_end`
 * are recorded, and the process exits with 128 + the signal number.
 *
 * Commands that run turns or serve (`query`, `serve`) hold one for their
 * whole run.
 *
 * @module
 */

/** A signal that stops a run. */
export type StopSignalName = "SIGINT" | "SIGTERM" | "SIGHUP";

/** Each stop signal's number (the exit code is 128 + it) and how a person would say it. */
const STOP_SIGNALS: Readonly<Record<StopSignalName, { number: number; says: string }>> = {
  SIGINT: { number: 2, says: "interrupted (Ctrl-C)" },
  SIGTERM: { number: 15, says: "terminated (SIGTERM)" },
  SIGHUP: { number: 1, says: "hung up (SIGHUP)" },
};

/** Options of {@linkcode StopSignals.listen}. */
export interface StopSignalsOptions {
  /**
   * Called once, on the first stop signal, before the run aborts (e.g. to
   * say "cancelling…"); `says` is how a person would say it, e.g.
   * `"terminated (SIGTERM)"`. Later signals change nothing. Default: none.
   */
  readonly onStop?: (signal: StopSignalName, says: string) => void;
}

/**
 * Listens for SIGINT, SIGTERM and SIGHUP (SIGINT only on Windows, where Deno
 * has no others) until disposed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { StopSignals } from "./stop_signals.ts";
 * using stop = StopSignals.listen();
 * assert.equal(stop.signal.aborted, false);
 * assert.equal(stop.exitCode(0), 0);
 * ```
 */
export class StopSignals implements Disposable {
  readonly #controller = new AbortController();
  readonly #listeners: [StopSignalName, () => void][] = [];
  #received: StopSignalName | undefined;

  private constructor(options: StopSignalsOptions) {
    const names = Deno.build.os === "windows"
      ? ["SIGINT" as const]
      : Object.keys(STOP_SIGNALS) as StopSignalName[];
    for (const name of names) {
      const listener = () => this.#stop(name, options);
      Deno.addSignalListener(name, listener);
      this.#listeners.push([name, listener]);
    }
  }

  /**
   * Starts listening. Until {@linkcode close} (or disposal), these signals
   * no longer kill the process: the caller must end its run on `signal`.
   *
   * @param options what to do on the first signal
   */
  static listen(options: StopSignalsOptions = {}): StopSignals {
    return new StopSignals(options);
  }

  /** Aborts on the first stop signal, with a `DOMException` ("AbortError") saying which. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** The first stop signal received, if any. */
  get received(): StopSignalName | undefined {
    return this.#received;
  }

  /**
   * The exit code of the run: 128 + the signal's number once a stop signal
   * arrived (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP), else `code`.
   */
  exitCode(code: number): number {
    return this.#received === undefined ? code : 128 + STOP_SIGNALS[this.#received].number;
  }

  /** Stops listening; the signals' default actions apply again. Idempotent. */
  close(): void {
    for (const [name, listener] of this.#listeners.splice(0)) {
      Deno.removeSignalListener(name, listener);
    }
  }

  /** Same as {@linkcode close}. */
  [Symbol.dispose](): void {
    this.close();
  }

  #stop(name: StopSignalName, options: StopSignalsOptions): void {
    if (this.#received !== undefined) return;
    this.#received = name;
    const { says } = STOP_SIGNALS[name];
    try {
      options.onStop?.(name, says);
    } catch {
      // Saying so failed (a terminal that hung up cannot be written to);
      // stopping the run matters more, and a throw here would kill the process.
    }
    this.#controller.abort(new DOMException(says, "AbortError"));
  }
}
