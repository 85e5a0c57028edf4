import assert from "node:assert/strict";
import { abandonedMessage, ExecutionLink, type ExecutionReport } from "./execution_link.ts";
import { MockExecutor } from "../testing/mock_executor.ts";

const CALL = { id: "call_1", name: "probe", arguments: {} };

/** A stand-in toolCall: collects reports and ends the link on demand. */
function owner() {
  const reports: ExecutionReport[] = [];
  const ends: { complete(): void; error(error: unknown): void }[] = [];
  return {
    reports,
    send: (event: ExecutionReport) => void reports.push(event),
    subscribe: (observer: { complete(): void; error(error: unknown): void }) =>
      void ends.push(observer),
    stop: () => ends.forEach((observer) => observer.complete()),
    fail: () => ends.forEach((observer) => observer.error(new Error("owner failed"))),
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

Deno.test("ExecutionLink reports the settled call, then its delivery, and releases only once", async () => {
  const executor = new MockExecutor({ probe: "fine" });
  const toolCall = owner();
  const link = new ExecutionLink(executor, new AbortController().signal);
  link.bind(toolCall);
  link.start(CALL);
  await settle();
  assert.deepEqual(toolCall.reports.map((report) => report.type), ["execution.settled"]);
  const recorded = { id: "call_1", content: "fine", isError: false };
  link.release({ kind: "deliver" }, recorded);
  link.release({ kind: "deliver" }, recorded);
  await settle();
  assert.deepEqual(toolCall.reports.map((report) => report.type), [
    "execution.settled",
    "execution.released",
  ]);
  assert.equal(executor.releases.length, 1);
});

Deno.test("ExecutionLink releases an abandoned call with a failure once it settles, and goes quiet", async () => {
  for (const end of ["stop", "fail"] as const) {
    const executor = new MockExecutor({ probe: { result: "late", delayMs: 5 } });
    const toolCall = owner();
    const link = new ExecutionLink(executor, new AbortController().signal);
    link.bind(toolCall);
    link.start(CALL);
    toolCall[end]();
    assert.equal(executor.releases.length, 0, "nothing is released before the call settles");
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(executor.releases.map(({ ack }) => ack), [
      { kind: "fail", message: abandonedMessage("call_1") },
    ]);
    assert.deepEqual(toolCall.reports, [], "a stopped owner hears nothing more");
  }
});
