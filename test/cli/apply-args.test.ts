// What apply makes of its argument: a saved plan that is not there is named as such.
import { describe, expect, it } from 'vitest';
import { copyExample, runCli } from '../helpers/cli.js';

describe('apply <plan.json>', () => {
  it('a missing saved plan is "no saved plan", not a missing project directory', async () => {
    const dir = await copyExample('quickstart');
    const result = await runCli(['apply', 'plan-staging.json'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('no saved plan plan-staging.json');
    expect(result.stderr).not.toMatch(/project directory .* does not exist/);
    expect(result.stderr).not.toContain('    at ');
  });
});
