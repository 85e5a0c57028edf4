/**
 * The runtime's own test suites that run on Node as they run on Deno: the
 * sizes and caps, the review, the file stream and blob stores (and their
 * contract suites), local tools, the runtime, and whole turns. `.ci/run`
 * bundles this file (scripts/build_node_tests.ts) and runs it with `node`;
 * `deno task test` runs the same files on Deno.
 *
 * Not here, and why: the conversation lock's tests (Node has no advisory
 * file locks: docs/package.md); tests/local_tool_source_test.ts, whose
 * process probe (a FIFO the tools write their pids into) hangs under Node
 * for a reason not found yet (local tools on Node: tests/package_tools_node_test.ts);
 * suites that find their fixtures next to their own file (`import.meta.url`
 * moves when bundled) or drive the gateway (a Deno program).
 *
 * @module
 */

import "./deno_shim.ts";

import "../../src/size/byte_size_test.ts";
import "../../src/size/cap_json_test.ts";
import "../../src/size/cap_text_test.ts";
import "../../src/size/json_scanner_test.ts";
import "../../src/size/size_threshold_test.ts";
import "../../src/review/cap_review_test.ts";
import "../../src/review/dropped_content_test.ts";
import "../../src/review/json_cut_review_test.ts";
import "../../src/review/placeholder_line_test.ts";
import "../../src/review/spend_batch_budget_test.ts";
import "../../src/review/structured_cut_review_test.ts";
import "../../src/stream/_event_line_buffer_test.ts";
import "../../src/stream/_recut_test.ts";
import "../../src/stream/file_stream_store_model_test.ts";
import "../../src/stream/file_stream_store_test.ts";
import "../../src/stream/memory_stream_store_test.ts";
import "../../src/stream/provider_view_test.ts";
import "../../src/stream/repair_interrupted_turn_test.ts";
import "../../src/blobs/blob_owners_test.ts";
import "../../src/blobs/file_blob_store_test.ts";
import "../../src/blobs/search_blob_test.ts";
import "../../src/runtime/create_runtime_test.ts";
import "../truncation_turn_test.ts";
import "../turn_loop_test.ts";
