import assert from "node:assert/strict";
import fc from "fast-check";
import { readCallArguments } from "../review/read_call_arguments.ts";
import { textOfAbout } from "../testing/arbitrary_text.ts";
import { withTestSeed } from "../testing/seed.ts";
import { invalidArgumentsReview, MAX_QUOTED_ARGUMENT_CHARS } from "./synthesized_reviews.ts";

const call = (invalidArguments: string) => ({
  id: "call_7",
  name: "read_file",
  arguments: {},
  invalidArguments,
});
const contentOf = (text: string) => invalidArgumentsReview(call(text)).response.content;
const AGAIN = "The call was not run: send it again with its arguments as one JSON object.";

Deno.test("invalidArgumentsReview() quotes what the model sent and says what is wrong (golden)", () => {
  const review = invalidArgumentsReview(call('{"path": "a.txt"'));
  assert.equal(review.status, "replaced");
  assert.equal(review.tool, "read_file");
  assert.equal(review.response.id, "call_7");
  assert.equal(review.response.isError, true);
  assert.equal(
    review.response.content,
    'the arguments of call call_7 to tool read_file are not valid JSON: "{\\"path\\": \\"a.txt\\""\n' +
      `Expected ',' or '}' after property value in JSON at position 16 (line 1 column 17). ${AGAIN}`,
  );
  assert.equal(
    contentOf('["a.txt"]'),
    'the arguments of call call_7 to tool read_file are not a JSON object: "[\\"a.txt\\"]"\n' +
      `They are an array. ${AGAIN}`,
  );
  assert.equal(
    contentOf("42"),
    'the arguments of call call_7 to tool read_file are not a JSON object: "42"\n' +
      `They are a number. ${AGAIN}`,
  );
});

Deno.test("invalidArgumentsReview() says when the model's output limit cut the arguments, and what helps (golden)", () => {
  const anthropic = invalidArgumentsReview({
    ...call('{"path": "a.txt", "content": "line 1\\nline'),
    outputLimit: {
      stop: 'stop_reason "max_tokens"',
      raise: "max_tokens under [providers.llm.anthropic], now 8192",
    },
  });
  assert.equal(
    anthropic.response.content,
    "the arguments of call call_7 to tool read_file are not valid JSON: " +
      '"{\\"path\\": \\"a.txt\\", \\"content\\": \\"line 1\\\\nline"\n' +
      "Unterminated string in JSON at position 42 (line 1 column 43). " +
      'The answer stopped at the model\'s output limit (stop_reason "max_tokens") in these ' +
      "arguments: they were cut short. The call was not run: send it again with shorter " +
      "arguments as one JSON object (a long text over several calls); if they cannot be " +
      "shorter, the limit must be raised: max_tokens under [providers.llm.anthropic], now 8192.",
  );
  const openai = invalidArgumentsReview({
    ...call('{"path": "a.txt"'),
    outputLimit: {
      stop: 'finish_reason "length"',
      raise: "the server's limit on output tokens (spillway sets none)",
    },
  });
  assert.equal(
    openai.response.content,
    'the arguments of call call_7 to tool read_file are not valid JSON: "{\\"path\\": \\"a.txt\\""\n' +
      "Expected ',' or '}' after property value in JSON at position 16 (line 1 column 17). " +
      'The answer stopped at the model\'s output limit (finish_reason "length") in these ' +
      "arguments: they were cut short. The call was not run: send it again with shorter " +
      "arguments as one JSON object (a long text over several calls); if they cannot be " +
      "shorter, the limit must be raised: the server's limit on output tokens (spillway sets none).",
  );
});

Deno.test("invalidArgumentsReview() quotes at most the first 200 characters, whole, and the size of all", () => {
  const long = '{"text": "' + "🙂".repeat(300);
  assert.equal(
    contentOf(long),
    `the arguments of call call_7 to tool read_file are not valid JSON: ${
      JSON.stringify('{"text": "' + "🙂".repeat(MAX_QUOTED_ARGUMENT_CHARS - 10))
    }… (1.1 KB in all)\n` +
      `Unterminated string in JSON at position 610 (line 1 column 611). ${AGAIN}`,
  );
});

Deno.test("invalidArgumentsReview() escapes control and bidi characters, in the quote and in the parser's message", () => {
  assert.equal(
    contentOf('{"a": \u202e\x1b[2J}'),
    'the arguments of call call_7 to tool read_file are not valid JSON: "{\\"a\\": \\u202e\\u001b[2J}"\n' +
      `Unexpected token '\\u202e', "{"a": \\u202e\\u001b[2J}" is not valid JSON. ${AGAIN}`,
  );
});

/** Bidi controls, C0 and C1 controls, DEL, line separators: none may appear in a response. */
const INVISIBLE_CHARS =
  "\\u0000-\\u0009\\u000b-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028-\\u202e\\u2066-\\u2069";
const INVISIBLE = new RegExp(`[${INVISIBLE_CHARS}]`);

Deno.test("invalidArgumentsReview(): the quote reads back as the start of what was sent, bounded, with nothing invisible", async () => {
  const reached = { cut: 0, whole: 0, invisible: 0 };
  const texts = fc.oneof(
    textOfAbout(100).map((g) => g.text),
    textOfAbout(2_000).map((g) => g.text),
    fc.string({ unit: fc.constantFrom("{", '"', "a", "\u202e", "\x1b", "\n", "\x85", "🙂") }),
  ).filter((text) => readCallArguments(text).problem !== undefined);
  await withTestSeed((seed) => {
    fc.assert(
      fc.property(texts, (text) => {
        const content = contentOf(text);
        const [first = "", second = ""] = content.split("\n");
        assert.equal(content, `${first}\n${second}`, "two lines");
        const match =
          /^the arguments of call call_7 to tool read_file are not (?:valid JSON|a JSON object): ("(?:[^"\\]|\\.)*")(… \(\S+ \S+ in all\))?$/
            .exec(first);
        assert.ok(match !== null, first);
        const start: string = JSON.parse(match[1]!);
        assert.ok(text.startsWith(start), "the quote is the start of the text");
        assert.ok(start.length <= 2 * MAX_QUOTED_ARGUMENT_CHARS);
        assert.ok([...start].length <= MAX_QUOTED_ARGUMENT_CHARS);
        if (start === text) {
          assert.equal(match[2], undefined);
          reached.whole++;
        } else {
          assert.equal([...start].length, MAX_QUOTED_ARGUMENT_CHARS, "as much as may be quoted");
          assert.notEqual(match[2], undefined);
          reached.cut++;
        }
        assert.ok(second.endsWith(`. ${AGAIN}`), second);
        assert.doesNotMatch(content, INVISIBLE);
        if (INVISIBLE.test(text)) reached.invisible++;
      }),
      { seed, numRuns: 300 },
    );
  });
  for (const [branch, count] of Object.entries(reached)) {
    assert.ok(count >= 20, `only ${count} cases reached "${branch}": ${JSON.stringify(reached)}`);
  }
});
