/**
 * A run recorded the way `query --inspect FILE` records it, for the
 * inspector's tests: one turn of the real machines over test doubles, whose
 * single batch has five calls. `noisy_test_run` (2 MB) is cut by its 256KB
 * `size_threshold`, `big_report` (5 MB, `size_threshold = "unlimited"`) by
 * the 2 MiB batch ceiling, `deploy_preview` is asked about (`result =
 * "ask"`, delivered as it is), and an unknown tool is answered without
 * running. Recorded afresh by each test, so it always matches the machines.
 *
 * @module
 */

import { Inspection } from "../src/inspector/inspection.ts";
import { InspectionLog } from "../src/inspector/inspection_log.ts";
import { runTurn } from "../src/machines/run_turn.ts";
import type { TurnOutput } from "../src/machines/turn_machine.ts";
import { SizeThreshold } from "../src/size/size_threshold.ts";
import type { MemoryStreamStore } from "../src/stream/memory_stream_store.ts";
import { MockExecutor } from "../src/testing/mock_executor.ts";
import { scriptedPrompter } from "../src/testing/scripted_prompter.ts";
import { answer, callsMessage, policies, turnHarness } from "./machines_fixtures.ts";

const MB = 1024 * 1024;

/** The calls of the recorded batch: `[id, tool]`. */
export const RECORDED_CALLS: readonly [string, string][] = [
  ["call_1", "fs_list_files"],
  ["call_2", "noisy_test_run"],
  ["call_3", "big_report"],
  ["call_4", "deploy_preview"],
  ["call_5", "wiki_search"],
];

/** What the recorded run printed and ended with. */
export interface RecordedRun {
  readonly output: TurnOutput;
  /** The notices, as the terminal printed them. */
  readonly notices: readonly string[];
}

/**
 * Runs the turn and writes its inspection records to `path`.
 *
 * @param store where the conversation goes (one with faults, to record a failed commit); default: a new in-memory store
 */
export async function recordRun(path: string, store?: MemoryStreamStore): Promise<RecordedRun> {
  const executor = new MockExecutor({
    fs_list_files: "README.md\ndemo/\nexamples/\n",
    noisy_test_run: "test ... ok\n".repeat(2 * MB / 8).slice(0, 2 * MB),
    big_report: "r".repeat(5 * MB),
    deploy_preview: "preview ready at http://127.0.0.1:4000/",
  });
  const h = await turnHarness({
    steps: [
      callsMessage("Let me look around, run the tests and fetch the report.", [
        ...RECORDED_CALLS,
      ]),
      answer("Two results were cut; the conversation stays under its window."),
    ],
    executor,
    policyFor: policies({
      big_report: { sizeThreshold: SizeThreshold.UNLIMITED },
      deploy_preview: { result: "ask" },
    }),
    prompter: scriptedPrompter({ ask: () => Promise.resolve({ kind: "deliver" }) }),
    tools: ["fs_list_files", "noisy_test_run", "big_report", "deploy_preview"],
    ...(store === undefined ? {} : { store }),
  });
  const log = new Inspection([await InspectionLog.create(path)]);
  try {
    const output = await runTurn(h.input, { inspect: log.observe });
    return { output, notices: h.sink.lines };
  } finally {
    await log.close();
  }
}
