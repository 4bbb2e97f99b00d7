// Token files are written only over what the plan saw: never over a file that appeared or changed
// since (another apply at once), and a file that cannot be written is known before any write.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readTokenFiles, tokenFileWriteProblem, writeTokenFile } from '../../src/pipeline/token-files.js';
import type { DesiredState } from '../../src/model/resources.js';

const dir = () => mkdtempSync(join(tmpdir(), 'agentform-token-files-'));

function desiredIn(projectDir: string): DesiredState {
  return {
    projectDir,
    target: { name: 'dev', slug: 'dev', url: 'local', prune: false },
    resources: [
      { kind: 'apiKey', name: 'ci', spec: { scopes: ['read'] }, writeOnly: {}, references: [], options: { tokenFile: 'keys/ci.token' } },
      { kind: 'apiKey', name: 'bare', spec: { scopes: ['read'] }, writeOnly: {}, references: [] },
    ],
  };
}

describe('token files', () => {
  it('reads what each declared token file holds (its first line), and nothing for keys without one', async () => {
    const project = dir();
    const none = await readTokenFiles(desiredIn(project));
    expect([...none.keys()]).toEqual(['ci']);
    expect(none.get('ci')).toMatchObject({ path: join(project, 'keys/ci.token'), content: { exists: false }, digest: null });
    mkdirSync(join(project, 'keys'));
    writeFileSync(join(project, 'keys/ci.token'), 'svc_dev_abc123\n');
    expect((await readTokenFiles(desiredIn(project))).get('ci')?.content).toEqual({ exists: true, token: 'svc_dev_abc123' });
  });

  it('creates a file that was absent at plan time only while it is still absent', async () => {
    const project = dir();
    const [planned] = (await readTokenFiles(desiredIn(project))).values();
    await writeTokenFile(planned!, 'svc_dev_first1');
    expect(readFileSync(join(project, 'keys/ci.token'), 'utf8')).toBe('svc_dev_first1\n');
    expect(statSync(join(project, 'keys/ci.token')).mode & 0o777).toBe(0o600);
    // A second apply that planned against the same absent file must not overwrite the first's token.
    await expect(writeTokenFile(planned!, 'svc_dev_second')).rejects.toThrow('appeared since the plan');
    expect(readFileSync(join(project, 'keys/ci.token'), 'utf8')).toBe('svc_dev_first1\n');
  });

  it('replaces a file that existed at plan time only if it is unchanged', async () => {
    const project = dir();
    mkdirSync(join(project, 'keys'));
    writeFileSync(join(project, 'keys/ci.token'), 'svc_dev_old111\n');
    const [planned] = (await readTokenFiles(desiredIn(project))).values();
    writeFileSync(join(project, 'keys/ci.token'), 'svc_dev_other1\n');
    await expect(writeTokenFile(planned!, 'svc_dev_new111')).rejects.toThrow('changed since the plan');
    writeFileSync(join(project, 'keys/ci.token'), 'svc_dev_old111\n');
    await writeTokenFile(planned!, 'svc_dev_new111');
    expect(readFileSync(join(project, 'keys/ci.token'), 'utf8')).toBe('svc_dev_new111\n');
  });

  it('knows before writing when a path cannot be written', async () => {
    const project = dir();
    expect(await tokenFileWriteProblem(join(project, 'a/b/c.token'))).toBeUndefined();
    mkdirSync(join(project, 'is-dir.token'));
    expect(await tokenFileWriteProblem(join(project, 'is-dir.token'))).toBe('it exists and is not a regular file');
    writeFileSync(join(project, 'file'), 'x');
    expect(await tokenFileWriteProblem(join(project, 'file/c.token'))).toMatch(/is not a directory$/);
    if (process.getuid?.() !== 0) {
      mkdirSync(join(project, 'ro'));
      chmodSync(join(project, 'ro'), 0o500);
      expect(await tokenFileWriteProblem(join(project, 'ro/c.token'))).toMatch(/is not writable$/);
    }
  });
});
