/**
 * A tool's output schema, as the caps check a cut `structuredContent`
 * against it. MCP requires a result of a tool with an output schema that is
 * not an error to carry structured content that conforms to it, and SDK
 * clients check it when the result arrives. A cut value is checked here,
 * before it is recorded, with the validator the MCP SDK's clients use (ajv,
 * configured as they configure it: draft-07, formats checked, unknown
 * keywords ignored), so a value that passes here passes there.
 *
 * @module
 */

import { Ajv } from "ajv";
// A CommonJS module: its function is the default export's `default`, as typed.
import formats from "ajv-formats";

/** Checks values against one output schema. */
export interface OutputSchema {
  /**
   * `undefined` when `value` conforms to the schema; otherwise why not, in
   * the validator's words (`data must have required property 'bytes'`).
   */
  check(value: unknown): string | undefined;
}

/** The longest reason {@linkcode OutputSchema.check} returns, in characters. */
export const MAX_REASON_CHARS = 200;

/**
 * A validator as the SDK's clients make theirs. One per schema: schemas of
 * different tools may share an `$id`, and a validator keeps every schema it
 * compiled.
 */
function validator(): Ajv {
  const ajv = new Ajv({
    strict: false,
    validateFormats: true,
    validateSchema: false,
    allErrors: true,
  });
  formats.default(ajv);
  return ajv;
}

/**
 * The check of `schema` (a JSON Schema object, as a tool lists it). The
 * schema is compiled the first time a value is checked, not before: most
 * results are never cut. A schema that cannot be compiled (a draft the
 * validator does not know, a broken `$ref`) fails every check, saying so.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { outputSchemaOf } from "./output_schema.ts";
 * const schema = outputSchemaOf({
 *   type: "object",
 *   properties: { content: { type: "string" } },
 *   required: ["content"],
 * });
 * assert.equal(schema.check({ content: "cut" }), undefined);
 * assert.equal(schema.check({}), "data must have required property 'content'");
 * ```
 */
export function outputSchemaOf(schema: Readonly<Record<string, unknown>>): OutputSchema {
  let compiled: ((value: unknown) => string | undefined) | undefined;
  const compile = (): (value: unknown) => string | undefined => {
    const ajv = validator();
    try {
      const validate = ajv.compile(schema);
      return (value) => {
        if (validate(value)) return undefined;
        return bounded(ajv.errorsText(validate.errors?.slice(0, 1)));
      };
    } catch (error) {
      const reason = bounded(`the output schema cannot be checked: ${String(error)}`);
      return () => reason;
    }
  };
  return {
    check(value) {
      compiled ??= compile();
      return compiled(value);
    },
  };
}

function bounded(reason: string): string {
  const line = reason.replace(/\s+/g, " ");
  return line.length <= MAX_REASON_CHARS ? line : `${line.slice(0, MAX_REASON_CHARS - 1)}…`;
}
