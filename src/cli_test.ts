import assert from "node:assert/strict";
import { COMMANDS, main } from "./cli.ts";
import type { Command } from "./commands/command.ts";
import { captureCommandIo } from "./commands/command_io.ts";
import type { FlagSpec, ParsedFlags } from "./commands/_flags.ts";
import { SpillwayError } from "./errors/spillway_error.ts";

const FLAGS: readonly FlagSpec[] = [
  { name: "workspace", kind: "string", valueName: "DIR", help: "where" },
  { name: "config", kind: "string", repeatable: true, valueName: "FILE", help: "a layer" },
  { name: "cfg", kind: "string", repeatable: true, help: "a key" },
  { name: "tools", kind: "string", choices: ["strip-responses", "cap"], help: "how" },
  { name: "dry-run", kind: "boolean", help: "write nothing" },
  { name: "verbose", short: "v", kind: "count", help: "more" },
];

interface Seen {
  name: string;
  flags: ParsedFlags;
}

/** A registry of fake commands that record what they were given. */
function fakeRegistry(seen: Seen[]): Command[] {
  const make = (
    name: string,
    run: (flags: ParsedFlags) => Promise<number>,
    positionals?: string,
  ): Command => ({
    name,
    summary: `the ${name} command`,
    usage: `spillway ${name}`,
    description: "A fake.",
    flags: FLAGS,
    ...(positionals === undefined ? {} : { positionals }),
    run,
  });
  const record = (name: string) => (flags: ParsedFlags) => {
    seen.push({ name, flags });
    return Promise.resolve(0);
  };
  return [
    make("conversation ls", record("conversation ls")),
    make("conversation show", record("conversation show"), "<ID>"),
    make("echo", record("echo"), "[words...]"),
    make("fail", () => Promise.reject(new SpillwayError("store_failed", "disk full"))),
    make("misuse", () => Promise.reject(new SpillwayError("usage", 'unexpected argument "x"'))),
    make("crash", () => Promise.reject(new TypeError("boom"))),
  ];
}

/** Runs `args` against the fake registry: exit code, stderr, and what the command got. */
async function fake(args: string[]): Promise<{ code: number; err: string; flags?: ParsedFlags }> {
  const seen: Seen[] = [];
  const io = captureCommandIo();
  const code = await main(args, io, fakeRegistry(seen));
  return { code, err: io.err(), ...(seen[0] === undefined ? {} : { flags: seen[0].flags }) };
}

Deno.test("main() dispatches nested commands with their flags and positionals", async () => {
  const seen: Seen[] = [];
  const registry = fakeRegistry(seen);
  assert.equal(await main(["conversation", "ls", "--dry-run"], captureCommandIo(), registry), 0);
  assert.equal(await main(["conversation", "show", "c1"], captureCommandIo(), registry), 0);
  assert.deepEqual(seen.map((s) => s.name), ["conversation ls", "conversation show"]);
  assert.equal(seen[0]?.flags.boolean("dry-run"), true);
  assert.deepEqual(seen[1]?.flags.positionals, ["c1"]);
  assert.equal(seen[1]?.flags.boolean("dry-run"), false);
});

Deno.test("main() reads --flag value, --flag=value, repeatable flags and counts", async () => {
  const { code, flags } = await fake([
    "echo",
    "--workspace",
    "ws",
    "--cfg=a.b=c",
    "one",
    "--config",
    "a",
    "--config=b",
    "-vv",
    "--verbose",
    "--tools",
    "cap",
    "two",
  ]);
  assert.equal(code, 0);
  assert.ok(flags);
  assert.equal(flags.string("workspace"), "ws");
  assert.deepEqual(flags.strings("workspace"), ["ws"]);
  assert.deepEqual(flags.strings("cfg"), ["a.b=c"]);
  assert.deepEqual(flags.strings("config"), ["a", "b"]);
  assert.equal(flags.string("config"), "b");
  assert.equal(flags.count("verbose"), 3);
  assert.equal(flags.string("tools"), "cap");
  assert.deepEqual(flags.positionals, ["one", "two"]);
  const none = (await fake(["echo"])).flags;
  assert.equal(none?.count("verbose"), 0);
  assert.equal(none?.string("workspace"), undefined);
  assert.deepEqual(none?.strings("config"), []);
});

