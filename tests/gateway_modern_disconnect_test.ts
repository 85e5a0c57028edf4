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

const CONFIG = `[providers.mcp.echo]
type = "stdio"
command = ${JSON.stringify(Deno.execPath())}
arguments = ["run", "--quiet", "--allow-env", ${
  JSON.stringify(new URL("./fixtures/postgres/echo_upstream.ts", import.meta.url).pathname)
}]
`;

let nextId = 1;

/** A raw 2026-07-28 `tools/call` in conversation `conversation`. */
function post(url: URL, tool: string, args: object, conversation: string, signal?: AbortSignal) {
  return fetch(url, {
    method: "POST",
    ...(signal === undefined ? {} : { signal }),
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": tool,
      "spillway-conversation": conversation,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: nextId++,
      method: "tools/call",
      params: {
        name: tool,
        arguments: args,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }),
  });
}

Deno.test("serve --http: three 2026-07-28 calls given up at once are cancelled upstream, and recorded so", async () => {
  await using serve = await spawnHttpServe(["--no-auth"], { config: CONFIG });
  const url = serve.url as URL;
  const held = async () => {
    const text = await (await post(url, "held", {}, "probe")).text();
    return Number(/"text":"(\d+)"/.exec(text)?.[1]);
  };
  const controllers = [1, 2, 3].map(() => new AbortController());
  const calls = controllers.map((controller, i) =>
    post(url, "hold", { key: `k${i}` }, "agent", controller.signal)
      .then((response) => response.text())
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
