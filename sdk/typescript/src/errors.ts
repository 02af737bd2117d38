/**
 * What tidemq-client throws.
 *
 *     TidemqError                  everything below; also: no credentials
 *      +-- ApiError                TideMQ refused: `code` and `message` from the API's
 *      |    |                      {"error": {"code", "message"}}, `status` the HTTP status
 *      |    |                      (undefined for a WebSocket `error` frame)
 *      |    +-- BadRequest             400  InvalidParameterValue, MissingParameter, ...
 *      |    +-- Unauthorized           401  MissingAuthenticationToken, SignatureDoesNotMatch, ...
 *      |    +-- Forbidden              403  OverLimit
 *      |    +-- NotFound               404  QueueDoesNotExist, ...
 *      |    +-- Conflict               409  QueueNameExists, PurgeQueueInProgress, ...
 *      |    +-- PayloadTooLarge        413  MessageTooLong, BatchRequestTooLong, ...
 *      |    +-- Throttled              429  (retried)
 *      |    +-- ServiceUnavailable     503  (retried)
 *      |    +-- ServerError            other 5xx (retried)
 *      +-- ConnectionClosed        the WebSocket connection ended (`code`, `reason`)
 *
 * HTTP errors get their class from the status; WebSocket errors, which have none, from
 * their code. The same tree as the Python SDK's tidemq_client.errors.
 */

export class TidemqError extends Error {
  override name = "TidemqError";
}

export class ApiError extends TidemqError {
  override name = "ApiError";
  /** Whether the client retries a request that got this error before throwing it. */
  readonly retriable: boolean = false;

  constructor(
    readonly code: string,
    message: string,
    readonly status?: number,
  ) {
    super(`${code}: ${message}`);
    this.apiMessage = message;
  }

  /** The API's message, without the code. */
  readonly apiMessage: string;

  /** The id the server gave the request (its `x-amzn-RequestId`), which every log record
   * about it names: quote it when asking an operator about the error. */
  requestId?: string;
}

export class BadRequest extends ApiError {
  override name = "BadRequest";
}
export class Unauthorized extends ApiError {
  override name = "Unauthorized";
}
export class Forbidden extends ApiError {
  override name = "Forbidden";
}
export class NotFound extends ApiError {
  override name = "NotFound";
}
export class Conflict extends ApiError {
  override name = "Conflict";
}
export class PayloadTooLarge extends ApiError {
  override name = "PayloadTooLarge";
}
export class Throttled extends ApiError {
  override name = "Throttled";
  override readonly retriable = true;
}
export class ServiceUnavailable extends ApiError {
  override name = "ServiceUnavailable";
  override readonly retriable = true;
}
/** A 5xx other than 503. */
export class ServerError extends ApiError {
  override name = "ServerError";
  override readonly retriable = true;
}

export class ConnectionClosed extends TidemqError {
  override name = "ConnectionClosed";

  constructor(
    readonly code: number | undefined,
    readonly reason: string,
  ) {
    super(reason ? `connection closed (${code}): ${reason}` : "connection closed");
  }
}

type ApiErrorClass = new (code: string, message: string, status?: number) => ApiError;

const BY_STATUS: Record<number, ApiErrorClass> = {
  400: BadRequest,
  401: Unauthorized,
  403: Forbidden,
  404: NotFound,
  409: Conflict,
  413: PayloadTooLarge,
  429: Throttled,
  503: ServiceUnavailable,
};

// The WebSocket API's codes (docs/websocket.md) by the class their REST status would give.
const BY_CODE: Record<string, ApiErrorClass> = {
  ...Object.fromEntries(
    [
      "SerializationException",
      "InvalidParameterValue",
      "MissingParameter",
      "InvalidAttributeName",
      "InvalidAttributeValue",
      "InvalidMessageContents",
      "EmptyBatchRequest",
      "TooManyEntriesInBatchRequest",
      "ReceiptHandleIsInvalid",
      "MessageNotInflight",
      "AlreadySubscribed",
      "NotSubscribed",
    ].map((code) => [code, BadRequest]),
  ),
  ...Object.fromEntries(
    [
      "MissingAuthenticationToken",
      "InvalidClientTokenId",
      "ExpiredToken",
      "IncompleteSignature",
      "SignatureDoesNotMatch",
    ].map((code) => [code, Unauthorized]),
  ),
  OverLimit: Forbidden,
  QueueDoesNotExist: NotFound,
  MessageTooLong: PayloadTooLarge,
  BatchRequestTooLong: PayloadTooLarge,
  RequestTooLarge: PayloadTooLarge,
  ServiceUnavailable: ServiceUnavailable,
};

/** The ApiError of its class: by HTTP status when there is one, else by code. */
export function apiError(code: string, message: string, status?: number): ApiError {
  if (status === undefined) {
    return new (BY_CODE[code] ?? ApiError)(code, message);
  }
  const cls = BY_STATUS[status] ?? (status >= 500 ? ServerError : ApiError);
  return new cls(code, message, status);
}

/** The error an HTTP error response stands for. A body that is not the API's error shape
 * (a proxy's page, say) gives the code `HTTP<status>` and the body's start. */
export function fromResponseBody(status: number, body: string, requestId?: string): ApiError {
  const error = fromBody(status, body);
  error.requestId = requestId;
  return error;
}

function fromBody(status: number, body: string): ApiError {
  try {
    const parsed: unknown = JSON.parse(body);
    const detail = (parsed as { error?: { code?: unknown; message?: unknown } }).error;
    if (typeof detail?.code === "string" && typeof detail.message === "string") {
      return apiError(detail.code, detail.message, status);
    }
  } catch {
    // not JSON: described below
  }
  const text = body.slice(0, 200).trim();
  return apiError(`HTTP${status}`, text || "(no body)", status);
}
