import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import fc from "fast-check";
import { jsonTextOfAbout } from "../testing/arbitrary_json.ts";
import { seededRandom, withTestSeed } from "../testing/seed.ts";
import type { JsonScan } from "./json_scan.ts";
import { JsonScanner, MAX_JSON_DEPTH } from "./json_scanner.ts";

const parses = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

/** Scans `text` in pieces of random sizes (a single character at times), marked at `markAt`. */
function scanInPieces(text: string, markAt: number, random: () => number): JsonScan {
  const scanner = new JsonScanner();
  const feed = (from: number, to: number) => {
    for (let at = from; at < to;) {
      const size = random() < 0.2 ? 1 : 1 + Math.floor(random() * 5000);
      scanner.push(text.slice(at, Math.min(to, at + size)));
      at += size;
    }
  };
  feed(0, markAt);
  scanner.mark();
  feed(markAt, text.length);
  return scanner.end();
}

/** A container or value string of a valid JSON text, found by a walk written independently here. */
interface Span {
  readonly kind: "object" | "array" | "string";
  /** The index of its opening bracket or quote, and of its closing one. */
  readonly start: number;
  readonly end: number;
  /** Where each member or element begins (its key, for a member). */
  readonly children: readonly number[];
}

/** Every container and value string of `text` (valid JSON), by a recursive descent. */
function spansOf(text: string): Span[] {
  const spans: Span[] = [];
  let at = 0;
  const space = () => {
    while (/[ \t\n\r]/.test(text[at] ?? "")) at++;
  };
  const string = () => {
    const start = at++;
    while (text[at] !== '"') at += text[at] === "\\" ? 2 : 1;
    at++;
    return start;
  };
  const value = (): void => {
    space();
    const c = text[at];
    if (c === '"') {
      const start = string();
      spans.push({ kind: "string", start, end: at - 1, children: [] });
    } else if (c === "[" || c === "{") {
      const start = at++;
      const children: number[] = [];
      space();
      while (text[at] !== "]" && text[at] !== "}") {
        if (text[at] === ",") at++;
        space();
        children.push(at);
        if (c === "{") {
          string();
          space();
          at++; // the colon
        }
        value();
        space();
      }
      spans.push({ kind: c === "[" ? "array" : "object", start, end: at++, children });
    } else {
      while (at < text.length && /[-+.\deEtrufalsn]/.test(text[at]!)) at++;
    }
  };
  value();
  return spans;
}

/** What the scan of a valid `text` marked at `markAt` must find, from its spans. */
function expectedScan(text: string, spans: readonly Span[], markAt: number): JsonScan {
  const open = spans
    .filter((span) => span.kind !== "string" && span.start < markAt && markAt <= span.end)
    .sort((a, b) => a.start - b.start)
    .map((span) => ({
      kind: span.kind as "object" | "array",
      before: span.children.filter((child) => child < markAt).length,
      total: span.children.length,
    }));
  const string = spans.find((span) =>
    span.kind === "string" && span.start < markAt && markAt <= span.end &&
    // A key is not a string value.
    !/^\s*:/.test(text.slice(span.end + 1))
  );
  const value = JsonScanner.scan(text, 0).value;
  return {
    ...(value === undefined ? {} : { value }),
    markAt,
    open,
    ...(string === undefined ? {} : {
      string: { rest: Buffer.byteLength(text.slice(markAt, string.end), "utf8"), closed: true },
    }),
  };
}

Deno.test("JsonScanner says one JSON value exactly when JSON.parse does", async () => {
  await withTestSeed((seed) => {
    const reached = { valid: 0, invalid: 0, mutated: 0 };
    const mutation = fc.constantFrom("none", "cut", "drop", "insert", "append", "prepend");
    fc.assert(
      fc.property(jsonTextOfAbout(3000), mutation, fc.nat(), fc.nat(), (json, how, a, b) => {
        const { text } = json;
        const at = a % (text.length + 1);
        const junk = ["x", ",", "]", "}", '"', "\\", "\n", "0", "-", ".", "e", " ", "{", "\u0001"][
          b % 14
        ]!;
        const mutated = how === "none"
          ? text
          : how === "cut"
          ? text.slice(0, at)
          : how === "drop"
          ? text.slice(0, at) + text.slice(at + 1)
          : how === "insert"
          ? text.slice(0, at) + junk + text.slice(at)
          : how === "append"
          ? text + junk
          : junk + text;
        const expected = parses(mutated);
        reached[expected ? "valid" : "invalid"]++;
        if (how !== "none") reached.mutated++;
        const scan = JsonScanner.scan(mutated, at);
        assert.equal(scan.value !== undefined, expected, JSON.stringify(mutated.slice(0, 300)));
        if (expected) assert.equal(typeof scan.value === "string", true);
      }),
      { seed, numRuns: 600 },
    );
    assert.ok(reached.valid >= 100 && reached.invalid >= 100, JSON.stringify(reached));
  });
});

