/**
 * How often a model request is retried when it fails in a way that may pass
 * (HTTP 408, 409, 429, 5xx, a lost connection). The official clients retry
 * with exponential backoff from 0.5 s up to 8 s, honouring `Retry-After`;
 * three retries ride out a short rate limit or a restarting server without
 * leaving a person waiting for minutes.
 *
 * @module
 */

/** Retries of a model request, after the first attempt. */
export const DEFAULT_MODEL_RETRIES = 3;
