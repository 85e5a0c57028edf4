import assert from "node:assert/strict";
import { SpillwayError } from "../errors/spillway_error.ts";
import { parseConfig } from "./parse_config.ts";

function problems(text: string): string[] {
  try {
    parseConfig(text, "c.toml");
  } catch (error) {
    assert.ok(error instanceof SpillwayError);
    assert.equal(error.code, "config_invalid");
    return error.details["errors"] as string[];
  }
  assert.fail("expected the config to be rejected");
}

Deno.test("[store] defaults to the file store", () => {
  const store = parseConfig("").store();
  assert.deepEqual(store, { type: { value: "file", origin: "default", at: "default" } });
});

Deno.test("[store] reads type, url and password_env with their origins", () => {
  const store = parseConfig(
    `[store]
type = "postgres"
url = "postgres://spillway@db.internal:5432/spillway"
password_env = "SPILLWAY_DATABASE_PASSWORD"
`,
    "c.toml",
  ).store();
  assert.equal(store.type.value, "postgres");
  assert.equal(store.url?.value, "postgres://spillway@db.internal:5432/spillway");
  assert.equal(store.url?.at, "c.toml:3");
  assert.equal(store.passwordEnv?.value, "SPILLWAY_DATABASE_PASSWORD");
  assert.equal(parseConfig('[store]\ntype = "postgres"').store().url, undefined);
});

Deno.test("[store] refuses a password in the URL or in the file without quoting it", () => {
  const secret = "hunter2-s3cret";
  const found = problems(
    `[store]
type = "postgres"
url = "postgres://spillway:${secret}@db:5432/spillway"
password = "${secret}"
`,
  );
  assert.deepEqual(found, [
    "c.toml:3: store.url holds a password: a password never goes in a config file; remove it " +
    "from the URL, put it in an environment variable and name that variable in " +
    "store.password_env (or set PGPASSWORD)",
    "c.toml:4: store.password is not read: a password never goes in a config file; put it in " +
    "an environment variable and name that variable in store.password_env (or set PGPASSWORD)",
  ]);
  assert.ok(found.every((line) => !line.includes(secret)));
});

Deno.test("[store] names what it accepts", () => {
  assert.deepEqual(
    problems(
      `[store]
type = "sqlite"
url = "mysql://db/x"
password_env = "not a name"
pool = 3
`,
    ),
    [
      'c.toml:2: store.type = "sqlite" is not valid (expected one of: file, postgres)',
      'c.toml:3: store.url = "mysql://db/x" is not valid (expected a PostgreSQL URL, e.g. ' +
      '"postgres://spillway@db.internal:5432/spillway")',
      'c.toml:4: store.password_env = "not a name" is not valid (expected the name of an ' +
      'environment variable, e.g. "SPILLWAY_DATABASE_PASSWORD")',
      "c.toml:5: unknown key store.pool (expected one of: type, url, password_env)",
    ],
  );
});

Deno.test('[store] url and password_env need type = "postgres"', () => {
  assert.deepEqual(problems('[store]\nurl = "postgres://db/x"\npassword_env = "PW"\n'), [
    'c.toml:2: store.url is set, but store.type is "file": it applies to type = "postgres" ' +
    'only (set store.type = "postgres", or remove it)',
    'c.toml:3: store.password_env is set, but store.type is "file": it applies to type = ' +
    '"postgres" only (set store.type = "postgres", or remove it)',
  ]);
});
