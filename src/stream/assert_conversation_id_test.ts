import assert from "node:assert/strict";
import { assertConversationId } from "./assert_conversation_id.ts";

Deno.test("assertConversationId() accepts path-safe ids", () => {
  for (const id of ["a", "20261129-225600-ab12cd", "A.b_c-9", ".hidden", "x".repeat(255)]) {
    assertConversationId(id);
  }
});

Deno.test("assertConversationId() rejects empty, dot, dot-dot, separators and other characters", () => {
  for (
    const id of [
      "",
      ".",
      "..",
      "a..b",
      "../a",
      "a/b",
      "a\\b",
      "a b",
      "a:b",
      "ü",
      "a\n",
      "x".repeat(256),
    ]
  ) {
    assert.throws(() => assertConversationId(id), TypeError, JSON.stringify(id));
  }
});

Deno.test("assertConversationId() quotes the id and says what is accepted", () => {
  assert.throws(() => assertConversationId("a/b"), {
    name: "TypeError",
    message: 'conversation id "a/b" is invalid: use 1–255 characters from A–Z a–z 0–9 . _ - ' +
      '(not "." and without "..")',
  });
});
