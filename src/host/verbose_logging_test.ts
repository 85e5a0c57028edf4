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
