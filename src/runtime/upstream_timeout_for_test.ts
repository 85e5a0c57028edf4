import assert from "node:assert/strict";
import { parseConfig } from "../config/parse_config.ts";
import { DEFAULT_TOOL_TIMEOUT_MS } from "../service/tool_timeout.ts";
import { upstreamTimeoutFor } from "./upstream_timeout_for.ts";

/** A server `s` and a local tool `count` with no `timeout` of its own, plus `extra`. */
function config(extra: string) {
  return parseConfig(
    `[providers.mcp.s]\ntype = "stdio"\ncommand = "s"\n` +
      `[providers.mcp.t]\ntype = "stdio"\ncommand = "t"\n` +
      `[conversation.tools.count]\nsource = "local"\ncommand = ["wc"]\n${extra}`,
  );
}

Deno.test("an upstream tool with no timeout entry gets the built-in default, as a local tool does", () => {
  const plain = config("");
  const timeoutFor = upstreamTimeoutFor(plain, "s");
  assert.equal(DEFAULT_TOOL_TIMEOUT_MS, 120_000);
  assert.equal(timeoutFor("hang"), DEFAULT_TOOL_TIMEOUT_MS);
  assert.equal(timeoutFor("hang"), plain.tool("count").timeoutMs());
});

Deno.test("an upstream tool with no timeout entry gets the '*' timeout, as a local tool does", () => {
  const starred = config(
    `[conversation.tools.'*']\ntimeout = 7\n[conversation.tools.echo]\ntimeout = 2\n`,
  );
  const timeoutFor = upstreamTimeoutFor(starred, "s");
  assert.equal(timeoutFor("hang"), 7_000);
  assert.equal(timeoutFor("hang"), starred.tool("count").timeoutMs());
  // An entry under the tool's own name still wins over '*'.
  assert.equal(timeoutFor("echo"), 2_000);
});

Deno.test("a renamed upstream tool takes its entry's timeout; two names of one tool, the longer", () => {
  const renamed = config(
    `[conversation.tools.'*']\ntimeout = 7\n` +
      `[conversation.tools.slow_wait]\nsource = "mcp.s.wait"\ntimeout = 90\n` +
      `[conversation.tools.quick_wait]\nsource = "mcp.s.wait"\ntimeout = 1\n` +
      `[conversation.tools.fmt]\nsource = "mcp.s"\ntimeout = 4\n` +
      `[conversation.tools.say]\nsource = "mcp.s.echo"\ntimeout = 3\n` +
      `[conversation.tools.yell]\nsource = "mcp.s.echo"\n` +
      `[conversation.tools.other_hang]\nsource = "mcp.t.hang"\ntimeout = 50\n`,
  );
  const onS = upstreamTimeoutFor(renamed, "s");
  assert.equal(onS("wait"), 90_000);
  assert.equal(onS("fmt"), 4_000);
  // `yell` has no timeout of its own: the '*' one (7 s) is the longer.
  assert.equal(onS("echo"), 7_000);
  // A rename of another server's `hang` is no concern of this server's.
  assert.equal(onS("hang"), 7_000);
  assert.equal(upstreamTimeoutFor(renamed, "t")("hang"), 50_000);
});
