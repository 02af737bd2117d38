/**
 * A thin client of TideMQ's WebSocket API (`/v1/ws`, docs/websocket.md): subscribe to a
 * queue (or to a topic's pull subscription) with a credit and iterate over its deliveries,
 * ack / nack / extend them, publish to a queue or a topic.
 *
 *     const connection = await connectWebSocket(); // TIDEMQ_ENDPOINT, TIDEMQ_TOKEN
 *     const subscription = await connection.subscribe("orders", { credit: 10 });
 *     await connection.publish("orders", ["hello"]);
 *     for await (const delivery of subscription) {
 *       console.log(delivery.body);
 *       await delivery.ack();
 *     }
 *
 * Frames are the types openapi-typescript generated from sdk/asyncapi.json's schemas
 * (./generated/frames.ts). Answers are matched to the frame they answer by `id`;
 * `deliver` frames go to their subscription, which holds at most `credit` deliveries
 * unsettled (the server sends no more until some are settled). Node 20 has no global
 * WebSocket, so this uses the `ws` package. The connection authenticates with a bearer
 * token only: the WebSocket API takes no SigV4. Closing it makes its unsettled messages
 * visible again at once.
 */

import WebSocket from "ws";

import { DEFAULT_ENDPOINT } from "./client.js";
import {
  type ApiError,
  apiError,
  ConnectionClosed,
  fromResponseBody,
  TidemqError,
} from "./errors.js";
import type { components } from "./generated/frames.js";

type Schemas = components["schemas"];
export type ReceivedMessage = Schemas["ReceivedMessage"];
export type SendMessage = Schemas["SendMessage"];
export type SendResult = Schemas["SendResult"];
export type EntryResult = Schemas["EntryResult"];
/** What this client sends: the client frames, less the `id` it sets itself. */
export type ClientFrame =
  | Schemas["Subscribe"]
  | Schemas["SetCredit"]
  | Schemas["Unsubscribe"]
  | Schemas["Ack"]
  | Schemas["Nack"]
  | Schemas["Extend"]
  | Schemas["Publish"];
export type ServerFrame =
  | Schemas["Subscribed"]
  | Schemas["CreditSet"]
  | Schemas["Unsubscribed"]
  | Schemas["Deliver"]
  | Schemas["Settled"]
  | Schemas["Published"]
  | Schemas["Error"];

/** What a subscription consumes: a queue (by name) or a topic's pull subscription (by id). */
export type Source = string | { queue: string } | { subscription: string };
/** Where a publish goes: a queue (by name) or a topic. */
export type Destination = string | { queue: string } | { topic: string };
type Names = { queue: string } | { subscription: string };

export const PATH = "/v1/ws";
const DEFAULT_ANSWER_TIMEOUT_MS = 30_000;

/** `http://host:port` (the REST endpoint) -> `ws://host:port/v1/ws`; `https` -> `wss`. */
export function websocketUrl(endpoint: string): string {
  if (/^wss?:\/\//.test(endpoint)) return endpoint;
  const match = /^(https?):\/\/(.*?)\/*$/.exec(endpoint);
  if (!match) throw new TypeError(`not an http(s) or ws(s) URL: ${endpoint}`);
  return `${match[1] === "https" ? "wss" : "ws"}://${match[2]}${PATH}`;
}

export interface ConnectOptions {
  /** Default: TIDEMQ_ENDPOINT, else http://127.0.0.1:9324. */
  endpoint?: string;
  /** Default: TIDEMQ_TOKEN. */
  token?: string;
  answerTimeoutMs?: number;
}

/** Opens a connection; a refused upgrade throws its ApiError (Unauthorized for a bad token). */
export async function connectWebSocket(options: ConnectOptions = {}): Promise<Connection> {
  const endpoint = options.endpoint ?? process.env.TIDEMQ_ENDPOINT ?? DEFAULT_ENDPOINT;
  const token = options.token ?? process.env.TIDEMQ_TOKEN;
  if (!token) {
    throw new TidemqError(
      "the WebSocket API needs a bearer token: give one, or set TIDEMQ_TOKEN " +
        "(`tidemq keys token` makes one)",
    );
  }
  const socket = new WebSocket(websocketUrl(endpoint), {
    headers: { authorization: `Bearer ${token}` },
    maxPayload: 16 * 1024 * 1024, // a deliver frame of 100 messages of up to 1 MiB
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("unexpected-response", (_request, response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        const requestId = response.headers["x-amzn-requestid"];
        const body = Buffer.concat(chunks).toString();
        reject(
          fromResponseBody(
            response.statusCode ?? 0,
            body,
            typeof requestId === "string" ? requestId : undefined,
          ),
        );
        socket.terminate();
      });
    });
    socket.once("error", reject);
  });
  return new Connection(socket, options.answerTimeoutMs ?? DEFAULT_ANSWER_TIMEOUT_MS);
}

