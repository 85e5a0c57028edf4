/**
 * The README's embedding example under plain `node`, importing spillway
 * from the npm package installed into an empty folder (a PATH without
 * deno): the cut reaches the model, the notice reaches stderr, and the
 * conversation records the cut response.
 */

import assert from "node:assert/strict";
import { installPackage, PACKAGE_REQUIRED, PACKAGE_TARBALL } from "./_installed_package.ts";
import { join } from "./_paths.ts";

const ROOT = join(import.meta.dirname!, "..");

/** The README's embedding example, as written there. */
async function readmeExample(): Promise<string> {
  const readme = await Deno.readTextFile(join(ROOT, "README.md"));
  const block = /<!-- embedding-example -->\s*```ts\n([\s\S]*?)```\s*<!-- \/embedding-example -->/
    .exec(readme)?.[1];
  assert.ok(block, "README has no embedding example");
  return block;
}

Deno.test({
  name:
    "the README's embedding example runs under node from the installed package: cut, notice, record",
  ignore: PACKAGE_TARBALL === undefined && !PACKAGE_REQUIRED,
  async fn() {
    const installed = await installPackage();
    try {
      const program = join(installed.dir, "example.mjs");
      await Deno.writeTextFile(program, await readmeExample());
      const output = await new Deno.Command(join(installed.env.PATH!, "node"), {
        args: [program],
        cwd: installed.dir,
        env: { ...installed.env, XDG_CONFIG_HOME: installed.dir },
        clearEnv: true,
      }).output();
      const stdout = new TextDecoder().decode(output.stdout);
      const stderr = new TextDecoder().decode(output.stderr);
      assert.equal(output.code, 0, stderr);
      const [, bytes, location] =
        /^I got (\d+) bytes back\. 1 cut; recorded in (.*events\.jsonl)\n$/
          .exec(stdout) ?? [];
      assert.ok(location !== undefined, stdout);
      assert.ok(Number(bytes) < 300_000, `the model got ${bytes} bytes: not cut`);
      assert.equal(stderr, "shout: sent 256.0 KB of 585.9 KB to the assistant (size_threshold)\n");
      const events = (await Deno.readTextFile(location)).trim().split("\n").map((line) =>
        JSON.parse(line)
      );
      const response = events.find((event) => event.type === "tool_call_response");
      assert.ok(response.content.endsWith("\n... [truncated, 585.9 KB → 256.0 KB]"));
      assert.equal(new TextEncoder().encode(response.content).length, 256 * 1024);
    } finally {
      await installed.remove();
    }
  },
});
