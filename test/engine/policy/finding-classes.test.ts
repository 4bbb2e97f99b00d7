// Findings are made by the thousand (two per agent of a plan of 5,000 agents): those of one rule
// share one hidden class (through the review's location getter too: test/safety/review.test.ts).
import { describe, expect, it } from 'vitest';
import { evaluatePolicy } from '../../../src/engine/policy/index.js';
import { desired } from '../builders.js';
import { sharingFirstClass } from '../../helpers/hidden-class.js';
import { environmentWith, goodAgent } from './builders.js';

describe('findings of a rule', () => {
  it('share one hidden class', () => {
    // Every agent without limits: one limits-missing finding each.
    const agents = Array.from({ length: 200 }, (_, index) => desired('agent', `agent-${index}`, goodAgent({ limits: {} })));
    const findings = evaluatePolicy(environmentWith(agents)).filter((finding) => finding.rule === 'limits-missing');
    expect(findings).toHaveLength(200);
    expect(sharingFirstClass(findings)).toBe(200);
  });
});
