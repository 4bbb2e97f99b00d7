// An apply's heap once its writes start (src/util/write-phase-heap.ts): one full collection and a
// slower-growing old generation, only in the CLI's own process, only for a heap worth it.
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getHeapSpaceStatistics } from 'node:v8';
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
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.doUnmock('node:v8');
    vi.doUnmock('node:vm');
  });

  it('does nothing in a process that has not allowed it (a test runner, the server)', async () => {
    const { settleHeapForWrites } = await freshModule();
    expect(settleHeapForWrites(0)).toBeUndefined();
  });

  it('leaves a heap under the threshold as it is, and settles once per process', async () => {
    const { allowWritePhaseHeapSettling, settleHeapForWrites, describeHeapSettling } = await freshModule();
    allowWritePhaseHeapSettling();
    const settling = settleHeapForWrites(Number.MAX_SAFE_INTEGER);
    expect(settling).toEqual({ state: 'small', usedBytes: expect.any(Number) });
    expect(describeHeapSettling(settling!)).toMatch(/^heap at the first write: \d+\.\d MB in use, under 20\.0 MB: left as it is$/);
    expect(settleHeapForWrites(0)).toBeUndefined();
  });

  it('collects the old generation too', async () => {
    const { allowWritePhaseHeapSettling, settleHeapForWrites, describeHeapSettling } = await freshModule();
    allowWritePhaseHeapSettling();
    const largeObjects = () => getHeapSpaceStatistics().find((space) => space.space_name === 'large_object_space')?.space_used_size ?? 0;
    const before = largeObjects();
    // 4,000,000 doubles (~30 MB) in one backing store: an old-generation large object, which only a
    // full collection frees (filling a holey array also leaves its first store, a young one).
    let garbage: number[] | undefined = new Array<number>(4_000_000).fill(0.5);
    expect(largeObjects() - before).toBeGreaterThan(25 * 1024 * 1024);
    expect(garbage.length).toBe(4_000_000);
    garbage = undefined;
    const settling = settleHeapForWrites(0);
    expect(settling?.state).toBe('collected');
    expect(largeObjects() - before).toBeLessThan(5 * 1024 * 1024);
    expect(describeHeapSettling(settling!)).toMatch(
      /^heap at the first write: \d+\.\d MB in use, \d+\.\d MB after a full collection \(\d+\.\d ms\); the old generation now grows by 50 % of what a collection keeps$/,
    );
  });

  /** The module with node:v8's flag setter recorded in `calls`, alongside `gc` calls. */
  async function withFlagsRecorded(calls: string[]): Promise<HeapModule> {
    vi.doMock('node:v8', async (importOriginal) => {
      const actual = await importOriginal<typeof import('node:v8')>();
      return { ...actual, setFlagsFromString: (flags: string) => calls.push(flags) };
    });
    return freshModule();
  }

  it('sets the slower growth before the collection, whose end sets the next limit', async () => {
    const calls: string[] = [];
    vi.doMock('node:vm', () => ({ runInNewContext: () => () => calls.push('gc') }));
    const { allowWritePhaseHeapSettling, settleHeapForWrites } = await withFlagsRecorded(calls);
    allowWritePhaseHeapSettling();
    expect(settleHeapForWrites(0)?.state).toBe('collected');
    expect(calls).toEqual(['--expose-gc', '--no-expose-gc', '--heap-growing-percent=50', 'gc']);
  });

  it('uses the gc of a process started with --expose-gc, and leaves --expose-gc as it was', async () => {
    const calls: string[] = [];
    vi.stubGlobal('gc', () => calls.push('gc'));
    const { allowWritePhaseHeapSettling, settleHeapForWrites } = await withFlagsRecorded(calls);
    allowWritePhaseHeapSettling();
    expect(settleHeapForWrites(0)?.state).toBe('collected');
    expect(calls).toEqual(['--heap-growing-percent=50', 'gc']);
  });

  it('leaves the heap and its growth as they are where no full collection is on offer', async () => {
    const calls: string[] = [];
    vi.stubGlobal('gc', undefined);
    vi.doMock('node:vm', () => ({ runInNewContext: () => undefined }));
    const { allowWritePhaseHeapSettling, settleHeapForWrites, describeHeapSettling } = await withFlagsRecorded(calls);
    allowWritePhaseHeapSettling();
    const settling = settleHeapForWrites(0);
    expect(settling).toEqual({ state: 'unavailable', usedBytes: expect.any(Number) });
    expect(calls).not.toContain('--heap-growing-percent=50');
    expect(describeHeapSettling(settling!)).toMatch(/in use; this Node offers no full collection: left as it is$/);
  });
});

describe('settleHeapAfterFirstWrite', () => {
  it('settles once, on the tick after the first write starts, and reports to --debug', async () => {
    const { allowWritePhaseHeapSettling, settleHeapAfterFirstWrite } = await freshModule();
    allowWritePhaseHeapSettling();
    const lines: string[] = [];
    const onEvent = settleHeapAfterFirstWrite((line) => lines.push(line));
    onEvent({ type: 'info' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).toEqual([]);
    onEvent({ type: 'start' });
    onEvent({ type: 'start' });
    expect(lines).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).toEqual([expect.stringMatching(/^heap at the first write: /)]);
  });

  it('never lets a failure reach the apply', async () => {
    const { allowWritePhaseHeapSettling, settleHeapAfterFirstWrite } = await freshModule();
    allowWritePhaseHeapSettling();
    const onEvent = settleHeapAfterFirstWrite(() => {
      throw new Error('stderr is gone');
    });
    const uncaught = vi.fn();
    process.on('uncaughtException', uncaught);
    try {
      onEvent({ type: 'start' });
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      expect(uncaught).not.toHaveBeenCalled();
    } finally {
      process.off('uncaughtException', uncaught);
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
        (index) =>
          `kind: Agent\nname: agent-${index}\nspec:\n  description: Agent number ${index}, one of many.\n  model: {provider: main, model: gpt-4o}\n  system: You are agent ${index}. Answer briefly, cite your sources, and ask before acting.\n  tools: []\n  policies: {}\n  limits: {maxTurns: 5}\n`,
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
    // A new project directory has nothing in the parse cache: every file is parsed (the parse
    // mode), ~40 MB in use at the first write. From a warm cache the same apply had ~25 MB.
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
