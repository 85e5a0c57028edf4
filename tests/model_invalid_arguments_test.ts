/**
 * A tool call whose arguments are not a JSON object (small local models
 * write such calls; an answer cut at its output limit ends in one) does not
 * fail the turn: `spillway query` answers it with an error the model can
 * read, records that answer like any other response, and asks the model
 * again. Driven end to end against each model API on the fake server.
 */

import assert from "node:assert/strict";
import { main } from "../src/cli.ts";
import { captureCommandIo } from "../src/commands/command_io.ts";
import type { StreamEvent } from "../src/stream/events.ts";
import type { RecordedRequest } from "../src/testing/fake_model_server.ts";
import { conversationIdOf, REPO } from "./_cli.ts";
import { APIS, type ModelApi, queryModel, recordedEvents, withFake } from "./_model_apis.ts";

/** The call's arguments as the first request's answer sent them: cut short. */
const CUT_SHORT = '{"megabytes": 0.01, "fail": fals';

/** The exact response the model reads. */
const RESPONSE =
  'the arguments of call call_bad to tool noisy_test_run are not valid JSON: "{\\"megabytes\\": 0.01, \\"fail\\": fals"\n' +
  "Unexpected end of JSON input. The call was not run: send it again with its arguments as one JSON object.";

type Json = Record<string, unknown>;

/** `spillway conversation show` of `id`, in-process. */
async function show(workspace: string, id: string, ...flags: string[]): Promise<string> {
  const io = captureCommandIo({ cwd: REPO, env: {} });
  const code = await main(["conversation", "show", "--workspace", workspace, ...flags, id], io);
  assert.equal(code, 0, io.err());
  return io.out();
}

/** The arguments of call `id` as the assistant message of `request` carried them back. */
function sentArguments(api: ModelApi, request: RecordedRequest, id: string): unknown {
  for (const message of request.body["messages"] as Json[]) {
    if (message["role"] !== "assistant") continue;
    if (api.name === "openai") {
      const call = ((message["tool_calls"] ?? []) as Json[]).find((c) => c["id"] === id);
      if (call !== undefined) return JSON.parse((call["function"] as Json)["arguments"] as string);
    } else {
      const block = (message["content"] as Json[]).find((b) => b["id"] === id);
      if (block !== undefined) return block["input"];
    }
  }
  throw new Error(`call ${id} is not in the request`);
}

