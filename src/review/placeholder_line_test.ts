import assert from "node:assert/strict";
import { blocksText } from "./blocks_text.ts";
import { PLACEHOLDER_FIELD_CHARS, placeholderLine } from "./placeholder_line.ts";

const digest = `sha256:${"0".repeat(64)}`;

Deno.test("placeholderLine() golden: one line per kind", () => {
  assert.equal(
    placeholderLine({ type: "image", mimeType: "image/png", bytes: 3_993, digest }),
    "[image: image/png, 3.8 KB]",
  );
  assert.equal(
    placeholderLine({ type: "audio", mimeType: "audio/wav", bytes: 1_411_200, digest }),
    "[audio: audio/wav, 1.3 MB]",
  );
  assert.equal(
    placeholderLine({
      type: "resource",
      uri: "demo://resource/dynamic/text/1",
      mimeType: "text/plain",
      bytes: 61,
      digest,
    }),
    "[resource: demo://resource/dynamic/text/1, text/plain, 61 B]",
  );
  assert.equal(
    placeholderLine({ type: "resource", uri: "file:///a.bin", bytes: 0, digest }),
    "[resource: file:///a.bin, 0 B]",
  );
  assert.equal(
    placeholderLine({
      type: "resource_link",
      uri: "demo://resource/dynamic/blob/1",
      name: "Blob Resource 1",
      mimeType: "text/plain",
    }),
    "[resource_link: Blob Resource 1, demo://resource/dynamic/blob/1, text/plain]",
  );
  assert.equal(
    placeholderLine({
      type: "resource_link",
      uri: "file:///r.pdf",
      name: "r.pdf",
      bytes: 2_500_000,
    }),
    "[resource_link: r.pdf, file:///r.pdf, 2.3 MB]",
  );
});

Deno.test("placeholderLine() keeps one short line whatever the tool named things", () => {
  const long = `data:text/plain;base64,${"QUFB".repeat(50_000)}`;
  const line = placeholderLine({
    type: "resource_link",
    uri: long,
    name: "two\nlines\r\x1b[31m",
    mimeType: "text/plain",
  });
  assert.ok(!/\p{Cc}/u.test(line), line);
  assert.ok(line.startsWith("[resource_link: two lines  [31m, data:text/plain;base64,QUFB"));
  assert.ok(line.endsWith("…, text/plain]"));
  assert.ok(line.length < 2 * PLACEHOLDER_FIELD_CHARS + 60, `${line.length}`);
});

Deno.test("placeholderLine() never cuts a surrogate pair in half", () => {
  const uri = `x${"😀".repeat(PLACEHOLDER_FIELD_CHARS)}`; // the cut falls inside a pair
  const line = placeholderLine({ type: "resource", uri, bytes: 1, digest });
  const shown = line.slice("[resource: ".length, line.indexOf("…"));
  assert.ok(shown.length <= PLACEHOLDER_FIELD_CHARS - 1);
  assert.equal(shown, shown.toWellFormed());
  assert.ok(!/[\ud800-\udbff]$/.test(shown));
});

Deno.test("blocksText() keeps every block's place, empty text blocks included", () => {
  assert.equal(
    blocksText([
      { type: "text", text: "" },
      { type: "image", mimeType: "image/gif", bytes: 10, digest },
      { type: "text", text: "after" },
    ]),
    "\n[image: image/gif, 10 B]\nafter",
  );
  assert.equal(blocksText([]), "");
});
