import assert from "node:assert/strict";
import { test } from "node:test";

import {
  BadRequest,
  createTidemqClient,
  NotFound,
  Unauthorized,
  unwrap,
  type TidemqClient,
} from "../src/index.js";
import { server } from "./server.js";

function signed(secretAccessKey = server.secretAccessKey): TidemqClient {
  return createTidemqClient({
    endpoint: server.endpoint,
    credentials: { accessKeyId: server.accessKeyId, secretAccessKey, region: "us-east-1" },
  });
}

test("a queue round trip signed with SigV4", async () => {
  const tidemq = signed();
  const queue = unwrap(await tidemq.POST("/v1/queues", { body: { name: "ts-orders" } }));
  assert.match(queue.url, /\/ts-orders$/);
  const name = { params: { path: { name: "ts-orders" } } };

  const messages = [0, 1, 2, 3, 4].map((i) => ({ body: `m${i}` }));
  const sent = unwrap(
    await tidemq.POST("/v1/queues/{name}/messages/batch", { ...name, body: { messages } }),
  );
  assert.deepEqual(
    sent.results.map((result) => [result.index, result.error ?? null]),
    [0, 1, 2, 3, 4].map((i) => [i, null]),
  );

  const bodies: string[] = [];
  const handles: string[] = [];
  for (let round = 0; round < 10 && bodies.length < 5; round++) {
    // A long poll answers with what one partition holds.
    const received = unwrap(
      await tidemq.POST("/v1/queues/{name}/messages/receive", {
        ...name,
        body: { max_messages: 10, wait_seconds: 5 },
      }),
    );
    for (const message of received.messages) {
      bodies.push(message.body);
      handles.push(message.receipt_handle);
    }
  }
  assert.deepEqual(bodies.sort(), ["m0", "m1", "m2", "m3", "m4"]);

  const deleted = unwrap(
    await tidemq.POST("/v1/queues/{name}/messages/delete", {
      ...name,
      body: { receipt_handles: handles },
    }),
  );
  assert.ok(deleted.results.every((result) => !result.error));
  const stats = unwrap(await tidemq.GET("/v1/queues/{name}/stats", name));
  assert.deepEqual([stats.visible, stats.in_flight, stats.delayed], [0, 0, 0]);
  const listed = unwrap(
    await tidemq.GET("/v1/queues", { params: { query: { prefix: "ts-o", limit: 10 } } }),
  );
  assert.deepEqual(
    listed.queues.map((queue) => queue.name),
    ["ts-orders"],
  );
  await tidemq.DELETE("/v1/queues/{name}", name);
});

test("a bearer token works as well", async () => {
  const tidemq = createTidemqClient({
    endpoint: server.endpoint,
    credentials: { token: server.token },
  });
  const listed = unwrap(await tidemq.GET("/v1/queues", { params: { query: { limit: 10 } } }));
  assert.ok(Array.isArray(listed.queues));
});

test("errors are thrown as typed exceptions with the API's code and message", async () => {
  const tidemq = signed();
  await assert.rejects(
    tidemq.GET("/v1/queues/{name}", { params: { path: { name: "nowhere" } } }),
    (error: unknown) => {
      assert.ok(error instanceof NotFound);
      assert.equal(error.code, "QueueDoesNotExist");
      assert.equal(error.status, 404);
      assert.equal(error.apiMessage, "The specified queue does not exist.");
      assert.match(error.requestId ?? "", /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-/);
      return true;
    },
  );
  await assert.rejects(tidemq.POST("/v1/queues", { body: { name: "no spaces" } }), (error) => {
    assert.ok(error instanceof BadRequest);
    assert.equal(error.code, "InvalidParameterValue");
    return true;
  });
  await assert.rejects(signed("wrong").GET("/v1/queues"), (error) => {
    assert.ok(error instanceof Unauthorized);
    assert.equal(error.code, "SignatureDoesNotMatch");
    return true;
  });
});