for (const api of APIS) {
  Deno.test(`${api.name}: a call whose arguments are not valid JSON is answered with an error, and the turn goes on`, async () => {
    await withFake(async (server, workspace) => {
      server.reply(
        api.answer({
          text: "Running the tests.",
          toolCalls: [{ id: "call_bad", name: "noisy_test_run", arguments: CUT_SHORT }],
        }),
        api.answer({
          toolCalls: [{ id: "call_good", name: "noisy_test_run", arguments: { megabytes: 0.01 } }],
        }),
        api.answer({ text: "The tests ran." }),
      );
      const run = await queryModel(api, server, workspace, "Run the tests");
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /\n◂ noisy_test_run \(call_bad\) error: 2 lines, /);
      assert.match(run.stdout, /\nassistant: The tests ran\.\n/);

      // The model read the error under the call's id, and its bad call came back
      // as an empty object (servers that parse the history refuse anything else).
      assert.equal(server.requests.length, 3);
      assert.deepEqual(api.toolResults(server.requests[1]!), [{
        id: "call_bad",
        content: RESPONSE,
      }]);
      assert.deepEqual(sentArguments(api, server.requests[1]!, "call_bad"), {});
      const third = api.toolResults(server.requests[2]!);
      assert.deepEqual(third.map((r) => r.id), ["call_bad", "call_good"]);

      // The stream holds what the model sent, and the answer as delivered.
      const events = await recordedEvents(workspace, conversationIdOf(run));
      const request = events.find((e) => e.type === "tool_call_request" && e.id === "call_bad");
      assert.deepEqual(request, {
        type: "tool_call_request",
        id: "call_bad",
        name: "noisy_test_run",
        arguments: {},
        invalid_arguments: CUT_SHORT,
      });
      const responses = events.filter((
        e,
      ): e is Extract<StreamEvent, { type: "tool_call_response" }> =>
        e.type === "tool_call_response"
      );
      assert.deepEqual(responses.map((e) => [e.id, e.is_error]), [["call_bad", true], [
        "call_good",
        false,
      ]]);
      assert.equal(responses[0]!.content, RESPONSE);
      const end = events.at(-1);
      assert.equal(end?.type === "turn_end" && end.status, "finished");

      // `conversation show` shows what the model sent, not the empty object.
      const id = conversationIdOf(run);
      assert.match(
        await show(workspace, id),
        /\n {2}▸ noisy_test_run \{"megabytes": 0\.01, "fail": fals {2}\(call_bad, arguments not a JSON object\)\n {4}◂ error: 217 B\n/,
      );
      const items = JSON.parse(await show(workspace, id, "--json"))["items"] as Json[];
      const shown = items.find((item) => item["id"] === "call_bad");
      assert.equal(shown?.["invalid_arguments"], CUT_SHORT);

      // Continued, the conversation is sent again from what was recorded: the
      // same empty object for the bad call, the same answer under its id.
      server.reply(api.answer({ text: "Nothing more to run." }));
      const next = await queryModel(
        api,
        server,
        workspace,
        "--conversation",
        conversationIdOf(run),
        "Anything else?",
      );
      assert.equal(next.code, 0, next.stderr);
      assert.equal(server.requests.length, 4);
      assert.deepEqual(sentArguments(api, server.requests[3]!, "call_bad"), {});
      assert.deepEqual(api.toolResults(server.requests[3]!)[0], {
        id: "call_bad",
        content: RESPONSE,
      });
    });
  });
}

/** What the model reads when its output limit cut the arguments, per API (golden). */
const CUT_BY_LIMIT: Record<ModelApi["name"], string> = {
  anthropic: RESPONSE.replace(
    / The call was not run: .*$/,
    ' The answer stopped at the model\'s output limit (stop_reason "max_tokens") in these ' +
      "arguments: they were cut short. The call was not run: send it again with shorter " +
      "arguments as one JSON object (a long text over several calls); if they cannot be " +
      "shorter, the limit must be raised: max_tokens under [providers.llm.anthropic], now 8192.",
  ),
  openai: RESPONSE.replace(
    / The call was not run: .*$/,
    ' The answer stopped at the model\'s output limit (finish_reason "length") in these ' +
      "arguments: they were cut short. The call was not run: send it again with shorter " +
      "arguments as one JSON object (a long text over several calls); if they cannot be " +
      "shorter, the limit must be raised: the server's limit on output tokens (spillway sets none).",
  ),
};

for (const api of APIS) {
  Deno.test(`${api.name}: arguments cut by the model's output limit are answered with an error saying so`, async () => {
    await withFake(async (server, workspace) => {
      server.reply(
        api.answer({
          text: "Running the tests.",
          toolCalls: [{ id: "call_bad", name: "noisy_test_run", arguments: CUT_SHORT }],
          atOutputLimit: true,
        }),
        api.answer({ text: "I will ask for less." }),
      );
      const run = await queryModel(api, server, workspace, "Run the tests");
      assert.equal(run.code, 0, run.stderr);
      assert.equal(server.requests.length, 2);
      assert.deepEqual(api.toolResults(server.requests[1]!), [{
        id: "call_bad",
        content: CUT_BY_LIMIT[api.name],
      }]);
      // Recorded as delivered.
      const events = await recordedEvents(workspace, conversationIdOf(run));
      const response = events.find((e) => e.type === "tool_call_response");
      assert.equal(
        response?.type === "tool_call_response" && response.content,
        CUT_BY_LIMIT[api.name],
      );
    });
  });
}
