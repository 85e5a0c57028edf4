import assert from "node:assert/strict";
import { parseCfgAssignment } from "./_cfg_assignment.ts";

function documentOf(assignment: string): unknown {
  const parsed = parseCfgAssignment(assignment);
  assert.ok(parsed.ok, `expected ${assignment} to parse`);
  return JSON.parse(JSON.stringify(parsed.document));
}

Deno.test("parseCfgAssignment() reads TOML values and falls back to bare strings", () => {
  assert.deepEqual(documentOf("a.b=10"), { a: { b: 10 } });
  assert.deepEqual(documentOf("a.b=1MB"), { a: { b: "1MB" } });
  assert.deepEqual(documentOf('a.b="1MB"'), { a: { b: "1MB" } });
  assert.deepEqual(documentOf('a.b=["cargo", "test"]'), { a: { b: ["cargo", "test"] } });
  assert.deepEqual(documentOf("a.b = ask "), { a: { b: "ask" } });
  assert.deepEqual(documentOf("a.b="), { a: { b: "" } });
  assert.deepEqual(documentOf("a.msg=stop = now"), { a: { msg: "stop = now" } });
});

Deno.test("parseCfgAssignment() handles quoted key segments, even with '=' inside", () => {
  assert.deepEqual(documentOf("conversation.tools.'*'.run=ask"), {
    conversation: { tools: { "*": { run: "ask" } } },
  });
  assert.deepEqual(documentOf(`t."a=b".run=ask`), { t: { "a=b": { run: "ask" } } });
});

Deno.test("parseCfgAssignment() reads a bare * segment as '*', the form a shell leaves", () => {
  // What `--cfg conversation.tools.'*'.size_threshold=1MB` becomes once a shell ate its quotes.
  const star = { conversation: { tools: { "*": { size_threshold: "1MB" } } } };
  assert.deepEqual(documentOf("conversation.tools.*.size_threshold=1MB"), star);
  assert.deepEqual(documentOf("conversation.tools . * .size_threshold=1MB"), star);
  assert.deepEqual(documentOf("*.x=1"), { "*": { x: 1 } });
  assert.deepEqual(documentOf(`t."*x".run=ask`), { t: { "*x": { run: "ask" } } });
  assert.equal(parseCfgAssignment("conversation.tools.x*.run=ask").ok, false);
  assert.equal(parseCfgAssignment("conversation.tools.**.run=ask").ok, false);
});

Deno.test("parseCfgAssignment() does not let a value smuggle in extra keys", () => {
  assert.deepEqual(documentOf("a.b=1\nc = 2"), { a: { b: "1\nc = 2" } });
});

Deno.test("parseCfgAssignment() keeps __proto__ as an ordinary key", () => {
  const parsed = parseCfgAssignment("__proto__.x=1");
  assert.ok(parsed.ok);
  assert.deepEqual(Object.keys(parsed.document), ["__proto__"]);
  assert.equal(({} as Record<string, unknown>)["x"], undefined);
});

Deno.test("parseCfgAssignment() explains a missing '=' and a bad key", () => {
  assert.deepEqual(parseCfgAssignment("run"), {
    ok: false,
    error: "--cfg run: expected key=value (e.g. --cfg 'conversation.tools.*.run=ask')",
  });
  assert.deepEqual(parseCfgAssignment("a..b=1"), {
    ok: false,
    error: "--cfg a..b=1: invalid key `a..b` " +
      "(expected a dotted key path such as conversation.tools.*.run)",
  });
});

Deno.test("parseCfgAssignment() keeps its messages on one line", () => {
  const parsed = parseCfgAssignment("a\nb");
  assert.ok(!parsed.ok);
  assert.equal(
    parsed.error,
    "--cfg a\\nb: expected key=value (e.g. --cfg 'conversation.tools.*.run=ask')",
  );
});
