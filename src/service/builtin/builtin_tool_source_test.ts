import assert from "node:assert/strict";
import { SimulatedClock } from "xstate";
import { DEFAULT_TOOL_TIMEOUT_MS } from "../tool_timeout.ts";
import type { ToolResult } from "../tool_source.ts";
import {
  CONTRACT_TIMEOUT_MS,
  defineToolSourceContract,
  Milestones,
} from "../../testing/tool_source_contract.ts";
import type { BuiltinToolContext } from "./builtin_tool.ts";
import { BuiltinToolSource } from "./builtin_tool_source.ts";

const schema = { type: "object" };

/** Runs until its signal aborts, counting the start and the stop. */
function untilStopped(starts: Milestones, stops: Milestones) {
  return async (_args: unknown, { signal }: BuiltinToolContext): Promise<string> => {
    starts.add();
    await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
    stops.add();
    return "stopped";
  };
}

defineToolSourceContract("BuiltinToolSource", ({ clock }) => {
  const starts = new Milestones();
  const stops = new Milestones();
  const source = new BuiltinToolSource({
    cwd: ".",
    tools: [
      {
        name: "echo",
        description: "",
        inputSchema: schema,
        run: (args) => Promise.resolve(String(args.text)),
      },
      {
        name: "fail",
        description: "",
        inputSchema: schema,
        run: (args) => Promise.reject(new Error(`failed: ${args.text}`)),
      },
      { name: "hang", description: "", inputSchema: schema, run: untilStopped(starts, stops) },
      { name: "wait", description: "", inputSchema: schema, run: untilStopped(starts, stops) },
      {
        name: "malformed",
        description: "",
        inputSchema: schema,
        // What a JavaScript tool can return whatever its types say.
        run: () => Promise.resolve({ content: "not an array" } as unknown as ToolResult),
      },
    ],
    timeoutFor: (tool) => tool === "hang" ? CONTRACT_TIMEOUT_MS : DEFAULT_TOOL_TIMEOUT_MS,
    clock,
  });
  return Promise.resolve({
    source,
    tools: { echo: "echo", fail: "fail", hang: "hang", wait: "wait", malformed: "malformed" },
    starts,
    stops,
    cleanup: () => source.close(),
  });
});

Deno.test("BuiltinToolSource answers a timed-out tool that ignores its signal at once", async () => {
  const never = Promise.withResolvers<string>();
  const running = Promise.withResolvers<void>();
  const clock = new SimulatedClock();
  const source = new BuiltinToolSource({
    cwd: ".",
    tools: [{
      name: "stuck",
      description: "",
      inputSchema: schema,
      run: () => {
        running.resolve();
        return never.promise;
      },
    }],
    timeoutFor: () => 50,
    clock,
  });
  const call = source.call("stuck", {}, { signal: new AbortController().signal });
  await running.promise;
  clock.increment(50);
  assert.deepEqual(await call, {
    content: [{ type: "text", text: "timed out after 0.05s" }],
    isError: true,
  });
  never.resolve("too late");
});

Deno.test("BuiltinToolSource gives a tool a context it can pass on whole, its signal included", async () => {
  const caller = new AbortController();
  const stopped = Promise.withResolvers<string>();
  const source = new BuiltinToolSource({
    cwd: "/work",
    tools: [{
      name: "wrap",
      description: "",
      inputSchema: schema,
      // A tool that hands its context on, spread, to the tool it wraps.
      run: (_args, context) => {
        const passed: BuiltinToolContext = { ...context };
        passed.signal.addEventListener("abort", () => stopped.resolve(passed.cwd), { once: true });
        return new Promise<never>(() => {});
      },
    }],
  });
  const running = source.call("wrap", {}, { signal: caller.signal });
  caller.abort("stop");
  await assert.rejects(running, (reason) => reason === "stop");
  assert.equal(await stopped.promise, "/work", "the spread context's signal aborted with the call");
});
