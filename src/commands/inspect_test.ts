import assert from "node:assert/strict";
import { main } from "../cli.ts";
import { captureCommandIo } from "./command_io.ts";

Deno.test("inspect prints every machine as Mermaid, with the public state names", async () => {
  const io = captureCommandIo();
  assert.equal(await main(["inspect"], io), 0);
  const out = io.out();
  const names = [...out.matchAll(/^%% (\w+)$/gm)].map((match) => match[1]);
  assert.deepEqual(names, ["turn", "phase", "toolCall", "commit"], "exactly the machines that run");
  for (const name of ["turn", "phase", "toolCall", "commit"]) {
    assert.match(out, new RegExp(`^%% ${name}\\nstateDiagram-v2$`, "m"));
  }
  for (
    const edge of [
      "reviewSlot --> barrierAcknowledge : always",
      "barrierAcknowledge --> released : done",
      "merging --> spendingBudget",
      "flushing --> releasing : done",
      "toolPhase --> requesting : done",
      "executing --> capping : always [allSlotsWritten]",
    ]
  ) {
    assert.ok(out.includes(edge), edge);
  }
});

Deno.test("inspect --json prints the node trees; an unknown machine is a usage error", async () => {
  const io = captureCommandIo();
  assert.equal(await main(["inspect", "--json", "commit"], io), 0);
  const tree = JSON.parse(io.out());
  assert.deepEqual(Object.keys(tree), ["commit"]);
  assert.deepEqual(Object.keys(tree.commit.states), [
    "merging",
    "spendingBudget",
    "recording",
    "flushing",
    "releasing",
    "done",
    "failed",
  ]);
  const bad = captureCommandIo();
  assert.equal(await main(["inspect", "nope"], bad), 2);
  assert.match(
    bad.err(),
    /unknown machine "nope" \(expected one of: turn, phase, toolCall, commit\)/,
  );
});
