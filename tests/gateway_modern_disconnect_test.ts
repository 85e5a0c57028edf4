/**
 * A 2026-07-28 client cancels a call by closing its request. Deno's HTTP
 * server notices a closed connection only when it writes to it, so a call
 * whose answer has not begun would run on, upstream too: `serve --http`
 * answers calls with a stream that carries a comment every second, and the
 * first one after the client left ends the call. Three calls given up at
 * once, raw, are all cancelled upstream and recorded as such.
 */

import assert from "node:assert/strict";
import { spawnHttpServe } from "./gateway_fixtures.ts";
import { recordedEvents } from "./_input_rounds.ts";
import { RawMcpSession } from "./_raw_mcp_session.ts";

const CONFIG = `[providers.mcp.echo]
type = "stdio"
command = ${JSON.stringify(Deno.execPath())}
arguments = ["run", "--quiet", "--allow-env", ${
  JSON.stringify(new URL("./fixtures/postgres/echo_upstream.ts", import.meta.url).pathname)
}]
`;

Deno.test("serve --http: three 2026-07-28 calls given up at once are cancelled upstream, and recorded so", async () => {
  await using serve = await spawnHttpServe(["--no-auth"], { config: CONFIG });
  const url = serve.url as URL;
  // --no-auth: any bearer passes.
  const probe = RawMcpSession.modern(url, "-", "probe", "probe");
  const held = async () => {
    const answer = await probe.callTool("held", {});
    return answer.ok ? Number(answer.text) : NaN;
  };
  const agent = RawMcpSession.modern(url, "-", "agent", "agent");
  const controllers = [1, 2, 3].map(() => new AbortController());
  const calls = controllers.map((controller, i) =>
    agent.callTool("hold", { key: `k${i}` }, controller.signal)
      .then((answer) => JSON.stringify(answer))
      .catch((error: Error) => error.name)
  );
  while (await held() < 3) await new Promise((resolve) => setTimeout(resolve, 50));
  for (const controller of controllers) controller.abort();
  assert.deepEqual(await Promise.all(calls), ["AbortError", "AbortError", "AbortError"]);
  let left = await held();
  for (let tries = 0; left > 0 && tries < 100; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    left = await held();
  }
  assert.equal(left, 0, "every given-up call was cancelled upstream");
  let cancelled: Record<string, unknown>[] = [];
  for (let tries = 0; cancelled.length < 3 && tries < 100; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    cancelled = recordedEvents(serve.workspace).filter((e) =>
      e.type === "tool_call_response" && /the client disconnected/.test(String(e.content))
    );
  }
  assert.equal(cancelled.length, 3);
});
