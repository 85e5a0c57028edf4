import assert from "node:assert/strict";
import { SpillwayError } from "../errors/spillway_error.ts";
import { type FlagSpec, flagSynopsis, HELP_FLAG, parseFlags } from "./_flags.ts";

const SPECS: readonly FlagSpec[] = [
  { name: "workspace", kind: "string", valueName: "DIR", help: "" },
  { name: "config", kind: "string", repeatable: true, valueName: "FILE", help: "" },
  { name: "cfg", kind: "string", repeatable: true, help: "" },
  { name: "quiet", kind: "boolean", help: "" },
  { name: "verbose", short: "v", kind: "count", help: "" },
  HELP_FLAG,
];

function usageError(args: string[]): string {
  try {
    parseFlags(args, SPECS);
  } catch (error) {
    assert.ok(error instanceof SpillwayError);
    assert.equal(error.code, "usage");
    return error.message;
  }
  assert.fail(`expected ${args.join(" ")} to be rejected`);
}

Deno.test("parseFlags() reads --flag value and --flag=value forms", () => {
  const flags = parseFlags(["--workspace", "ws", "--cfg=a.b=c", "--config", "x.toml"], SPECS);
  assert.equal(flags.string("workspace"), "ws");
  assert.deepEqual(flags.strings("cfg"), ["a.b=c"]);
  assert.deepEqual(flags.strings("config"), ["x.toml"]);
  assert.deepEqual(flags.strings("workspace"), ["ws"]);
});

Deno.test("parseFlags() keeps repeatable flags in order", () => {
  const flags = parseFlags(["--config", "a", "--config=b", "--config", "c"], SPECS);
  assert.deepEqual(flags.strings("config"), ["a", "b", "c"]);
});

Deno.test("parseFlags() counts -v, -vv and --verbose, and reads booleans", () => {
  assert.equal(parseFlags(["-vv", "--verbose"], SPECS).count("verbose"), 3);
  assert.equal(parseFlags([], SPECS).count("verbose"), 0);
  assert.equal(parseFlags(["--quiet"], SPECS).boolean("quiet"), true);
  assert.equal(parseFlags([], SPECS).boolean("quiet"), false);
  assert.equal(parseFlags(["-h"], SPECS).boolean("help"), true);
});

Deno.test("parseFlags() passes positionals through, and everything after --", () => {
  const flags = parseFlags(["one", "--quiet", "-", "--", "--config", "-v"], SPECS);
  assert.deepEqual(flags.positionals, ["one", "-", "--config", "-v"]);
  assert.deepEqual(flags.strings("config"), []);
});

Deno.test("parseFlags() rejects unknown flags, suggesting the closest one", () => {
  assert.equal(usageError(["--confg", "x"]), "unknown flag --confg (did you mean --config?)");
  assert.equal(usageError(["--cgf", "x"]), "unknown flag --cgf (did you mean --cfg?)");
  assert.equal(
    usageError(["--frobnicate"]),
    "unknown flag --frobnicate (known: --workspace, --config, --cfg, --quiet, --verbose, --help)",
  );
  assert.match(usageError(["-x"]), /^unknown flag -x /);
});

Deno.test("parseFlags() rejects missing and unexpected values", () => {
  assert.equal(usageError(["--workspace"]), "--workspace needs a value (--workspace DIR)");
  assert.equal(usageError(["--config", "--quiet"]), "--config needs a value (--config FILE)");
  assert.equal(usageError(["--quiet=yes"]), "--quiet takes no value");
});

Deno.test("parseFlags() rejects a non-repeatable flag given twice", () => {
  assert.equal(usageError(["--workspace", "a", "--workspace", "b"]), "--workspace given twice");
  assert.equal(usageError(["--quiet", "--quiet"]), "--quiet given twice");
});

Deno.test("parseFlags() accepts an empty value given with =", () => {
  assert.equal(parseFlags(["--workspace="], SPECS).string("workspace"), "");
});

Deno.test("flagSynopsis() spells flags as help shows them", () => {
  assert.equal(flagSynopsis(SPECS[1] as FlagSpec), "--config FILE");
  assert.equal(flagSynopsis(SPECS[4] as FlagSpec), "-v, --verbose");
  assert.equal(flagSynopsis(SPECS[2] as FlagSpec), "--cfg VALUE");
});
