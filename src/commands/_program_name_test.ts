import assert from "node:assert/strict";
import { programName } from "./_program_name.ts";

Deno.test("programName() is `spillway` under the npm package's command, `deno task spillway` in a checkout", () => {
  const before = Deno.env.get("SPILLWAY_PROGRAM");
  try {
    Deno.env.delete("SPILLWAY_PROGRAM");
    assert.equal(programName(), "deno task spillway");
    Deno.env.set("SPILLWAY_PROGRAM", "spillway");
    assert.equal(programName(), "spillway");
    Deno.env.set("SPILLWAY_PROGRAM", "something else");
    assert.equal(programName(), "deno task spillway");
  } finally {
    if (before === undefined) Deno.env.delete("SPILLWAY_PROGRAM");
    else Deno.env.set("SPILLWAY_PROGRAM", before);
  }
});
