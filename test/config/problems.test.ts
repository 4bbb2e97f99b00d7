// ProblemList: a problem of a template, found once per agent that extends it, is one problem.
import { describe, expect, it } from 'vitest';
import { ProblemList } from '../../src/config/problems.js';

const location = { file: 'templates.yaml', line: 8, col: 22 };

describe('ProblemList.addFoundIn', () => {
  const cases: Array<{ users: string[]; named: string }> = [
    { users: ['a'], named: 'agent "a"' },
    { users: ['a', 'b'], named: 'agents "a" and "b"' },
    { users: ['a', 'b', 'c'], named: 'agents "a", "b" and "c"' },
    { users: ['a', 'b', 'c', 'd', 'e'], named: 'agents "a", "b", "c" and 2 more' },
    // Each environment's build finds it again in the same agents.
    { users: ['a', 'b', 'a', 'b'], named: 'agents "a" and "b"' },
  ];
  it.each(cases)('$named', ({ users, named }) => {
    const problems = new ProblemList();
    for (const user of users) problems.addFoundIn({ message: 'must be an integer', severity: 'error', location }, 'agent', user);
    expect(problems.items).toEqual([{ message: `must be an integer (${named})`, severity: 'error', location }]);
  });

  it('keeps problems at other locations or with other messages apart', () => {
    const problems = new ProblemList();
    problems.addFoundIn({ message: 'must be an integer', severity: 'error', location }, 'agent', 'a');
    problems.addFoundIn({ message: 'must be a string', severity: 'error', location }, 'agent', 'b');
    problems.addFoundIn({ message: 'must be an integer', severity: 'error', location: { ...location, line: 9 } }, 'agent', 'c');
    expect(problems.items.map((problem) => problem.message)).toEqual([
      'must be an integer (agent "a")',
      'must be a string (agent "b")',
      'must be an integer (agent "c")',
    ]);
  });
});
