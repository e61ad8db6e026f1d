/**
 * A dashboard's reads, typed by the generated schema (src/schema.d.ts):
 * the fleet's latest values (`GET /api/v1/latest`, conditional on its ETag) and the live
 * stream (`GET /api/v1/stream`, Server-Sent Events read with fetch, as a browser page does).
 *
 *   node dist/example.js http://127.0.0.1:8000 svc_live_... 70b3d57ed0000001,70b3d57ed0000007
 *
 * Prints one JSON object per step. A route this server does not serve yet is reported as
 * `{"served": false}` rather than failing.
 */
import createClient from "openapi-fetch";

import type { components, paths } from "./schema.js";

type LatestValues = components["schemas"]["LatestValues"];
type ErrorEnvelope = components["schemas"]["ErrorEnvelope"];

/** An answer other than 2xx or 304: the service's envelope, typed. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(`${status} ${code}: ${message}`);
  }
}

async function apiError(response: Response): Promise<ApiError> {
  const body = (await response.json().catch(() => null)) as ErrorEnvelope | null;
  return new ApiError(
    response.status,
    body?.error.code ?? "unexpected_response",
    body?.error.message ?? `HTTP ${response.status}`,
  );
}

export interface FleetLatest {
  data: LatestValues[];
  etag: string | null;
  status: number;
}

/** Fleet latest (analytics.md 1): the items are latest values objects, as on /latest. */
export async function fleetLatest(
  base: string,
  key: string,
  deviceIds: string[],
  etag?: string,
): Promise<FleetLatest | null> {
  const url = `${base}/api/v1/latest?deviceIds=${encodeURIComponent(deviceIds.join(","))}`;
  const headers: Record<string, string> = { Authorization: `Bearer ${key}` };
  if (etag) headers["If-None-Match"] = etag;
  const response = await fetch(url, { headers });
  if (response.status === 404) {
    const error = await apiError(response);
    if (error.code === "not_found") return null;
    throw error;
  }
  if (response.status === 304) return { data: [], etag: response.headers.get("ETag"), status: 304 };
  if (!response.ok) throw await apiError(response);
  const body = (await response.json()) as { data: LatestValues[] };
  return { data: body.data, etag: response.headers.get("ETag"), status: response.status };
}

export interface StreamEvent {
  event: string;
  id: string | null;
  data: unknown;
}

/** The stream's events, parsed from the text/event-stream body as it arrives. */
export async function* streamEvents(
  base: string,
  key: string,
  deviceIds: string[],
  signal: AbortSignal,
): AsyncGenerator<StreamEvent, void, undefined> {
  const url = `${base}/api/v1/stream?deviceIds=${encodeURIComponent(deviceIds.join(","))}`;
  const response = await fetch(url, {
    headers: { Authorization: `Bearer ${key}`, Accept: "text/event-stream" },
    signal,
  });
  if (!response.ok || response.body === null) throw await apiError(response);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let event = "message";
  let id: string | null = null;
  let data: string[] = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let newline: number;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, newline).replace(/\r$/, "");
      buffer = buffer.slice(newline + 1);
      if (line === "") {
        if (data.length > 0) {
          const text = data.join("\n");
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // Not JSON: the text as sent.
          }
          yield { event, id, data: parsed };
        }
        event = "message";
        data = [];
        continue;
      }
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const name = colon < 0 ? line : line.slice(0, colon);
      const field = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (name === "event") event = field;
      else if (name === "data") data.push(field);
      else if (name === "id") id = field;
    }
  }
}

async function main(): Promise<void> {
  const [base, key, devices] = process.argv.slice(2);
  if (!base || !key || !devices) {
    console.error("usage: node dist/example.js BASE_URL KEY DEVEUI[,DEVEUI...]");
    process.exit(2);
  }
  const deviceIds = devices.split(",");
  const client = createClient<paths>({
    baseUrl: base,
    headers: { Authorization: `Bearer ${key}` },
  });

  // A typed call of the generated paths: one device's latest values.
  const first = deviceIds[0] ?? "";
  const one = await client.GET("/api/v1/devices/{device_ref}/latest", {
    params: { path: { device_ref: first } },
  });
  if (one.error) throw new ApiError(one.response.status, one.error.error.code, one.error.error.message);
  const latest: LatestValues | undefined = one.data?.data;
  console.log(JSON.stringify({ step: "deviceLatest", deviceId: latest?.deviceId, time: latest?.time }));

  const fleet = await fleetLatest(base, key, deviceIds);
  if (fleet === null) {
    console.log(JSON.stringify({ step: "fleetLatest", served: false }));
  } else {
    const items = fleet.data.map((item) => ({ deviceId: item.deviceId, time: item.time, values: item.values }));
    console.log(JSON.stringify({ step: "fleetLatest", served: true, etag: fleet.etag, items }));
    const again = await fleetLatest(base, key, deviceIds, fleet.etag ?? undefined);
    console.log(JSON.stringify({ step: "fleetLatestAgain", status: again?.status }));
  }

  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), 20_000);
  const seen = new Map<string, unknown>();
  try {
    for await (const event of streamEvents(base, key, deviceIds, stop.signal)) {
      if (event.event !== "latest") continue;
      const item = event.data as LatestValues;
      seen.set(item.deviceId, { deviceId: item.deviceId, time: item.time, id: event.id });
      if (seen.size === deviceIds.length) break;
    }
  } catch (error) {
    if (error instanceof ApiError && error.status === 404 && error.code === "not_found") {
      console.log(JSON.stringify({ step: "stream", served: false }));
      return;
    }
    throw error;
  } finally {
    clearTimeout(timer);
    stop.abort();
  }
  console.log(JSON.stringify({ step: "stream", served: true, events: [...seen.values()] }));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
