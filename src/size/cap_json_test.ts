import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import fc from "fast-check";
import { jsonTextOfAbout } from "../testing/arbitrary_json.ts";
import { seededRandom, withTestSeed } from "../testing/seed.ts";
import { capJson, type CapJsonOptions, type CapJsonResult } from "./cap_json.ts";
import { capText, truncationMarker } from "./cap_text.ts";
import { JsonScanner } from "./json_scanner.ts";
import type { TextWindow } from "./text_window.ts";
import { longestHead, longestTail } from "./_utf8_edges.ts";

const bytesOf = (text: string) => Buffer.byteLength(text, "utf8");
const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;
const NOTE_COUNT = String.raw`(\d{1,3}(?:,\d{3})*)`;
const ITEMS_NOTE = new RegExp(`^… ${NOTE_COUNT} more items?$`);
const MEMBERS_NOTE = new RegExp(`^${NOTE_COUNT} more members?$`);
const BYTES_NOTE = new RegExp(`… ${NOTE_COUNT} more bytes?$`, "s");
const countOf = (grouped: string) => Number(grouped.replaceAll(",", ""));

/** The JSON part of a json cut: everything before its marker line (the last line: JSON holds no raw newline but spacing). */
function jsonPart(cut: CapJsonResult): string {
  return cut.text.slice(0, cut.text.lastIndexOf("\n"));
}

/** A json cut of `text` at `cap`, checked: it fits, and ends with the marker line. */
function cut(text: string, cap: number, options: CapJsonOptions = {}): CapJsonResult {
  const result = capJson(text, cap, options);
  assert.ok(result.bytes <= cap, `${result.bytes} > ${cap}`);
  assert.equal(bytesOf(result.text), result.bytes);
  if (result.truncated && result.fallback === undefined) {
    assert.ok(result.text.endsWith("\n" + truncationMarker(result.originalBytes, cap)));
  }
  return result;
}

/** What a check of a cut value against its original found. */
interface Seen {
  notes: number;
  cutStrings: number;
}

/**
 * Asserts `kept` is a prefix of `original` shape for shape: arrays keep
 * leading elements, objects leading members in order, strings a prefix,
 * scalars whole; only the last one kept (`last`) may itself be cut, and
 * every note counts exactly what was dropped.
 */
function assertPrefix(original: unknown, kept: unknown, last: boolean, notes: boolean, seen: Seen) {
  if (!last) return assert.deepEqual(kept, original);
  if (typeof original === "string") {
    assert.equal(typeof kept, "string");
    const text = kept as string;
    const note = notes ? BYTES_NOTE.exec(text) : null;
    const prefix = note === null ? text : text.slice(0, note.index);
    assert.ok(original.startsWith(prefix), "a cut string is a prefix of the original");
    if (note !== null) seen.notes++;
    if (prefix !== original) seen.cutStrings++;
    return;
  }
  if (Array.isArray(original)) {
    assert.ok(Array.isArray(kept), "an array stays an array");
    let items = kept as unknown[];
    const note = notes && typeof items.at(-1) === "string"
      ? ITEMS_NOTE.exec(items.at(-1) as string)
      : null;
    if (note !== null) {
      items = items.slice(0, -1);
      assert.equal(
        countOf(note[1]!),
        original.length - items.length,
        "the note counts the dropped",
      );
      seen.notes++;
    } else if (notes) assert.equal(items.length, original.length, "items dropped without a note");
    assert.ok(items.length <= original.length);
    items.forEach((item, i) =>
      assertPrefix(original[i], item, i === items.length - 1, notes, seen)
    );
    return;
  }
  if (original !== null && typeof original === "object") {
    assert.ok(kept !== null && typeof kept === "object" && !Array.isArray(kept));
    const members = { ...kept as Record<string, unknown> };
    const keys = Object.keys(original);
    const note = members["…"];
    delete members["…"];
    const keptKeys = Object.keys(members);
    assert.deepEqual(keptKeys, keys.slice(0, keptKeys.length), "members kept in order");
    if (note !== undefined) {
      const count = MEMBERS_NOTE.exec(String(note));
      assert.ok(notes && count !== null, `a note member: ${JSON.stringify(note)}`);
      assert.equal(countOf(count[1]!), keys.length - keptKeys.length);
      seen.notes++;
    } else if (notes) assert.equal(keptKeys.length, keys.length, "members dropped without a note");
    const record = original as Record<string, unknown>;
    keptKeys.forEach((key, i) =>
      assertPrefix(record[key], members[key], i === keptKeys.length - 1, notes, seen)
    );
    return;
  }
  assert.deepEqual(kept, original, "numbers, booleans and null are whole");
}

