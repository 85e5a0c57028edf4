/**
 * The batch ceiling: the most bytes all responses of one batch may take
 * together, markers included. Fixed, not configurable: it is the last stop
 * for `size_threshold = "unlimited"`, for tool sources that ignore
 * everything, and for responses the Host synthesizes itself.
 *
 * @module
 */

/** 2 MiB: the byte budget of one batch of tool responses. */
export const MAX_TOOL_RESPONSE_BATCH_BYTES = 2 * 1024 * 1024;
