import assert from "node:assert/strict";
import fc from "fast-check";
import { parseConfig } from "../config/parse_config.ts";
import { MAX_TOOL_RESPONSE_BATCH_BYTES } from "../review/max_tool_response_batch_bytes.ts";
import type { StreamEvent } from "../stream/events.ts";
import { conversationView } from "../stream/provider_view.ts";
import { withTestSeed } from "../testing/seed.ts";
import { planCap, planStrip } from "./_compaction_plan.ts";

const AT = "2026-11-30T12:00:00.000Z";

/** One assistant message per batch, each call answered with `sizes[i]` bytes. */
function conversation(batches: readonly (readonly [string, number][])[]): StreamEvent[] {
  const events: StreamEvent[] = [{ type: "turn_start", turn_id: "t/1", prompt: "go", at: AT }];
  let n = 0;
  for (const batch of batches) {
    events.push({ type: "chat_response", turn_id: "t/1", cycle: 0, text: "", at: AT });
    const ids = batch.map(() => `call_${++n}`);
    batch.forEach(([tool], i) =>
      events.push({ type: "tool_call_request", id: ids[i] ?? "", name: tool, arguments: {} })
    );
    batch.forEach(([, bytes], i) =>
      events.push({
        type: "tool_call_response",
        id: ids[i] ?? "",
        content: "r".repeat(bytes),
        is_error: false,
      })
    );
  }
  return events;
}

Deno.test("planCap() spends the batch ceiling largest first when thresholds allow more", () => {
  const config = parseConfig(`[conversation.tools.'*']\nsize_threshold = "unlimited"\n`);
  const events = conversation([[["big", 1_500_000], ["big", 1_500_000], ["small", 1000]]]);
  const plan = planCap(events, config, AT);
  assert.equal(plan.changes.length, 2);
  for (const change of plan.changes) {
    assert.equal(change.cause, "batch ceiling");
    assert.equal(change.toBytes, Math.floor((MAX_TOOL_RESPONSE_BATCH_BYTES - 1000) / 2));
  }
  assert.deepEqual(plan.event?.response_ids, ["call_1", "call_2"]);
  assert.equal(planCap([...events, plan.event!], config, AT).event, undefined);
});

Deno.test("planStrip() stubs responses of the size or more, once", () => {
  const events = conversation([[["a", 5000], ["b", 4096], ["c", 4095]]]);
  const plan = planStrip(events, 4096, AT);
  assert.deepEqual(plan.changes.map((c) => c.id), ["call_1", "call_2"]);
  assert.equal(plan.event?.over_bytes, 4096);
  assert.equal(planStrip([...events, plan.event!], 4096, AT).event, undefined);
  assert.equal(planStrip([...events, plan.event!], 1024, AT).changes[0]?.id, "call_3");
});

Deno.test("planCap() leaves every response within its threshold and every batch within the ceiling, and a second run changes nothing", () =>
  withTestSeed((seed) => {
    let ceilingCuts = 0;
    let thresholdCuts = 0;
    fc.assert(
      fc.property(
        fc.array(
          fc.array(
            fc.tuple(
              fc.constantFrom("tight", "loose", "free", "free"),
              // Mostly large, so batches often overflow the ceiling.
              fc.oneof(
                { arbitrary: fc.integer({ min: 0, max: 5000 }), weight: 1 },
                { arbitrary: fc.integer({ min: 300_000, max: 900_000 }), weight: 3 },
              ),
            ),
            { minLength: 2, maxLength: 6 },
          ),
          { minLength: 1, maxLength: 3 },
        ),
        (batches) => {
          const config = parseConfig(
            `[conversation.tools.tight]\nsize_threshold = "4KB"\n` +
              `[conversation.tools.loose]\nsize_threshold = "600KB"\n` +
              `[conversation.tools.free]\nsize_threshold = "unlimited"\n`,
          );
          const events = conversation(batches);
          const plan = planCap(events, config, AT);
          ceilingCuts += plan.changes.filter((c) => c.cause === "batch ceiling").length;
          thresholdCuts += plan.changes.filter((c) => c.cause === "size_threshold").length;
          const after = plan.event === undefined ? events : [...events, plan.event];
          const limits: Record<string, number> = { tight: 4096, loose: 600 * 1024, free: Infinity };
          const totals = new Map<number, number>();
          for (const response of conversationView(after).responses) {
            assert.ok(response.viewBytes <= (limits[response.tool] ?? 0), response.tool);
            totals.set(response.batch, (totals.get(response.batch) ?? 0) + response.viewBytes);
          }
          for (const total of totals.values()) assert.ok(total <= MAX_TOOL_RESPONSE_BATCH_BYTES);
          assert.equal(planCap(after, config, AT).event, undefined);
        },
      ),
      { seed, numRuns: 60 },
    );
    assert.ok(ceilingCuts >= 20, `only ${ceilingCuts} cuts by the batch ceiling`);
    assert.ok(thresholdCuts >= 20, `only ${thresholdCuts} cuts by a size_threshold`);
  }));
