// Fault injection: off by default, reproducible with a seed, never on /dev/, and a lost response
// really did take effect.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DATABASE_FILE } from '../../src/server/embedded.js';
import { FaultInjector, seededRandom } from '../../src/server/faults.js';
import { call, post, startServer, waitFor } from './helpers.js';

async function outcomes(seed: number, n: number): Promise<string[]> {
  const plane = await startServer({ faults: { failRate: 0.3, lostResponseRate: 0.2, seed } });
  const results: string[] = [];
  try {
    for (let i = 0; i < n; i++) {
      try {
        const answer = await call(plane.url, 'secrets.list', {}, plane.tokens.dev!);
        results.push(String(answer.status));
      } catch {
        results.push('lost');
      }
    }
  } finally {
    await plane.cleanup();
  }
  return results;
}

describe('fault injection', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c();
  });

  it('loseFirst loses the answers of the first N calls of the named operations only, without shifting the seeded faults', () => {
    const targeted = new FaultInjector({ loseFirst: { 'agents.upsert': 2 } });
    expect(targeted.enabled).toBe(true);
    const decisions = ['agents.upsert', 'agents.list', 'agents.upsert', 'agents.upsert'].map((rpc) => targeted.next(rpc).loseResponse);
    expect(decisions).toEqual([true, false, true, false]);
    const plain = new FaultInjector({ failRate: 0.5, seed: 7 });
    const withTarget = new FaultInjector({ failRate: 0.5, seed: 7, loseFirst: { 'secrets.create': 1 } });
    const failures = (injector: FaultInjector) => Array.from({ length: 20 }, () => injector.next('agents.list').fail);
    expect(failures(withTarget)).toEqual(failures(plain));
  });

  it('the PRNG is deterministic per seed', () => {
    const a = seededRandom(7);
    const b = seededRandom(7);
    const c = seededRandom(8);
    const seqA = Array.from({ length: 5 }, a);
    expect(Array.from({ length: 5 }, b)).toEqual(seqA);
    expect(Array.from({ length: 5 }, c)).not.toEqual(seqA);
    expect(new FaultInjector().enabled).toBe(false);
  });

  it('the same seed gives the same sequence of failures and lost responses', async () => {
    const first = await outcomes(42, 30);
    const second = await outcomes(42, 30);
    expect(second).toEqual(first);
    expect(first).toContain('503');
    expect(first).toContain('lost');
    expect(first).toContain('200');
    expect(await outcomes(43, 30)).not.toEqual(first);
  });

  it('a 503 acts on nothing; a lost response took effect; /dev/ is never faulted', async () => {
    const plane = await startServer({ faults: { failRate: 0.5, lostResponseRate: 0.5, seed: 3 } });
    cleanups.push(plane.cleanup);
    const token = plane.tokens.dev!;
    const attempted: Array<{ name: string; outcome: string }> = [];
    for (let i = 0; i < 20; i++) {
      const name = `S${i}`;
      try {
        attempted.push({ name, outcome: String((await call(plane.url, 'secrets.create', { name, value: 'v' }, token)).status) });
      } catch {
        attempted.push({ name, outcome: 'lost' });
      }
    }
    // Read through /dev/ (never faulted) ... and through the API until a read succeeds.
    const dev = await post(plane.url, '/dev/hooks/deliveries', {}, token);
    expect(dev.status).toBe(200);
    let names: string[] | undefined;
    for (let i = 0; i < 50 && !names; i++) {
      try {
        const answer = await call(plane.url, 'secrets.list', {}, token);
        if (answer.status === 200) names = answer.body.map((s: { name: string }) => s.name);
      } catch {
        // lost: try again
      }
    }
    expect(names).toBeDefined();
    for (const { name, outcome } of attempted) {
      if (outcome === '503') expect(names).not.toContain(name);
      else expect(names).toContain(name);
    }
    expect(attempted.some((a) => a.outcome === 'lost')).toBe(true);
    expect(attempted.some((a) => a.outcome === '503')).toBe(true);
  });

  it('latency delays every API request', async () => {
    const plane = await startServer({ faults: { latencyMs: 120 } });
    cleanups.push(plane.cleanup);
    const started = Date.now();
    expect((await call(plane.url, 'agents.list', {}, plane.tokens.dev!)).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(115);
  });

  it('with latency, an operation acts as soon as its request is read and answers after the delay; refusals wait too', async () => {
    // Acting at once keeps the requests of one round from queueing behind each other's work when
    // their timers fire together (src/server/http.ts); the caller still waits the whole delay.
    const latencyMs = 1_500;
    const plane = await startServer({ faults: { latencyMs } });
    cleanups.push(plane.cleanup);
    const token = plane.tokens.dev!;
    const reader = new Database(join(plane.dataDir, DATABASE_FILE), { readonly: true });
    cleanups.push(async () => {
      reader.close();
    });
    const started = Date.now();
    const answer = call(plane.url, 'secrets.create', { name: 'EARLY', value: 'v' }, token);
    const held = (): boolean => reader.prepare('SELECT 1 FROM secrets WHERE name = ?').get('EARLY') !== undefined;
    const seenAfter = await waitFor(async () => (held() ? Date.now() - started : undefined), 10_000, 10);
    expect(seenAfter).toBeLessThan(latencyMs - 500);
    expect((await answer).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(latencyMs - 5);

    const refusedAt = Date.now();
    const invalid = await call(plane.url, 'secrets.create', { value: 'no name' }, token);
    expect(invalid.status).toBe(400);
    expect(Date.now() - refusedAt).toBeGreaterThanOrEqual(latencyMs - 5);
  }, 30_000);

  it('with latency, an injected 503 or 429 still acts on nothing', async () => {
    for (const faults of [{ failRate: 1 }, { throttleRate: 1 }]) {
      const plane = await startServer({ faults: { latencyMs: 50, ...faults } });
      cleanups.push(plane.cleanup);
      const answer = await call(plane.url, 'secrets.create', { name: 'NEVER', value: 'v' }, plane.tokens.dev!);
      expect(answer.status).toBe('failRate' in faults ? 503 : 429);
      const reader = new Database(join(plane.dataDir, DATABASE_FILE), { readonly: true });
      expect(reader.prepare('SELECT count(*) AS n FROM secrets').get()).toEqual({ n: 0 });
      reader.close();
    }
  });
});
