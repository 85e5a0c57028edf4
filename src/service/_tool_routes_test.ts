import assert from "node:assert/strict";
import { SpillwayError } from "../errors/spillway_error.ts";
import { resolveToolRoutes } from "./_tool_routes.ts";
import type { ToolDefinition, ToolSource } from "./tool_source.ts";

function source(name: string, ...tools: string[]): readonly [ToolSource, ToolDefinition[]] {
  const s: ToolSource = {
    name,
    list: () => Promise.resolve([]),
    call: () => Promise.reject(new Error("not called")),
    close: () => Promise.resolve(),
  };
  return [s, tools.map((t) => ({ name: t, description: t, inputSchema: {} }))];
}

Deno.test("resolveToolRoutes() exports every tool under its own name", () => {
  const routes = resolveToolRoutes([source("builtin", "a", "b"), source("local", "c")], {});
  assert.deepEqual([...routes.keys()], ["a", "b", "c"]);
  assert.equal(routes.get("c")?.source.name, "local");
});

Deno.test("resolveToolRoutes() exports a renamed tool only under its new name", () => {
  const routes = resolveToolRoutes([source("mcp.gh", "search", "issue")], {
    gh_search: { source: "mcp.gh", sourceTool: "search" },
  });
  assert.deepEqual([...routes.keys()].sort(), ["gh_search", "issue"]);
  const route = routes.get("gh_search");
  assert.equal(route?.sourceTool, "search");
  assert.equal(route?.definition.name, "gh_search");
});

Deno.test("resolveToolRoutes() lets an explicit entry win over another source's own name", () => {
  const routes = resolveToolRoutes([source("builtin", "x"), source("mcp.a", "x")], {
    x: { source: "mcp.a", sourceTool: "x" },
  });
  assert.equal(routes.get("x")?.source.name, "mcp.a");
});

Deno.test("resolveToolRoutes() refuses conflicts and unknown names", () => {
  assert.throws(() => resolveToolRoutes([source("a", "x"), source("b", "x")], {}), {
    message: "tool `x` is exported by both `a` and `b`: rename one of them in the config",
  });
  assert.throws(() => resolveToolRoutes([source("a"), source("a")], {}), {
    message: "two tool sources are named `a`: names must be unique",
  });
  assert.throws(
    () => resolveToolRoutes([source("a", "x")], { y: { source: "b", sourceTool: "x" } }),
    {
      message: "tool `y` names the source `b`, which does not exist (sources: a)",
    },
  );
});

Deno.test("resolveToolRoutes() refuses a route to a tool its source does not list, as a config problem", () => {
  const sources = [source("builtin", "fs_read_file"), source("mcp.x", "echo", "wait", "crash")];
  const origin = 'config.toml:7: conversation.tools.say.source = "mcp.x.ech"';
  const message = `${origin} names tool ech, which mcp.x does not list (did you mean echo?)`;
  assert.throws(
    () => resolveToolRoutes(sources, { say: { source: "mcp.x", sourceTool: "ech", origin } }),
    (error) => {
      assert.ok(error instanceof SpillwayError);
      assert.equal(error.code, "config_invalid");
      assert.equal(error.message, message);
      assert.deepEqual(error.details, {
        errors: [message],
        tool: "say",
        source: "mcp.x",
        sourceTool: "ech",
        suggestion: "echo",
      });
      return true;
    },
  );
});

Deno.test("resolveToolRoutes() lists what the source has when no tool name is close", () => {
  const unlisted = (...tools: string[]) => {
    try {
      resolveToolRoutes([source("mcp.x", ...tools)], { y: { source: "mcp.x", sourceTool: "zzz" } });
    } catch (error) {
      assert.ok(error instanceof SpillwayError);
      return error.message;
    }
    assert.fail("no error");
  };
  assert.equal(
    unlisted(),
    "tool `y` names tool zzz, which mcp.x does not list (it lists no tools)",
  );
  assert.equal(
    unlisted("wait", "echo"),
    "tool `y` names tool zzz, which mcp.x does not list (it lists echo, wait)",
  );
  const many = Array.from({ length: 12 }, (_, i) => `tool_${String(i).padStart(2, "0")}`);
  assert.equal(
    unlisted(...many.toReversed()),
    "tool `y` names tool zzz, which mcp.x does not list (it lists " +
      `${many.slice(0, 10).join(", ")} and 2 more)`,
  );
});