interface Pending {
  resolve: (frame: ServerFrame) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/** One WebSocket connection; any number of subscriptions (one per queue) and publishes. */
export class Connection {
  private nextId = 1;
  private readonly pending = new Map<string, Pending>();
  /** @internal */
  readonly subscriptions = new Map<string, Subscription>();
  closed = false;

  constructor(
    private readonly socket: WebSocket,
    private readonly answerTimeoutMs: number,
  ) {
    socket.on("message", (data: WebSocket.RawData) => {
      let frame: ServerFrame;
      try {
        frame = JSON.parse(data.toString()) as ServerFrame;
      } catch {
        socket.close(1007, "a frame that is not JSON"); // "close" then ends everything
        return;
      }
      this.dispatch(frame);
    });
    socket.on("close", (code: number, reason: Buffer) => this.ended(code, reason.toString()));
    socket.on("error", () => {
      // "close" follows, and ends everything
    });
  }

  /** Starts pushing the messages of a queue (`"orders"`) or of a topic's pull
   * subscription (`{ subscription: id }`), at most `credit` unsettled at a time, each
   * invisible to other receivers for `visibilityTimeoutS` (default: the source's). */
  async subscribe(
    source: Source,
    options: { credit?: number; visibilityTimeoutS?: number } = {},
  ): Promise<Subscription> {
    const credit = options.credit ?? 10;
    const names: Names = typeof source === "string" ? { queue: source } : source;
    const subscription = new Subscription(this, names, credit);
    const key = keyOf(names);
    if (!this.subscriptions.has(key)) this.subscriptions.set(key, subscription);
    try {
      await this.request({
        op: "subscribe",
        ...names,
        credit,
        ...(options.visibilityTimeoutS === undefined
          ? {}
          : { visibility_timeout: options.visibilityTimeoutS }),
      });
    } catch (error) {
      if (this.subscriptions.get(key) === subscription) this.subscriptions.delete(key);
      throw error;
    }
    this.subscriptions.set(key, subscription);
    return subscription;
  }

  /** Sends up to 100 messages (a string is a message with that body) to a queue
   * (`"orders"`) or publishes them to a topic (`{ topic: "alerts" }`), answered once they
   * are durable: one result per message, with `error` set where one failed. */
  async publish(
    destination: Destination,
    messages: (SendMessage | string)[],
  ): Promise<SendResult[]> {
    const target = typeof destination === "string" ? { queue: destination } : destination;
    const answer = await this.request({
      op: "publish",
      ...target,
      messages: messages.map((m) => (typeof m === "string" ? { body: m } : m)),
    });
    return (answer as Schemas["Published"]).results;
  }

  /** Sends a frame with a fresh `id` and resolves with the server's answer to it; an
   * `error` answer rejects with its ApiError. */
  request(frame: ClientFrame): Promise<ServerFrame> {
    if (this.closed) {
      return Promise.reject(new ConnectionClosed(undefined, "the connection is closed"));
    }
    const id = `c${this.nextId++}`;
    return new Promise<ServerFrame>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new TidemqError(`no answer to ${frame.op} in ${this.answerTimeoutMs} ms`));
      }, this.answerTimeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      this.socket.send(JSON.stringify({ ...frame, id }), (error) => {
        if (error) this.settle(id, undefined, new ConnectionClosed(undefined, error.message));
      });
    });
  }

  close(): Promise<void> {
    this.closed = true;
    if (this.socket.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      this.socket.once("close", () => resolve());
      this.socket.close(1000);
    });
  }

  private dispatch(frame: ServerFrame): void {
    if (frame.type === "deliver") {
      this.subscriptions.get(keyOfFrame(frame))?.deliver(frame.messages);
      return;
    }
    const error =
      frame.type === "error" ? apiError(frame.error.code, frame.error.message) : undefined;
    if (frame.id && this.pending.has(frame.id)) {
      this.settle(frame.id, frame, error);
    } else if (frame.type === "unsubscribed" && frame.reason) {
      // The server ended the subscription itself: its queue was deleted.
      const reason = apiError(frame.reason.code, frame.reason.message);
      this.subscriptions.get(keyOfFrame(frame))?.end(reason);
    } else if (error) {
      // No frame of ours failed: the connection did (a revoked token); it closes next.
      for (const subscription of [...this.subscriptions.values()]) subscription.end(error);
    }
  }

  private settle(id: string, frame: ServerFrame | undefined, error: Error | undefined): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    clearTimeout(pending.timer);
    if (error || !frame) pending.reject(error ?? new ConnectionClosed(undefined, ""));
    else pending.resolve(frame);
  }

  private ended(code: number, reason: string): void {
    const byUs = this.closed;
    this.closed = true;
    const error = new ConnectionClosed(code, reason);
    for (const id of [...this.pending.keys()]) this.settle(id, undefined, error);
    for (const subscription of [...this.subscriptions.values()]) {
      subscription.end(byUs ? undefined : error);
    }
  }
}

/** A message pushed to a subscription, with the operations that settle it. */
export class Delivery {
  constructor(
    readonly subscription: Subscription,
    readonly message: ReceivedMessage,
  ) {}

