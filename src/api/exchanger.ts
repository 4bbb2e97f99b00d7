// The port the transport sends its requests through (transport.ts): the hand-written HTTP/1.1 pool
// (http1/connection-pool.ts) by default, node:http (node-http-exchanger.ts) with
// AGENTFORM_OPTIMIZATIONS=off. Both take the head the transport wrote and answer alike.
import { optimizationsOff } from '../util/optimizations.js';
import { ConnectionPool } from './http1/connection-pool.js';
import type { ConnectionFactory, Exchanger } from './exchanger-port.js';
import { NodeHttpExchanger } from './node-http-exchanger.js';

export type { ConnectionFactory, Exchanger } from './exchanger-port.js';

export function exchangerFor(connect: ConnectionFactory, maxSockets: number, env: NodeJS.ProcessEnv = process.env): Exchanger {
  // node:http's own debug output (NODE_DEBUG=http) prints every request's headers, the credential
  // among them: with it on, the requests keep to the hand-written path, which prints nothing.
  const plain = optimizationsOff(env, 'client-http') && !nodeDebugsHttp(env);
  return plain ? new NodeHttpExchanger(connect, maxSockets) : new ConnectionPool(connect, maxSockets);
}

/** Whether NODE_DEBUG turns on node's HTTP debug output (`http`, or a pattern that matches it). */
export function nodeDebugsHttp(env: NodeJS.ProcessEnv): boolean {
  return (env.NODE_DEBUG ?? '')
    .split(/[\s,]+/)
    .some((name) => name !== '' && new RegExp(`^${name.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`, 'i').test('http'));
}
