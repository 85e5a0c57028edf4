/**
 * Property tests of the structured cut, through both caps as the gateway
 * runs them: generated output schemas (required members, objects closed to
 * other members, typed items, nested objects, now and then a constraint no
 * cut keeps) with values that conform, sent as tools send them (the text a
 * mirror of the value, compact or indented, or a text of its own), cut by
 * a threshold and then by the batch ceiling. Whatever the cut kept is
 * checked against the schema by a validator of its own, is a cut of the
 * original shape for shape, fits the limit, and is what would be recorded;
 * what it could not keep makes an error result that says why.
 */

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { Ajv } from "ajv";
import fc from "fast-check";
import { capReview } from "../src/review/cap_review.ts";
import { outputSchemaOf } from "../src/review/output_schema.ts";
import { acceptedReview, type Review } from "../src/review/review.ts";
import { spendBatchBudget, waterLevel } from "../src/review/spend_batch_budget.ts";
import { responseBytes, structuredBytes } from "../src/review/tool_call_response.ts";
import { toToolCallResponse } from "../src/service/to_tool_call_response.ts";
import { SizeThreshold } from "../src/size/size_threshold.ts";
import {
  type GeneratedStructured,
  structuredOfAbout,
} from "../src/testing/arbitrary_structured.ts";
import { withTestSeed } from "../src/testing/seed.ts";
import { textOfAbout } from "../src/testing/arbitrary_text.ts";

const bytesOf = (text: string) => Buffer.byteLength(text, "utf8");
const digestOf = (text: string) => `sha256:${createHash("sha256").update(text).digest("hex")}`;
/** A validator apart from the one under test (no formats: the schemas use none). */
const ajv = new Ajv({ strict: false, allErrors: true });

/** `fc.assert`, its counterexample (megabytes of JSON) shortened in the message. */
function assertProperty<T>(property: fc.IProperty<T>, parameters: fc.Parameters<T>): void {
  try {
    fc.assert(property, parameters);
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    throw new Error(error.message.slice(0, 3000), { cause: error.cause });
  }
}

type Form = "compact mirror" | "indented mirror" | "own text" | "no text";

/** The response of a tool returning `value` in `form`, as the service parks it. */
function parkedResponse(
  id: string,
  value: Readonly<Record<string, unknown>>,
  form: Form,
  own: string,
) {
  const text = form === "compact mirror"
    ? JSON.stringify(value)
    : form === "indented mirror"
    ? JSON.stringify(value, null, 2)
    : own;
  const content = form === "no text" ? [] : [{ type: "text" as const, text }];
  return toToolCallResponse(id, { content, structuredContent: value as Record<string, unknown> }, {
    parked: true,
  });
}

/**
 * Whether `cut` is a cut of `original`, shape for shape: the same kind; a
 * string its prefix; a number, boolean or null the same; an array a prefix
 * whose elements are whole but the last, which is a cut; an object whose
 * members are some of the original's, in order, each a cut.
 */
function isCutOf(cut: unknown, original: unknown): boolean {
  if (typeof cut === "string") return typeof original === "string" && original.startsWith(cut);
  if (Array.isArray(cut)) {
    if (!Array.isArray(original) || cut.length > original.length) return false;
    return cut.every((item, i) =>
      i === cut.length - 1
        ? isCutOf(item, original[i])
        : JSON.stringify(item) === JSON.stringify(original[i])
    );
  }
  if (typeof cut === "object" && cut !== null) {
    if (typeof original !== "object" || original === null || Array.isArray(original)) return false;
    const keys = Object.keys(original);
    let at = 0;
    for (const [key, value] of Object.entries(cut)) {
      while (at < keys.length && keys[at] !== key) at++;
      if (at === keys.length) return false;
      if (!isCutOf(value, (original as Record<string, unknown>)[key])) return false;
    }
    return true;
  }
  return cut === original;
}

interface Case {
  readonly generated: GeneratedStructured;
  readonly form: Form;
  readonly own: string;
}

const aCase: fc.Arbitrary<Case> = fc.record({
  generated: fc.oneof(
    structuredOfAbout(3_000),
    structuredOfAbout(40_000),
    structuredOfAbout(200_000),
  ),
  form: fc.constantFrom<Form>("compact mirror", "indented mirror", "own text", "no text"),
  own: fc.oneof(
    { arbitrary: fc.constant("done"), weight: 2 },
    {
      arbitrary: fc.integer({ min: 0, max: 120_000 }).chain(textOfAbout).map((t) => t.text),
      weight: 1,
    },
  ),
});

