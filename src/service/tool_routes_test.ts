import assert from "node:assert/strict";
import { SpillwayError } from "../errors/spillway_error.ts";
import { resolveToolRoutes } from "./tool_routes.ts";
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

Deno.test("resolveToolRoutes() refuses unknown and duplicate sources as programming errors", () => {
  assert.throws(() => resolveToolRoutes([source("a"), source("a")], {}), {
    name: "TypeError",
    message: "two tool sources are named `a`: names must be unique",
  });
  assert.throws(
    () => resolveToolRoutes([source("a", "x")], { y: { source: "b", sourceTool: "x" } }),
    {
      name: "TypeError",
      message: "tool `y` names the source `b`, which does not exist (sources: a)",
    },
  );
});

/** The problems `resolveToolRoutes()` reports as a config_invalid error. */
function configProblems(...args: Parameters<typeof resolveToolRoutes>): string[] {
  try {
    resolveToolRoutes(...args);
  } catch (error) {
    assert.ok(error instanceof SpillwayError);
    assert.equal(error.code, "config_invalid");
    const errors = error.details["errors"];
    assert.ok(Array.isArray(errors));
    assert.equal(error.message, errors.join("\n"));
    return errors;
  }
  assert.fail("no error");
}

Deno.test("resolveToolRoutes() refuses a route to a tool its source does not list, as a config problem", () => {
  const sources = [source("builtin", "fs_read_file"), source("mcp.x", "echo", "wait", "crash")];
  const origin = 'config.toml:7: conversation.tools.say.source = "mcp.x.ech"';
  assert.deepEqual(
    configProblems(sources, { say: { source: "mcp.x", sourceTool: "ech", origin } }),
    [`${origin} names tool ech, which mcp.x does not list (did you mean echo?)`],
  );
});

Deno.test("resolveToolRoutes() lists what the source has when no tool name is close", () => {
  const unlisted = (...tools: string[]) =>
    configProblems([source("mcp.x", ...tools)], { y: { source: "mcp.x", sourceTool: "zzz" } });
  assert.deepEqual(unlisted(), [
    "tool `y` names tool zzz, which mcp.x does not list (it lists no tools)",
  ]);
  assert.deepEqual(unlisted("wait", "echo"), [
    "tool `y` names tool zzz, which mcp.x does not list (it lists echo, wait)",
  ]);
  const many = Array.from({ length: 12 }, (_, i) => `tool_${String(i).padStart(2, "0")}`);
  assert.deepEqual(unlisted(...many.toReversed()), [
    "tool `y` names tool zzz, which mcp.x does not list (it lists " +
    `${many.slice(0, 10).join(", ")} and 2 more)`,
  ]);
});

Deno.test("resolveToolRoutes() refuses two sources listing one name, saying how to rename one", () => {
  assert.deepEqual(
    configProblems([source("mcp.a", "x", "y"), source("mcp.b", "x", "y"), source("c", "z")], {
      nope: { source: "c", sourceTool: "zz" },
    }),
    [
      "tool `nope` names tool zz, which c does not list (did you mean z?)",
      "mcp.a and mcp.b both list a tool named x: rename one with an entry such as " +
      '[conversation.tools.b_x] source = "mcp.b.x"',
      "mcp.a and mcp.b both list a tool named y: rename one with an entry such as " +
      '[conversation.tools.b_y] source = "mcp.b.y"',
    ],
  );
  assert.deepEqual(configProblems([source("builtin", "x"), source("mcp.a", "x")], {}), [
    "builtin and mcp.a both list a tool named x: rename one with an entry such as " +
    '[conversation.tools.a_x] source = "mcp.a.x"',
  ]);
  assert.deepEqual(configProblems([source("builtin", "x"), source("local", "x")], {}), [
    "builtin and local both list a tool named x: give the local tool another name",
  ]);
  assert.deepEqual(configProblems([source("a", "x"), source("b", "x")], {}), [
    "a and b both list a tool named x: give one of them another name",
  ]);
  // The rename suggested resolves it.
  const routes = resolveToolRoutes([source("mcp.a", "x"), source("mcp.b", "x")], {
    b_x: { source: "mcp.b", sourceTool: "x" },
  });
  assert.deepEqual([...routes].map(([name, route]) => [name, route.source.name]), [
    ["b_x", "mcp.b"],
    ["x", "mcp.a"],
  ]);
});
