// Worker side of latency-proxy-thread.ts: one latency proxy, driven by messages.
import { parentPort, workerData } from 'node:worker_threads';
import { startLatencyProxy, type LatencyProxy } from './latency-proxy.js';

const { upstream, latencyMs } = workerData as { upstream: string; latencyMs: number };
let proxy: LatencyProxy | undefined;

parentPort!.on('message', async (message: { id: number; command: string; value?: number }) => {
  const reply = (extra: object = {}) => parentPort!.postMessage({ id: message.id, ...extra });
  try {
    switch (message.command) {
      case 'start':
        proxy = await startLatencyProxy(upstream, latencyMs);
        return reply({ url: proxy.url });
      case 'counts':
        return reply({ counts: [...proxy!.counts()] });
      case 'reset':
        proxy!.reset();
        return reply();
      case 'latency':
        proxy!.latencyMs = message.value ?? 0;
        return reply();
      case 'close':
        await proxy?.close();
        return reply();
    }
  } catch (error) {
    reply({ error: error instanceof Error ? error.message : String(error) });
  }
});
