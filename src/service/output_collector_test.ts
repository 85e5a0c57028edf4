import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import fc from "fast-check";
import { BlobStore } from "../blobs/blob_store.ts";
import { capText, utf8Length } from "../size/cap_text.ts";
import { textOfAbout } from "../testing/arbitrary_text.ts";
import { withTestSeed } from "../testing/seed.ts";
import { OutputCollector } from "./output_collector.ts";
import { blobSink, spoolSink } from "./output_sink.ts";

/** Lines as the reporter counts them: a final newline ends a line. */
const linesOf = (text: string) =>
  text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0);

Deno.test("OutputCollector: a window is exact, whatever the chunking (property)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "spillway_collector_" });
  const runs = 80;
  const reached = { windows: 0, whole: 0, invalid: 0, prefixed: 0 };
  try {
    await withTestSeed(async (seed) => {
      const cases = fc.sample(
        fc.record({
          windowBytes: fc.integer({ min: 64, max: 40_000 }),
          generated: fc.integer({ min: 0, max: 150_000 }).chain(textOfAbout),
          // Cut the bytes anywhere, inside characters too.
          chunk: fc.integer({ min: 1, max: 70_000 }),
          // A stray invalid byte now and then (it decodes as U+FFFD).
          invalidAt: fc.option(fc.nat(), { freq: 3 }),
          prefix: fc.constantFrom("", "exit code 1\n\nstdout:\n"),
          spill: fc.boolean(),
        }),
        { seed, numRuns: runs },
      );
      for (const c of cases) {
        let bytes = new Uint8Array(Buffer.from(c.generated.text, "utf8"));
        if (c.invalidAt !== null && bytes.length > 0) {
          bytes = bytes.slice();
          bytes[c.invalidAt % bytes.length] = 0xff;
          reached.invalid++;
        }
        const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
        const whole = c.prefix + text;
        const sink = c.spill
          ? blobSink(new BlobStore(`${dir}/blobs`), c.windowBytes)
          : spoolSink(`${dir}/spool`, c.windowBytes);
        const collector = new OutputCollector(sink);
        for (let at = 0; at < bytes.length; at += c.chunk) {
          await collector.push(bytes.subarray(at, at + c.chunk));
        }
        const output = await collector.finish(c.prefix);
        if (output.kind === "whole") {
          reached.whole++;
          assert.ok(output.text === whole, "whole text differs");
          assert.ok(utf8Length(text) <= c.windowBytes);
          continue;
        }
        reached.windows++;
        if (c.prefix !== "") reached.prefixed++;
        const { head, window } = output;
        assert.ok(utf8Length(text) > c.windowBytes);
        assert.equal(window.bytes, utf8Length(whole));
        assert.equal(window.lines, linesOf(whole));
        assert.ok(whole.startsWith(head) && utf8Length(head) >= c.windowBytes - 3);
        assert.ok(whole.endsWith(window.tail));
        assert.ok(utf8Length(window.tail) >= Math.min(c.windowBytes, window.bytes) - 3);
        const file = await Deno.readTextFile(window.path);
        assert.ok(file === whole, "the file is not the text");
        assert.equal(window.temporary, !c.spill);
        assert.equal(output.ref !== undefined, c.spill);
        // Every cut a cap can make of it is the cut of the whole text.
        for (const strategy of ["head", "tail", "head_tail"] as const) {
          const cap = Math.max(0, c.windowBytes - (window.bytes % 97));
          const viaWindow = capText({ head, tail: window.tail, bytes: window.bytes }, cap, {
            strategy,
          });
          const direct = capText(whole, cap, { strategy }).text;
          assert.ok(
            viaWindow.text === direct,
            `${strategy} cut of the window differs at cap ${cap}`,
          );
        }
        if (window.temporary) await Deno.remove(window.path);
      }
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  console.log(
    `OutputCollector property: ${reached.windows} windows (${reached.prefixed} with a prefix), ` +
      `${reached.whole} whole, ${reached.invalid} with an invalid byte`,
  );
  assert.ok(reached.windows >= runs / 2, `only ${reached.windows} windows`);
  assert.ok(reached.whole >= 5 && reached.prefixed >= 10 && reached.invalid >= 10);
});

Deno.test("OutputCollector without a sink holds everything, as before", async () => {
  const collector = new OutputCollector(undefined);
  await collector.push(new Uint8Array([0xe6, 0xbc]));
  await collector.push(new Uint8Array([0xa2, 0x0a]));
  assert.deepEqual(await collector.finish(), { kind: "whole", text: "漢\n" });
});

Deno.test("OutputCollector reports a file it cannot write at finish, and keeps reading", async () => {
  const collector = new OutputCollector({
    windowBytes: 4,
    open: () => Promise.reject(new Deno.errors.PermissionDenied("no room here")),
  });
  await collector.push(new TextEncoder().encode("more than four bytes"));
  await collector.push(new TextEncoder().encode("and more")); // dropped, never thrown
  await assert.rejects(() => collector.finish(), /no room here/);
});
