/**
 * Private helper: calls a turn observer's callback so that a throwing
 * observer (a terminal that went away) is logged, never fatal to a call.
 *
 * @module
 */

import { getLogger } from "@logtape/logtape";
import { reasonText } from "../errors/reason_text.ts";
import type { TurnObserver } from "./turn_observer.ts";

const observerLogger = getLogger(["spillway", "observer"]);

/** Runs `tell(observer)` when there is an observer; logs what it throws. */
export function observe(
  observer: TurnObserver | undefined,
  tell: (observer: TurnObserver) => void,
): void {
  if (observer === undefined) return;
  try {
    tell(observer);
  } catch (error) {
    observerLogger.error("a turn observer threw: {reason}", { reason: reasonText(error) });
  }
}
