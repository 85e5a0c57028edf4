/**
 * The `read_tool_output` builtin: pages through, or searches, the whole
 * output of an earlier call that was cut, from the blob store its tool
 * spilled it to (`spill = true`). Its own responses are capped like every
 * other tool's; a page larger than its `size_threshold` is cut too, so ask
 * for pages that fit.
 *
 * @module
 */

import type { BlobOwners } from "../../blobs/blob_owners.ts";
import { type BlobRef, isBlobRef } from "../../blobs/blob_ref.ts";
import type { BlobStore } from "../../blobs/blob_store.ts";
import { readBlobPage } from "../../blobs/read_blob_page.ts";
import { searchBlob } from "../../blobs/search_blob.ts";
import type { ToolResult } from "../tool_source.ts";
import type { BuiltinTool, BuiltinToolContext } from "./builtin_tool.ts";
import { errorResult } from "./_confine.ts";
import { reasonText } from "../../errors/reason_text.ts";

/** The tool's name. */
export const READ_TOOL_OUTPUT = "read_tool_output";

/** Bytes in a page when the call gives no `length`. */
export const DEFAULT_PAGE_BYTES = 64 * 1024;

const DESCRIPTION = `Read the whole output of an earlier tool call that was cut. A cut output \
names it on the line after its truncation marker: \
... [full output: read_tool_output ref="sha256:…" (N bytes)]. \
Pass that ref with a byte offset and length (default 0 and ${DEFAULT_PAGE_BYTES}) to get exactly \
those bytes of the output (clamped at its end; each edge moved back to the start of the character \
it falls in, so pages at offsets 0, L, 2L, … join up exactly), or with a pattern (a JavaScript \
regular expression) to list the lines that match, each after the byte offset it starts at.`;

/**
 * `read_tool_output` over `store`. A call for a principal (a `spillway
 * serve` client) reads only the outputs `owners` records as that client's;
 * any other gets the answer of an output that does not exist, so outputs
 * cannot be probed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FileBlobStore } from "../../blobs/file_blob_store.ts";
 * import { readToolOutput } from "./read_tool_output.ts";
 * const store = new FileBlobStore(await Deno.makeTempDir());
 * const { ref } = await store.put("line 1\nline 2\n");
 * const tool = readToolOutput(store);
 * const context = { signal: new AbortController().signal, cwd: "." };
 * assert.equal(await tool.run({ ref, offset: 7, length: 6 }, context), "line 2");
 * ```
 */
export function readToolOutput(store: BlobStore, owners?: BlobOwners): BuiltinTool {
  return {
    name: READ_TOOL_OUTPUT,
    description: DESCRIPTION,
    inputSchema: {
      type: "object",
      properties: {
        ref: {
          type: "string",
          description: 'The output\'s reference, "sha256:" and 64 hex digits.',
        },
        offset: { type: "integer", minimum: 0, description: "First byte of the page (default 0)." },
        length: {
          type: "integer",
          minimum: 0,
          description: `Bytes in the page (default ${DEFAULT_PAGE_BYTES}).`,
        },
        pattern: {
          type: "string",
          description: "Instead of a page: the lines matching this regular expression.",
        },
      },
      required: ["ref"],
      additionalProperties: false,
    },
    run: (args, context) => run(store, args, readable(owners, context)),
  };
}

/** Whether the caller of `context` may read an output (every caller without a principal may). */
function readable(
  owners: BlobOwners | undefined,
  context: BuiltinToolContext,
): (ref: BlobRef) => Promise<boolean> {
  const { principal } = context;
  if (owners === undefined || principal === undefined) return () => Promise.resolve(true);
  return (ref) => owners.owns(principal, ref);
}

async function run(
  store: BlobStore,
  args: Readonly<Record<string, unknown>>,
  mayRead: (ref: BlobRef) => Promise<boolean>,
): Promise<string | ToolResult> {
  const { ref, offset = 0, length = DEFAULT_PAGE_BYTES, pattern } = args;
  if (typeof ref !== "string" || !isBlobRef(ref)) {
    return errorResult(
      `${READ_TOOL_OUTPUT}: ref ${JSON.stringify(ref)} is not an output reference ` +
        '(expected "sha256:" and 64 lowercase hex digits, as the cut output names it)',
    );
  }
  if (pattern !== undefined) {
    if (args.offset !== undefined || args.length !== undefined) {
      return errorResult(
        `${READ_TOOL_OUTPUT}: give either pattern, or offset and length, not both`,
      );
    }
    return await search(store, ref, pattern, mayRead);
  }
  for (const [name, value] of [["offset", offset], ["length", length]] as const) {
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
      return errorResult(
        `${READ_TOOL_OUTPUT}: ${name} ${JSON.stringify(value)} is not a byte count ` +
          "(expected a whole number, 0 or more)",
      );
    }
  }
  // Checked where a missing output would be found missing: every other answer is the same.
  if (!(await mayRead(ref))) return missing(ref);
  const page = await readBlobPage(store, ref, offset as number, length as number);
  return page?.text ?? missing(ref);
}

async function search(
  store: BlobStore,
  ref: BlobRef,
  pattern: unknown,
  mayRead: (ref: BlobRef) => Promise<boolean>,
): Promise<string | ToolResult> {
  if (typeof pattern !== "string" || pattern === "") {
    return errorResult(`${READ_TOOL_OUTPUT}: pattern must be a non-empty string`);
  }
  let expression: RegExp;
  try {
    expression = new RegExp(pattern);
  } catch (error) {
    const reason = reasonText(error);
    return errorResult(
      `${READ_TOOL_OUTPUT}: pattern ${JSON.stringify(pattern)} is not valid: ${reason}`,
    );
  }
  if (!(await mayRead(ref))) return missing(ref);
  const found = await searchBlob(store, ref, expression);
  if (found === undefined) return missing(ref);
  const { matches, stopped, size } = found;
  const count = stopped
    ? `more than ${matches.length} lines match`
    : matches.length === 1
    ? "1 line matches"
    : `${matches.length} lines match`;
  const shown = stopped ? `; the first ${matches.length}, each after its byte offset` : "";
  const lines = matches.map((match) => `${match.offset}: ${match.line}`);
  return [`${count} /${pattern}/ in ${ref} (${size} bytes${shown}):`, ...lines].join("\n");
}

function missing(ref: BlobRef): ToolResult {
  return errorResult(
    `${READ_TOOL_OUTPUT}: no output ${ref} in this workspace ` +
      "(it was never stored here, or `spillway conversation gc` removed it)",
  );
}
