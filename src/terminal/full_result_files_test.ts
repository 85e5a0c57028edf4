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
    const files = new FullResultFiles(dir);
    assert.equal(files.save("../../etc/passwd", "x"), join(dir, "_._.._etc_passwd.txt"));
    assert.equal(files.save(".env", "x"), join(dir, "_env.txt"), "not a hidden file");
    // Past the 255-byte name limit, and two ids alike in their first 64 characters.
    const long = "c".repeat(1000);
    assert.equal(files.save(`${long}1`, "one"), join(dir, `${"c".repeat(64)}.txt`));
    assert.equal(files.save(`${long}2`, "two"), join(dir, `${"c".repeat(64)}-2.txt`));
    assert.equal(await Deno.readTextFile(join(dir, `${"c".repeat(64)}-2.txt`)), "two");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
