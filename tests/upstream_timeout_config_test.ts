/**
 * The timeouts the configuration gives an upstream server's tools, applied
 * by the real source: the scripted server (tests/fixtures/upstream/) never
 * answers `hang` or `wait`, so the timeout text of each result tells which
 * limit ended it.
 */

import assert from "node:assert/strict";
import { SimulatedClock } from "xstate";
import { parseConfig } from "../src/config/parse_config.ts";
import { toolSourcesFromConfig } from "../src/runtime/tool_sources_from_config.ts";
import { Announcements, SCRIPTED_SERVER } from "./_scripted_server.ts";

const never = new AbortController().signal;

Deno.test("an upstream tool without a timeout entry takes the '*' timeout; a renamed one its entry's", async () => {
  const config = parseConfig(
    `[providers.mcp.scripted]\ntype = "stdio"\ncommand = ${JSON.stringify(Deno.execPath())}\n` +
      `arguments = ["run", "--quiet", ${JSON.stringify(SCRIPTED_SERVER)}]\n` +
      `[conversation.tools.'*']\ntimeout = 0.3\n` +
      `[conversation.tools.slow_wait]\nsource = "mcp.scripted.wait"\ntimeout = 0.4\n`,
  );
  const announcements = new Announcements();
  const clock = new SimulatedClock();
  const { sources, routes } = toolSourcesFromConfig(config, {
    cwd: Deno.cwd(),
    upstreamStderr: announcements.sink,
    clock,
  });
  assert.deepEqual(routes.slow_wait, {
    source: "mcp.scripted",
    sourceTool: "wait",
    origin: routes.slow_wait?.origin,
  });
  const source = sources.find((candidate) => candidate.name === "mcp.scripted");
  assert.ok(source !== undefined);
  try {
    const hanging = source.call("hang", {}, { signal: never });
    const waiting = source.call("wait", {}, { signal: never });
    await announcements.starts.reached(2);
    // At 0.3 s only `hang` (the '*' timeout) ends; `wait` ends 0.1 s later.
    clock.increment(300);
    const hang = await hanging;
    clock.increment(100);
    const wait = await waiting;
    assert.deepEqual(hang.content, [{ type: "text", text: "timed out after 0.3s" }]);
    assert.equal(hang.isError, true);
    assert.deepEqual(wait.content, [{ type: "text", text: "timed out after 0.4s" }]);
    assert.equal(wait.isError, true);
  } finally {
    await Promise.all(sources.map((each) => each.close?.()));
  }
});
