// readProject: what its onRoot hook (the read-ahead of plan and apply) can count on.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProblemList } from '../../src/config/problems.js';
import { readProject } from '../../src/config/project.js';

let dir: string;
let server: Server;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'agentform-project-'));
  writeFileSync(join(dir, 'agentform.yaml'), 'version: 1\nenvironments:\n  dev:\n    url: https://control.example.com\n');
  mkdirSync(join(dir, 'agents'));
  for (let index = 0; index < 50; index++)
    writeFileSync(join(dir, 'agents', `agent-${index}.yaml`), `kind: Agent\nname: agent-${index}\nspec:\n  system: Be brief.\n`);
  server = createServer((_request, response) => response.end('{}'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterEach(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe('readProject', () => {
  // Listing, reading and parsing the files is synchronous: without a turn of the event loop after
  // the hook, the requests it starts would only be sent once the whole project was read.
  it('lets the requests started by onRoot go out before it reads the resource files', async () => {
    const { port } = server.address() as AddressInfo;
    // On 'connect', Node writes what the request had queued: connected means sent.
    let connected = false;
    const project = await readProject(dir, new ProblemList(), {
      onRoot: () => {
        const call = request({ host: '127.0.0.1', port, method: 'POST', path: '/v1/agents/list', agent: false });
        call.on('socket', (socket) => socket.on('connect', () => (connected = true)));
        call.on('error', () => undefined);
        call.end('{}');
      },
    });
    // Checked as soon as readProject is done, before the test yields to the event loop itself.
    expect(connected).toBe(true);
    expect(project?.documents).toHaveLength(50);
  });

  // Against a remote server a connection takes several steps, each a round trip later and each
  // needing a turn of the event loop (TCP connect, then TLS: hello, finished and the request):
  // parsing gives the loop a turn every 10 files while the reads are out, not only once before.
  it('gives the event loop turns while it parses the files, once onRoot has started reads', async () => {
    for (let index = 50; index < 120; index++)
      writeFileSync(join(dir, 'agents', `agent-${index}.yaml`), `kind: Agent\nname: agent-${index}\nspec:\n  system: Be brief.\n`);
    const turnsDuring = async (hooks: Parameters<typeof readProject>[2]): Promise<number> => {
      let turns = 0;
      let reading = true;
      const step = () => {
        turns += 1;
        if (reading) setImmediate(step);
      };
      setImmediate(step);
      const before = turns;
      const project = await readProject(dir, new ProblemList(), hooks);
      reading = false;
      expect(project?.documents).toHaveLength(120);
      return turns - before;
    };
    const withReads = await turnsDuring({ onRoot: () => undefined });
    const withoutReads = await turnsDuring({});
    // 120 files: a turn (two immediates) after onRoot and after every 10th file, ~24 more than
    // without reads on the wire; without the turns between files, ~2.
    expect(withReads - withoutReads).toBeGreaterThanOrEqual(12);
  });
});
