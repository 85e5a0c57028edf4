import assert from "node:assert/strict";
import { SpillwayError } from "../../errors/spillway_error.ts";
import type { ToolDefinition, ToolSource } from "../tool_source.ts";
import { LateUpstreamSource } from "./late_upstream_source.ts";

const ECHO: ToolDefinition = { name: "echo", description: "echo", inputSchema: { type: "object" } };
const DOWN = "cannot start upstream server mcp.x: it did not answer initialize within 1 s";

/** A source whose listings answer from `script`, one entry per `list()`. */
function scripted(script: (readonly ToolDefinition[] | Error)[]): ToolSource {
  return {
    name: "mcp.x",
    list: () => {
      const next = script.shift();
      return next instanceof Error || next === undefined
        ? Promise.reject(next ?? new Error("no more listings"))
        : Promise.resolve(next);
    },
    call: () => Promise.resolve({ content: [{ type: "text", text: "called" }] }),
    close: () => Promise.resolve(),
  };
}

Deno.test("LateUpstreamSource: a failed listing is reported once and served as the last one; an answer again is reported", async () => {
  const failure = new SpillwayError("tool_unavailable", DOWN, { source: "mcp.x" });
  const reports: string[] = [];
  const source = new LateUpstreamSource(
    scripted([failure, failure, [ECHO], failure, [ECHO, ECHO]]),
    (line) => reports.push(line),
  );
  assert.deepEqual(await source.list(), []);
  assert.equal(source.down, DOWN);
  assert.deepEqual(await source.list(), [], "the same failure again");
  assert.deepEqual(await source.list(), [ECHO]);
  assert.equal(source.down, undefined);
  assert.deepEqual(await source.list(), [ECHO], "down after it answered: its last tools stay");
  assert.deepEqual(await source.list(), [ECHO, ECHO]);
  assert.deepEqual(reports, [
    `${DOWN}; spillway serve goes on without its tools and starts it again in the background`,
    "upstream server mcp.x answers now: 1 tool served",
    `${DOWN}; spillway serve goes on without its tools and starts it again in the background`,
    "upstream server mcp.x answers now: 2 tools served",
  ]);
});
