import assert from "node:assert/strict";
import { join } from "node:path";
import { FullResultFiles } from "./full_result_files.ts";

Deno.test("FullResultFiles writes exactly the UTF-8 of the text, pairs across chunks included", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // Odd-length prefixes shift every surrogate pair across the chunk boundaries.
    for (const prefix of ["", "a", "ab"]) {
      const files = new FullResultFiles(dir);
      const text = prefix + "😀日本a".repeat(300_000);
      const path = files.save(`c${prefix}`, text);
      assert.equal(await Deno.readTextFile(path), text);
      assert.equal(files.save(`c${prefix}`, "ignored"), path, "saved once per call");
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("FullResultFiles makes call ids safe file names", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = new FullResultFiles(dir).save("../../etc/passwd", "x");
    assert.equal(path, join(dir, ".._.._etc_passwd.txt"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