  get body(): string {
    return this.message.body;
  }

  get receiptHandle(): string {
    return this.message.receipt_handle;
  }

  /** Deletes the message; throws the ApiError of its result if that failed. */
  async ack(): Promise<void> {
    throwFailed(await this.subscription.ack([this.receiptHandle]));
  }

  /** Makes the message visible again after `delaySeconds`. */
  async nack(delaySeconds = 0): Promise<void> {
    throwFailed(await this.subscription.nack([this.receiptHandle], delaySeconds));
  }

  /** Keeps the message invisible for `visibilityTimeoutS` more seconds. */
  async extend(visibilityTimeoutS: number): Promise<void> {
    throwFailed(await this.subscription.extend([this.receiptHandle], visibilityTimeoutS));
  }
}

/** The deliveries of one queue (or pull subscription) on a connection, in the order they
 * came. Iterating ends when the subscription does (unsubscribe, the connection closed by
 * this side); it throws ConnectionClosed or an ApiError when the server ended it. */
export class Subscription implements AsyncIterable<Delivery> {
  private readonly buffered: Delivery[] = [];
  private readonly waiting: {
    resolve: (result: IteratorResult<Delivery>) => void;
    reject: (error: Error) => void;
  }[] = [];
  ended = false;
  private error: Error | undefined;

  /** The queue's name; undefined for a topic's pull subscription. */
  readonly queue: string | undefined;

  constructor(
    readonly connection: Connection,
    /** What the frames about it name: `queue` or `subscription`. */
    readonly names: Names,
    public credit: number,
  ) {
    this.queue = "queue" in names ? names.queue : undefined;
  }

  async setCredit(credit: number): Promise<void> {
    await this.connection.request({ op: "credit", ...this.names, credit });
    this.credit = credit;
  }

  /** Deletes messages; one result per handle (its `error` set where that failed). */
  async ack(receiptHandles: string[]): Promise<EntryResult[]> {
    return this.settle({ op: "ack", ...this.names, receipt_handles: receiptHandles });
  }

  async nack(receiptHandles: string[], delaySeconds = 0): Promise<EntryResult[]> {
    return this.settle({
      op: "nack",
      ...this.names,
      receipt_handles: receiptHandles,
      delay_seconds: delaySeconds,
    });
  }

  async extend(receiptHandles: string[], visibilityTimeoutS: number): Promise<EntryResult[]> {
    return this.settle({
      op: "extend",
      ...this.names,
      receipt_handles: receiptHandles,
      visibility_timeout: visibilityTimeoutS,
    });
  }

  /** Ends the subscription: its unsettled messages become visible again at once. */
  async unsubscribe(): Promise<void> {
    await this.connection.request({ op: "unsubscribe", ...this.names });
    this.end(undefined);
  }

  [Symbol.asyncIterator](): AsyncIterator<Delivery> {
    return {
      next: () => this.next(),
      return: async () => ({ done: true, value: undefined }),
    };
  }

  /** @internal */
  deliver(messages: ReceivedMessage[]): void {
    for (const message of messages) {
      const delivery = new Delivery(this, message);
      const waiter = this.waiting.shift();
      if (waiter) waiter.resolve({ done: false, value: delivery });
      else this.buffered.push(delivery);
    }
  }

  /** @internal */
  end(error: ApiError | ConnectionClosed | undefined): void {
    if (this.ended) return;
    this.ended = true;
    this.error = error;
    // Deliveries not yet taken are dropped: ending the subscription made their messages
    // visible to every receiver again, and their receipt handles would delete nothing.
    this.buffered.length = 0;
    const key = keyOf(this.names);
    if (this.connection.subscriptions.get(key) === this) {
      this.connection.subscriptions.delete(key);
    }
    for (const waiter of this.waiting.splice(0)) {
      if (error) waiter.reject(error);
      else waiter.resolve({ done: true, value: undefined });
    }
  }

  private next(): Promise<IteratorResult<Delivery>> {
    const delivery = this.buffered.shift();
    if (delivery) return Promise.resolve({ done: false, value: delivery });
    if (this.ended) {
      if (this.error) return Promise.reject(this.error);
      return Promise.resolve({ done: true, value: undefined });
    }
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  private async settle(frame: ClientFrame): Promise<EntryResult[]> {
    return ((await this.connection.request(frame)) as Schemas["Settled"]).results;
  }
}

/** How the connection files a subscription: by its queue, or by its pull subscription. */
function keyOf(names: Names): string {
  return "queue" in names ? `queue:${names.queue}` : `subscription:${names.subscription}`;
}

/** The key of the subscription a frame is about ("" for a frame naming neither). */
function keyOfFrame(frame: { queue?: string | null; subscription?: string | null }): string {
  if (frame.queue) return `queue:${frame.queue}`;
  if (frame.subscription) return `subscription:${frame.subscription}`;
  return "";
}

function throwFailed(results: EntryResult[]): void {
  for (const result of results) {
    if (result.error) throw apiError(result.error.code, result.error.message);
  }
}
