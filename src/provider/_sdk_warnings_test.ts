import assert from "node:assert/strict";
import { routeConsoleWarnings, sdkLogger } from "./_sdk_warnings.ts";

Deno.test("routeConsoleWarnings() takes the warnings of the call only, and gives console.warn back even when it throws", () => {
  const original = console.warn;
  const taken: string[] = [];
  assert.throws(() =>
    routeConsoleWarnings(() => {
      console.warn("old", "model");
      throw new Error("boom");
    }, (text) => taken.push(text))
  );
  assert.equal(console.warn, original);
  assert.deepEqual(taken, ["old model"]);
});

Deno.test("sdkLogger() writes nothing to the console", () => {
  const methods = ["error", "warn", "info", "debug", "log"] as const;
  const saved = methods.map((m) => console[m]);
  const written: string[] = [];
  for (const m of methods) console[m] = () => void written.push(m);
  try {
    const logger = sdkLogger("anthropic");
    logger.error("e", { a: 1 });
    logger.warn("w");
    logger.info("i");
    logger.debug("d", new Error("x"));
  } finally {
    methods.forEach((m, i) => (console[m] = saved[i]!));
  }
  assert.deepEqual(written, []);
});
