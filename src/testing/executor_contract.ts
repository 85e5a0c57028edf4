/**
 * The contract every executor passes: what the machines rely on when they
 * start a call, wait for it to park, and release it with the Host's decision.
 * `MockExecutor` and the real `McpExecutor` both run it, so a turn tested
 * with the mock goes through the same phase end and commit as a real one.
 * Each executor's test file calls {@linkcode defineExecutorContract} with a
 * factory that provides the {@linkcode CONTRACT_TOOLS}.
 *
 * @module
 */

import assert from "node:assert/strict";
import type { ToolCallResponse } from "../review/tool_call_response.ts";
import type { ExecutionHandle, ExecutionOutcome, Executor } from "../service/executor.ts";

/** An executor to test and how to shut it down. */
export interface ExecutorUnderTest {
  /** The executor, knowing every tool of {@linkcode CONTRACT_TOOLS}. */
  readonly executor: Executor;
  /** Stops whatever the factory started. */
  close(): Promise<void>;
}

/**
 * The tools a factory provides, by name, with what each must do:
 *
 * - `echo`: returns its `text` argument as text (the service parks it on
 *   the Record barrier);
 * - `reviewed`: the same, for a tool whose calls a person reviews (parked on
 *   the Review barrier);
 * - `broken`: the tool reports a failure (an error result) saying `boom`;
 * - `lost`: the tool's source dies mid-call, saying `source gone`;
 * - `hang`: never answers until the call is cancelled.
 */
export const CONTRACT_TOOLS: Readonly<Record<string, string>> = {
  echo: "returns its `text` argument, parked on the Record barrier",
  reviewed: "returns its `text` argument, parked on the Review barrier",
  broken: "reports a failure (an error result) saying `boom`",
  lost: "its source dies mid-call, saying `source gone`",
  hang: "never answers until cancelled",
};

/** Makes a fresh executor with the contract tools. */
export type ExecutorFactory = () => Promise<ExecutorUnderTest>;

const live = () => new AbortController().signal;

function echo(id: string, text: string, tool = "echo") {
  return { id, name: tool, arguments: { text } };
}

function response(id: string, content: string, isError = false): ToolCallResponse {
  return { id, content, isError };
}

async function executed(handle: ExecutionHandle): Promise<ToolCallResponse> {
  const outcome: ExecutionOutcome = await handle.outcome;
  assert.equal(outcome.kind, "executed", JSON.stringify(outcome));
  return outcome.kind === "executed" ? outcome.response : response("", "");
}

/**
 * Registers the contract's tests (`Deno.test`), each on a fresh executor.
 *
 * @param name names the executor in the test names
 * @param factory makes an executor with the {@linkcode CONTRACT_TOOLS}
 */
