/**
 * Credentials on REST requests: a bearer token, or an AWS Signature Version 4 by an
 * access key for service `sqs` (any region), as TideMQ's REST API takes them
 * (docs/api.md). The signature covers the method, the path (normalized and
 * percent-encoded once more, as AWS specifies for every service but S3), the query, the
 * `content-type`, `host`, `x-amz-content-sha256` and `x-amz-date` headers, and the body.
 */

import { createHash, createHmac } from "node:crypto";

export const ALGORITHM = "AWS4-HMAC-SHA256";
export const SERVICE = "sqs";
const SIGNED = ["content-type", "host", "x-amz-content-sha256", "x-amz-date"];

export interface AccessKey {
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
}

/** Adds x-amz-date, x-amz-content-sha256 and authorization to `headers` (mutated). */
export function signRequest(
  key: AccessKey,
  method: string,
  url: URL,
  headers: Headers,
  body: Uint8Array,
  now: Date = new Date(),
): void {
  const amzDate = now.toISOString().replace(/[-:]/g, "").replace(/\.\d{3}/, "");
  const payloadHash = sha256Hex(body);
  headers.set("host", url.host);
  headers.set("x-amz-date", amzDate);
  headers.set("x-amz-content-sha256", payloadHash);
  const names = SIGNED.filter((name) => headers.has(name));
  const canonical = [
    method.toUpperCase(),
    canonicalUri(url.pathname),
    canonicalQuery(url.search.slice(1)),
    names.map((name) => `${name}:${trimmed(headers.get(name) ?? "")}\n`).join(""),
    names.join(";"),
    payloadHash,
  ].join("\n");
  const date = amzDate.slice(0, 8);
  const scope = `${date}/${key.region}/${SERVICE}/aws4_request`;
  const stringToSign = [ALGORITHM, amzDate, scope, sha256Hex(canonical)].join("\n");
  const signature = createHmac("sha256", signingKey(key.secretAccessKey, date, key.region))
    .update(stringToSign)
    .digest("hex");
  headers.set(
    "authorization",
    `${ALGORITHM} Credential=${key.accessKeyId}/${scope}, ` +
      `SignedHeaders=${names.join(";")}, Signature=${signature}`,
  );
}

function signingKey(secret: string, date: string, region: string): Buffer {
  let key: Buffer = Buffer.from(`AWS4${secret}`);
  for (const part of [date, region, SERVICE, "aws4_request"]) {
    key = createHmac("sha256", key).update(part).digest();
  }
  return key;
}

/** The path without empty or dot segments, percent-encoded once more. */
export function canonicalUri(rawPath: string): string {
  const segments: string[] = [];
  for (const segment of rawPath.split("/")) {
    if (segment === "..") segments.pop();
    else if (segment !== "" && segment !== ".") segments.push(segment);
  }
  let path = "/" + segments.join("/");
  if (rawPath.endsWith("/") && segments.length > 0) path += "/";
  return path
    .split("/")
    .map((segment) => awsQuote(segment))
    .join("/");
}

/** Each name and value encoded as AWS specifies (all but A-Z a-z 0-9 - _ . ~), sorted. */
export function canonicalQuery(rawQuery: string): string {
  if (rawQuery === "") return "";
  const pairs = rawQuery.split("&").map((pair): [string, string] => {
    const at = pair.indexOf("=");
    const name = at < 0 ? pair : pair.slice(0, at);
    const value = at < 0 ? "" : pair.slice(at + 1);
    return [awsQuote(decodeURIComponent(name)), awsQuote(decodeURIComponent(value))];
  });
  pairs.sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0));
  return pairs.map(([name, value]) => `${name}=${value}`).join("&");
}

function awsQuote(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

function trimmed(value: string): string {
  return value.trim().split(/\s+/).join(" ");
}
