/** Retries against a real HTTP server on the loopback that throttles, then answers. */

import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";

import {
  createTidemqClient,
  NotFound,
  ServiceUnavailable,
  Throttled,
  unwrap,
  type TidemqClient,
} from "../src/index.js";
import { delayMs, DEFAULT_RETRY_POLICY } from "../src/retries.js";

const answers: number[] = [];
let requests = 0;
let httpServer: Server;
let tidemq: TidemqClient;

before(async () => {
  httpServer = createServer((_request, response) => {
    requests++;
    const status = answers.shift() ?? 200;
    const body =
      status === 200
        ? { visible: 1, in_flight: 0, delayed: 0 }
        : { error: { code: `Code${status}`, message: "slow down" } };
    response.writeHead(status, {
      "content-type": "application/json",
      ...(status === 429 ? { "retry-after": "0" } : {}),
    });
    response.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => httpServer.listen(0, "127.0.0.1", resolve));
  const { port } = httpServer.address() as AddressInfo;
  tidemq = createTidemqClient({
    endpoint: `http://127.0.0.1:${port}`,
    credentials: { token: "tqb_any" },
    retry: { maxAttempts: 3, baseDelayMs: 0 },
  });
});

after(() => new Promise<void>((resolve) => httpServer.close(() => resolve())));

const stats = { params: { path: { name: "q" } } };

test("throttling and unavailability are retried", async () => {
  requests = 0;
  answers.push(429, 503);
  assert.equal(unwrap(await tidemq.GET("/v1/queues/{name}/stats", stats)).visible, 1);
  assert.equal(requests, 3);

  answers.push(503, 503, 503);
  await assert.rejects(tidemq.GET("/v1/queues/{name}/stats", stats), (error) => {
    assert.ok(error instanceof ServiceUnavailable);
    assert.deepEqual(
      [error.code, error.apiMessage, error.retriable],
      ["Code503", "slow down", true],
    );
    return true;
  });
  assert.equal(requests, 6);

  answers.push(429, 429, 429);
  await assert.rejects(tidemq.GET("/v1/queues/{name}/stats", stats), Throttled);
  assert.equal(requests, 9);

  answers.push(404); // the request is wrong: not retried
  await assert.rejects(tidemq.GET("/v1/queues/{name}/stats", stats), NotFound);
  assert.equal(requests, 10);
});

test("backoff doubles up to its ceiling and follows Retry-After", () => {
  const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 100, maxDelayMs: 1000 };
  const ceiling = (ms: number): number => ms;
  assert.deepEqual(
    [1, 2, 3, 4, 5].map((n) => delayMs(policy, n, null, ceiling)),
    [100, 200, 400, 800, 1000],
  );
  assert.equal(delayMs(policy, 1, "0.5"), 500);
  assert.equal(delayMs(policy, 1, "120"), 1000);
});