/** Checks one cut review; returns which branches it reached. */
function checkCut(
  review: Review,
  limit: number,
  original: Case,
  schemaJson: Record<string, unknown>,
) {
  const { response } = review;
  const reached: string[] = [];
  assert.ok(responseBytes(response) <= limit, `text ${responseBytes(response)} > ${limit}`);
  const structured = response.structuredContent;
  if (structured !== undefined) {
    const value = structured.value;
    assert.ok(value !== undefined, "a kept structured value is at hand for the delivery");
    const json = JSON.stringify(value);
    assert.equal(structured.bytes, bytesOf(json));
    assert.equal(structured.digest, digestOf(json), "recorded as delivered");
    assert.ok(structured.mirrored === true || structured.bytes <= limit);
    const validate = ajv.compile(schemaJson);
    assert.ok(validate(value), `kept but invalid: ${ajv.errorsText(validate.errors)}`);
    assert.ok(isCutOf(value, original.generated.value), "a cut of the original, shape for shape");
    assert.equal(response.isError, false);
    if (structured.mirrored === true) {
      reached.push("mirror");
      assert.ok(
        response.content.startsWith(json + "\n... [truncated, "),
        response.content.slice(0, 80),
      );
    }
    if (json !== JSON.stringify(original.generated.value)) reached.push("validated cut");
    // A prefix cut is the original's beginning and what closes it.
    const prefix = JSON.stringify(original.generated.value).startsWith(
      json.replace(/["\]}]+$/, ""),
    );
    if (!prefix) reached.push("members kept");
  } else {
    reached.push("error");
    assert.equal(response.isError, true);
    assert.match(response.content, /\n\.\.\. \[structured content dropped: [^\n]+\]$/);
  }
  return reached;
}

Deno.test("the structured cut keeps a value that matches the tool's schema, or makes an error result saying why (property)", async () => {
  await withTestSeed((seed) => {
    const reached: Record<string, number> = {};
    const count = (branch: string) => reached[branch] = (reached[branch] ?? 0) + 1;
    assertProperty(
      fc.property(aCase, fc.integer({ min: 1024, max: 64 * 1024 }), (one, threshold) => {
        const { schema, value } = one.generated;
        const outputSchema = outputSchemaOf(schema);
        const parked = parkedResponse("c1", value, one.form, one.own);
        const offered = acceptedReview("tool", parked);
        const { review, notice } = capReview(offered, SizeThreshold.parse(threshold), {
          outputSchema,
        });
        if (notice === undefined) {
          count("fits");
          assert.equal(review.response, parked);
          return;
        }
        for (const branch of checkCut(review, threshold, one, schema as Record<string, unknown>)) {
          count(branch);
        }
        if (responseBytes(parked) <= threshold) count("structured only");
        for (const feature of one.generated.features) count(`schema: ${feature}`);
        // Deterministic: the same cut again.
        const again = capReview(offered, SizeThreshold.parse(threshold), { outputSchema }).review;
        assert.deepEqual(again.response.content, review.response.content);
        assert.equal(
          again.response.structuredContent?.digest,
          review.response.structuredContent?.digest,
        );
      }),
      { seed, numRuns: 200 },
    );
    console.log(`structured cut property: ${JSON.stringify(reached)}`);
    for (const branch of ["validated cut", "members kept", "error", "mirror", "structured only"]) {
      assert.ok(
        (reached[branch] ?? 0) >= 4,
        `only ${reached[branch] ?? 0} cases reached ${branch}`,
      );
    }
    for (const feature of ["required", "closed", "items", "nested"]) {
      assert.ok((reached[`schema: ${feature}`] ?? 0) >= 10, `schema feature ${feature} rarely cut`);
    }
  });
});

Deno.test("the batch ceiling spends its budget over texts and structured values, a mirror counted once (property)", async () => {
  await withTestSeed((seed) => {
    const reached = { batches: 0, mirrors: 0, parts: 0, errors: 0 };
    assertProperty(
      fc.property(
        fc.array(fc.tuple(aCase, fc.option(fc.integer({ min: 1024, max: 256 * 1024 }))), {
          minLength: 1,
          maxLength: 8,
        }),
        fc.integer({ min: 4 * 1024, max: 192 * 1024 }),
        (entries, budget) => {
          const schemas = entries.map(([one]) => one.generated.schema as Record<string, unknown>);
          const batch = entries.map(([one, threshold], i) => {
            const outputSchema = outputSchemaOf(one.generated.schema);
            const parked = parkedResponse(`c${i}`, one.generated.value, one.form, one.own);
            const limit = threshold === null
              ? SizeThreshold.UNLIMITED
              : SizeThreshold.parse(threshold);
            return capReview(acceptedReview(`tool${i}`, parked), limit, { outputSchema }).review;
          });
          const { reviews, notices } = spendBatchBudget(batch, budget);
          let spent = 0;
          for (const { response } of reviews) {
            spent += responseBytes(response) + (structuredBytes(response) ?? 0);
            if (response.structuredContent?.mirrored === true) reached.mirrors++;
            else if (response.structuredContent !== undefined) reached.parts++;
          }
          assert.ok(spent <= budget, `${spent} > ${budget}`);
          if (notices.length === 0) return;
          reached.batches++;
          const level = waterLevel(
            batch.flatMap(({ response }) => {
              const structured = structuredBytes(response);
              return [responseBytes(response), ...(structured === undefined ? [] : [structured])];
            }),
            budget,
          );
          for (const notice of notices) {
            const i = Number(notice.callId.slice(1));
            const one = entries[i]![0];
            const branches = checkCut(reviews[i]!, level, one, schemas[i]!);
            if (branches.includes("error")) reached.errors++;
            const markers = reviews[i]!.response.content.match(/\n\.\.\. \[truncated, /g) ?? [];
            assert.ok(markers.length <= 1, "one marker");
          }
        },
      ),
      { seed, numRuns: 60 },
    );
    console.log(`batch ceiling over structured results: ${JSON.stringify(reached)}`);
    assert.ok(
      reached.batches >= 15 && reached.mirrors >= 5 && reached.parts >= 5,
      JSON.stringify(reached),
    );
  });
});
