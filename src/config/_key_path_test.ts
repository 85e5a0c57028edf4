import assert from "node:assert/strict";
import { formatKeyPath, parseKeyPath, scanKeyPath } from "./_key_path.ts";

Deno.test("parseKeyPath() reads bare, literal and basic segments", () => {
  assert.deepEqual(parseKeyPath("conversation.tools.'*'.run"), [
    "conversation",
    "tools",
    "*",
    "run",
  ]);
  assert.deepEqual(parseKeyPath(" a . \"b.c\" . 'd e' "), ["a", "b.c", "d e"]);
  assert.deepEqual(parseKeyPath('"tab\\there\\u00e9"'), ["tab\there\u00e9"]);
});

Deno.test("parseKeyPath() rejects malformed keys", () => {
  for (const bad of ["", "a..b", "a.", ".a", "a b", "'open", '"bad\\q"', "a.*"]) {
    assert.equal(parseKeyPath(bad), undefined, bad);
  }
});

Deno.test("scanKeyPath() stops before what follows the key", () => {
  const scanned = scanKeyPath("  size_threshold = 1", 0);
  assert.deepEqual(scanned, { segments: ["size_threshold"], end: 16 });
});

Deno.test("formatKeyPath() quotes only segments that need it", () => {
  assert.equal(formatKeyPath(["conversation", "tools", "*", "run"]), "conversation.tools.'*'.run");
  assert.equal(formatKeyPath(["a.b", "it's", "x\n"]), `'a.b'."it's"."x\\n"`);
});

Deno.test("formatKeyPath() round-trips through parseKeyPath()", () => {
  const segments = ["plain", "with space", "dot.ted", "quote'd", 'dq"', "*", "ünï"];
  assert.deepEqual(parseKeyPath(formatKeyPath(segments)), segments);
});
