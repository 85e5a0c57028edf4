import assert from "node:assert/strict";
import { describeDropped, droppedContentOf } from "./dropped_content.ts";
import { formatNotice } from "./notice.ts";

const digest = "sha256:aa";

Deno.test("droppedContentOf() counts every non-text kind and the structured content", () => {
  assert.deepEqual(
    droppedContentOf({
      id: "c",
      content: "",
      isError: false,
      blocks: [
        { type: "text", text: "a" },
        { type: "audio", mimeType: "audio/wav", bytes: 1, digest },
        { type: "resource_link", uri: "u", name: "n" },
        { type: "resource", uri: "u", bytes: 1, digest },
        { type: "resource_link", uri: "v", name: "m" },
      ],
      structuredContent: { bytes: 2, digest },
    }),
    { blocks: { audio: 1, resource: 1, resource_link: 2 }, structuredContent: true },
  );
  assert.deepEqual(
    droppedContentOf({
      id: "c",
      content: "{}",
      isError: false,
      structuredContent: { bytes: 2, digest },
    }),
    { blocks: {}, structuredContent: true },
  );
});

Deno.test("describeDropped() golden: counts, nouns, order and the last 'and'", () => {
  const cases: [Parameters<typeof describeDropped>[0], string][] = [
    [{ blocks: { image: 1 }, structuredContent: false }, "1 image"],
    [{ blocks: { image: 3 }, structuredContent: false }, "3 images"],
    [{ blocks: { audio: 1 }, structuredContent: false }, "1 audio clip"],
    [{ blocks: { resource: 2 }, structuredContent: false }, "2 embedded resources"],
    [{ blocks: {}, structuredContent: true }, "its structured content"],
    [
      { blocks: { resource_link: 1, image: 2 }, structuredContent: false },
      "2 images and 1 resource link",
    ],
    [
      { blocks: { resource_link: 4, resource: 1, audio: 2, image: 1 }, structuredContent: true },
      "1 image, 2 audio clips, 1 embedded resource, 4 resource links and its structured content",
    ],
  ];
  for (const [dropped, words] of cases) assert.equal(describeDropped(dropped), words);
});

Deno.test("formatNotice() golden: a cut that dropped non-text content says what, after the cause", () => {
  const base = { tool: "get-tiny-image", callId: "call_1", originalBytes: 5_400, capBytes: 1_024 };
  assert.equal(
    formatNotice({ ...base, cause: "size_threshold" }),
    "get-tiny-image: sent 1.0 KB of 5.2 KB to the assistant (size_threshold)",
  );
  assert.equal(
    formatNotice({
      ...base,
      cause: "batch ceiling",
      dropped: { blocks: { image: 1 }, structuredContent: false },
    }),
    "get-tiny-image: sent 1.0 KB of 5.2 KB to the assistant (batch ceiling); dropped 1 image",
  );
  assert.equal(
    formatNotice({
      ...base,
      cause: "client ceiling",
      dropped: { blocks: { audio: 1, resource_link: 2 }, structuredContent: true },
    }),
    "get-tiny-image: sent 1.0 KB of 5.2 KB to the assistant (client ceiling); " +
      "dropped 1 audio clip, 2 resource links and its structured content",
  );
});
