// A loopback HTTP proxy in front of the local control plane that adds a fixed round-trip latency
// and counts requests by RPC: the benchmark's network, so the CLI runs exactly as a user runs it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';

export interface LatencyProxy {
  url: string;
  latencyMs: number;
  counts(): Map<string, number>;
  reset(): void;
  close(): Promise<void>;
}

export async function startLatencyProxy(upstream: string, latencyMs: number): Promise<LatencyProxy> {
  const pool = new Pool(upstream, { connections: 128 });
  const counts = new Map<string, number>();
  const proxy: { latencyMs: number } = { latencyMs };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const rpc = (request.url ?? '')
        .replace(/^\/v1\//, '')
        .split('/')
        .join('.');
      counts.set(rpc, (counts.get(rpc) ?? 0) + 1);
      setTimeout(() => {
        pool
          .request({
            path: request.url ?? '/',
            method: 'POST',
            headers: request.headers as Record<string, string>,
            body: Buffer.concat(chunks),
          })
          .then(async (answer) => {
            const body = Buffer.from(await answer.body.arrayBuffer());
            const headers: Record<string, string | string[]> = {};
            for (const [key, value] of Object.entries(answer.headers)) {
              if (value !== undefined && key !== 'transfer-encoding' && key !== 'connection' && key !== 'keep-alive') headers[key] = value;
            }
            headers['content-length'] = String(body.length);
            response.writeHead(answer.statusCode, headers);
            response.end(body);
          })
          .catch(() => response.destroy());
      }, proxy.latencyMs);
    });
  });
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get latencyMs() {
      return proxy.latencyMs;
    },
    set latencyMs(value: number) {
      proxy.latencyMs = value;
    },
    counts: () => new Map(counts),
    reset: () => counts.clear(),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await pool.close();
    },
  };
}

export function total(counts: Map<string, number>, filter: (rpc: string) => boolean = () => true): number {
  let sum = 0;
  for (const [rpc, count] of counts) if (filter(rpc)) sum += count;
  return sum;
}

export const isReadRpc = (rpc: string): boolean => /\.(list|get|models|events|pending)$/.test(rpc);
