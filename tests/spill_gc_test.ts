/**
 * `spillway conversation gc` and stored outputs: after a turn whose tool
 * spilled, the blob its cut refers to is kept, a blob no conversation
 * refers to is removed once older than the grace period (and than
 * `--older-than`), and so is a stale temporary file of an interrupted write.
 * The stored output stays readable through `read_tool_output` afterwards.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "../src/cli.ts";
import { BLOB_TEMP_PREFIX, FileBlobStore } from "../src/blobs/file_blob_store.ts";
import { captureCommandIo } from "../src/commands/command_io.ts";
import { parseConfig } from "../src/config/parse_config.ts";
import { createRuntime } from "../src/runtime/create_runtime.ts";
import { readToolOutput } from "../src/service/builtin/read_tool_output.ts";

const HOUR_MS = 60 * 60 * 1000;

Deno.test("conversation gc keeps referenced stored outputs and removes the others", async () => {
  const dir = await Deno.makeTempDir({ prefix: "spillway_gc_" });
  const workspace = join(dir, ".spillway");
  try {
    const output = "build line\n".repeat(50_000);
    const runtime = await createRuntime({
      workspace,
      config: parseConfig(`[conversation.tools.build]\nsize_threshold = "4KB"\nspill = true\n`),
      tools: [{
        name: "build",
        description: "Builds.",
        inputSchema: { type: "object" },
        run: () => Promise.resolve(output),
      }],
      noticeSink: { notice: () => {} },
      provider: ({ cycle }) =>
        Promise.resolve(
          cycle === 0
            ? { text: "Building.", toolCalls: [{ id: "b1", name: "build", arguments: {} }] }
            : { text: "Built.", toolCalls: [] },
        ),
    });
    try {
      assert.equal((await runtime.query("build it")).status, "finished");
    } finally {
      await runtime.close();
    }
    const store = new FileBlobStore(join(workspace, "blobs"));
    const [kept] = await store.list();
    assert.ok(kept !== undefined);
    const orphan = await store.put("an output whose conversation was deleted");
    const temp = join(workspace, "blobs", `${BLOB_TEMP_PREFIX}interrupted`);
    await Deno.writeTextFile(temp, "half");
    // Two days on, everything is past the one-hour grace period.
    const later = new Date(Date.now() + 48 * HOUR_MS);
    const gc = async (...args: string[]) => {
      const io = captureCommandIo({ cwd: dir, now: () => later });
      const code = await main(["conversation", "gc", ...args], io);
      return { code, out: io.out(), err: io.err() };
    };
    const orphanFile = join(".spillway", "blobs", orphan.ref.slice("sha256:".length));

    const young = await gc("--older-than", "3");
    assert.equal(
      young.out,
      "No full-result files older than 3 days in .spillway/results.\n" +
        "No stored outputs older than 3 days that no conversation refers to in .spillway/blobs.\n",
    );
    const dry = await gc("--older-than", "0", "--dry-run");
    assert.equal(dry.code, 0);
    assert.equal(
      dry.out,
      "No full-result files in .spillway/results.\n" +
        `would remove ${orphanFile}\n` +
        "Dry run: 1 stored output that no conversation refers to (40 B) and 1 unfinished write " +
        "would be removed.\n",
    );
    const done = await gc("--older-than", "0");
    assert.equal(
      done.out,
      "No full-result files in .spillway/results.\n" +
        "Removed 1 stored output that no conversation refers to (40 B) and 1 unfinished write " +
        "from .spillway/blobs.\n",
    );
    assert.deepEqual((await store.list()).map((blob) => blob.ref), [kept.ref]);
    await assert.rejects(() => Deno.stat(temp), Deno.errors.NotFound);
    const read = readToolOutput(store);
    const context = { signal: new AbortController().signal, cwd: dir };
    assert.equal(await read.run({ ref: kept.ref, offset: 0, length: 11 }, context), "build line\n");
    const gone = await read.run({ ref: orphan.ref }, context);
    assert.ok(typeof gone !== "string" && gone.isError === true);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