Deno.test("capJson() keeps a JSON prefix, shape for shape, within the limit, and fills it", async () => {
  await withTestSeed((seed) => {
    const reached: Record<string, number> = {};
    const count = (what: string) => reached[what] = (reached[what] ?? 0) + 1;
    fc.assert(
      fc.property(jsonTextOfAbout(60_000), fc.nat(), fc.boolean(), (json, a, notes) => {
        const { text } = json;
        const total = bytesOf(text);
        const cap = 40 + (a % total);
        const result = cut(text, cap, { notes });
        assert.deepEqual(capJson(text, cap, { notes }), result, "deterministic");
        if (!result.truncated) return void count("fits");
        if (result.fallback !== undefined) return void count(`fallback ${result.fallback}`);
        const kept = jsonPart(result);
        const parsed = JSON.parse(kept);
        const seen = { notes: 0, cutStrings: 0 };
        assertPrefix(JSON.parse(text), parsed, true, notes, seen);
        // Where the kept text ends in the original, and what was open there.
        let at = 0;
        while (at < kept.length && kept.charCodeAt(at) === text.charCodeAt(at)) at++;
        const open = JsonScanner.scan(text, at);
        assert.ok(!(isHigh(text.charCodeAt(at - 1)) && isLow(text.charCodeAt(at))), "split a pair");
        assert.ok(
          !/\\u[dD][89abAB][0-9a-fA-F]{2}$/.test(kept.slice(0, at)) ||
            !/^\\u[dD][c-fC-F]/.test(text.slice(at)),
          "split an escaped pair",
        );
        // The limit is filled: short of it by at most 2 KiB plus 96 B per level open at the cut,
        // unless all of the value was kept (only whitespace after it dropped).
        const whole = JSON.stringify(parsed) === JSON.stringify(JSON.parse(text));
        if (!whole) {
          const slack = 2048 + 96 * open.open.length;
          assert.ok(
            cap - result.bytes <= slack,
            `${result.bytes} of ${cap}: short by more than ${slack}`,
          );
        }
        count(json.shape);
        if (seen.notes > 0) count("notes");
        if (!notes) count("no notes");
        if (open.string !== undefined) count("cut in a string");
        if (open.string !== undefined && text[at] === "\\") count("escape at the cut");
        if (open.string !== undefined && isHigh(text.charCodeAt(at))) count("surrogate at the cut");
        const next = text.slice(at, at + 80);
        if (open.string === undefined && /^[\s,]*("[^"]*"\s*:\s*)?[-\d]/.test(next)) {
          count("number at the cut");
        }
        if (open.open.length >= 20) count("20 levels deep at the cut");
        if (/^[\s,]*"[^"]*"\s*:/.test(text.slice(at, at + 80))) count("key at the cut");
      }),
      { seed, numRuns: 400 },
    );
    for (
      const branch of [
        "deep",
        "wide object",
        "huge string",
        "array of objects",
        "mixed",
        "notes",
        "no notes",
        "cut in a string",
        "escape at the cut",
        "surrogate at the cut",
        "20 levels deep at the cut",
        "key at the cut",
      ]
    ) assert.ok((reached[branch] ?? 0) >= 5, `${branch}: ${JSON.stringify(reached)}`);
  });
});

Deno.test("capJson() keeps a number at the cut whole or drops it, in arrays and objects", async () => {
  // The property above reaches a number at the cut only a few times in 400 runs of its mixed
  // shapes; here every value is a number, so nearly every cut lands beside one.
  const number = fc.oneof(
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.constant(null),
  );
  await withTestSeed((seed) => {
    const reached: Record<string, number> = {};
    const count = (what: string) => reached[what] = (reached[what] ?? 0) + 1;
    fc.assert(
      fc.property(
        fc.array(number, { minLength: 20, maxLength: 300 }),
        fc.boolean(),
        fc.boolean(),
        fc.nat(),
        (values, asObject, notes, a) => {
          const value = asObject ? Object.fromEntries(values.map((v, i) => [`k${i}`, v])) : values;
          const text = JSON.stringify(value, null, a % 3 === 0 ? 1 : undefined);
          const cap = 160 + (a % bytesOf(text));
          const result = cut(text, cap, { notes });
          if (!result.truncated) return void count("fits");
          assert.equal(result.fallback, undefined, "one JSON value: no fallback");
          assertPrefix(JSON.parse(text), JSON.parse(jsonPart(result)), true, notes, {
            notes: 0,
            cutStrings: 0,
          });
          const kept = jsonPart(result);
          let at = 0;
          while (at < kept.length && kept.charCodeAt(at) === text.charCodeAt(at)) at++;
          if (/^[\s,]*("[^"]*"\s*:\s*)?[-\d]/.test(text.slice(at, at + 80))) {
            count(asObject ? "number at the cut, object" : "number at the cut, array");
          }
        },
      ),
      { seed, numRuns: 300 },
    );
    for (const branch of ["number at the cut, object", "number at the cut, array"]) {
      assert.ok((reached[branch] ?? 0) >= 30, `${branch}: ${JSON.stringify(reached)}`);
    }
  });
});

