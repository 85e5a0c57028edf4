import assert from "node:assert/strict";
import { getLogger } from "@logtape/logtape";
import { enableVerboseLogging } from "./verbose_logging.ts";

Deno.test("enableVerboseLogging() sends spillway logs to the writer until undone", async () => {
  const lines: string[] = [];
  const undo = await enableVerboseLogging(1, (line) => lines.push(line));
  getLogger(["spillway", "cap"]).warn("cut {tool}", { tool: "fs_list_files" });
  getLogger(["spillway", "cap"]).debug("not at -v");
  await undo();
  getLogger(["spillway", "cap"]).warn("after undo");
  assert.equal(lines.length, 1);
  assert.match(lines[0]!, /^\d\d:\d\d:\d\d\.\d{3} \[WRN\] spillway·cap: cut "fs_list_files"\n$/);
});

Deno.test("enableVerboseLogging(0) configures nothing", async () => {
  const lines: string[] = [];
  const undo = await enableVerboseLogging(0, (line) => lines.push(line));
  getLogger(["spillway"]).warn("silent");
  await undo();
  assert.deepEqual(lines, []);
});

/** Outside text: an OSC title change, a screen clear, a C1 CSI, a newline, a bidi override. */
const HOSTILE = "x\x1b]0;pwned\x07\x1b[2J\x9b1m\nfake\u202Etxt.exe";

/** Whether `text` still holds anything a terminal would act on (newlines aside). */
function assertInert(text: string): void {
  const raw =
    // deno-lint-ignore no-control-regex
    /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
  assert.doesNotMatch(text, raw, `raw control in ${JSON.stringify(text)}`);
}

Deno.test("enableVerboseLogging() shows outside text inert, in the message, its values and an error's message", async () => {
  const lines: string[] = [];
  const undo = await enableVerboseLogging(2, (line) => lines.push(line));
  try {
    // A server's reply line as logged under -v, and an error naming a tool.
    getLogger(["spillway", "mcp"]).info(`unparseable reply: ${HOSTILE}`);
    getLogger(["spillway", "mcp"]).debug("tool {tool} failed: {error}", {
      tool: HOSTILE,
      error: new Error(HOSTILE),
    });
  } finally {
    await undo();
  }
  assert.equal(lines.length, 2);
  for (const line of lines) assertInert(line);
  const [reply, failed] = lines.map((line) => line.replace(/^\d\d:\d\d:\d\d\.\d{3} /, ""));
  assert.equal(
    reply,
    "[INF] spillway·mcp: unparseable reply: x\\x1b]0;pwned\\x07\\x1b[2J\\x9b1m\n" +
      "fake\\u202etxt.exe\n",
  );
  assert.ok(
    failed!.startsWith(
      '[DBG] spillway·mcp: tool "x\\x1b]0;pwned\\x07\\x1b[2J\\x9b1m\\nfake\\u202etxt.exe" failed: ' +
        "Error: x␛]0;pwned\\x07␛[2J\\x9b1m\nfake\\u202etxt.exe\n    at ",
    ),
    JSON.stringify(failed),
  );
});
