/**
 * What validating one layer needs to know about where it came from: its
 * origin label, the name to cite in messages, and the line of each key. It
 * also phrases the shared kinds of problems, so every message has the same
 * shape: `{file}[:{line}]: {key path} = {value} …`.
 *
 * @module
 */

import type { ConfigValue } from "./config_value.ts";
import { formatValue } from "./_format_value.ts";
import { formatKeyPath, pathKey } from "./_key_path.ts";
import type { ConfigLayer } from "./_layer.ts";

/** Collects the values and problems of one layer. */
export class LayerContext {
  /** Problems found, in the order found. */
  readonly errors: string[] = [];

  /**
   * @param origin the layer's origin label (`"default"`, a path, `"--cfg"`)
   * @param site what messages cite (a path, or the whole `--cfg key=value`)
   * @param lines key path → line, from {@linkcode indexKeyLines}
   * @param layer the layer being filled
   */
  constructor(
    readonly origin: string,
    readonly site: string,
    readonly lines: ReadonlyMap<string, number>,
    readonly layer: ConfigLayer,
  ) {}

  /**
   * The place to cite for `path`: `site:line` when the line is known. A key
   * inside an inline table (`style = { colour = 1 }`) is not indexed; the
   * nearest indexed parent is on the same line, so that line is cited.
   */
  at(path: readonly string[]): string {
    for (let len = path.length; len > 0; len--) {
      const line = this.lines.get(pathKey(path.slice(0, len)));
      if (line !== undefined) return `${this.site}:${line}`;
    }
    return this.site;
  }

  /** Wraps a validated value with its origin. */
  value<T>(path: readonly string[], value: T): ConfigValue<T> {
    return { value, origin: this.origin, at: this.at(path) };
  }

  /** Records a problem at `path`; `text` follows `{file}[:{line}]: `. */
  fail(path: readonly string[], text: string): undefined {
    this.errors.push(`${this.at(path)}: ${text}`);
    this.layer.invalid.add(pathKey(path));
    return undefined;
  }

  /** `unknown key a.b.c (expected one of: …)`. */
  unknownKey(path: readonly string[], accepted: readonly string[]): undefined {
    return this.fail(
      path,
      `unknown key ${formatKeyPath(path)} (expected one of: ${accepted.join(", ")})`,
    );
  }

  /** `a.b = value has the wrong type (expected …)`. */
  wrongType(path: readonly string[], value: unknown, expected: string): undefined {
    return this.fail(path, `${assignment(path, value)} has the wrong type (expected ${expected})`);
  }

  /** `a.b = value is not valid (expected …)`. */
  notValid(path: readonly string[], value: unknown, expected: string): undefined {
    return this.fail(path, `${assignment(path, value)} is not valid (expected ${expected})`);
  }

  /**
   * Checks `value` is a string among `accepted`; returns it, or records the
   * problem and returns `undefined`.
   */
  oneOf<T extends string>(
    path: readonly string[],
    value: unknown,
    accepted: readonly T[],
  ): ConfigValue<T> | undefined {
    const list = accepted.join(", ");
    if (typeof value !== "string") return this.wrongType(path, value, `a string, one of: ${list}`);
    if (!(accepted as readonly string[]).includes(value)) {
      return this.notValid(path, value, `one of: ${list}`);
    }
    return this.value(path, value as T);
  }

  /** Checks `value` is a string. */
  string(path: readonly string[], value: unknown): ConfigValue<string> | undefined {
    if (typeof value !== "string") return this.wrongType(path, value, "a string");
    return this.value(path, value);
  }

  /**
   * Checks `value` is a duration in seconds (`timeout`, `startup_timeout`):
   * a positive number no longer than a timer can hold.
   */
  seconds(
    path: readonly string[],
    value: unknown,
    example: number,
  ): ConfigValue<number> | undefined {
    const expected = `a positive number of seconds, e.g. ${example}`;
    if (typeof value !== "number") return this.wrongType(path, value, expected);
    if (!(value > 0)) return this.notValid(path, value, expected);
    if (value > MAX_TIMEOUT_SECONDS) {
      return this.notValid(path, value, `at most ${MAX_TIMEOUT_SECONDS} seconds, e.g. ${example}`);
    }
    return this.value(path, value);
  }
}

/** Longest timeout a timer can hold (2^31 - 1 ms), in whole seconds. */
const MAX_TIMEOUT_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

/** `key.path = value`, the way every message quotes a setting. */
export function assignment(path: readonly string[], value: unknown): string {
  return `${formatKeyPath(path)} = ${formatValue(value)}`;
}

/** A TOML table (not an array, not a date). */
export function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    !(value instanceof Date);
}

/** An array whose items are all strings. */
export function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

/** Sets `target[key]` only when `value` was valid, so a rejected value leaves no trace. */
export function put<T, K extends keyof T>(target: T, key: K, value: T[K] | undefined): void {
  if (value !== undefined) target[key] = value;
}
