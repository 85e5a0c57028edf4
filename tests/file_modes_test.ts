/**
 * Files only their owner reads: what spillway writes in a workspace
 * (conversations and their `writer.lock`, full-result files, spilled
 * outputs, spool files) is 0600 in 0700 folders, the workspace folder
 * included, whichever part creates it first and whatever the umask (these
 * runs use umask 000, the most permissive). A workspace an older spillway
 * left at 0755 is made private once, and spillway says so once.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { CLI } from "./_cli.ts";
import { serveStdio } from "./_serve_stdio.ts";

const CONFIG = `
[conversation.tools.big]
source = "local"
command = ["sh", "-c", "head -c 3000000 /dev/zero | tr '\\\\0' x"]

[conversation.tools.kept]
source = "local"
command = ["echo", "kept in the blob store"]
spill = true
`;

const SCRIPT = `[[cycles]]
tool_calls = [
  { id = "call_1", name = "big", arguments = {} },
  { id = "call_2", name = "kept", arguments = {} },
]

[[cycles]]
text = "done"
`;

/** Runs `spillway query` under umask 000 (config and script outside the workspace). */
async function queryUnderUmask000(dir: string, workspace: string) {
  const output = await new Deno.Command("sh", {
    args: [
      "-c",
      'umask 000; exec "$0" "$@"',
      Deno.execPath(),
      "run",
      "--quiet",
      "-A",
      CLI,
      "query",
      "--workspace",
      workspace,
      "--config",
      join(dir, "config.toml"),
      "--script",
      join(dir, "script.toml"),
      "go",
    ],
    cwd: dir,
    env: { XDG_CONFIG_HOME: join(dir, "no-user-config") },
    stdin: "null",
  }).output();
  return { code: output.code, stderr: new TextDecoder().decode(output.stderr) };
}

/** Every entry under `root` (itself included) with its permission bits, by relative path. */
async function modes(root: string): Promise<Map<string, { dir: boolean; mode: number }>> {
  const found = new Map<string, { dir: boolean; mode: number }>();
  const walk = async (path: string, shown: string) => {
    const info = await Deno.lstat(path);
    found.set(shown, { dir: info.isDirectory, mode: (info.mode ?? 0) & 0o777 });
    if (!info.isDirectory) return;
    for await (const entry of Deno.readDir(path)) {
      await walk(join(path, entry.name), shown === "." ? entry.name : `${shown}/${entry.name}`);
    }
  };
  await walk(root, ".");
  return found;
}

/** Asserts every folder is 0700 and every file 0600; returns the paths seen. */
async function assertPrivate(workspace: string): Promise<string[]> {
  const seen = await modes(workspace);
  for (const [path, { dir, mode }] of seen) {
    assert.equal(mode.toString(8), dir ? "700" : "600", `${path} (${dir ? "folder" : "file"})`);
  }
  return [...seen.keys()];
}

const linuxLike = Deno.build.os !== "windows";

Deno.test({
  name: "query under umask 000 writes every file 0600 in 0700 folders, the workspace included",
  ignore: !linuxLike,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "spillway_modes_" });
    try {
      await Deno.writeTextFile(join(dir, "config.toml"), CONFIG);
      await Deno.writeTextFile(join(dir, "script.toml"), SCRIPT);
      const workspace = join(dir, "deep", "ws");
      const run = await queryUnderUmask000(dir, workspace);
      assert.equal(run.code, 0, run.stderr);
      const paths = await assertPrivate(workspace);
      // Every kind of file was written, so every kind was checked.
      const kinds = ["events.jsonl", "writer.lock", "results/", "blobs/"];
      for (const kind of kinds) {
        assert.ok(paths.some((path) => path.includes(kind)), `no ${kind} in ${paths.join(", ")}`);
      }
      assert.equal((await Deno.stat(join(dir, "deep"))).mode! & 0o777, 0o700, "parents made too");
      assert.doesNotMatch(run.stderr, /private/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "serve --stdio under umask 000 records its conversation 0600 in 0700 folders",
  ignore: !linuxLike,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "spillway_modes_" });
    try {
      const config = join(dir, "config.toml");
      await Deno.writeTextFile(config, CONFIG);
      // The helper spawns spillway itself: the umask is this process's, for that child only.
      const { client } = await serveStdioUnderUmask(dir, config);
      try {
        await client.callTool({ name: "big", arguments: {} });
        await client.callTool({ name: "kept", arguments: {} });
      } finally {
        await client.close();
      }
      const paths = await assertPrivate(join(dir, "ws"));
      assert.ok(paths.some((path) => path.endsWith("events.jsonl")), paths.join(", "));
      assert.ok(paths.some((path) => path.startsWith("blobs/")), paths.join(", "));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

/** `serveStdio`, with Deno started through `sh -c 'umask 000; exec …'`. */
async function serveStdioUnderUmask(dir: string, config: string) {
  const shim = join(dir, "deno-umask-000");
  await Deno.writeTextFile(
    shim,
    `#!/bin/sh\numask 000\nexec ${JSON.stringify(Deno.execPath())} "$@"\n`,
  );
  await Deno.chmod(shim, 0o755);
  return await serveStdio(dir, config, {}, { denoPath: shim });
}

Deno.test({
  name:
    "a workspace an older spillway left readable by others is made private once, saying so once",
  ignore: !linuxLike,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "spillway_modes_" });
    try {
      await Deno.writeTextFile(join(dir, "config.toml"), CONFIG);
      await Deno.writeTextFile(join(dir, "script.toml"), SCRIPT);
      const workspace = join(dir, "ws");
      // What an older spillway left: 0755 folders, a 0644 conversation.
      const old = join(workspace, "conversations", "20261130-120000-old");
      await Deno.mkdir(old, { recursive: true });
      await Deno.writeTextFile(join(old, "events.jsonl"), "");
      await Deno.mkdir(join(workspace, "results"));
      for (
        const path of [workspace, join(workspace, "conversations"), old, join(workspace, "results")]
      ) {
        await Deno.chmod(path, 0o755);
      }
      await Deno.chmod(join(old, "events.jsonl"), 0o644);
      const first = await queryUnderUmask000(dir, workspace);
      assert.equal(first.code, 0, first.stderr);
      assert.equal(
        first.stderr.split("\n").filter((line) => line.includes("private")).join("\n"),
        "spillway: made conversations (was 0755), results (was 0755) in ws private (0700): " +
          "what tools returned there was readable by anyone on this machine",
      );
      const seen = await modes(workspace);
      assert.equal(seen.get("conversations")?.mode, 0o700);
      assert.equal(seen.get("results")?.mode, 0o700);
      // The workspace itself may be a folder the user chose: left as it was.
      assert.equal(seen.get(".")?.mode, 0o755);
      const second = await queryUnderUmask000(dir, workspace);
      assert.equal(second.code, 0, second.stderr);
      assert.doesNotMatch(second.stderr, /private/, "said once");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
