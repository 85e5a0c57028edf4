/**
 * Private helper: an abort controller that follows a parent signal, with one
 * listener on the parent that `dispose()` removes again.
 *
 * A call group gives its calls the signal of one scope under the turn's
 * signal. Why not one listener per call on the turn's signal: adding and
 * removing a listener scans the signal's listener list, so n calls on one
 * signal cost O(n²) (≈ 50 ms for 4,000 calls here). Why not
 * `AbortSignal.any`: under Deno it allocates weak references per source and
 * dependent, and collecting those cost about 10 ms per 1,000 calls.
 *
 * @module
 */

/** A controller aborted with `parent` (and its reason), or by {@linkcode abort}. */
export class AbortScope {
  readonly #controller = new AbortController();
  readonly #parent: AbortSignal;
  readonly #follow = () => this.#controller.abort(this.#parent.reason);

  /** A scope under `parent`; already aborted when `parent` is. */
  constructor(parent: AbortSignal) {
    this.#parent = parent;
    if (parent.aborted) this.#controller.abort(parent.reason);
    else parent.addEventListener("abort", this.#follow, { once: true });
  }

  /** Aborts when the parent does, or when {@linkcode abort} is called. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Aborts this scope (not the parent) with `reason`. */
  abort(reason: unknown): void {
    this.dispose();
    this.#controller.abort(reason);
  }

  /** Stops following the parent: a later abort of the parent no longer reaches this scope. */
  dispose(): void {
    this.#parent.removeEventListener("abort", this.#follow);
  }
}
