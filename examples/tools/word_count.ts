/**
 * A local tool for spillway: counts the words, lines and bytes of a text.
 *
 * ```toml
 * [conversation.tools.word_count]
 * source = "local"
 * command = ["deno", "run", "examples/tools/word_count.ts"]
 * ```
 *
 * Like every local tool it gets its arguments as JSON on stdin (here
 * `{ "text": "…" }`) and answers on stdout; a non-zero exit with a message on
 * stderr is an error result the assistant can read. No permissions needed.
 *
 * @module
 */

const args: unknown = JSON.parse(await new Response(Deno.stdin.readable).text());
const text = typeof args === "object" && args !== null && "text" in args ? args.text : undefined;
if (typeof text !== "string") {
  console.error('word_count: expected arguments like {"text": "some words"}');
  Deno.exit(2);
}
const words = text.split(/\s+/).filter((word) => word !== "").length;
const lines = text === "" ? 0 : text.split("\n").length;
const bytes = new TextEncoder().encode(text).length;
console.log(`${words} words, ${lines} line${lines === 1 ? "" : "s"}, ${bytes} bytes`);
