import assert from "node:assert/strict";
import { main } from "../cli.ts";
import { captureCommandIo } from "./command_io.ts";

Deno.test("inspect prints every machine as Markdown, one mermaid block each, in run order", async () => {
  const io = captureCommandIo();
  assert.equal(await main(["inspect"], io), 0);
  const out = io.out();
  assert.match(out, /^# The machines\n/);
  const headings = [...out.matchAll(/^## `(\w+)`\n\n```mermaid\nstateDiagram-v2\n/gm)]
    .map((match) => match[1]);
  assert.deepEqual(
    headings,
    ["turn", "phase", "toolCall", "commit", "session", "parkedCall", "upstreamConnection"],
    "exactly the machines that run",
  );
  assert.equal(out.match(/^```$/gm)?.length, 7, "every block is closed");
  for (
    const edge of [
      "reviewSlot --> barrierAcknowledge : always",
      "barrierAcknowledge --> released : done",
      "toolPhase --> requesting : done",
      "toolPhase_executing --> toolPhase_capping : always [allSlotsWritten]",
      "toolPhase_committing_flushing --> toolPhase_committing_releasing : done",
      "execute_running --> resultPrompt : done [wasParked]",
      "starting --> stopping : after startupTimeout",
      "restarting --> starting : after restartBackoff",
      "open_calls_idle --> open_calls_gathering : phase.opened",
      "open_calls_idle_timing --> closing : after idleTimeout",
      "open_commits_committing_committing_flushing --> open_commits_committing_committing_releasing : done",
      "running --> parked : park",
    ]
  ) {
    assert.ok(out.includes(edge), edge);
  }
});

Deno.test("inspect with one machine prints its diagram alone: one Mermaid document", async () => {
  const io = captureCommandIo();
  assert.equal(await main(["inspect", "commit"], io), 0);
  assert.match(io.out(), /^stateDiagram-v2\n {2}\[\*\] --> merging\n/);
  assert.doesNotMatch(io.out(), /```|^#/m);
});

Deno.test("inspect --format json (or --json) prints the node trees", async () => {
  for (const args of [["--format", "json"], ["--json"], ["--json", "--format=json"]]) {
    const io = captureCommandIo();
    assert.equal(await main(["inspect", ...args, "commit"], io), 0);
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
  }
});

Deno.test("inspect refuses an unknown machine, an unknown format, and --json against --format", async () => {
  const cases: [string[], string][] = [
    [
      ["nope"],
      'unknown machine "nope" (expected one of: turn, phase, toolCall, commit, session, parkedCall, upstreamConnection)',
    ],
    [["--format", "svg"], '--format "svg" is not accepted (expected mermaid or json or xstate)'],
    [["--json", "--format", "mermaid"], "--json contradicts --format mermaid: give one of them"],
  ];
  for (const [args, message] of cases) {
    const io = captureCommandIo();
    assert.equal(await main(["inspect", ...args], io), 2, args.join(" "));
    assert.equal(
      io.err(),
      `spillway inspect: ${message}\nRun \`deno task spillway inspect --help\` for usage.\n`,
    );
  }
});

Deno.test("inspect --serve refuses a bad port, a taken port, two files and printing flags", async () => {
  using taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (taken.addr as Deno.NetAddr).port;
  const cases: [string[], string][] = [
    [
      ["--port", "http"],
      '--port "http" is not a port: give a whole number from 0 to 65535 (0 picks a free one)',
    ],
    [
      ["--port", "65536"],
      '--port "65536" is not a port: give a whole number from 0 to 65535 (0 picks a free one)',
    ],
    [
      ["--port", String(port)],
      `port ${port} on 127.0.0.1 is taken: pick another with --port N (0 picks a free one)`,
    ],
    [
      ["a.jsonl", "b\x1b[2J.jsonl"],
      '--serve replays one inspection file, got 2: "a.jsonl", "b␛[2J.jsonl"',
    ],
    [["--format", "json"], "--format prints diagrams; --serve serves the page instead"],
    [["--json"], "--json prints diagrams; --serve serves the page instead"],
  ];
  for (const [args, message] of cases) {
    const io = captureCommandIo();
    assert.equal(await main(["inspect", "--serve", ...args], io), 2, args.join(" "));
    assert.equal(
      io.err(),
      `spillway inspect: ${message}\nRun \`deno task spillway inspect --help\` for usage.\n`,
    );
  }
  const io = captureCommandIo();
  assert.equal(await main(["inspect", "--port", "7000"], io), 2);
  assert.match(io.err(), /^spillway inspect: --port goes with --serve\n/);
});
