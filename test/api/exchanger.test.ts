// Which path the transport's requests take: the hand-written pool unless the speed-ups are off.
import { describe, expect, it } from 'vitest';
import { exchangerFor } from '../../src/api/exchanger.js';
import { ConnectionPool } from '../../src/api/http1/connection-pool.js';
import { NodeHttpExchanger } from '../../src/api/node-http-exchanger.js';

const noConnection = () => {
  throw new Error('no connection is made');
};

describe('exchangerFor', () => {
  it.each([
    [{}, ConnectionPool],
    [{ AGENTFORM_OPTIMIZATIONS: 'on' }, ConnectionPool],
    [{ AGENTFORM_OPTIMIZATIONS: 'off' }, NodeHttpExchanger],
    [{ AGENTFORM_OPTIMIZATIONS: '-client-http' }, NodeHttpExchanger],
    [{ AGENTFORM_OPTIMIZATIONS: '-parse-cache' }, ConnectionPool],
    // node's HTTP debug output would print the credential: the hand-written path prints nothing.
    [{ AGENTFORM_OPTIMIZATIONS: 'off', NODE_DEBUG: 'http' }, ConnectionPool],
    [{ AGENTFORM_OPTIMIZATIONS: 'off', NODE_DEBUG: 'net,HTTP' }, ConnectionPool],
    [{ AGENTFORM_OPTIMIZATIONS: 'off', NODE_DEBUG: 'ht*' }, ConnectionPool],
    [{ AGENTFORM_OPTIMIZATIONS: 'off', NODE_DEBUG: 'http2,net' }, NodeHttpExchanger],
  ])('with %j: %o', (env, kind) => {
    const exchanger = exchangerFor(noConnection, 1, env);
    expect(exchanger).toBeInstanceOf(kind);
    exchanger.close();
  });
});
