import assert from "node:assert/strict";
import { enableVerboseLogging } from "../terminal/verbose_logging.ts";
import type { NoticeFact } from "../review/notice.ts";
import { reportNotice } from "./report_notice.ts";

const FACT: NoticeFact = {
  tool: "fs_list_files",
  callId: "call_1",
  originalBytes: 3_250_586,
  capBytes: 262_144,
  cause: "size_threshold",
};

Deno.test("reportNotice() hands the fact to the sink and logs its line at warn when a log takes it", async () => {
  const seen: NoticeFact[] = [];
  const lines: string[] = [];
  const undo = await enableVerboseLogging(1, (line) => lines.push(line));
  try {
    reportNotice({ notice: (fact) => seen.push(fact) }, FACT);
  } finally {
    await undo();
  }
  assert.deepEqual(seen, [FACT]);
  assert.equal(lines.length, 1);
  assert.match(
    lines[0]!,
    /\[WRN\] spillway·cap: "fs_list_files: sent 256\.0 KB of 3\.1 MB to the assistant \(size_threshold\)"\n$/,
  );
});

Deno.test("reportNotice() without a configured log still hands the fact to the sink", () => {
  const seen: NoticeFact[] = [];
  reportNotice({ notice: (fact) => seen.push(fact) }, FACT);
  assert.deepEqual(seen, [FACT]);
});