/** A window on `text` holding `windowBytes` of each end, scanned in pieces as a collector scans it. */
function windowOn(text: string, windowBytes: number, random: () => number): TextWindow {
  const head = longestHead(text, windowBytes).text;
  const scanner = new JsonScanner();
  const feed = (piece: string) => {
    for (let at = 0; at < piece.length;) {
      const size = 1 + Math.floor(random() * 9000);
      scanner.push(piece.slice(at, at + size));
      at += size;
    }
  };
  feed(head);
  scanner.mark();
  feed(text.slice(head.length));
  return {
    head,
    tail: longestTail(text, windowBytes).text,
    bytes: bytesOf(text),
    json: scanner.end(),
  };
}

Deno.test("capJson() cuts a window, scanned in pieces, byte for byte as the whole text", async () => {
  await withTestSeed((seed) => {
    let compared = 0;
    fc.assert(
      fc.property(
        jsonTextOfAbout(60_000),
        fc.nat(),
        fc.nat(),
        fc.constantFrom<CapJsonOptions>({}, { notes: false }, { strategy: "auto" }),
        (json, a, b, options) => {
          const { text } = json;
          const total = bytesOf(text);
          if (total < 200) return;
          const cap = 100 + (a % (total - 100));
          const windowBytes = Math.min(total - 1, cap + (b % 3 === 0 ? 0 : b % total));
          if (windowBytes < cap) return;
          const window = windowOn(text, windowBytes, seededRandom(b));
          assert.deepEqual(capJson(window, cap, options), capJson(text, cap, options));
          compared++;
        },
      ),
      { seed, numRuns: 250 },
    );
    assert.ok(compared >= 150, `only ${compared} windows compared`);
  });
});

Deno.test("capJson() notes golden: an array's items, an object's members, a string's bytes", () => {
  const rows = JSON.stringify(Array.from({ length: 10_000 }, (_, id) => ({ id, ok: true })));
  assert.ok(
    cut(rows, 1024).text.endsWith(
      ',{"id":47,"ok":true},"… 9,952 more items"]\n... [truncated, 213.7 KB → 1.0 KB]',
    ),
  );
  const members = Array.from({ length: 2000 }, (_, i) => [`key${i}`, i]);
  const record = JSON.stringify({ name: "n", ...Object.fromEntries(members) });
  assert.ok(
    cut(record, 1024).text.endsWith(
      ',"key87":87,"…":"1,912 more members"}\n... [truncated, 27.1 KB → 1.0 KB]',
    ),
  );
  const log = JSON.stringify({ log: "line\n".repeat(1000) });
  assert.equal(
    cut(log, 256).text,
    '{"log":"' + "line\\n".repeat(32) + '… 5,808 more bytes"}\n... [truncated, 5.8 KB → 256 B]',
  );
  // Nested: the innermost note first; a member whose value is cut keeps its key.
  const nested = JSON.stringify({ a: { b: [1, 2, "x".repeat(5000), 4] }, c: 3 });
  assert.equal(
    cut(nested, 120).text,
    '{"a":{"b":[1,2,"xxxxxx… 4,994 more bytes","… 1 more item"]},"…":"1 more member"}\n' +
      "... [truncated, 4.9 KB → 120 B]",
  );
  // Nothing of a container kept: its note alone. One more: singular.
  assert.equal(
    cut(JSON.stringify([["a".repeat(300)], 2]), 60).text,
    '["… 2 more items"]\n... [truncated, 308 B → 60 B]',
  );
  const pair = JSON.stringify({ a: 1, b: "b".repeat(100) });
  assert.equal(cut(pair, 70).text, '{"a":1,"…":"1 more member"}\n... [truncated, 114 B → 70 B]');
  assert.equal(cut(pair, 60).text, '{"…":"2 more members"}\n... [truncated, 114 B → 60 B]');
});

