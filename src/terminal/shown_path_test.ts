import assert from "node:assert/strict";
import { shownPath } from "./shown_path.ts";

Deno.test("shownPath() shows a path inside the working directory relative to it", () => {
  assert.equal(shownPath("/w", "/w/.spillway/conversations/c1"), ".spillway/conversations/c1");
  assert.equal(shownPath("/w/", "/w/a.txt"), "a.txt");
  // Folders whose names start with two dots are inside, not above.
  assert.equal(shownPath("/w", "/w/..cache/ws"), "..cache/ws");
  assert.equal(shownPath("/w", "/w/..."), "...");
});

Deno.test("shownPath() shows the working directory itself and anything outside it whole", () => {
  assert.equal(shownPath("/w", "/w"), "/w");
  assert.equal(shownPath("/w", "/"), "/");
  assert.equal(shownPath("/w", "/elsewhere/ws"), "/elsewhere/ws");
  assert.equal(shownPath("/w/sub", "/w/other"), "/w/other");
  assert.equal(shownPath("/w", "/wide/x"), "/wide/x");
});
