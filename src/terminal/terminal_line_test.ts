import assert from "node:assert/strict";
import { boundLine, DISPLAY_LINE_BYTES } from "./terminal_line.ts";

Deno.test("boundLine() cuts a 10 MB line to the display bound and counts the rest", () => {
  const line = "y".repeat(10 * 1024 * 1024);
  const shown = boundLine(line);
  assert.equal(shown, `${"y".repeat(DISPLAY_LINE_BYTES)}… ${10 * 1024 * 1024 - 1024} more bytes`);
});

Deno.test("boundLine() never splits a character and counts bytes, not characters", () => {
  assert.equal(boundLine("éééé", 5), "éé… 4 more bytes");
  assert.equal(boundLine("🙂🙂", 5), "🙂… 4 more bytes");
  assert.equal(boundLine("éé", 4), "éé");
});
