// One hook delivery attempt: POST the JSON body, signed when the connection has a signing
// secret. The queue, retries and backoff live elsewhere; this reports and never throws.
import { SIGNATURE_HEADER, signPayload } from './signing.js';

export interface HookDelivery {
  url: string;
  /** The raw JSON body, sent byte-for-byte as signed. */
  body: string;
  signingSecret?: string;
  timeoutMs?: number;
  headers?: Record<string, string>;
}

export interface HookSendResult {
  ok: boolean;
  /** HTTP status when an answer arrived. */
  status?: number;
  /** Short reason when not ok: `HTTP 500`, `connect ECONNREFUSED ...`, `timed out after 10000 ms`. */
  error?: string;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const MAX_ERROR_CHARS = 200;

function shortError(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const code = err instanceof Error ? (err as { code?: unknown }).code : undefined;
  const text = typeof code === 'string' && !message.includes(code) ? `${message} (${code})` : message;
  return text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS)}…` : text;
}

export async function sendHook(delivery: HookDelivery): Promise<HookSendResult> {
  const timeoutMs = delivery.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const url = new URL(delivery.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      return { ok: false, error: `unsupported URL scheme ${url.protocol}` };
    }
    // Ours last: the caller cannot override the content type or forge the signature header.
    const headers: Record<string, string> = { 'user-agent': 'agentform-hooks', ...delivery.headers };
    headers['content-type'] = 'application/json';
    if (delivery.signingSecret) headers[SIGNATURE_HEADER] = signPayload(delivery.body, delivery.signingSecret);
    else delete headers[SIGNATURE_HEADER];

    // undici is loaded with the first delivery: a local plane that sends no hook (every `url: local`
    // plan) does not pay for importing it.
    const { request } = await import('undici');
    const response = await request(url, { method: 'POST', body: delivery.body, headers, signal });
    // The receiver's answer body is not needed; drain it so the socket can be reused.
    await response.body.dump().catch(() => undefined);
    const status = response.statusCode;
    if (status >= 200 && status < 300) return { ok: true, status };
    return { ok: false, status, error: `HTTP ${status}` };
  } catch (err) {
    if (signal.aborted) return { ok: false, error: `timed out after ${timeoutMs} ms` };
    if (err instanceof TypeError && /invalid url/i.test(err.message)) return { ok: false, error: 'invalid URL' };
    return { ok: false, error: shortError(err) };
  }
}