Deno.test("main() passes everything after -- as positionals, and an empty value given with =", async () => {
  const { flags } = await fake(["echo", "one", "-", "--workspace=", "--", "--config", "-v"]);
  assert.deepEqual(flags?.positionals, ["one", "-", "--config", "-v"]);
  assert.equal(flags?.string("workspace"), "");
  assert.deepEqual(flags?.strings("config"), []);
});

Deno.test("main() rejects a bad command line with exit 2 and the command's name (golden)", async () => {
  const cases: [string[], string][] = [
    [["echo", "--confg", "x"], "spillway echo: unknown flag --confg (did you mean --config?)"],
    [["echo", "--frobnicate"], "spillway echo: unknown flag --frobnicate"],
    [["echo", "-x"], "spillway echo: unknown flag -x"],
    [["echo", "--workspace"], "spillway echo: --workspace needs a value (--workspace DIR)"],
    [["echo", "--config", "--dry-run"], "spillway echo: --config needs a value (--config FILE)"],
    [["echo", "--workspace", "-v"], "spillway echo: --workspace needs a value (--workspace DIR)"],
    [["echo", "--dry-run=yes"], "spillway echo: --dry-run takes no value"],
    [["echo", "--workspace", "a", "--workspace", "b"], "spillway echo: --workspace given twice"],
    [["echo", "--dry-run", "--dry-run"], "spillway echo: --dry-run given twice"],
    [
      ["echo", "--tools", "all"],
      'spillway echo: --tools "all" is not accepted (expected strip-responses or cap)',
    ],
    [["conversation", "ls", "extra"], 'spillway conversation ls: unexpected argument "extra"'],
    [["conversation", "show"], "spillway conversation show: missing the ID argument"],
    [["conversation", "show", "a", "b"], 'spillway conversation show: unexpected argument "b"'],
  ];
  for (const [args, first] of cases) {
    const { code, err, flags } = await fake(args);
    assert.equal(code, 2, args.join(" "));
    assert.equal(flags, undefined, `${args.join(" ")} must not run the command`);
    const name = args[0] === "conversation" ? `${args[0]} ${args[1]}` : args[0];
    assert.equal(
      err,
      `${first}\nRun \`deno task spillway ${name} --help\` for usage.\n`,
      args.join(" "),
    );
  }
});

Deno.test("main() lists the commands for --help (exit 0) and for no command (exit 2)", async () => {
  const help = captureCommandIo();
  assert.equal(await main(["--help"], help), 0);
  assert.equal(help.err(), "");
  assert.match(help.out(), /config check\s+validate the layered configuration/);
  const bare = captureCommandIo();
  assert.equal(await main([], bare), 2);
  assert.equal(bare.err(), help.out());
  assert.match(bare.err(), /Commands:\n {2}query +run one turn.*\n {2}conversation ls /);
  assert.equal(bare.out(), "");
});

Deno.test("main() prints a command's help for `help <command>`, `<command> --help` and -h", async () => {
  const viaHelp = captureCommandIo();
  assert.equal(await main(["help", "config", "check"], viaHelp), 0);
  const viaFlag = captureCommandIo();
  assert.equal(await main(["config", "check", "--help"], viaFlag), 0);
  const viaShort = captureCommandIo();
  assert.equal(await main(["config", "check", "-h"], viaShort), 0);
  assert.equal(viaHelp.out(), viaFlag.out());
  assert.equal(viaShort.out(), viaFlag.out());
  assert.match(viaFlag.out(), /^spillway config check: /);
  assert.match(viaFlag.out(), /Usage: spillway config check \[--workspace DIR\]/);
  assert.match(viaFlag.out(), /--cfg KEY=VALUE\s+set one key/);
  assert.match(viaFlag.out(), /-h, --help\s+show this help and exit\n$/);
});

