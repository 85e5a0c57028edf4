import assert from "node:assert/strict";
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
  assert.throws(
    () => resolveToolRoutes([source("a", "x")], { y: { source: "a", sourceTool: "z" } }),
    {
      message: "tool `y` names `z` of `a`, which that source does not list",
    },
  );
});
