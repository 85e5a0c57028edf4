import assert from "node:assert/strict";
import type { Provider, ProviderRequest } from "../provider/provider.ts";
import type { StreamEvent } from "../stream/events.ts";
import { MemoryStreamStore } from "../stream/memory_stream_store.ts";
import { requestModel, type RequestModelInput } from "./request_model.ts";

const clock = { now: () => new Date("2026-11-30T12:00:00Z") };

async function run(provider: Provider, signal = new AbortController().signal) {
  const stream = await new MemoryStreamStore().open("c1");
  const deltas: [string, number][] = [];
  const input: RequestModelInput = {
    turnId: "c1/1",
    prompt: "hi",
    provider,
    tools: [],
    stream,
    clock,
    signal,
    messages: [{ role: "user", content: "hi" }],
    requestBytes: 40,
    cycle: 0,
    observer: { assistantText: (delta, cycle) => deltas.push([delta, cycle]) },
  };
  const outcome = await requestModel({ input, signal: new AbortController().signal }).then(
    (reply) => ({ reply }),
    (error: Error) => ({ error }),
  );
  const events: StreamEvent[] = [...(await stream.load()).events];
  return { outcome, deltas, events };
}

Deno.test("requestModel() passes the streamed text on and records the model and the tokens", async () => {
  const provider: Provider = {
    model: "openai/m",
    complete(request: ProviderRequest) {
      request.onText?.("Hel");
      request.onText?.("lo.");
      return Promise.resolve({
        text: "Hello.",
        toolCalls: [],
        usage: { inputTokens: 7, outputTokens: 2 },
      });
    },
  };
  const { outcome, deltas, events } = await run(provider);
  assert.deepEqual(deltas, [["Hel", 0], ["lo.", 0]]);
  assert.deepEqual(outcome, {
    reply: { text: "Hello.", toolCalls: [], usage: { inputTokens: 7, outputTokens: 2 } },
  });
  assert.deepEqual(events.slice(1), [
    {
      type: "chat_request",
      turn_id: "c1/1",
      cycle: 0,
      bytes: 40,
      model: "openai/m",
      at: "2026-11-30T12:00:00.000Z",
    },
    {
      type: "chat_response",
      turn_id: "c1/1",
      cycle: 0,
      text: "Hello.",
      input_tokens: 7,
      output_tokens: 2,
      at: "2026-11-30T12:00:00.000Z",
    },
  ]);
});

Deno.test("requestModel() records the text that arrived before a cancel as a cancelled answer, and no calls", async () => {
  const cancel = new AbortController();
  const provider: Provider = {
    complete(request: ProviderRequest) {
      request.onText?.("I was saying");
      cancel.abort();
      return Promise.reject(new Error("the request was cancelled"));
    },
  };
  const { outcome, events } = await run(provider, cancel.signal);
  assert.ok("error" in outcome);
  assert.deepEqual(events.slice(1).map((e) => e.type), ["chat_request", "chat_response"]);
  assert.deepEqual(events[2], {
    type: "chat_response",
    turn_id: "c1/1",
    cycle: 0,
    text: "I was saying",
    cancelled: true,
    at: "2026-11-30T12:00:00.000Z",
  });
});

Deno.test("requestModel() records nothing of an answer that failed without a cancel, and keeps the provider's details", async () => {
  const { SpillwayError } = await import("../errors/spillway_error.ts");
  const provider: Provider = {
    complete(request: ProviderRequest) {
      request.onText?.("partial");
      return Promise.reject(
        new SpillwayError("provider_failed", "too long", { kind: "context_window" }),
      );
    },
  };
  const { outcome, events } = await run(provider);
  assert.ok("error" in outcome);
  assert.deepEqual((outcome.error as InstanceType<typeof SpillwayError>).details, {
    kind: "context_window",
    cycle: 0,
  });
  assert.deepEqual(events.map((e) => e.type), ["turn_start", "chat_request"]);
});
