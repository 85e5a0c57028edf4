import assert from "node:assert/strict";
import { AbortScope } from "./_abort_scope.ts";

Deno.test("AbortScope aborts with its parent and its reason", () => {
  const parent = new AbortController();
  const scope = new AbortScope(parent.signal);
  assert.equal(scope.signal.aborted, false);
  parent.abort("turn cancelled");
  assert.equal(scope.signal.aborted, true);
  assert.equal(scope.signal.reason, "turn cancelled");
});

Deno.test("AbortScope starts aborted under an aborted parent", () => {
  const parent = new AbortController();
  parent.abort("already");
  assert.equal(new AbortScope(parent.signal).signal.reason, "already");
});

Deno.test("AbortScope aborts alone, and stops following a parent once disposed", () => {
  const parent = new AbortController();
  const alone = new AbortScope(parent.signal);
  const disposed = new AbortScope(parent.signal);
  alone.abort("stopped");
  assert.equal(alone.signal.reason, "stopped");
  assert.equal(parent.signal.aborted, false);
  disposed.dispose();
  parent.abort("later");
  assert.equal(disposed.signal.aborted, false);
});