Deno.test("main() answers an unknown command with the list and exit 2 (golden)", async () => {
  const io = captureCommandIo();
  assert.equal(await main(["frobnicate"], io), 2);
  assert.match(
    io.err(),
    /^spillway: unknown command "frobnicate"\nCommands:\n {2}query .*\n {2}conversation ls /,
  );
  assert.match(io.err(), /\nRun `deno task spillway --help` for usage\.\n$/);
  const group = captureCommandIo();
  assert.equal(await main(["config"], group), 2);
  assert.equal(
    group.err(),
    "spillway config: one of these commands.\n\n" +
      "Usage: deno task spillway config <command> [flags]\n\n" +
      "Commands:\n" +
      "  config check   validate the layered configuration and show what it resolves to\n\n" +
      "Run `deno task spillway <command> --help` for a command's flags.\n",
  );
  const wrong = captureCommandIo();
  assert.equal(await main(["config", "chek"], wrong), 2);
  assert.equal(
    wrong.err(),
    'spillway config: unknown command "chek" (did you mean check?)\n' +
      "Commands:\n" +
      "  config check   validate the layered configuration and show what it resolves to\n" +
      "Run `deno task spillway config --help` for usage.\n",
  );
  const unknownHelp = captureCommandIo();
  assert.equal(await main(["help", "nope"], unknownHelp), 2);
  assert.match(unknownHelp.err(), /^spillway: unknown command "nope"/);
});

Deno.test("main() explains flags given before the command", async () => {
  const io = captureCommandIo();
  assert.equal(await main(["--workspace", "x", "config", "check"], io), 2);
  assert.equal(
    io.err(),
    "spillway: unknown flag --workspace (flags go after the command name, " +
      "e.g. spillway query --workspace)\nRun `deno task spillway --help` for usage.\n",
  );
  const dryRun = captureCommandIo();
  assert.equal(await main(["--dry-run", "conversation", "gc"], dryRun), 2);
  assert.match(dryRun.err(), /e\.g\. spillway conversation compact --dry-run\)/);
  // A flag no command takes gets no hint that some command would.
  const nobody = captureCommandIo();
  assert.equal(await main(["--colour"], nobody), 2);
  assert.equal(
    nobody.err(),
    "spillway: unknown flag --colour\nRun `deno task spillway --help` for usage.\n",
  );
});

Deno.test("main() maps usage errors to 2, faults to 1, and never throws", async () => {
  const misuse = await fake(["misuse"]);
  assert.equal(misuse.code, 2);
  assert.equal(
    misuse.err,
    'spillway misuse: unexpected argument "x"\nRun `deno task spillway misuse --help` for usage.\n',
  );
  const fail = await fake(["fail"]);
  assert.equal(fail.code, 1);
  assert.equal(fail.err, "spillway fail: disk full\n");
  const crash = await fake(["crash"]);
  assert.equal(crash.code, 1);
  assert.match(crash.err, /^spillway crash: internal error \(please report it\):\nTypeError: boom/);
});

Deno.test("COMMANDS names are unique, and every command's help lists its flags", async () => {
  const names = COMMANDS.map((command) => command.name);
  assert.equal(new Set(names).size, names.length);
  for (const command of COMMANDS) {
    const io = captureCommandIo();
    assert.equal(await main([...command.name.split(" "), "--help"], io), 0);
    for (const spec of command.flags) assert.ok(io.out().includes(`--${spec.name}`), spec.name);
  }
});

Deno.test("spillway --version prints the version that deno.json and package.json carry", async () => {
  const io = captureCommandIo();
  assert.equal(await main(["--version"], io), 0);
  const root = new URL("../", import.meta.url);
  const deno = JSON.parse(await Deno.readTextFile(new URL("deno.json", root)));
  const npm = JSON.parse(await Deno.readTextFile(new URL("package.json", root)));
  assert.equal(io.out(), `spillway ${deno.version}\n`);
  assert.equal(npm.version, deno.version);
});
