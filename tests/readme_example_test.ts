/**
 * Runs the README's embedding example as a user would: as a program of its
 * own, with its `"spillway"` import pointed at the repository's src/mod.ts
 * (tests/package_readme_node_test.ts runs it under node from the package). Its types are not checked
 * here: `deno task test` (`deno test --doc`) already type-checks the
 * README's TypeScript block with the rest of the suite, where checking it
 * costs nothing more; a check of its own repeats the whole of `src/` in a
 * program of its own (half a minute on 2 cores).
 */
import assert from "node:assert/strict";
import { join, toFileUrl } from "./_paths.ts";

const ROOT = join(import.meta.dirname!, "..");

Deno.test("the README's embedding example runs and caps the oversized result", async () => {
  const readme = await Deno.readTextFile(join(ROOT, "README.md"));
  const block = /<!-- embedding-example -->\s*```ts\n([\s\S]*?)```\s*<!-- \/embedding-example -->/
    .exec(readme)?.[1];
  assert.ok(block, "README has no embedding example");
  assert.ok(block.split("\n").length <= 30, "the example should stay about 20 lines");
  const dir = await Deno.makeTempDir();
  try {
    const program = join(dir, "example.ts");
    await Deno.writeTextFile(
      program,
      block.replace(
        'from "spillway"',
        `from ${JSON.stringify(toFileUrl(join(ROOT, "src", "mod.ts")))}`,
      ),
    );
    const output = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-check",
        "--config",
        join(ROOT, "deno.json"),
        "--allow-read",
        "--allow-write",
        "--allow-run",
        "--allow-env",
        program,
      ],
      cwd: dir,
      env: { XDG_CONFIG_HOME: dir, NO_COLOR: "1" },
    }).output();
    const stdout = new TextDecoder().decode(output.stdout);
    const stderr = new TextDecoder().decode(output.stderr);
    assert.equal(output.code, 0, stderr);
    assert.match(stdout, /^I got \d+ bytes back\. 1 cut; recorded in .*events\.jsonl\n$/);
    assert.match(
      stderr,
      /shout: sent 256\.0 KB of 585\.9 KB to the assistant \(size_threshold\)\n/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
