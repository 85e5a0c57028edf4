/**
 * Each client's conversations are recorded apart: through `spillway serve
 * --http` with clients of their own tokens, a session records into a
 * conversation whose id names its client (`….alice`), holding that
 * client's calls only; the notice of a cut names the client, and
 * `conversation ls` lists each conversation's client (table and JSON).
 */

import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { textOf } from "./gateway_fixtures.ts";
import { clientOf, endSession, spawnClientsServe } from "./_clients.ts";
import { finished, spawnSpillway } from "./_cli.ts";

const CUT_BIG = `[conversation.tools.big]\nsource = "mcp.conf"\nsize_threshold = "1KB"\n`;

/** The ids of the workspace's conversations, sorted. */
async function conversations(workspace: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const entry of Deno.readDir(join(workspace, "conversations"))) ids.push(entry.name);
  return ids.sort();
}

Deno.test("serve --http: each client's conversation names it, so do its notices and conversation ls", async () => {
  await using serve = await spawnClientsServe(CUT_BIG);
  const url = serve.url as URL;
  const alice = await clientOf(url, "alice");
  const bob = await clientOf(url, "bob");
  const aliceNotice = serve.stderr.waitFor(/^big: .* to the assistant of client alice \(.*$/);
  const cut = textOf(await alice.callTool({ name: "big", arguments: { bytes: 5_000 } }));
  assert.match(cut, /\[truncated, /);
  assert.equal(
    (await aliceNotice)[0],
    "big: sent 1.0 KB of 4.8 KB to the assistant of client alice (size_threshold)",
  );
  const bobNotice = serve.stderr.waitFor(/^big: .* to the assistant of client bob \(.*$/);
  await bob.callTool({ name: "big", arguments: { bytes: 7_000 } });
  await bob.callTool({ name: "big", arguments: { bytes: 6_000 } });
  await bobNotice;
  await endSession(alice);
  await endSession(bob);

  const ids = await conversations(serve.workspace);
  assert.equal(ids.length, 2, ids.join(", "));
  const [aliceId, bobId] = [
    ids.find((id) => id.endsWith(".alice")),
    ids.find((id) => id.endsWith(".bob")),
  ];
  assert.match(aliceId ?? "", /^\d{8}-\d{6}-[0-9a-f]{6}\.alice$/);
  assert.match(bobId ?? "", /^\d{8}-\d{6}-[0-9a-f]{6}\.bob$/);
  // Each holds its own client's calls, and only those.
  const sizes = async (id: string) => {
    const lines =
      (await Deno.readTextFile(join(serve.workspace, "conversations", id, "events.jsonl")))
        .trim().split("\n").map((line) => JSON.parse(line));
    return lines.filter((event) => event.type === "tool_call_request")
      .map((event) => event.arguments.bytes);
  };
  assert.deepEqual(await sizes(aliceId ?? ""), [5_000]);
  assert.deepEqual(await sizes(bobId ?? ""), [7_000, 6_000]);

  const cwd = dirname(serve.workspace);
  const ls = await finished(
    spawnSpillway(["conversation", "ls", "--workspace", serve.workspace], { cwd }),
  );
  assert.equal(ls.code, 0, ls.stderr);
  const [header, ...rows] = ls.stdout.split("\n").map((line) => line.trim());
  assert.match(header ?? "", /^ID +CLIENT +PROTOCOL +STARTED \(UTC\)/);
  assert.ok(rows.some((row) => row.startsWith(`${aliceId} `) && / alice /.test(row)), ls.stdout);
  assert.ok(rows.some((row) => row.startsWith(`${bobId} `) && / bob /.test(row)), ls.stdout);
  const json = await finished(
    spawnSpillway(["conversation", "ls", "--workspace", serve.workspace, "--json"], { cwd }),
  );
  const listed = JSON.parse(json.stdout).conversations as { id: string; client: string }[];
  assert.deepEqual(
    Object.fromEntries(listed.map((c) => [c.id, c.client])),
    { [aliceId ?? ""]: "alice", [bobId ?? ""]: "bob" },
  );
});
