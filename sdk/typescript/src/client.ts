/**
 * The REST client: openapi-fetch over the types openapi-typescript generated from
 * sdk/openapi.json (./generated/openapi.ts), with credentials on every request, retries
 * with backoff, and errors thrown as ApiErrors.
 *
 *     const tidemq = createTidemqClient(); // TIDEMQ_ENDPOINT, TIDEMQ_TOKEN or AWS_* keys
 *     const queue = unwrap(await tidemq.POST("/v1/queues", { body: { name: "orders" } }));
 *
 * Any answer of 400 or more throws the ApiError of its class once the retries have given
 * up on it, so a call's `error` is never set: `unwrap` returns its `data`.
 */

import createClient, { type Client } from "openapi-fetch";

import { type AccessKey, signRequest } from "./auth.js";
import { fromResponseBody, TidemqError } from "./errors.js";
import type { paths } from "./generated/openapi.js";
import { DEFAULT_RETRY_POLICY, fetchWithRetries, type RetryPolicy } from "./retries.js";

export const DEFAULT_ENDPOINT = "http://127.0.0.1:9324";
export const DEFAULT_REGION = "us-east-1";

export type TidemqClient = Client<paths>;

export interface Credentials {
  /** A bearer token from `tidemq keys token`. */
  token?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  region?: string;
}

export interface ClientOptions {
  /** Default: TIDEMQ_ENDPOINT, else http://127.0.0.1:9324. */
  endpoint?: string;
  /** Default: TIDEMQ_TOKEN, else AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_REGION
   * (or AWS_DEFAULT_REGION), the variables `tidemq up` prints. */
  credentials?: Credentials;
  retry?: Partial<RetryPolicy>;
  /** The fetch to send with (default: the global one). */
  fetch?: (request: Request) => Promise<Response>;
}

/** The endpoint and credentials from the environment, where not given. */
export function fromEnv(options: ClientOptions = {}): {
  endpoint: string;
  credentials: Credentials;
} {
  const env = process.env;
  return {
    endpoint: options.endpoint ?? env.TIDEMQ_ENDPOINT ?? DEFAULT_ENDPOINT,
    credentials: options.credentials ?? {
      token: env.TIDEMQ_TOKEN,
      accessKeyId: env.AWS_ACCESS_KEY_ID,
      secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
      region: env.AWS_REGION ?? env.AWS_DEFAULT_REGION,
    },
  };
}

export function createTidemqClient(options: ClientOptions = {}): TidemqClient {
  const { endpoint, credentials } = fromEnv(options);
  const sign = signer(credentials);
  const policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  const send = options.fetch ?? globalThis.fetch;
  return createClient<paths>({
    baseUrl: endpoint.replace(/\/+$/, ""),
    fetch: async (request: Request): Promise<Response> => {
      const body = new Uint8Array(await request.arrayBuffer());
      const attempt = async (): Promise<Request> => {
        const headers = new Headers(request.headers);
        sign(request.method, new URL(request.url), headers, body);
        return new Request(request.url, {
          method: request.method,
          headers,
          body: body.length > 0 ? body : null,
          signal: request.signal,
        });
      };
      const response = await fetchWithRetries(attempt, policy, send);
      if (response.status >= 400) {
        const requestId = response.headers.get("x-amzn-requestid") ?? undefined;
        throw fromResponseBody(response.status, await response.text(), requestId);
      }
      return response;
    },
  });
}

type Signer = (method: string, url: URL, headers: Headers, body: Uint8Array) => void;

function signer(credentials: Credentials): Signer {
  const { token, accessKeyId, secretAccessKey } = credentials;
  if (token) {
    return (_method, _url, headers) => headers.set("authorization", `Bearer ${token}`);
  }
  if (accessKeyId && secretAccessKey) {
    const key: AccessKey = {
      accessKeyId,
      secretAccessKey,
      region: credentials.region ?? DEFAULT_REGION,
    };
    return (method, url, headers, body) => signRequest(key, method, url, headers, body);
  }
  throw new TidemqError(
    "no credentials: give a token (TIDEMQ_TOKEN, from `tidemq keys token`) or an access " +
      "key (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, as `tidemq up` prints)",
  );
}

/** A call's data. The client throws every error itself; this throws only for a client
 * made some other way. */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.error !== undefined) {
    throw new TidemqError(`the call failed: ${JSON.stringify(result.error)}`);
  }
  return result.data as T;
}
