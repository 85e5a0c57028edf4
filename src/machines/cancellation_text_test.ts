import assert from "node:assert/strict";
import { cancellationText, causedCancellationText } from "./synthesized_reviews.ts";

const DEFAULT = {
  cancellationResponse: "The user cancelled this tool call.",
  cancellationResponseIsDefault: true,
};
const CONFIGURED = {
  cancellationResponse: "Stopped by you.",
  cancellationResponseIsDefault: false,
};

Deno.test("causedCancellationText() words each cause (golden)", () => {
  assert.equal(
    causedCancellationText({ by: "client" }),
    "This tool call was cancelled by the client.",
  );
  assert.equal(
    causedCancellationText({ by: "client", reason: "Request timed out" }),
    'This tool call was cancelled by the client: "Request timed out".',
  );
  assert.equal(
    causedCancellationText({ by: "client", reason: "bad\u0007\n\u202Etext" }),
    'This tool call was cancelled by the client: "bad\\u0007\\n\\u202etext".',
  );
  assert.equal(
    causedCancellationText({ by: "disconnect" }),
    "This tool call was cancelled: the client disconnected (its session ended).",
  );
  assert.equal(
    causedCancellationText({
      by: "shutdown",
      reason: "spillway serve is shutting down (terminated (SIGTERM))",
    }),
    "This tool call was cancelled: spillway serve is shutting down (terminated (SIGTERM)).",
  );
});

Deno.test("causedCancellationText() quotes at most a bounded part of a client's long reason", () => {
  const text = causedCancellationText({ by: "client", reason: "x".repeat(100_000) });
  assert.ok(text.length < 1_000, `${text.length} characters`);
  assert.ok(text.startsWith('This tool call was cancelled by the client: "xxx'));
});

Deno.test("cancellationText(): a configured cancellation_response wins; the default gives way to a known cause", () => {
  assert.equal(cancellationText(CONFIGURED, { by: "disconnect" }), "Stopped by you.");
  assert.equal(cancellationText(CONFIGURED, undefined), "Stopped by you.");
  assert.equal(cancellationText(DEFAULT, undefined), "The user cancelled this tool call.");
  assert.equal(
    cancellationText(DEFAULT, { by: "client" }),
    "This tool call was cancelled by the client.",
  );
  // A policy that does not say where its response came from keeps it.
  assert.equal(
    cancellationText({ cancellationResponse: "The user cancelled this tool call." }, {
      by: "client",
    }),
    "The user cancelled this tool call.",
  );
});
