/**
 * Retries with backoff: a fetch that sends a request again when TideMQ is throttling
 * (429), unavailable (503) or failing (other 5xx), or could not be reached.
 *
 * Attempt n (from 1) waits a random time in [0, min(maxDelayMs, baseDelayMs * 2^(n-1))]
 * before attempt n+1 ("full jitter"), or the server's `Retry-After` seconds when it sends
 * one (capped at maxDelayMs). After `maxAttempts` the last answer is returned as it is.
 * A 4xx other than 429 is not retried (the request itself is wrong); a 5xx can still mean
 * a send happened, as on SQS: delivery is at least once. Each attempt is signed anew.
 */

export const RETRIED_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);

export interface RetryPolicy {
  /** 1 turns retries off. Default 4. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  statuses: ReadonlySet<number>;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 4,
  baseDelayMs: 100,
  maxDelayMs: 5000,
  statuses: RETRIED_STATUSES,
};

/** How long to wait after failed attempt `attempt` (from 1). */
export function delayMs(
  policy: RetryPolicy,
  attempt: number,
  retryAfter: string | null = null,
  jitter: (ceilingMs: number) => number = (ceilingMs) => Math.random() * ceilingMs,
): number {
  if (retryAfter !== null && /^\d+(\.\d+)?$/.test(retryAfter.trim())) {
    return Math.min(Number(retryAfter) * 1000, policy.maxDelayMs);
  }
  return jitter(Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1)));
}

/** A request to send once more: built anew for each attempt (a Request's body is read
 * only once). */
export type Attempt = () => Promise<Request>;

/** Sends `attempt()`'s request until it gets an answer not to retry, or runs out. */
export async function fetchWithRetries(
  attempt: Attempt,
  policy: RetryPolicy,
  fetch: (request: Request) => Promise<Response> = globalThis.fetch,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((done) => setTimeout(done, ms)),
): Promise<Response> {
  for (let n = 1; ; n++) {
    const last = n >= policy.maxAttempts;
    let response: Response;
    try {
      response = await fetch(await attempt());
    } catch (error) {
      // Not reached at all (connection refused, DNS): safe to send again.
      if (last || !notSent(error)) throw error;
      await sleep(delayMs(policy, n));
      continue;
    }
    if (last || !policy.statuses.has(response.status)) return response;
    await response.arrayBuffer(); // let the connection be reused
    await sleep(delayMs(policy, n, response.headers.get("retry-after")));
  }
}

function notSent(error: unknown): boolean {
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause;
  return cause?.code === "ECONNREFUSED" || cause?.code === "ENOTFOUND";
}
