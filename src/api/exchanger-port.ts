// The port the transport sends its requests through (transport.ts); exchanger.ts picks the path.
import type { Duplex } from 'node:stream';
import type { PooledAnswer, PooledRequest, PoolSocket } from './http1/connection-pool.js';

export interface Exchanger {
  request(request: PooledRequest): Promise<PooledAnswer>;
  /** Opens connections ahead of a burst of up to `count` requests; how many it opened. */
  preconnect(count: number): number;
  /** No new requests; idle connections close now, busy ones once their answer is in. */
  close(): void;
  /** Fails every request in flight or waiting with `error` and closes every connection. */
  destroy(error: Error): void;
}

/** Makes one connection to the origin (or its proxy): a stream either path can use. */
export type ConnectionFactory = () => PoolSocket & Duplex;
