import assert from "node:assert/strict";
import { formatTable } from "./_table.ts";

Deno.test("formatTable() pads columns to the widest cell and trims line ends", () => {
  assert.equal(
    formatTable([["TOOL", "VALUE", "FROM"], ["'*'", "256KB", "default"], ["cargo_test", "", ""]]),
    "  TOOL         VALUE   FROM\n  '*'          256KB   default\n  cargo_test\n",
  );
});

Deno.test("formatTable() counts code points, not UTF-16 units", () => {
  assert.equal(formatTable([["😀", "x"], ["ab", "y"]], { indent: 0, gap: 1 }), "😀  x\nab y\n");
});
