/**
 * The part of Deno's namespace that spillway's own test files use, for
 * running them unchanged on Node: `Deno.test` registers a `node:test` test,
 * and the file, process and environment functions the tests call go through
 * spillway's platform seam (src/platform/), the same code the library runs
 * on Node. A function no listed suite needs is missing and fails loudly.
 *
 * The shim has no `version`, so the platform seam never takes it for Deno.
 *
 * @module
 */

import { test } from "node:test";
import { execFileSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import * as files from "../../src/platform/files.ts";
import { isAlreadyExists, isNotFound } from "../../src/platform/file_errors.ts";
import {
  type ChildProcess,
  currentDirectory,
  environment,
  killProcess,
  processId,
  type SignalName,
  type SpawnOptions,
  spawnProcess,
} from "../../src/platform/processes.ts";

type TestFn = () => unknown;
interface TestDefinition {
  readonly name: string;
  readonly fn: TestFn;
  readonly ignore?: boolean;
}

/** `Deno.test(name, fn)`, `Deno.test({ name, fn, ignore })` or `Deno.test(name, options, fn)`. */
function denoTest(
  first: string | TestDefinition,
  second?: TestFn | Partial<TestDefinition>,
  third?: TestFn,
): void {
  const definition: TestDefinition = typeof first === "string"
    ? typeof second === "function"
      ? { name: first, fn: second }
      : { ...second, name: first, fn: third! }
    : first;
  // Tests report their own result; Deno's test functions take a context no suite here uses.
  test(definition.name, { skip: definition.ignore === true }, async () => {
    await definition.fn();
  });
}

/** The deno on PATH: suites that run a tool written for Deno run it with Deno. */
let denoPath: string | undefined;
function execPath(): string {
  denoPath ??= execFileSync("sh", ["-c", "command -v deno"], { encoding: "utf8" }).trim();
  return denoPath;
}

/** `new Deno.Command(program, options)`: `output()` and `spawn()`, stdio piped. */
class Command {
  readonly #program: string;
  readonly #options: SpawnOptions;

  constructor(program: string | URL, options: SpawnOptions = {}) {
    this.#program = String(program);
    this.#options = options;
  }

  /** Runs it to its end with empty stdin; its output, code, signal and success. */
  async output() {
    const child = await spawnProcess(this.#program, this.#options);
    await child.stdin.close();
    const [stdout, stderr, status] = await Promise.all([
      new Response(child.stdout).arrayBuffer().then((bytes) => new Uint8Array(bytes)),
      new Response(child.stderr).arrayBuffer().then((bytes) => new Uint8Array(bytes)),
      child.status,
    ]);
    return { ...status, success: status.code === 0, stdout, stderr };
  }

  /** Starts it; unlike Deno's, a promise (Node reports a failed start asynchronously). */
  spawn(): Promise<ChildProcess> {
    return spawnProcess(this.#program, this.#options);
  }
}

/** An error class whose `instanceof` matches Node's errors of the same meaning. */
function errorKind(matches: (error: unknown) => boolean): unknown {
  return class {
    static [Symbol.hasInstance](error: unknown): boolean {
      return matches(error);
    }
  };
}

/** `Deno.open`, its file with Deno's `readable` stream too (the suites read FIFOs that way). */
async function openWithReadable(path: string, options?: files.OpenOptions) {
  const file = await files.open(path, options);
  const readable = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const buffer = new Uint8Array(64 * 1024);
      const read = await file.read(buffer);
      if (read === null) {
        file.close();
        controller.close();
      } else {
        controller.enqueue(buffer.subarray(0, read));
      }
    },
    cancel: () => file.close(),
  });
  return Object.assign(file, { readable });
}

const env = {
  get: (name: string) => process.env[name],
  set: (name: string, value: string) => {
    process.env[name] = value;
  },
  delete: (name: string) => {
    delete process.env[name];
  },
  toObject: environment,
};

(globalThis as Record<string, unknown>).Deno = {
  test: denoTest,
  makeTempDir: files.makeTempDir,
  remove: files.remove,
  mkdir: files.mkdir,
  stat: files.stat,
  lstat: files.lstat,
  open: openWithReadable,
  readDir: files.readDir,
  readFile: files.readFile,
  readTextFile: files.readTextFile,
  writeFile: (path: string, bytes: Uint8Array) => writeFile(path, bytes),
  writeTextFile: files.writeTextFile,
  realPath: files.realPath,
  utime: files.utime,
  rename: files.rename,
  execPath,
  Command,
  kill: (pid: number, signal: SignalName) => killProcess(pid, signal),
  errors: { NotFound: errorKind(isNotFound), AlreadyExists: errorKind(isAlreadyExists) },
  env,
  cwd: currentDirectory,
  pid: processId(),
  build: { os: process.platform === "win32" ? "windows" : process.platform },
  SeekMode: { Start: 0, Current: 1, End: 2 },
};
