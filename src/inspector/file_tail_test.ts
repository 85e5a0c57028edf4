import assert from "node:assert/strict";
import { join } from "node:path";
import { FileTail } from "./file_tail.ts";

async function withDir(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir();
  try {
    await body(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("FileTail waits for a missing file, then reads whole lines as they are appended", async () => {
  await withDir(async (dir) => {
    const path = join(dir, "inspect.jsonl");
    const tail = new FileTail(path);
    assert.deepEqual(await tail.read(), { lines: [], restarted: false, missing: true });
    await Deno.writeTextFile(path, "one\ntwo\nthr");
    assert.deepEqual(await tail.read(), {
      lines: ["one", "two"],
      restarted: false,
      missing: false,
    });
    assert.deepEqual((await tail.read()).lines, [], "nothing new");
    await Deno.writeTextFile(path, "ee\n", { append: true });
    assert.deepEqual((await tail.read()).lines, ["three"]);
  });
});

Deno.test("FileTail keeps a character split across two appends whole", async () => {
  await withDir(async (dir) => {
    const path = join(dir, "inspect.jsonl");
    const bytes = new TextEncoder().encode("naïve ✓\n");
    await Deno.writeFile(path, bytes.subarray(0, 3)); // "na" and half of "ï"
    const tail = new FileTail(path);
    assert.deepEqual((await tail.read()).lines, []);
    await Deno.writeFile(path, bytes.subarray(3), { append: true });
    assert.deepEqual((await tail.read()).lines, ["naïve ✓"]);
  });
});

Deno.test("FileTail starts over when the file is cut shorter or replaced by a new run", async () => {
  await withDir(async (dir) => {
    const path = join(dir, "inspect.jsonl");
    await Deno.writeTextFile(path, "first run, line 1\nfirst run, line 2\n");
    const tail = new FileTail(path);
    assert.equal((await tail.read()).lines.length, 2);
    // `query --inspect FILE` truncates the file it writes.
    await Deno.writeTextFile(path, "second run\n");
    assert.deepEqual(await tail.read(), {
      lines: ["second run"],
      restarted: true,
      missing: false,
    });
    // A file written elsewhere and moved in place is another file, even when longer.
    const other = join(dir, "other.jsonl");
    await Deno.writeTextFile(other, "third run, a longer first line\nline 2\n");
    await Deno.rename(other, path);
    assert.deepEqual(await tail.read(), {
      lines: ["third run, a longer first line", "line 2"],
      restarted: true,
      missing: false,
    });
    await Deno.remove(path);
    assert.deepEqual(await tail.read(), { lines: [], restarted: true, missing: true });
  });
});
