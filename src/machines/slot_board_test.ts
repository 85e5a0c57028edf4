import assert from "node:assert/strict";
import { acceptedReview, type Review } from "../review/review.ts";
import { SlotBoard } from "./slot_board.ts";

function review(id: string): Review {
  return acceptedReview("probe", { id, content: `result ${id}`, isError: false });
}

Deno.test("SlotBoard tells its owner once, on a microtask after the last write", async () => {
  let told = 0;
  const board = new SlotBoard([4, 7], () => told += 1);
  board.write(7, review("b"));
  assert.equal(board.full, false);
  board.write(4, review("a"));
  assert.equal(board.full, true);
  assert.equal(told, 0, "not inside the writing call's step");
  await Promise.resolve();
  assert.equal(told, 1);
  board.write(4, review("again"));
  await Promise.resolve();
  assert.equal(told, 1);
});

Deno.test("SlotBoard keeps the first review of a slot, ignores unknown calls, lists in call order", () => {
  const board = new SlotBoard([2, 0, 5], () => {});
  board.write(5, review("c"));
  board.write(9, review("stranger"));
  board.write(5, review("late"));
  board.write(2, review("a"));
  assert.equal(board.full, false);
  assert.deepEqual(board.reviews().map(({ index, review }) => [index, review.response.id]), [
    [2, "a"],
    [5, "c"],
  ]);
});

Deno.test("SlotBoard without calls is full from the start", () => {
  assert.equal(new SlotBoard([], () => assert.fail("never told")).full, true);
});