export function defineExecutorContract(name: string, factory: ExecutorFactory): void {
  const test = (what: string, body: (executor: Executor) => Promise<void>) =>
    Deno.test(`${name} (executor contract): ${what}`, async () => {
      const underTest = await factory();
      try {
        await body(underTest.executor);
      } finally {
        await underTest.close();
      }
    });

  test("knows its tools and no others", (executor) => {
    for (const tool of Object.keys(CONTRACT_TOOLS)) assert.equal(executor.has(tool), true, tool);
    assert.equal(executor.has("no_such_tool"), false);
    return Promise.resolve();
  });

  test("parks an executed call on its barrier and delivers it on deliver", async (executor) => {
    const handle = executor.start(echo("c1", "hello"), { signal: live() });
    assert.deepEqual(await handle.outcome, {
      kind: "executed",
      response: response("c1", "hello"),
    });
    assert.deepEqual(await handle.release({ kind: "deliver" }, response("c1", "hello")), {
      kind: "delivered",
      response: response("c1", "hello"),
    });
  });

  test("parks a reviewed tool's call, and delivers what the review recorded", async (executor) => {
    const handle = executor.start(echo("c1", "look", "reviewed"), { signal: live() });
    assert.equal((await executed(handle)).content, "look");
    const recorded = response("c1", "looked at");
    assert.deepEqual(
      await handle.release({ kind: "replace", content: "looked at", isError: false }, recorded),
      { kind: "delivered", response: recorded },
    );
  });

  test("delivers the replacement on replace, never its own result", async (executor) => {
    const handle = executor.start(echo("c1", "x".repeat(5000)), { signal: live() });
    assert.equal((await executed(handle)).content.length, 5000);
    const recorded = response("c1", "x".repeat(10) + "\n... [truncated, 4.8 KB → 1.0 KB]");
    assert.deepEqual(
      await handle.release(
        { kind: "replace", content: recorded.content, isError: false },
        recorded,
      ),
      { kind: "delivered", response: recorded },
    );
  });

  test("reports a mismatch when what it delivers differs from the record", async (executor) => {
    const handle = executor.start(echo("c1", "raw"), { signal: live() });
    await executed(handle);
    assert.deepEqual(await handle.release({ kind: "deliver" }, response("c1", "cut")), {
      kind: "mismatch",
      expected: "cut",
      received: "raw",
    });
  });

  test("fails a call released with fail, with exactly that message", async (executor) => {
    const handle = executor.start(echo("c1", "secret"), { signal: live() });
    await executed(handle);
    const message = "the result of call c1 was not recorded: disk full";
    assert.deepEqual(await handle.release({ kind: "fail", message }, undefined), {
      kind: "failed",
      message,
    });
  });

  test("releases a call once: a second release fails and delivers nothing", async (executor) => {
    const handle = executor.start(echo("c1", "once"), { signal: live() });
    const parked = await executed(handle);
    const first = await handle.release({ kind: "deliver" }, parked);
    assert.deepEqual(first, { kind: "delivered", response: parked });
    const second = await handle.release({ kind: "deliver" }, parked);
    assert.equal(second.kind, "failed");
    assert.match(second.kind === "failed" ? second.message : "", /already released/);
  });

  test("answers a failing tool with an error response (tool failure is data)", async (executor) => {
    const handle = executor.start({ id: "c1", name: "broken", arguments: {} }, {
      signal: live(),
    });
    const parked = await executed(handle);
    assert.equal(parked.isError, true);
    assert.match(parked.content, /boom/);
    assert.deepEqual(await handle.release({ kind: "deliver" }, parked), {
      kind: "delivered",
      response: parked,
    });
  });

  test("reports a call whose source died as lost", async (executor) => {
    const handle = executor.start({ id: "c1", name: "lost", arguments: {} }, { signal: live() });
    const outcome = await handle.outcome;
    assert.equal(outcome.kind, "lost");
    assert.match(outcome.kind === "lost" ? outcome.reason : "", /source gone/);
    const recorded = response("c1", "tool call lost: source gone", true);
    assert.deepEqual(
      await handle.release({ kind: "replace", content: recorded.content, isError: true }, recorded),
      { kind: "delivered", response: recorded },
    );
  });

  test("settles an unknown tool's call as failed, never rejecting", async (executor) => {
    const handle = executor.start({ id: "c1", name: "no_such_tool", arguments: {} }, {
      signal: live(),
    });
    const outcome = await handle.outcome;
    assert.equal(outcome.kind, "failed");
    const delivery = await handle.release({ kind: "fail", message: "not run" }, undefined);
    assert.equal(delivery.kind, "failed");
  });

  test("ends a running call as cancelled when its signal aborts, and delivers the cancellation response", async (executor) => {
    const controller = new AbortController();
    const handle = executor.start({ id: "c1", name: "hang", arguments: {} }, {
      signal: controller.signal,
    });
    queueMicrotask(() => controller.abort(new Error("Ctrl-C")));
    const outcome = await handle.outcome;
    assert.equal(outcome.kind, "cancelled");
    const recorded = response("c1", "The user cancelled this tool call.", true);
    assert.deepEqual(
      await handle.release({ kind: "replace", content: recorded.content, isError: true }, recorded),
      { kind: "delivered", response: recorded },
    );
  });

  test("ends a call whose signal already aborted as cancelled", async (executor) => {
    const controller = new AbortController();
    controller.abort(new Error("too late"));
    const handle = executor.start(echo("c1", "never"), { signal: controller.signal });
    const outcome = await handle.outcome;
    assert.equal(outcome.kind, "cancelled");
    const delivery = await handle.release({ kind: "fail", message: "cancelled" }, undefined);
    assert.deepEqual(delivery, { kind: "failed", message: "cancelled" });
  });

  test("keeps concurrent calls apart: each caller gets its own result", async (executor) => {
    const n = 50;
    const handles = Array.from(
      { length: n },
      (_, i) => executor.start(echo(`c${i}`, `result ${i}`), { signal: live() }),
    );
    const parked = await Promise.all(handles.map(executed));
    const deliveries = await Promise.all(
      handles.map((handle, i) => handle.release({ kind: "deliver" }, parked[i])),
    );
    deliveries.forEach((delivery, i) => {
      assert.deepEqual(delivery, { kind: "delivered", response: response(`c${i}`, `result ${i}`) });
    });
  });
}
