// An apply's heap once its writes start (src/util/write-phase-heap.ts): one full collection and a
// slower-growing old generation, only in the CLI's own process, only for a heap worth it.
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startLocalControlPlane, type LocalControlPlane } from '../../src/server/embedded.js';
import { READ_RPC, calledRpcs, runCli } from '../helpers/cli.js';

type HeapModule = typeof import('../../src/util/write-phase-heap.js');
/** A fresh copy of the module: its once-per-process state starts over. */
async function freshModule(): Promise<HeapModule> {
  vi.resetModules();
  return import('../../src/util/write-phase-heap.js');
}

describe('settleHeapForWrites', () => {
  it('does nothing in a process that has not allowed it (a test runner, the server)', async () => {
    const { settleHeapForWrites } = await freshModule();
    expect(settleHeapForWrites(0)).toBeUndefined();
  });

  it('leaves a heap under the threshold as it is, and settles once per process', async () => {
    const { allowWritePhaseHeapSettling, settleHeapForWrites, describeHeapSettling } = await freshModule();
    allowWritePhaseHeapSettling();
    const settling = settleHeapForWrites(Number.MAX_SAFE_INTEGER);
    expect(settling?.collected).toBeUndefined();
    expect(settling?.usedBytes).toBeGreaterThan(0);
    expect(describeHeapSettling(settling!)).toMatch(/^heap at the first write: \d+\.\d MB in use, under 20\.0 MB: left as it is$/);
    expect(settleHeapForWrites(0)).toBeUndefined();
  });

  it('collects what is garbage, old space included', async () => {
    const { allowWritePhaseHeapSettling, settleHeapForWrites, describeHeapSettling } = await freshModule();
    allowWritePhaseHeapSettling();
    // 32 MB of doubles: one object in the large-object space, which no young-generation collection frees.
    let garbage: number[] | undefined = new Array<number>(4_000_000).fill(0.5);
    const withGarbage = getHeapStatistics().used_heap_size;
    expect(garbage.length).toBe(4_000_000);
    garbage = undefined;
    const settling = settleHeapForWrites(0);
    expect(settling?.usedBytes).toBeGreaterThanOrEqual(withGarbage - 1024 * 1024);
    expect(settling?.collected?.usedBytes).toBeLessThan((settling?.usedBytes ?? 0) - 30 * 1024 * 1024);
    expect(describeHeapSettling(settling!)).toMatch(/^heap at the first write: \d+\.\d MB in use, \d+\.\d MB after a full collection \(\d+\.\d ms\); the old generation now grows by 50 % of what a collection keeps$/);
  });

  it('uses the gc of a process started with --expose-gc, and leaves its flags as they were', async () => {
    const { allowWritePhaseHeapSettling, settleHeapForWrites } = await freshModule();
    allowWritePhaseHeapSettling();
    const gc = vi.fn();
    vi.stubGlobal('gc', gc);
    try {
      expect(settleHeapForWrites(0)?.collected).toBeDefined();
      expect(gc).toHaveBeenCalledTimes(1);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('leaves the heap as it is where no full collection is on offer', async () => {
    vi.doMock('node:vm', () => ({ runInNewContext: () => undefined }));
    try {
      const { allowWritePhaseHeapSettling, settleHeapForWrites, describeHeapSettling } = await freshModule();
      allowWritePhaseHeapSettling();
      const settling = settleHeapForWrites(0);
      expect(settling).toEqual({ usedBytes: expect.any(Number), unavailable: true });
      expect(describeHeapSettling(settling!)).toMatch(/in use; this Node offers no full collection: left as it is$/);
    } finally {
      vi.doUnmock('node:vm');
    }
  });
});

describe('agentform apply', () => {
  const planes: LocalControlPlane[] = [];
  afterEach(async () => {
    for (const plane of planes.splice(0)) await plane.close();
  });

  async function setUp(agents: number): Promise<{ dir: string; env: NodeJS.ProcessEnv }> {
    const plane = await startLocalControlPlane({ dataDir: await mkdtemp(join(tmpdir(), 'agentform-heap-plane-')), environments: ['dev'] });
    planes.push(plane);
    const dir = await mkdtemp(join(tmpdir(), 'agentform-heap-'));
    await writeFile(join(dir, 'agentform.yaml'), 'version: 1\nenvironments:\n  dev:\n    url: local\n');
    await writeFile(join(dir, 'providers.yaml'), 'kind: Provider\nname: main\nspec:\n  type: openai\n  secret: ${env:HEAP_SECRET:-sk-test}\n');
    await mkdir(join(dir, 'agents'));
    for (let file = 0; file * 50 < agents; file++) {
      const documents = Array.from({ length: Math.min(50, agents - file * 50) }, (_, offset) => file * 50 + offset).map(
        (index) => `kind: Agent\nname: agent-${index}\nspec:\n  description: Agent number ${index}, one of many.\n  model: {provider: main, model: gpt-4o}\n  system: You are agent ${index}. Answer briefly, cite your sources, and ask before acting.\n  tools: []\n  policies: {}\n  limits: {maxTurns: 5}\n`,
      );
      await writeFile(join(dir, 'agents', `agents-${file}.yaml`), documents.join('---\n'));
    }
    return { dir, env: { AGENTFORM_URL_DEV: plane.url, AGENTFORM_TOKEN_DEV: plane.tokens.dev as string } };
  }

  const heapLines = (stderr: string) => stderr.split('\n').filter((line) => line.startsWith('[debug] heap at the first write:'));

  it('looks at its heap once its first writes are out, and leaves a small one as it is', async () => {
    const { dir, env } = await setUp(20);
    const applied = await runCli(['apply', dir, '-e', 'dev', '--auto-approve', '--debug'], { env });
    expect(applied.code, applied.stderr).toBe(0);
    expect(heapLines(applied.stderr)).toEqual([expect.stringMatching(/in use, under 20\.0 MB: left as it is$/)]);
    const lines = applied.stderr.split('\n');
    const firstWrite = lines.findIndex((line) => calledRpcs(line).some((rpc) => !READ_RPC.test(rpc)));
    expect(firstWrite).toBeGreaterThanOrEqual(0);
    expect(lines.findIndex((line) => line.startsWith('[debug] heap at the first write:'))).toBeGreaterThan(firstWrite);
    // Nothing to write: nothing to look at.
    const again = await runCli(['apply', dir, '-e', 'dev', '--auto-approve', '--debug'], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(calledRpcs(again.stderr).filter((rpc) => !READ_RPC.test(rpc))).toEqual([]);
    expect(heapLines(again.stderr)).toEqual([]);
  }, 60_000);

  it('collects a large heap at its first write, then writes everything', async () => {
    const { dir, env } = await setUp(3_000);
    const applied = await runCli(['apply', dir, '-e', 'dev', '--auto-approve', '--debug'], { env });
    expect(applied.code, applied.stderr.slice(-2000)).toBe(0);
    const [line, ...more] = heapLines(applied.stderr);
    expect(more).toEqual([]);
    const [, before, after] = line?.match(/: ([\d.]+) MB in use, ([\d.]+) MB after a full collection/) ?? [];
    expect(Number(before)).toBeGreaterThanOrEqual(20);
    expect(Number(after)).toBeLessThan(Number(before));
    expect(applied.stdout).toContain('Apply complete! Resources: 3001 added, 0 changed, 0 replaced, 0 destroyed.');
    // Nothing the bundle loaded afterwards was refused its code cache (V8 hashes the changed flags into them).
    expect(applied.stderr).toMatch(/\[debug\] start-up: \d+ bundle files compiled from the V8 code cache, 0 without one, 0 whose cache V8 rejected/);
    const plan = await runCli(['plan', dir, '-e', 'dev', '--detailed-exitcode'], { env });
    expect(plan.code, plan.stderr).toBe(0);
  }, 120_000);
});
