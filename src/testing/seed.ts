/**
 * Seeds for randomized tests. Every randomized test takes its seed from
 * {@linkcode withTestSeed}: a fresh one per run, or `SPILLWAY_TEST_SEED` when
 * set, so a failure can be replayed exactly. When the test fails, the seed
 * and the command line that replays it are printed next to the failure.
 *
 * Use the seed for fast-check (`fc.assert(property, { seed })`) and for
 * anything else through {@linkcode seededRandom}, never `Math.random()`.
 *
 * @module
 */

/** The environment variable that fixes the seed of every randomized test. */
export const TEST_SEED_VARIABLE = "SPILLWAY_TEST_SEED";

/**
 * The seed for one randomized test: `SPILLWAY_TEST_SEED` when set, else a
 * fresh random 32-bit integer.
 *
 * @throws {RangeError} when `SPILLWAY_TEST_SEED` is not a 32-bit integer
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { testSeed } from "./seed.ts";
 * assert.ok(Number.isInteger(testSeed()));
 * ```
 */
export function testSeed(): number {
  const text = Deno.env.get(TEST_SEED_VARIABLE);
  if (text === undefined || text.trim() === "") {
    return crypto.getRandomValues(new Int32Array(1))[0] ?? 0;
  }
  const seed = Number(text.trim());
  if (!Number.isInteger(seed) || seed < -(2 ** 31) || seed >= 2 ** 32) {
    throw new RangeError(
      `${TEST_SEED_VARIABLE}=${JSON.stringify(text)} is not a seed: expected a 32-bit integer ` +
        `such as the one a failing test printed`,
    );
  }
  return seed | 0;
}

/**
 * Runs a randomized test body with its seed. When the body fails, the seed
 * and how to replay it are printed to stderr (which `deno test` shows with
 * the failure), and the error is rethrown unchanged.
 *
 * @param body the test, given its seed
 * @returns what the body returned
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { seededRandom, withTestSeed } from "./seed.ts";
 * await withTestSeed((seed) => {
 *   const random = seededRandom(seed);
 *   const x = random();
 *   assert.ok(x >= 0 && x < 1);
 * });
 * ```
 */
export async function withTestSeed<T>(body: (seed: number) => T | Promise<T>): Promise<T> {
  const seed = testSeed();
  try {
    return await body(seed);
  } catch (error) {
    console.error(`test seed: ${seed} (replay with ${TEST_SEED_VARIABLE}=${seed})`);
    throw error;
  }
}

/**
 * A deterministic random number generator (mulberry32): the same seed gives
 * the same sequence of numbers in [0, 1).
 *
 * @param seed any 32-bit integer
 * @returns a `Math.random()` stand-in
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { seededRandom } from "./seed.ts";
 * const a = seededRandom(7);
 * const b = seededRandom(7);
 * assert.equal(a(), b());
 * ```
 */
export function seededRandom(seed: number): () => number {
  let state = seed | 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
