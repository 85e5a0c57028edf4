import assert from "node:assert/strict";
import fc from "fast-check";
import { ByteSize } from "../size/byte_size.ts";
import { withTestSeed } from "../testing/seed.ts";
import { KNOWN_CLIENTS, sessionCeiling } from "./session_ceiling.ts";

Deno.test("sessionCeiling() gives each known client its own ceiling, named as notices name it", () => {
  assert.deepEqual(
    KNOWN_CLIENTS.map(({ name }) => [name, sessionCeiling(name)]),
    [
      ["claude-code", { bytes: 500_000, client: "claude-code" }],
      ["codex-mcp-client", { bytes: KNOWN_CLIENTS[1]?.bytes, client: "codex" }],
      ["gemini-cli-mcp-client", { bytes: KNOWN_CLIENTS[2]?.bytes, client: "gemini-cli" }],
    ],
  );
});

Deno.test("sessionCeiling(): a client it does not know, or one that did not say, gets none", () => {
  assert.equal(sessionCeiling("my-agent"), undefined);
  assert.equal(sessionCeiling(undefined), undefined);
  assert.equal(sessionCeiling("Claude-Code"), undefined, "names are matched exactly");
  // A name that happens to be an Object property is not a known client.
  assert.equal(sessionCeiling("constructor"), undefined);
  assert.equal(sessionCeiling("__proto__"), undefined);
});

Deno.test("sessionCeiling(): [serve.client_ceilings] overrides a known client and adds others", () => {
  const configured = new Map([
    ["codex-mcp-client", ByteSize.parse("64KB")],
    ["my-agent", ByteSize.parse("20KB")],
  ]);
  assert.deepEqual(sessionCeiling("codex-mcp-client", { configured }), {
    bytes: 65_536,
    client: "codex",
  });
  assert.deepEqual(sessionCeiling("my-agent", { configured }), {
    bytes: 20_480,
    client: "my-agent",
  });
  assert.deepEqual(sessionCeiling("claude-code", { configured }), {
    bytes: 500_000,
    client: "claude-code",
  });
});

Deno.test("sessionCeiling(): --client-ceiling caps every session; the lower one wins", () => {
  const flag = ByteSize.parse("1MB");
  assert.deepEqual(sessionCeiling("claude-code", { flag }), {
    bytes: 500_000,
    client: "claude-code",
  });
  assert.deepEqual(sessionCeiling("my-agent", { flag }), { bytes: 1_048_576 });
  const equal = ByteSize.fromBytes(500_000);
  assert.deepEqual(sessionCeiling("claude-code", { flag: equal }), { bytes: 500_000 });
});

Deno.test("sessionCeiling() is the lower of the client's own and the flag, for any of them", async () => {
  const names = [...KNOWN_CLIENTS.map(({ name }) => name), "my-agent", "other", undefined];
  const size = fc.integer({ min: 1024, max: 4 * 1024 * 1024 });
  await withTestSeed((seed) => {
    const hits = { flag: 0, own: 0, none: 0, configured: 0 };
    fc.assert(
      fc.property(
        fc.constantFrom(...names),
        // No flag one time in three: the "none" branch needs no flag and an unknown client.
        fc.option(size, { nil: undefined, freq: 2 }),
        fc.dictionary(fc.constantFrom("my-agent", "codex-mcp-client", "claude-code"), size),
        (name, flagBytes, table) => {
          const configured = new Map(
            Object.entries(table).map(([key, bytes]) => [key, ByteSize.fromBytes(bytes)]),
          );
          const flag = flagBytes === undefined ? undefined : ByteSize.fromBytes(flagBytes);
          const ceiling = sessionCeiling(name, { configured, flag });
          const own = name === undefined
            ? undefined
            : table[name] ?? KNOWN_CLIENTS.find((client) => client.name === name)?.bytes;
          const expected = Math.min(own ?? Infinity, flagBytes ?? Infinity);
          if (expected === Infinity) {
            hits.none++;
            assert.equal(ceiling, undefined);
            return;
          }
          assert.equal(ceiling?.bytes, expected);
          if (ceiling?.client === undefined) {
            hits.flag++;
            assert.equal(ceiling?.bytes, flagBytes);
          } else {
            hits.own++;
            if (name !== undefined && table[name] !== undefined) hits.configured++;
            assert.ok(flagBytes === undefined || (own as number) < flagBytes);
          }
        },
      ),
      { seed, numRuns: 400 },
    );
    for (const [branch, count] of Object.entries(hits)) {
      assert.ok(count >= 20, `only ${count} cases reached ${branch}: ${JSON.stringify(hits)}`);
    }
  });
});
