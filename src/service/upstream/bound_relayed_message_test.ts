import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import fc from "fast-check";
import { withTestSeed } from "../../testing/seed.ts";
import {
  boundLogMessage,
  boundProgress,
  MAX_LOGGER_BYTES,
  MAX_RELAYED_MESSAGE_BYTES,
} from "./bound_relayed_message.ts";

const bytes = (text: string) => Buffer.byteLength(text, "utf8");
const MARKER = /\n\.\.\. \[truncated, [\d.]+ (B|KB|MB) → (64\.0|1\.0) KB\]$/;

/** Text around the limit: a repeated character of 1–4 UTF-8 bytes, under, at or over it. */
const aroundLimit = (limit: number) =>
  fc.tuple(
    fc.constantFrom("a", "é", "漢", "😀"),
    fc.integer({ min: limit - 8, max: limit + 8 }),
    fc.integer({ min: 0, max: 3 * limit }),
    fc.boolean(),
  ).map(([char, near, anywhere, close]) => {
    const want = close ? near : anywhere;
    return char.repeat(Math.max(0, Math.floor(want / bytes(char))));
  });

Deno.test("boundLogMessage() keeps data and logger within their limits, cut with the marker iff over", async () => {
  await withTestSeed((seed) => {
    const reached = { cut: 0, whole: 0, json: 0, logger: 0 };
    fc.assert(
      fc.property(
        aroundLimit(MAX_RELAYED_MESSAGE_BYTES),
        fc.boolean(),
        fc.option(aroundLimit(MAX_LOGGER_BYTES), { nil: undefined }),
        (text, asJson, logger) => {
          const data = asJson ? { text } : text;
          const message = { level: "info", logger, data };
          const bounded = boundLogMessage(message);
          const original = asJson ? JSON.stringify(data) : text;
          if (asJson) reached.json++;
          if (bytes(original) > MAX_RELAYED_MESSAGE_BYTES) {
            reached.cut++;
            const cut = String(bounded.data);
            assert.ok(bytes(cut) <= MAX_RELAYED_MESSAGE_BYTES);
            assert.match(cut, MARKER);
            assert.ok(original.startsWith(cut.slice(0, cut.lastIndexOf("\n... ["))));
          } else {
            reached.whole++;
            assert.equal(bounded.data, data, "data under the limit passes as it is");
          }
          if (logger !== undefined && bytes(logger) > MAX_LOGGER_BYTES) {
            reached.logger++;
            assert.ok(bytes(bounded.logger ?? "") <= MAX_LOGGER_BYTES);
            assert.match(bounded.logger ?? "", MARKER);
          } else {
            assert.equal(bounded.logger, logger);
          }
          assert.equal(bounded.level, "info");
        },
      ),
      { seed, numRuns: 200 },
    );
    for (const [branch, count] of Object.entries(reached)) {
      assert.ok(count >= 20, `only ${count} of 200 cases reached ${branch}`);
    }
  });
});

Deno.test("boundProgress() cuts a message over 64 KiB, and passes anything else as it is", () => {
  const small = { progress: 1, total: 2, message: "half way" };
  assert.equal(boundProgress(small), small);
  const none = { progress: 3 };
  assert.equal(boundProgress(none), none);
  const cut = boundProgress({ progress: 1, message: "p".repeat(200_000) });
  assert.equal(cut.progress, 1);
  assert.ok((cut.message ?? "").endsWith("\n... [truncated, 195.3 KB → 64.0 KB]"));
  assert.ok(bytes(cut.message ?? "") <= MAX_RELAYED_MESSAGE_BYTES);
});
