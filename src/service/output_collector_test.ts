import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import fc from "fast-check";
import { BLOB_TEMP_PREFIX, FileBlobStore } from "../blobs/file_blob_store.ts";
import { capJson } from "../size/cap_json.ts";
import { capText, utf8Length } from "../size/cap_text.ts";
import { jsonTextOfAbout } from "../testing/arbitrary_json.ts";
import { textOfAbout } from "../testing/arbitrary_text.ts";
import { withTestSeed } from "../testing/seed.ts";
import { type CollectedOutput, OutputCollector } from "./output_collector.ts";
import { blobSink, SPOOL_PREFIX, spoolSink } from "./output_sink.ts";

/**
 * The most pushes one output gets. fast-check draws small integers often, so
 * chunks of a few bytes are common; pushing 150 KB a few bytes at a time
 * costs a second a case (most of this test's time) and reaches nothing that
 * 2,000 pushes do not (chunks still end inside characters and around the
 * window's edges).
 */
const MAX_PUSHES = 2_000;

/** The chunk size for `bytes` bytes: `chunk`, or larger when that would take too many pushes. */
const chunkFor = (chunk: number, bytes: number) => Math.max(chunk, Math.ceil(bytes / MAX_PUSHES));

/** Lines as the reporter counts them: a final newline ends a line. */
const linesOf = (text: string) =>
  text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0);

Deno.test("OutputCollector: a window is exact, whatever the chunking (property)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "spillway_collector_" });
  const runs = 80;
  const reached = { windows: 0, whole: 0, invalid: 0, composed: 0, windowedParts: 0 };
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
          // Composed as a failed tool's text: status, another output (stderr), this one.
          composed: fc.boolean(),
          other: fc.integer({ min: 0, max: 100_000 }).chain(textOfAbout),
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
        const sink = c.spill
          ? blobSink(new FileBlobStore(`${dir}/blobs`), c.windowBytes, `${dir}/spool`)
          : spoolSink(`${dir}/spool`, c.windowBytes);
        const collector = new OutputCollector(sink);
        const chunk = chunkFor(c.chunk, bytes.length);
        for (let at = 0; at < bytes.length; at += chunk) {
          await collector.push(bytes.subarray(at, at + chunk));
        }
        let whole = text;
        let output: CollectedOutput;
        if (c.composed) {
          const other = new OutputCollector(sink);
          const otherBytes = Buffer.from(c.other.text, "utf8");
          // What the tool wrote, as read (a lone surrogate was written as U+FFFD).
          const otherText = new TextDecoder("utf-8", { ignoreBOM: true }).decode(otherBytes);
          const otherChunk = chunkFor(c.chunk, otherBytes.length);
          for (let at = 0; at < otherBytes.length; at += otherChunk) {
            await other.push(otherBytes.subarray(at, at + otherChunk));
          }
          const composed = new OutputCollector(sink);
          await composed.pushText("exit code 1\n\nstderr:\n");
          await other.appendTo(composed);
          await composed.pushText("\n\nstdout:\n");
          await collector.appendTo(composed);
          output = await composed.finish();
          whole = "exit code 1\n\nstderr:\n" + otherText + "\n\nstdout:\n" + text;
          reached.composed++;
          if (Math.max(otherBytes.length, utf8Length(text)) > c.windowBytes) {
            reached.windowedParts++;
          }
          // The parts' files are gone; only the composed text may have one.
          const names = (await Array.fromAsync(Deno.readDir(dir)))
            .filter((entry) => entry.isDirectory)
            .map((entry) => Array.fromAsync(Deno.readDir(`${dir}/${entry.name}`)));
          const files = (await Promise.all(names)).flat().map((entry) => entry.name);
          const spooled = output.kind === "window" && !c.spill ? 1 : 0;
          assert.equal(files.filter((name) => name.startsWith(SPOOL_PREFIX)).length, spooled);
          assert.equal(files.filter((name) => name.startsWith(BLOB_TEMP_PREFIX)).length, 0);
        } else {
          output = await collector.finish();
        }
        if (output.kind === "whole") {
          reached.whole++;
          assert.ok(output.text === whole, "whole text differs");
          assert.ok(utf8Length(whole) <= c.windowBytes);
          continue;
        }
        reached.windows++;
        const { head, window } = output;
        assert.ok(utf8Length(whole) > c.windowBytes);
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
    `OutputCollector property: ${reached.windows} windows, ${reached.whole} whole, ` +
      `${reached.composed} composed (${reached.windowedParts} of a part over the window), ` +
      `${reached.invalid} with an invalid byte`,
  );
  assert.ok(reached.windows >= runs / 2, `only ${reached.windows} windows`);
  assert.ok(reached.whole >= 5 && reached.invalid >= 10);
  assert.ok(reached.composed >= 20 && reached.windowedParts >= 10);
});

Deno.test("OutputCollector: a JSON window's json cut is the cut of the whole text (property)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "spillway_collector_json_" });
  const runs = 60;
  const reached = { windows: 0, json: 0, cutInside: 0 };
  try {
    await withTestSeed(async (seed) => {
      const cases = fc.sample(
        fc.record({
          windowBytes: fc.integer({ min: 256, max: 30_000 }),
          json: jsonTextOfAbout(80_000),
          chunk: fc.integer({ min: 1, max: 70_000 }),
          // Sometimes what follows is not JSON: the scan must say so, not the head.
          spoilt: fc.boolean(),
          cap: fc.nat(),
        }),
        { seed, numRuns: runs },
      );
      for (const c of cases) {
        const written = c.json.text + (c.spoilt ? "\n{}" : "");
        const bytes = new Uint8Array(Buffer.from(written, "utf8"));
        // What the tool wrote, as read (a lone surrogate was written as U+FFFD).
        const whole = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
        const sink = spoolSink(`${dir}/spool`, c.windowBytes);
        const collector = new OutputCollector(sink, { scansJson: true });
        const plain = new OutputCollector(sink);
        const chunk = chunkFor(c.chunk, bytes.length);
        for (let at = 0; at < bytes.length; at += chunk) {
          await collector.push(bytes.subarray(at, at + chunk));
          await plain.push(bytes.subarray(at, at + chunk));
        }
        const output = await collector.finish();
        const unscanned = await plain.finish();
        if (unscanned.kind === "window") {
          // A tool whose truncation is not json: its output is not scanned.
          assert.equal(unscanned.window.json, undefined);
          await Deno.remove(unscanned.window.path);
        }
        if (output.kind === "whole") continue;
        reached.windows++;
        const { head, window } = output;
        assert.ok(window.json !== undefined, "a window is scanned");
        assert.equal(window.json.value !== undefined, !c.spoilt);
        if (!c.spoilt) reached.json++;
        const cap = 100 + (c.cap % (c.windowBytes - 99));
        for (const strategy of ["json", "auto"] as const) {
          const viaWindow = capJson({ head, ...window }, cap, { strategy });
          const direct = capJson(whole, cap, { strategy });
          assert.deepEqual(viaWindow, direct, `${strategy} cut of the window differs at ${cap}`);
          if (direct.fallback === undefined && window.json.open.length > 0) reached.cutInside++;
        }
        await Deno.remove(window.path);
      }
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  assert.ok(reached.windows >= runs / 2 && reached.json >= runs / 5, JSON.stringify(reached));
  assert.ok(reached.cutInside >= 10, JSON.stringify(reached));
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
