// The latency proxy on a thread of its own. A network does not use the server's CPU: run in the
// server's event loop, the proxy's own HTTP work (two extra exchanges per request) delayed the
// server's answers and was counted against agentform. The worker runs latency-proxy.ts unchanged.
import { Worker } from 'node:worker_threads';

export interface ProxyThread {
  url: string;
  counts(): Promise<Map<string, number>>;
  reset(): Promise<void>;
  setLatency(ms: number): Promise<void>;
  close(): Promise<void>;
}

type Command = 'counts' | 'reset' | 'latency' | 'close';
interface Reply {
  id: number;
  url?: string;
  counts?: Array<[string, number]>;
  error?: string;
}

export async function startLatencyProxyThread(upstream: string, latencyMs: number): Promise<ProxyThread> {
  const worker = new Worker(new URL('./latency-proxy-worker.js', import.meta.url), { workerData: { upstream, latencyMs } });
  const pending = new Map<number, (reply: Reply) => void>();
  let nextId = 1;
  worker.on('message', (reply: Reply) => {
    pending.get(reply.id)?.(reply);
    pending.delete(reply.id);
  });
  const failure = new Promise<never>((_, reject) => worker.once('error', reject));
  failure.catch(() => undefined);
  const ask = (command: Command | 'start', value?: number): Promise<Reply> => {
    const id = nextId++;
    const answered = new Promise<Reply>((resolve, reject) => pending.set(id, (reply) => (reply.error ? reject(new Error(reply.error)) : resolve(reply))));
    worker.postMessage({ id, command, value });
    return Promise.race([answered, failure]);
  };
  const started = await ask('start');
  return {
    url: started.url as string,
    counts: async () => new Map((await ask('counts')).counts),
    reset: async () => void (await ask('reset')),
    setLatency: async (ms) => void (await ask('latency', ms)),
    close: async () => {
      await ask('close');
      await worker.terminate();
    },
  };
}
