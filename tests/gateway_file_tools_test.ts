/**
 * The builtin file tools, when a gateway is configured to serve them, never
 * reach its workspace (every client's conversations and stored outputs),
 * even when the workspace is under the working folder: not by its path, not
 * through `..`, not through a symlink, and a listing does not show it.
 */

import assert from "node:assert/strict";
import { dirname, join, relative } from "node:path";
import { startHttpGateway, textOf, upstreamConfig } from "./gateway_fixtures.ts";
import { clientOf, endSession, spawnClientsServe } from "./_clients.ts";

const FILE_TOOLS = `
[conversation.tools.fs_read_file]
spill = false

[conversation.tools.fs_list_files]
spill = false
`;

/** The first file below `dir`, found by walking it. */
async function firstFile(dir: string): Promise<string | undefined> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isFile) return path;
    if (entry.isDirectory) {
      const found = await firstFile(path);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

Deno.test("serve --http: fs_read_file and fs_list_files never reach the workspace under the working folder", async () => {
  await using serve = await spawnClientsServe(FILE_TOOLS);
  const url = serve.url as URL;
  const cwd = dirname(serve.workspace);
  const alice = await clientOf(url, "alice");
  // A call of alice's is recorded in the workspace; bob goes after it.
  assert.equal(
    textOf(await alice.callTool({ name: "test_simple_text", arguments: {} })).length > 0,
    true,
  );
  await endSession(alice);
  const recorded = await firstFile(join(serve.workspace, "conversations"));
  assert.ok(recorded !== undefined, "alice's call is recorded");
  const inside = relative(cwd, recorded);
  await Deno.symlink(serve.workspace, join(cwd, "to-ws"));
  await Deno.symlink(recorded, join(cwd, "recorded"));
  const bob = await clientOf(url, "bob");
  const { tools } = await bob.listTools();
  assert.ok(tools.some((tool) => tool.name === "fs_read_file"), "served, as configured");
  // The working folder itself is read: the config beside the workspace.
  const config = await bob.callTool({ name: "fs_read_file", arguments: { path: "config.toml" } });
  assert.match(textOf(config), /\[serve\.tokens\.alice\]/);
  for (
    const path of [
      inside,
      `./to-ws/../${inside}`,
      join("to-ws", relative(serve.workspace, recorded)),
      "recorded",
      recorded,
    ]
  ) {
    const read = await bob.callTool({ name: "fs_read_file", arguments: { path } });
    assert.equal(read.isError, true, path);
    assert.equal(
      textOf(read),
      `path \`${path}\` is in spillway's workspace, which the file tools do not reach`,
    );
  }
  const walked = textOf(
    await bob.callTool({ name: "fs_list_files", arguments: { recursive: true } }),
  );
  assert.match(walked, /^config\.toml$/m);
  const workspaceName = relative(cwd, serve.workspace);
  assert.ok(!walked.split("\n").some((line) => line.startsWith(workspaceName)), walked);
  const listed = await bob.callTool({ name: "fs_list_files", arguments: { path: "to-ws" } });
  assert.equal(listed.isError, true);
  await endSession(bob);
});

Deno.test("a gateway whose working folder is its workspace hides the workspace's recorded parts from the file tools", async () => {
  await using gw = await startHttpGateway({
    config: upstreamConfig(`[conversation.tools.fs_read_file]\nspill = false\n`),
  });
  const client = await gw.client();
  await client.callTool({ name: "test_simple_text", arguments: {} });
  await Deno.writeTextFile(join(gw.workspace, "here.txt"), "readable");
  const recorded = await firstFile(join(gw.workspace, "conversations"));
  assert.ok(recorded !== undefined);
  const read = (path: string) => client.callTool({ name: "fs_read_file", arguments: { path } });
  assert.equal(textOf(await read("here.txt")), "readable");
  const path = relative(gw.workspace, recorded);
  const refused = await read(path);
  assert.equal(
    textOf(refused),
    `path \`${path}\` is in spillway's workspace, which the file tools do not reach`,
  );
});