Deno.test("capJson() keeps the original bytes of what it keeps: spacing is not re-serialized", () => {
  const pretty = JSON.stringify({ items: Array.from({ length: 200 }, (_, i) => ({ i })) }, null, 2);
  const result = cut(pretty, 512);
  const kept = jsonPart(result);
  const close = kept.indexOf(',"… ');
  assert.ok(close > 0 && pretty.startsWith(kept.slice(0, close)), kept.slice(-120));
  assert.ok(kept.startsWith('{\n  "items": [\n    {\n      "i": 0\n    },'));
  JSON.parse(kept);
});

Deno.test("capJson() without notes: only the original's data, still a prefix", () => {
  const text = JSON.stringify({
    rows: Array.from({ length: 500 }, (_, i) => ({ i, s: "é".repeat(i) })),
  });
  const result = cut(text, 2048, { notes: false });
  const kept = JSON.parse(jsonPart(result));
  assertPrefix(JSON.parse(text), kept, true, false, { notes: 0, cutStrings: 0 });
  assert.ok(!jsonPart(result).includes("…"), "no note");
  assert.ok(result.bytes > 2048 - 200, `${result.bytes}`);
});

Deno.test("capJson() falls back to the head cut, byte for byte, for what is not one JSON value", () => {
  const lines = Array.from({ length: 400 }, (_, i) => JSON.stringify({ i, line: "x" })).join("\n");
  const log = "{main} starting\n" + "log line\n".repeat(500);
  const trailing = JSON.stringify(Array.from({ length: 500 }, (_, i) => i)) + " and then some";
  for (const text of [lines, log, trailing, "x".repeat(3000)]) {
    const result = cut(text, 1024);
    assert.equal(result.fallback, "not_json");
    assert.deepEqual({ ...result, fallback: undefined }, {
      ...capText(text, 1024),
      fallback: undefined,
    });
    assert.equal(capJson(text, 1024, { strategy: "auto" }).fallback, "not_json");
  }
  // auto: JSON that is not an object or an array is cut as head; json cuts it as JSON.
  const string = JSON.stringify("y".repeat(3000));
  assert.equal(cut(string, 1024, { strategy: "auto" }).fallback, "not_container");
  assert.equal(cut(string, 1024, { strategy: "auto" }).text, capText(string, 1024).text);
  assert.equal(cut(string, 1024).fallback, undefined);
  // No room: a number too long for the limit, or a limit the marker fills.
  const number = "1".repeat(3000);
  assert.equal(cut(number, 1024).fallback, "no_room");
  assert.equal(cut(number, 1024).text, capText(number, 1024).text);
  assert.equal(cut(JSON.stringify([string]), 20).fallback, "no_room");
  assert.equal(cut(JSON.stringify([string]), 20).text, capText(JSON.stringify([string]), 20).text);
});

Deno.test("capJson() returns a text that fits unchanged, and only trailing space when the value fits", () => {
  const text = '{"a": [1, 2, 3]}';
  assert.deepEqual(capJson(text, 1024), { text, truncated: false, originalBytes: 16, bytes: 16 });
  const padded = "[true]" + " ".repeat(3000);
  assert.equal(cut(padded, 1024).text, "[true]\n... [truncated, 2.9 KB → 1.0 KB]");
  assert.throws(() => capJson(text, -1), RangeError);
});

Deno.test("capJson() cuts a string between characters: never in an escape, a pair, or after a lone half", () => {
  const units = ["\\n", "\\u00e9", "\\ud83d\\ude00", "😀", "\ud800", "\udc00", "é", "a"];
  for (const unit of units) {
    const text = '["pad","' + unit.repeat(400) + '"]';
    const original = (JSON.parse(text) as string[])[1]!;
    const lengths = new Set<number>();
    for (let cap = 90; cap < 160; cap++) {
      const kept = (JSON.parse(jsonPart(cut(text, cap))) as string[])[1]!.replace(BYTES_NOTE, "");
      assert.ok(original.startsWith(kept), `${unit} at ${cap}: ${kept}`);
      // A lone high half may end the kept part only when the original has one there.
      const last = kept.charCodeAt(kept.length - 1);
      assert.ok(!isHigh(last) || unit === "\ud800", `${unit} at ${cap}`);
      lengths.add(kept.length);
    }
    assert.ok(lengths.size >= 5, `${unit}: the cut moved ${lengths.size} times`);
  }
});
