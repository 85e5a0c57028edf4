/**
 * A call whose arguments are not a JSON object (`invalidArguments` set by
 * the provider) is answered like an unavailable tool: never run, nobody
 * asked about it, an error response recorded and delivered with the batch,
 * and the turn goes on. The request keeps what the model sent.
 */

import assert from "node:assert/strict";
import { runTurn } from "../src/machines/run_turn.ts";
import type { ToolMessage } from "../src/provider/provider.ts";
import { MockExecutor } from "../src/testing/mock_executor.ts";
import { scriptedPrompter } from "../src/testing/scripted_prompter.ts";
import { answer, policies, responsesOf, turnHarness } from "./machines_fixtures.ts";

const AGAIN = "The call was not run: send it again with its arguments as one JSON object.";

Deno.test("turn answers a call whose arguments are not a JSON object without running or asking, and continues", async () => {
  const executor = new MockExecutor({ probe: "ok" });
  const prompter = scriptedPrompter({ approveRun: () => Promise.resolve({ kind: "run" }) });
  const h = await turnHarness({
    steps: [
      {
        text: "Probing.",
        toolCalls: [
          { id: "call_1", name: "probe", arguments: {}, invalidArguments: '{"depth": 2' },
          { id: "call_2", name: "nope", arguments: {}, invalidArguments: "[" },
          { id: "call_3", name: "probe", arguments: { depth: 2 } },
        ],
      },
      answer("Done."),
    ],
    executor,
    prompter,
    policyFor: policies({ probe: { run: "ask" } }),
    tools: ["probe"],
  });
  const output = await runTurn(h.input);
  assert.equal(output.status, "finished");
  assert.equal(output.cycles, 2);
  // Only the well-formed call ran, and only it was asked about.
  assert.deepEqual(executor.started.map((call) => call.id), ["call_3"]);
  assert.deepEqual(prompter.seen, ["approve call_3 ask"]);

  const events = h.store.durableEvents("conversation-1");
  assert.deepEqual(events.filter((e) => e.type === "tool_call_request"), [
    {
      type: "tool_call_request",
      id: "call_1",
      name: "probe",
      arguments: {},
      invalid_arguments: '{"depth": 2',
    },
    {
      type: "tool_call_request",
      id: "call_2",
      name: "nope",
      arguments: {},
      invalid_arguments: "[",
    },
    { type: "tool_call_request", id: "call_3", name: "probe", arguments: { depth: 2 } },
  ]);
  const invalid =
    'the arguments of call call_1 to tool probe are not valid JSON: "{\\"depth\\": 2"\n' +
    `Expected ',' or '}' after property value in JSON at position 11 (line 1 column 12). ${AGAIN}`;
  // An unknown tool is named first: fixing the arguments would not help.
  const unavailable = "tool nope is not available (available tools: probe)";
  assert.deepEqual(responsesOf(events), [
    { type: "tool_call_response", id: "call_1", content: invalid, is_error: true },
    { type: "tool_call_response", id: "call_2", content: unavailable, is_error: true },
    { type: "tool_call_response", id: "call_3", content: "ok", is_error: false },
  ]);

  // The next request carries the calls as recorded and the answers as delivered.
  const second = h.provider.requests[1]!.messages;
  const assistant = second.find((m) => m.role === "assistant");
  assert.deepEqual(assistant?.role === "assistant" && assistant.toolCalls[0], {
    id: "call_1",
    name: "probe",
    arguments: {},
    invalidArguments: '{"depth": 2',
  });
  const tools = second.filter((m): m is ToolMessage => m.role === "tool");
  assert.deepEqual(tools.map((m) => [m.id, m.content, m.isError]), [
    ["call_1", invalid, true],
    ["call_2", unavailable, true],
    ["call_3", "ok", false],
  ]);
});
