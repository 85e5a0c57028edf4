import assert from "node:assert/strict";
import fc from "fast-check";
import { withTestSeed } from "../../testing/seed.ts";
import { childEnvironment, DEFAULT_PASSED_ENV } from "./child_environment.ts";

Deno.test("childEnvironment() passes the default variables and nothing else by default", () => {
  const env = childEnvironment({
    PATH: "/bin",
    HOME: "/home/me",
    LC_ALL: "C.UTF-8",
    XDG_CACHE_HOME: "/c",
    HTTPS_PROXY: "http://proxy:3128",
    SSL_CERT_FILE: "/etc/ssl/cert.pem",
    AWS_SECRET_ACCESS_KEY: "aws",
    GITHUB_TOKEN: "gh",
    DENO_AUTH_TOKENS: "tok@registry",
    SPILLWAY_SERVE_TOKEN: "serve",
  });
  assert.deepEqual(env, {
    PATH: "/bin",
    HOME: "/home/me",
    LC_ALL: "C.UTF-8",
    XDG_CACHE_HOME: "/c",
    HTTPS_PROXY: "http://proxy:3128",
    SSL_CERT_FILE: "/etc/ssl/cert.pem",
  });
});

Deno.test("childEnvironment() keeps a secret out of a pattern, even one of the defaults", () => {
  const inherited = { HOME: "/h", LC_TOKEN: "x", SPILLWAY_SERVE_TOKEN: "t", AWS_KEY: "k" };
  const secrets = ["LC_TOKEN", "SPILLWAY_SERVE_TOKEN", "AWS_KEY"];
  assert.deepEqual(childEnvironment(inherited, { secrets, passEnv: ["*", "AWS_*"] }), {
    HOME: "/h",
  });
  assert.deepEqual(
    childEnvironment(inherited, { secrets, passEnv: ["SPILLWAY_SERVE_TOKEN", "AWS_KEY"] }),
    { HOME: "/h", SPILLWAY_SERVE_TOKEN: "t", AWS_KEY: "k" },
  );
});

Deno.test("childEnvironment() sets the configured values over the inherited ones", () => {
  const env = childEnvironment(
    { PATH: "/bin", TERM: "xterm" },
    { set: { TERM: "dumb", GITHUB_TOKEN: "from-config" }, secrets: ["GITHUB_TOKEN"] },
  );
  assert.deepEqual(env, { PATH: "/bin", TERM: "dumb", GITHUB_TOKEN: "from-config" });
});

/** Variable names from a small set, so that names, prefixes and secrets collide often. */
const name: fc.Arbitrary<string> = fc.constantFrom("A", "B", "AB", "BA", "A_B", "LC_A", "PATH");
const pattern: fc.Arbitrary<string> = fc.oneof(name, fc.constantFrom("A*", "B*", "LC_*", "*"));

Deno.test("childEnvironment(): a variable is passed exactly when a pattern matches it and it is no secret, or is named", async () => {
  await withTestSeed((seed) => {
    const hits = { secretNamed: 0, secretHeld: 0, patternPassed: 0, unmatched: 0 };
    fc.assert(
      fc.property(
        fc.dictionary(name, fc.string({ maxLength: 3 })),
        fc.array(name, { maxLength: 4 }),
        fc.array(pattern, { maxLength: 4 }),
        fc.dictionary(name, fc.string({ maxLength: 3 }), { maxKeys: 2 }),
        (inherited, secrets, passEnv, set) => {
          const env = childEnvironment(inherited, { secrets, passEnv, set });
          for (const [key, value] of Object.entries(inherited)) {
            if (key in set) {
              assert.equal(env[key], set[key]);
              continue;
            }
            const matches = [...DEFAULT_PASSED_ENV, ...passEnv].some((p) =>
              p.endsWith("*") ? key.startsWith(p.slice(0, -1)) : key === p
            );
            const secret = secrets.includes(key);
            const named = passEnv.includes(key);
            const expected = matches && (!secret || named);
            if (secret && named) hits.secretNamed++;
            else if (secret && matches) hits.secretHeld++;
            else if (matches) hits.patternPassed++;
            else hits.unmatched++;
            assert.equal(env[key], expected ? value : undefined, `${key} of ${passEnv}`);
          }
          for (const key of Object.keys(env)) {
            assert.ok(key in inherited || key in set, `${key} came from nowhere`);
          }
        },
      ),
      { seed, numRuns: 1000 },
    );
    for (const [branch, count] of Object.entries(hits)) {
      assert.ok(count >= 50, `only ${count} variables reached the ${branch} branch`);
    }
  });
});
