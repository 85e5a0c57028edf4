import assert from "node:assert/strict";
import { COMMANDS, main } from "./cli.ts";
import type { Command } from "./commands/command.ts";
import { captureCommandIo, type CommandIo } from "./commands/command_io.ts";
import { SpillwayError } from "./errors/spillway_error.ts";

/** A registry of fake commands that record what they were given. */
function fakeRegistry(calls: string[][]): Command[] {
  const make = (
    name: string,
    run: (args: readonly string[], io: CommandIo) => Promise<number>,
  ) => ({
    name,
    summary: `the ${name} command`,
    usage: `spillway ${name}`,
    description: "A fake.",
    flags: [],
    run,
  });
  return [
    make("conversation ls", (args) => {
      calls.push(["conversation ls", ...args]);
      return Promise.resolve(0);
    }),
    make("conversation", (args) => {
      calls.push(["conversation", ...args]);
      return Promise.resolve(0);
    }),
    make("fail", () => Promise.reject(new SpillwayError("store_failed", "disk full"))),
    make("misuse", () => Promise.reject(new SpillwayError("usage", 'unexpected argument "x"'))),
    make("crash", () => Promise.reject(new TypeError("boom"))),
  ];
}

Deno.test("main() dispatches to the longest matching command with the rest of the args", async () => {
  const calls: string[][] = [];
  const registry = fakeRegistry(calls);
  assert.equal(await main(["conversation", "ls", "--all"], captureCommandIo(), registry), 0);
  assert.equal(await main(["conversation", "show"], captureCommandIo(), registry), 0);
  assert.deepEqual(calls, [["conversation ls", "--all"], ["conversation", "show"]]);
});

Deno.test("main() lists the commands for --help (exit 0) and for no command (exit 2)", async () => {
  const help = captureCommandIo();
  assert.equal(await main(["--help"], help), 0);
  assert.match(help.out(), /config check\s+validate the layered configuration/);
  const bare = captureCommandIo();
  assert.equal(await main([], bare), 2);
  assert.match(bare.err(), /Commands:\n {2}query +run one turn.*\n {2}config check /);
  assert.equal(bare.out(), "");
});

Deno.test("main() prints a command's help for `help <command>` and `<command> --help`", async () => {
  const viaHelp = captureCommandIo();
  assert.equal(await main(["help", "config", "check"], viaHelp), 0);
  const viaFlag = captureCommandIo();
  assert.equal(await main(["config", "check", "--help"], viaFlag), 0);
  assert.equal(viaHelp.out(), viaFlag.out());
  assert.match(viaFlag.out(), /^spillway config check: /);
  assert.match(viaFlag.out(), /Usage: spillway config check \[--workspace DIR\]/);
  assert.match(viaFlag.out(), /--cfg KEY=VALUE\s+set one key/);
});

Deno.test("main() answers an unknown command with the list and exit 2", async () => {
  const io = captureCommandIo();
  assert.equal(await main(["frobnicate"], io), 2);
  assert.match(
    io.err(),
    /^spillway: unknown command "frobnicate"\nCommands:\n {2}query .*\n {2}config check /,
  );
  const group = captureCommandIo();
  assert.equal(await main(["config"], group), 2);
  assert.match(group.err(), /^spillway: "config" needs a subcommand/);
  const wrong = captureCommandIo();
  assert.equal(await main(["config", "chek"], wrong), 2);
  assert.match(wrong.err(), /unknown command "config chek"/);
  const unknownHelp = captureCommandIo();
  assert.equal(await main(["help", "nope"], unknownHelp), 2);
});

Deno.test("main() explains flags given before the command", async () => {
  const io = captureCommandIo();
  assert.equal(await main(["--workspace", "x", "config", "check"], io), 2);
  assert.match(io.err(), /flags go after the command name/);
});

Deno.test("main() maps usage errors to 2, faults to 1, and never throws", async () => {
  const registry = fakeRegistry([]);
  const misuse = captureCommandIo();
  assert.equal(await main(["misuse"], misuse, registry), 2);
  assert.equal(
    misuse.err(),
    'spillway misuse: unexpected argument "x"\nRun `spillway misuse --help` for usage.\n',
  );
  const fail = captureCommandIo();
  assert.equal(await main(["fail"], fail, registry), 1);
  assert.equal(fail.err(), "spillway fail: disk full\n");
  const crash = captureCommandIo();
  assert.equal(await main(["crash"], crash, registry), 1);
  assert.match(
    crash.err(),
    /^spillway crash: internal error \(please report it\):\nTypeError: boom/,
  );
});

Deno.test("COMMANDS names are unique", () => {
  const names = COMMANDS.map((command) => command.name);
  assert.equal(new Set(names).size, names.length);
});
