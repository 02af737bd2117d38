import assert from "node:assert/strict";
import { test } from "node:test";

import {
  BadRequest,
  ConnectionClosed,
  connectWebSocket,
  createTidemqClient,
  Delivery,
  NotFound,
  Unauthorized,
  unwrap,
} from "../src/index.js";
import { server } from "./server.js";

const LIMIT = { timeout: 60_000 }; // a hang fails the test, not the whole run

test("subscribe with credit, publish, ack, nack, extend", LIMIT, async () => {
  const tidemq = createTidemqClient({
    endpoint: server.endpoint,
    credentials: { token: server.token },
  });
  unwrap(await tidemq.POST("/v1/queues", { body: { name: "ts-pushed" } }));
  const connection = await connectWebSocket({ endpoint: server.endpoint, token: server.token });
  const subscription = await connection.subscribe("ts-pushed", {
    credit: 2,
    visibilityTimeoutS: 30,
  });
  const published = await connection.publish("ts-pushed", [
    "one",
    { body: "two" },
    { body: "three" },
  ]);
  assert.deepEqual(
    published.map((result) => result.error ?? null),
    [null, null, null],
  );

  // Credit 2: two come; the third waits until one is settled.
  const iterator = subscription[Symbol.asyncIterator]();
  const first = (await iterator.next()).value as Delivery;
  const second = (await iterator.next()).value as Delivery;
  await first.extend(60);
  await first.ack();
  await second.nack();
  const seen = new Set([first.body]);
  for await (const delivery of subscription) {
    await delivery.ack();
    seen.add(delivery.body);
    if (seen.size === 3) break;
  }
  assert.deepEqual([...seen].sort(), ["one", "three", "two"]);

  const [result] = await subscription.ack(["forged"]);
  assert.equal(result?.error?.code, "ReceiptHandleIsInvalid");
  const forged = new Delivery(subscription, { ...first.message, receipt_handle: "forged" });
  await assert.rejects(forged.ack(), BadRequest);
  await assert.rejects(connection.subscribe("nowhere"), (error) => {
    assert.ok(error instanceof NotFound);
    assert.equal(error.code, "QueueDoesNotExist");
    return true;
  });

  await subscription.unsubscribe();
  const after: Delivery[] = [];
  for await (const delivery of subscription) after.push(delivery);
  assert.deepEqual(after, []);

  const pushed = { params: { path: { name: "ts-pushed" } } };
  const stats = unwrap(await tidemq.GET("/v1/queues/{name}/stats", pushed));
  assert.deepEqual([stats.visible, stats.in_flight], [0, 0]); // every message was acked

  await connection.close();
  await assert.rejects(connection.publish("ts-pushed", ["late"]), ConnectionClosed);
});

test("a bad token is refused before the upgrade", async () => {
  await assert.rejects(
    connectWebSocket({ endpoint: server.endpoint, token: `tqb_${"x".repeat(43)}` }),
    (error) => {
      assert.ok(error instanceof Unauthorized);
      assert.equal(error.code, "InvalidClientTokenId");
      assert.equal(error.status, 401);
      return true;
    },
  );
});

test("publish to a topic and consume its pull subscription", LIMIT, async () => {
  const tidemq = createTidemqClient({
    endpoint: server.endpoint,
    credentials: { token: server.token },
  });
  unwrap(await tidemq.POST("/v1/topics", { body: { name: "ts-alerts" } }));
  const pull = unwrap(
    await tidemq.POST("/v1/topics/{name}/subscriptions", {
      params: { path: { name: "ts-alerts" } },
      body: { protocol: "pull", endpoint: "pager" },
    }),
  );
  const connection = await connectWebSocket({ endpoint: server.endpoint, token: server.token });
  const subscription = await connection.subscribe({ subscription: pull.id }, { credit: 5 });
  assert.equal(subscription.queue, undefined);
  const published = await connection.publish({ topic: "ts-alerts" }, ["disk full", "fixed"]);
  assert.deepEqual(
    published.map((result) => result.error ?? null),
    [null, null],
  );
  const seen: string[] = [];
  for await (const delivery of subscription) {
    await delivery.ack();
    seen.push(delivery.body);
    if (seen.length === 2) break;
  }
  assert.deepEqual(seen.sort(), ["disk full", "fixed"]);
  await subscription.unsubscribe();
  await connection.close();
});
