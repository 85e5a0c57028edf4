/**
 * The upstream guarantees seen by a `spillway serve` client: a call the
 * upstream server never answers ends at its tool's timeout, and a server
 * that exits mid-call loses that call, is started again by the next one,
 * and the gateway says so once through its `warn`.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO } from "./_cli.ts";
import { startHttpGateway, textOf } from "./gateway_fixtures.ts";

const SERVER = join(REPO, "tests", "fixtures", "upstream", "scripted_server.ts");

const CONFIG = `[providers.mcp.flaky]
type = "stdio"
command = ${JSON.stringify(Deno.execPath())}
arguments = ${JSON.stringify(["run", "--quiet", SERVER, "--quiet"])}

[conversation.tools.wait]
timeout = 0.5
`;

Deno.test("serve: an unanswered call times out; a crash is lost, restarted, and warned about once", async () => {
  const warnings: string[] = [];
  await using served = await startHttpGateway({
    config: CONFIG,
    gateway: { warn: (message) => warnings.push(message) },
  });
  const client = await served.client();
  const waited = await client.callTool({ name: "wait", arguments: {} });
  assert.deepEqual([waited.isError, textOf(waited)], [true, "timed out after 0.5s"]);

  const crashed = await client.callTool({ name: "crash", arguments: {} });
  assert.deepEqual([crashed.isError, textOf(crashed)], [
    true,
    "tool call lost: upstream server mcp.flaky exited (code 3) during the call",
  ]);
  for (const text of ["back", "still back"]) {
    const echoed = await client.callTool({ name: "echo", arguments: { text } });
    assert.deepEqual([echoed.isError ?? false, textOf(echoed)], [false, text]);
  }
  assert.deepEqual(warnings, ["upstream server mcp.flaky exited (code 3); starting it again"]);
});
