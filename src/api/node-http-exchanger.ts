// The plain twin of the hand-written HTTP/1.1 pool (http1/connection-pool.ts), for
// AGENTFORM_OPTIMIZATIONS=off: node:http's client over a keep-alive http.Agent. The sockets come
// from the transport's own factory (TCP, TLS with its certificate checks, or a proxy tunnel), so
// only HTTP itself changes; failures keep the codes the transport maps (ECONNREFUSED, PROXY_*, TLS).
import type { Agent, ClientRequest, IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { MAX_TIMER_MS } from '../util/clock.js';
import { codedError, type PooledAnswer, type PooledRequest } from './http1/connection-pool.js';
import type { ResponseHeaders } from './http1/response-parser.js';
import type { ConnectionFactory, Exchanger } from './exchanger-port.js';

interface InFlight {
  outgoing: ClientRequest;
  fail(error: Error): void;
}

export class NodeHttpExchanger implements Exchanger {
  private readonly agent: Agent & { closing: boolean };
  private readonly inFlight = new Set<InFlight>();

  constructor(connect: ConnectionFactory, maxSockets: number) {
    this.agent = factoryAgent(connect, maxSockets);
  }

  request(request: PooledRequest): Promise<PooledAnswer> {
    return new Promise<PooledAnswer>((resolve, reject) => {
      if (this.agent.closing) return reject(codedError('CLIENT_CLOSED', 'the client was closed'));
      const { method, path, headers } = partsOf(request.head);
      // The head's own fields, Host and Connection included, go out as they are: the same bytes as the hand-written path.
      const outgoing = http().request({ method, path, headers, agent: this.agent, setHost: false });
      const entry: InFlight = { outgoing, fail: (error) => settle(error) };
      const timer = setTimeout(
        () => settle(codedError('CLIENT_TIMEOUT', `no answer within ${request.timeoutMs} ms`)),
        Math.min(request.timeoutMs, MAX_TIMER_MS),
      );
      const settle = (error: Error | undefined, answer?: PooledAnswer): void => {
        if (!this.inFlight.delete(entry)) return;
        clearTimeout(timer);
        if (error) {
          // Its socket is in an unknown state (a half-read answer, an unsent body): it goes too.
          outgoing.destroy();
          reject(error);
        } else resolve(answer!);
      };
      this.inFlight.add(entry);
      outgoing.on('error', (error) => settle(malformedOr(error)));
      outgoing.on('response', (response) => readAnswer(response, request.maxBodyBytes ?? Infinity, settle));
      outgoing.end(request.body);
    });
  }

  /** Not done on this path: node's agent opens connections as requests need them. */
  preconnect(_count: number): number {
    return 0;
  }

  /** No new requests, and those still waiting for a connection fail; idle connections close now, busy ones once their answer is in. */
  close(): void {
    this.agent.closing = true;
    for (const entry of [...this.inFlight]) if (!entry.outgoing.socket) entry.fail(codedError('CLIENT_CLOSED', 'the client was closed'));
    for (const sockets of Object.values(this.agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
  }

  /** Fails every request in flight or waiting with `error` and closes every connection. */
  destroy(error: Error): void {
    this.agent.closing = true;
    for (const entry of [...this.inFlight]) entry.fail(error);
    this.agent.destroy();
  }
}

let loaded: typeof import('node:http') | undefined;

/** node:http, loaded on first use: the default path never needs it. */
function http(): typeof import('node:http') {
  // require, not import(): the bundle's chunks are compiled through vm.Script, where import() has no loader.
  loaded ??= createRequire(import.meta.url)('node:http') as typeof import('node:http');
  return loaded;
}

/** A keep-alive agent whose connections are the factory's, not ones it opens itself. */
function factoryAgent(connect: ConnectionFactory, maxSockets: number): Agent & { closing: boolean } {
  class FactoryAgent extends http().Agent {
    closing = false;

    override createConnection(): Duplex {
      const socket = connect();
      // node's own connections are made without Nagle's delay; the factory's are not told to.
      socket.setNoDelay(true);
      return socket;
    }

    override keepSocketAlive(socket: Duplex): boolean {
      if (this.closing) return false;
      // A proxy tunnel (http1/tunnel.ts) is a stream with no idle timer for node to set: kept without one.
      if (!(socket instanceof Socket)) {
        (socket as Duplex & { unref(): unknown }).unref();
        return true;
      }
      // @types/node says void, but node reads the answer: false destroys the socket (a server's too-short Keep-Alive).
      return super.keepSocketAlive(socket) as unknown as boolean;
    }
  }
  return new FactoryAgent({ keepAlive: true, maxSockets, scheduling: 'lifo' });
}

/** The method, target and header fields of a head the transport wrote (already checked there). */
function partsOf(head: string): { method: string; path: string; headers: string[] } {
  const [requestLine, ...fields] = head.slice(0, -4).split('\r\n');
  const [method, path] = requestLine!.split(' ');
  const headers: string[] = [];
  for (const field of fields) {
    const colon = field.indexOf(': ');
    headers.push(field.slice(0, colon), field.slice(colon + 2));
  }
  return { method: method!, path: path!, headers };
}

/** Reads the whole answer as the hand-written pool does: UTF-8 text, and no body beyond `limit` bytes. */
function readAnswer(response: IncomingMessage, limit: number, settle: (error: Error | undefined, answer?: PooledAnswer) => void): void {
  const tooLarge = () => codedError('RESPONSE_TOO_LARGE', `the answer is longer than ${limit} bytes`);
  // A declared length beyond the limit is refused before any of the body arrives.
  if (Number(response.headers['content-length'] ?? 0) > limit) return settle(tooLarge());
  const decoder = new StringDecoder('utf8');
  let text = '';
  let bytes = 0;
  response.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > limit) return settle(tooLarge());
    text += decoder.write(chunk);
  });
  response.on('end', () => settle(undefined, { status: response.statusCode ?? 0, headers: headersOf(response), text: text + decoder.end() }));
  response.on('error', (error) => settle(error));
  // Cut short without an error event (the socket closed mid-body): the pool's ECONNRESET.
  response.on('close', () => settle(codedError('ECONNRESET', 'the connection closed before the answer was complete')));
}

/** node's header object, copied into one without a prototype as response-parser.ts makes it. */
function headersOf(response: IncomingMessage): ResponseHeaders {
  const headers = Object.create(null) as ResponseHeaders;
  for (const [name, value] of Object.entries(response.headers)) if (value !== undefined) headers[name] = value;
  return headers;
}

/** node's parser refusing the answer (HPE_*), reported as the hand-written parser reports it. */
function malformedOr(error: Error & { code?: string; reason?: string }): Error {
  if (!error.code?.startsWith('HPE_')) return error;
  return codedError('MALFORMED_RESPONSE', `the answer is not valid HTTP/1.1: ${error.reason ?? error.message}`);
}
