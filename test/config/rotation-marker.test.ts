// A rotation marker in the future would send its secret again with every apply until that time
// (each send moves the remote updatedAt to now, still before the marker): validate refuses it, and
// so does every command that loads the project (plan, apply). Times are relative to now.
import { describe, expect, it } from 'vitest';
import { loadProject, validateProject } from '../../src/config/index.js';
import { ProblemsError } from '../../src/errors.js';
import { writeProject } from './helpers.js';

const HOUR = 3600_000;
const iso = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();
const date = (offsetDays: number) => iso(offsetDays * 24 * HOUR).slice(0, 10);

function secretWith(rotatedAt: string): Record<string, string> {
  return { 'secrets.yaml': `kind: Secret\nname: db\nspec:\n  value: \${env:DB_PASSWORD}\n  rotatedAt: "${rotatedAt}"\n` };
}

describe('rotatedAt', () => {
  it.each<[string, string, boolean]>([
    ['a past time', '2020-01-01T00:00:00Z', true],
    ['an hour ago', iso(-HOUR), true],
    ['now', iso(0), true],
    ['two minutes ahead (clocks differ a little)', iso(2 * 60_000), true],
    ["today's date", date(0), true],
    ["tomorrow's date (already today east of UTC)", date(1), true],
    ['an hour ahead', iso(HOUR), false],
    ['the day after tomorrow', date(2), false],
    ['far in the future', '2999-01-01', false],
  ])('%s: accepted = %s', async (_name, rotatedAt, accepted) => {
    const problems = await validateProject(writeProject(secretWith(rotatedAt)), { env: { DB_PASSWORD: 'x' } });
    if (accepted) {
      expect(problems).toEqual([]);
    } else {
      expect(problems).toEqual([
        {
          severity: 'error',
          message: `${rotatedAt} is in the future: until then every apply would send the value again; set rotatedAt to when you rotated it (now or a past time)`,
          location: { file: 'secrets.yaml', line: 5, col: 14 },
          jsonPath: 'spec.rotatedAt',
        },
      ]);
    }
  });

  it('plan and apply refuse it too: loading the project fails with the located problem', async () => {
    const error = await loadProject(writeProject(secretWith('2999-01-01'))).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProblemsError);
    expect((error as ProblemsError).problems).toEqual([
      expect.objectContaining({
        message: expect.stringContaining('spec.rotatedAt: 2999-01-01 is in the future') as unknown,
        location: expect.objectContaining({ line: 5, col: 14 }) as unknown,
      }),
    ]);
  });
});
