// The local-plane registry: one plane per data directory while anyone holds it, owned by an
// explicit object (no module state), closed by the last release.
import { describe, expect, it } from 'vitest';
import { LocalPlanes, type LocalPlane } from '../../src/connect/local-planes.js';

function fakeStarter() {
  const started: string[] = [];
  const closed: string[] = [];
  const start = async (dataDir: string): Promise<LocalPlane> => {
    started.push(dataDir);
    return { url: `http://127.0.0.1/${started.length}`, tokens: { dev: 'svc_dev_x' }, close: async () => void closed.push(dataDir) };
  };
  return { start, started, closed };
}

describe('LocalPlanes', () => {
  it('shares one plane per data directory and closes it after the last release', async () => {
    const fake = fakeStarter();
    const planes = new LocalPlanes(fake.start);
    const [a, b] = await Promise.all([
      planes.acquire('/p/.agentform/local', [{ slug: 'dev' }], {}),
      planes.acquire('/p/.agentform/local', [{ slug: 'dev' }], {}),
    ]);
    expect(fake.started).toEqual(['/p/.agentform/local']);
    expect(a.plane).toBe(b.plane);
    await a.release();
    await a.release(); // twice is once
    expect(fake.closed).toEqual([]);
    await b.release();
    expect(fake.closed).toEqual(['/p/.agentform/local']);
    expect(planes.size).toBe(0);
  });

  it('two registries never share a plane', async () => {
    const fake = fakeStarter();
    const one = await new LocalPlanes(fake.start).acquire('/p', [], {});
    const two = await new LocalPlanes(fake.start).acquire('/p', [], {});
    expect(fake.started).toEqual(['/p', '/p']);
    await one.release();
    await two.release();
  });

  it('a plane that fails to start is forgotten, so the next acquire tries again', async () => {
    let attempts = 0;
    const planes = new LocalPlanes(async () => {
      attempts += 1;
      if (attempts === 1) throw new Error('port in use');
      return { url: 'http://127.0.0.1/1', tokens: {}, close: async () => undefined };
    });
    await expect(planes.acquire('/p', [], {})).rejects.toThrow('port in use');
    const held = await planes.acquire('/p', [], {});
    expect(attempts).toBe(2);
    await held.release();
  });
});
