// Capability test results as JUnit XML (well-formed whatever the names hold, read back by a strict
// parser) and as the plan's sections; and the strict parser itself refuses what is not XML.
import { describe, expect, it } from 'vitest';
import type { CapabilityTestReport, CapabilityTestResult } from '../../src/model/capability-test.js';
import { renderCapabilityTestsJunit, renderCapabilityTestsMarkdown, renderCapabilityTestsSection } from '../../src/render/capability-tests.js';
import { parseXml } from '../helpers/xml.js';

const result = (environment: string, name: string, status: CapabilityTestResult['status']): CapabilityTestResult => ({
  assertion: { name, agent: 'support', expect: 'cannot', tool: 'crm.wipe', location: { file: 'a.test.yaml', line: 3, col: 5 } },
  environment,
  status,
  message: `${name} failed because <x> & "y"`,
  agents: ['support'],
  chain: [{ what: 'agent support', location: { file: 'agents.yaml', line: 2, col: 7 } }, { what: 'no location' }],
});

const NASTY = 'a <b> & "c" \'d\' \u0001\u001b[2K ]]> end';
const report: CapabilityTestReport = {
  environments: ['dev', 'prod'],
  results: [result('dev', 'ok', 'pass'), result('dev', NASTY, 'fail'), result('prod', 'undecided', 'error')],
  skipped: 2,
};

describe('renderCapabilityTestsJunit', () => {
  it('is well-formed XML with a testsuite per environment, names escaped and controls made visible', () => {
    const root = parseXml(renderCapabilityTestsJunit(report));
    expect(root.attributes).toMatchObject({ tests: '3', failures: '1', errors: '1' });
    const [dev, prod] = root.children;
    expect(dev?.attributes).toMatchObject({ name: 'dev', tests: '2', failures: '1', errors: '0' });
    expect(prod?.attributes).toMatchObject({ name: 'prod', tests: '1', failures: '0', errors: '1' });
    const failing = dev?.children[1];
    expect(failing?.attributes.name).toBe('a <b> & "c" \'d\' \\u0001\\u001b[2K ]]> end');
    expect(failing?.attributes).toMatchObject({ file: 'a.test.yaml', line: '3', classname: 'dev.a.test.yaml' });
    expect(failing?.children[0]?.name).toBe('failure');
    expect(failing?.children[0]?.attributes.message).toMatch(/^a\.test\.yaml:3:5: /);
    expect(failing?.children[0]?.text).toBe('granted by:\n  agent support  (agents.yaml:2:7)\n  no location');
    expect(prod?.children[0]?.children[0]?.name).toBe('error');
  });
});

describe('the plan sections', () => {
  it('text: the counts, then each failure or error on one line', () => {
    expect(renderCapabilityTestsSection(report).split('\n')).toEqual([
      'Capability tests: 1 passed, 1 failed, 1 error, 2 skipped (agentform test shows why)',
      `  FAIL a.test.yaml:3:5 [dev] a <b> & "c" 'd' \\u0001\\u001b[2K ]]> end: a <b> & "c" 'd' \\u0001\\u001b[2K ]]> end failed because <x> & "y"`,
      '  ERROR a.test.yaml:3:5 [prod] undecided: undecided failed because <x> & "y"',
    ]);
  });

  it('Markdown: the counts, failures in a fence (nothing in a name is markup)', () => {
    const markdown = renderCapabilityTestsMarkdown({ ...report, results: [result('dev', 'has ``` fences', 'fail')] });
    expect(markdown).toMatch(/^### Capability tests\n\n0 passed, 1 failed, 0 errors, 2 skipped\.\n\n````text\nFAIL a\.test\.yaml:3:5 \[dev\] has ``` fences/);
    expect(renderCapabilityTestsMarkdown({ environments: ['dev'], results: [result('dev', 'ok', 'pass')], skipped: 0 })).toBe(
      '### Capability tests\n\n1 passed, 0 failed, 0 errors.\n',
    );
  });
});

describe('parseXml (the tests’ strict parser)', () => {
  it.each([
    ['an unescaped <', '<a>x < y</a>'],
    ['an unescaped &', '<a>x & y</a>'],
    ['a quote inside its own quotes', '<a b="x"y"/>'],
    ['a mismatched tag', '<a><b></a></b>'],
    ['an unclosed tag', '<a><b></b>'],
    ['a duplicate attribute', '<a b="1" b="2"/>'],
    ['a control character', '<a>\u0001</a>'],
    ['two roots', '<a/><b/>'],
    ['an unknown entity', '<a>&nbsp;</a>'],
  ])('refuses %s', (_, text) => {
    expect(() => parseXml(text)).toThrow();
  });

  it('reads entities and character references', () => {
    expect(parseXml('<?xml version="1.0"?>\n<a t="&lt;&amp;&quot;&#65;&#x42;">x&gt;y</a>')).toEqual({
      name: 'a',
      attributes: { t: '<&"AB' },
      children: [],
      text: 'x>y',
    });
  });
});
