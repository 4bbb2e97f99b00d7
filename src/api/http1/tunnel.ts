// A connection through an HTTP proxy's CONNECT tunnel, handed to the pool at once like a socket
// that is still connecting: what the pool writes before the tunnel (and the TLS inside it) is up
// waits, as net.Socket holds writes while it connects.
//
// Why a stream of its own: the pool writes its request as soon as it has a socket, while TLS must
// not start before the proxy has answered the CONNECT (that answer is plain HTTP, not TLS).
import type { Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { codedError } from './connection-pool.js';

/** A proxy's answer to CONNECT longer than this is refused (they are a few lines). */
const MAX_ANSWER_BYTES = 16 * 1024;
const STATUS_LINE = /^HTTP\/1\.[01] (\d{3})(?: ([^\r\n]*))?\r\n/;

export interface TunnelOptions {
  /** The TCP connection to the proxy (connecting). */
  proxySocket: Socket;
  /** `host:port` of the API, as CONNECT names it. */
  authority: string;
  /** The Proxy-Authorization value, if the proxy URL had credentials. */
  authorization?: string;
  /** The proxy, without credentials, for messages. */
  proxyLabel: string;
  /** What runs inside the tunnel once it is open: TLS to the API. */
  wrap(tunnel: Socket): Duplex;
}

/** What to say when a proxy asks for credentials: give them, or (sent already) check them. */
export function credentialsRefused(label: string, code: number, reason: string, sent: boolean): string {
  return sent
    ? `the proxy ${label} refused the credentials in the proxy URL (${code}${reason})`
    : `the proxy ${label} wants credentials (${code}${reason}): give them in the proxy URL, http://user:password@host:port`;
}

export class TunnelSocket extends Duplex {
  private readonly raw: Socket;
  private inner: Duplex | undefined;
  private readonly queued: Array<{ chunk: Buffer | string; encoding: BufferEncoding; callback: (error?: Error | null) => void }> = [];
  private answer = Buffer.alloc(0);

  constructor(private readonly options: TunnelOptions) {
    super();
    this.raw = options.proxySocket;
    const auth = options.authorization === undefined ? '' : `Proxy-Authorization: ${options.authorization}\r\n`;
    this.raw.write(`CONNECT ${options.authority} HTTP/1.1\r\nHost: ${options.authority}\r\n${auth}\r\n`);
    // Paused mode (read()), so that nothing past the proxy's answer is consumed before TLS takes the socket over.
    this.raw.on('readable', this.readAnswer);
    this.raw.on('error', this.failBeforeOpen);
    this.raw.on('close', this.closedBeforeOpen);
  }

  setNoDelay(noDelay?: boolean): this {
    this.raw.setNoDelay(noDelay);
    return this;
  }

  setKeepAlive(enable?: boolean, initialDelay?: number): this {
    this.raw.setKeepAlive(enable, initialDelay);
    return this;
  }

  ref(): this {
    this.raw.ref();
    return this;
  }

  unref(): this {
    this.raw.unref();
    return this;
  }

  override _write(chunk: Buffer | string, encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.inner) this.inner.write(chunk, encoding, callback);
    else this.queued.push({ chunk, encoding, callback });
  }

  override _final(callback: (error?: Error | null) => void): void {
    if (this.inner) this.inner.end(callback);
    else callback();
  }

  override _read(): void {
    this.inner?.resume();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.raw.destroy();
    this.inner?.destroy();
    for (const { callback: written } of this.queued.splice(0)) written(error ?? codedError('ECONNRESET', 'the tunnel closed'));
    callback(error);
  }

  private readonly readAnswer = (): void => {
    if (this.inner || this.destroyed) return;
    let chunk: Buffer | null;
    while ((chunk = this.raw.read() as Buffer | null) !== null) {
      this.answer = Buffer.concat([this.answer, chunk]);
      const end = this.answer.indexOf('\r\n\r\n');
      if (end >= 0) return this.answered(this.answer.subarray(0, end + 4).toString('latin1'), this.answer.subarray(end + 4));
      if (this.answer.length > MAX_ANSWER_BYTES)
        return this.fail('PROXY_PROTOCOL', `the proxy ${this.options.proxyLabel} answered CONNECT with more than ${MAX_ANSWER_BYTES} bytes of header`);
    }
  };

  private answered(head: string, rest: Buffer): void {
    const status = STATUS_LINE.exec(head);
    const label = this.options.proxyLabel;
    if (!status) return this.fail('PROXY_PROTOCOL', `the proxy ${label} did not answer CONNECT with HTTP`);
    const code = Number(status[1]);
    const reason = status[2] ? ` ${status[2]}` : '';
    // Some proxies (tinyproxy) answer 401 rather than 407 to credentials they refuse.
    if (code === 407 || code === 401) return this.fail('PROXY_REFUSED', credentialsRefused(label, code, reason, this.options.authorization !== undefined));
    // The proxy could not reach the API (tinyproxy answers 500, squid 503, others 502/504) or is
    // overloaded: worth another try, as nothing went through. (501, 505: it never will.)
    if (code === 500 || code === 502 || code === 503 || code === 504)
      return this.fail('PROXY_UNAVAILABLE', `the proxy ${label} could not open the tunnel to ${this.options.authority} (${code}${reason})`);
    if (code < 200 || code > 299) return this.fail('PROXY_REFUSED', `the proxy ${label} refused the tunnel to ${this.options.authority} (${code}${reason})`);
    // The client speaks first in TLS: bytes already here did not come from the API.
    if (rest.length > 0) return this.fail('PROXY_PROTOCOL', `the proxy ${label} sent bytes after its answer to CONNECT`);
    this.open();
  }

  private open(): void {
    this.raw.off('readable', this.readAnswer);
    this.raw.off('error', this.failBeforeOpen);
    this.raw.off('close', this.closedBeforeOpen);
    const inner = this.options.wrap(this.raw);
    this.inner = inner;
    inner.on('data', (chunk: Buffer) => {
      if (!this.push(chunk)) inner.pause();
    });
    inner.on('end', () => this.push(null));
    inner.on('error', (error: Error) => this.destroy(error));
    inner.on('close', () => this.destroy());
    for (const { chunk, encoding, callback } of this.queued.splice(0)) inner.write(chunk, encoding, callback);
  }

  private fail(code: string, message: string): void {
    this.destroy(codedError(code, message));
  }

  private readonly failBeforeOpen = (error: Error & { code?: string }): void => {
    this.fail('PROXY_UNREACHABLE', `could not connect to the proxy ${this.options.proxyLabel} (${error.code ?? error.message})`);
  };

  private readonly closedBeforeOpen = (): void => {
    this.fail('PROXY_PROTOCOL', `the proxy ${this.options.proxyLabel} closed the connection before answering CONNECT`);
  };
}
