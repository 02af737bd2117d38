/**
 * tidemq-client: a typed client of TideMQ's REST and WebSocket APIs.
 *
 * - `createTidemqClient()`: openapi-fetch over the types generated from sdk/openapi.json
 *   (`paths`, `components`), with credentials, retries and errors as exceptions;
 *   `unwrap()` returns a call's data.
 * - `connectWebSocket()`: subscribe with credit, iterate over deliveries, ack / nack /
 *   extend, publish; frame types generated from sdk/asyncapi.json.
 * - The errors: ApiError and its classes, with the API's `code` and message.
 *
 * src/generated/ is written by sdk/generate.py (`make sdk`); the rest by hand.
 */

export * from "./client.js";
export * from "./errors.js";
export { signRequest, type AccessKey } from "./auth.js";
export { DEFAULT_RETRY_POLICY, RETRIED_STATUSES, type RetryPolicy } from "./retries.js";
export * from "./websocket.js";
export type { components, operations, paths } from "./generated/openapi.js";
