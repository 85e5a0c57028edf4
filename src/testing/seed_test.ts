import assert from "node:assert/strict";
import { seededRandom, TEST_SEED_VARIABLE, testSeed, withTestSeed } from "./seed.ts";

/** Runs `fn` with the seed variable set to `value` (or unset), restoring it after. */
async function withSeedVariable(value: string | undefined, fn: () => Promise<void> | void) {
  const before = Deno.env.get(TEST_SEED_VARIABLE);
  if (value === undefined) Deno.env.delete(TEST_SEED_VARIABLE);
  else Deno.env.set(TEST_SEED_VARIABLE, value);
  try {
    await fn();
  } finally {
    if (before === undefined) Deno.env.delete(TEST_SEED_VARIABLE);
    else Deno.env.set(TEST_SEED_VARIABLE, before);
  }
}

Deno.test("testSeed() takes SPILLWAY_TEST_SEED when set, and rejects what is not a seed", async () => {
  await withSeedVariable("-123", () => assert.equal(testSeed(), -123));
  await withSeedVariable(" 42 ", () => assert.equal(testSeed(), 42));
  await withSeedVariable("abc", () => {
    assert.throws(() => testSeed(), {
      name: "RangeError",
      message: 'SPILLWAY_TEST_SEED="abc" is not a seed: expected a 32-bit integer such as the ' +
        "one a failing test printed",
    });
  });
  await withSeedVariable("1.5", () => assert.throws(() => testSeed(), RangeError));
});

Deno.test("testSeed() without the variable draws fresh seeds", async () => {
  await withSeedVariable(undefined, () => {
    const seeds = new Set(Array.from({ length: 20 }, () => testSeed()));
    assert.ok(seeds.size > 1, "twenty draws gave one seed");
  });
});

Deno.test("withTestSeed() prints the seed and how to replay it when the body fails", async () => {
  const printed: string[] = [];
  const original = console.error;
  console.error = (...data: unknown[]) => printed.push(data.join(" "));
  try {
    await withSeedVariable("77", async () => {
      await assert.rejects(
        withTestSeed(() => {
          throw new Error("boom");
        }),
        { message: "boom" },
      );
      assert.equal(await withTestSeed((seed) => seed), 77);
    });
  } finally {
    console.error = original;
  }
  assert.deepEqual(printed, ["test seed: 77 (replay with SPILLWAY_TEST_SEED=77)"]);
});

Deno.test("seededRandom() repeats its sequence for a seed and spreads over [0, 1)", () => {
  const a = seededRandom(2026);
  const b = seededRandom(2026);
  const draws = Array.from({ length: 1000 }, () => a());
  assert.deepEqual(draws, Array.from({ length: 1000 }, () => b()));
  assert.ok(draws.every((x) => x >= 0 && x < 1));
  assert.ok(draws.filter((x) => x < 0.5).length > 400, "not spread over [0, 1)");
  assert.notDeepEqual(draws.slice(0, 5), Array.from({ length: 5 }, seededRandom(2027)));
});