Deno.test("JsonScanner finds the same in any pieces as in one, and what a cut at the mark needs", async () => {
  await withTestSeed((seed) => {
    const reached = { inString: 0, deep: 0, closedBefore: 0 };
    fc.assert(
      fc.property(jsonTextOfAbout(20_000), fc.nat(), (json, a) => {
        const { text } = json;
        const markAt = a % (text.length + 1);
        const whole = JsonScanner.scan(text, markAt);
        assert.deepEqual(scanInPieces(text, markAt, seededRandom(a)), whole);
        assert.deepEqual(whole, expectedScan(text, spansOf(text), markAt));
        if (whole.string !== undefined) reached.inString++;
        if (whole.open.length >= 20) reached.deep++;
        if (whole.open.some((level) => level.before === level.total)) reached.closedBefore++;
      }),
      { seed, numRuns: 200 },
    );
    assert.ok(
      reached.inString >= 20 && reached.deep >= 10 && reached.closedBefore >= 20,
      JSON.stringify(reached),
    );
  });
});

Deno.test("JsonScanner facts golden: counts of the containers open at the mark, bytes left of its string", () => {
  const text = '{"rows": [{"id": 1, "name": "héllo"}, {"id": 2}], "more": true}';
  assert.deepEqual(JsonScanner.scan(text, text.indexOf("llo")), {
    value: "object",
    markAt: 31,
    open: [
      { kind: "object", before: 1, total: 2 },
      { kind: "array", before: 1, total: 2 },
      { kind: "object", before: 2, total: 2 },
    ],
    string: { rest: 3, closed: true },
  });
  // Never marked: no facts beyond the verdict.
  const scanner = new JsonScanner();
  scanner.push("[1, 2]");
  assert.deepEqual(scanner.end(), { value: "array", markAt: -1, open: [] });
  // Marked once only.
  scanner.mark();
  assert.throws(() => scanner.mark(), RangeError);
});

Deno.test("JsonScanner counts a container still open at the end as unknown", () => {
  const scanner = new JsonScanner();
  scanner.push('[{"a": "bc');
  scanner.mark();
  scanner.push("de");
  assert.deepEqual(scanner.end(), {
    markAt: 10,
    open: [{ kind: "array", before: 1 }, { kind: "object", before: 1 }],
    string: { rest: 2, closed: false },
  });
});

Deno.test("JsonScanner: what is not one JSON value", () => {
  const notOne = [
    "",
    "   ",
    '{"a": 1}\n{"a": 2}\n', // JSON lines
    "{ this is a log line }",
    "[1, 2] trailing",
    "\uFEFF[1]", // a byte order mark
    '"raw\ncontrol"',
    "[01]",
    "[1.]",
    "[-]",
    "[1e]",
    "5e258e89", // one exponent only
    "[1.5e2E3]",
    "[tru]",
    '{"a" 1}',
    "[1,]",
    '"\\x"',
    '"\\u12"',
  ];
  for (const text of notOne) {
    assert.equal(JsonScanner.scan(text, 0).value, undefined, JSON.stringify(text));
    assert.equal(parses(text), false, JSON.stringify(text));
  }
  const one: [string, string][] = [
    [" 1 ", "number"],
    ["-0.5e+3", "number"],
    ["\n\ttrue\r\n", "boolean"],
    ["null", "null"],
    ['"lone \ud800 half, pair \ud83d\ude00, escaped \\ud800"', "string"],
    ["[]", "array"],
    ["{}", "object"],
  ];
  for (const [text, kind] of one) assert.equal(JsonScanner.scan(text, 2).value, kind, text);
});

Deno.test(`JsonScanner goes ${MAX_JSON_DEPTH} levels deep and no deeper`, () => {
  const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
  assert.equal(JsonScanner.scan(nested(MAX_JSON_DEPTH), 5000).value, "array");
  assert.equal(JsonScanner.scan(nested(MAX_JSON_DEPTH), 5000).open.length, 5000);
  assert.equal(JsonScanner.scan(nested(MAX_JSON_DEPTH + 1), 5000).value, undefined);
});

Deno.test("JsonScanner holds a few numbers per level, not the text: a 64 MiB array of strings", () => {
  const scanner = new JsonScanner();
  scanner.push("[");
  scanner.mark();
  const piece = '"' + "x".repeat(1000) + '",';
  const chunk = piece.repeat(64);
  for (let i = 0; i < 1024; i++) scanner.push(chunk);
  scanner.push('"end"]');
  const scan = scanner.end();
  assert.equal(scan.value, "array");
  assert.deepEqual(scan.open, [{ kind: "array", before: 0, total: 64 * 1024 + 1 }]);
});
