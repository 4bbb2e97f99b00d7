// Change windows in agentform.yaml: the schema and the checks locate every mistake at file:line:col
// (an unknown time zone, an end before the start, a missing reason, a mixed or empty window).
import { describe, expect, it } from 'vitest';
import { loadProject, validateProject } from '../../src/config/index.js';
import { changeWindowsOf } from '../../src/config/change-windows.js';
import { writeProject } from './helpers.js';

const root = (windows: string) => `version: 1\nenvironments:\n  prod:\n    url: local\n    changeWindows:\n${windows}`;

async function problemsOf(windows: string): Promise<string[]> {
  const dir = writeProject({ 'agentform.yaml': root(windows) });
  const problems = await validateProject(dir);
  return problems.map((problem) => `${problem.location?.file}:${problem.location?.line}:${problem.location?.col} ${problem.message}`);
}

describe('change windows in agentform.yaml', () => {
  it.each<[string, string, RegExp[]]>([
    ['a date range', '      - {name: year-end, reason: freeze, from: "2026-12-20T00:00:00+01:00", until: "2027-01-04T08:00:00+01:00"}\n', []],
    [
      'a weekly span',
      '      - name: weekend\n        reason: nobody on call\n        weekly: {start: friday 16:00, end: monday 08:00, timeZone: Europe/Berlin}\n',
      [],
    ],
    [
      'weekly days',
      '      - name: nightly\n        reason: batch\n        weekly: {days: [monday, friday], start: "22:00", end: "06:00", timeZone: UTC}\n',
      [],
    ],
    [
      'an unknown time zone',
      '      - name: weekend\n        reason: r\n        weekly:\n          start: friday 16:00\n          end: monday 08:00\n          timeZone: Europe/Berln\n',
      [/^agentform\.yaml:11:21 change window "weekend": unknown time zone "Europe\/Berln": did you mean "Europe\/Berlin"\?/],
    ],
    [
      'an end before the start',
      '      - name: year-end\n        reason: r\n        from: "2027-01-04T08:00:00+01:00"\n        until: "2026-12-20T00:00:00+01:00"\n',
      [/^agentform\.yaml:9:16 change window "year-end": ends before it starts/],
    ],
    [
      'a missing reason',
      '      - name: year-end\n        from: "2026-12-20T00:00:00+01:00"\n        until: "2027-01-04T08:00:00+01:00"\n',
      [/^agentform\.yaml:6:9 .*reason/],
    ],
    [
      'a date without its offset',
      '      - name: year-end\n        reason: r\n        from: "2026-12-20T00:00:00"\n        until: "2027-01-04T08:00:00+01:00"\n',
      [/^agentform\.yaml:8:15 .*must be an ISO 8601 date and time with its offset/],
    ],
    ['neither dates nor weekly', '      - name: empty\n        reason: r\n', [/^agentform\.yaml:6:9 change window "empty": needs from and until/]],
    [
      'both dates and weekly',
      '      - name: both\n        reason: r\n        from: "2026-12-20T00:00:00+01:00"\n        until: "2027-01-04T08:00:00+01:00"\n        weekly: {start: friday 16:00, end: monday 08:00, timeZone: UTC}\n',
      [/^agentform\.yaml:10:17 change window "both": has both from\/until and weekly/],
    ],
    [
      'a weekly span that ends when it starts',
      '      - name: w\n        reason: r\n        weekly: {start: friday 16:00, end: friday 16:00, timeZone: UTC}\n',
      [/^agentform\.yaml:8:44 change window "w": ends when it starts/],
    ],
    [
      'days with a day in start',
      '      - name: w\n        reason: r\n        weekly: {days: [monday], start: friday 16:00, end: "18:00", timeZone: UTC}\n',
      [/^agentform\.yaml:8:41 change window "w": start names a day, and days lists them/],
    ],
    [
      'no day and no days',
      '      - name: w\n        reason: r\n        weekly: {start: "16:00", end: "18:00", timeZone: UTC}\n',
      [/start needs a day/, /end needs a day/],
    ],
    [
      'a date of the right form that is no day',
      '      - {name: w, reason: r, from: "2026-13-45T00:00:00Z", until: "2027-01-04T08:00:00+01:00"}\n',
      [/^agentform\.yaml:6:36 change window "w": from 2026-13-45T00:00:00Z is not a date/],
    ],
    [
      'a weekly time of the wrong form',
      '      - name: w\n        reason: r\n        weekly: {start: fri 16:00, end: monday 08:00, timeZone: UTC}\n',
      [/^agentform\.yaml:8:25 .*must be a time \(16:00\) or a day and a time/],
    ],
    [
      'two windows of one name',
      '      - {name: w, reason: r, from: "2026-12-20T00:00:00Z", until: "2026-12-21T00:00:00Z"}\n      - {name: w, reason: r, from: "2026-12-22T00:00:00Z", until: "2026-12-23T00:00:00Z"}\n',
      [/^agentform\.yaml:7:16 change window "w": another window of prod has this name/],
    ],
  ])('%s', async (_name, windows, expected) => {
    const problems = await problemsOf(windows);
    expect(problems, problems.join('\n')).toHaveLength(expected.length);
    expected.forEach((pattern, index) => expect(problems[index]).toMatch(pattern));
  });

  it('reads the windows of an environment, located', async () => {
    const project = await loadProject(
      writeProject({
        'agentform.yaml': root(
          '      - {name: year-end, reason: freeze, from: "2026-12-20T00:00:00+01:00", until: "2027-01-04T08:00:00+01:00"}\n      - name: nightly\n        reason: batch\n        weekly: {days: [monday], start: "22:00", end: "06:00", timeZone: UTC}\n',
        ),
      }),
    );
    expect(changeWindowsOf(project, 'prod')).toEqual([
      {
        kind: 'dates',
        name: 'year-end',
        reason: 'freeze',
        from: '2026-12-20T00:00:00+01:00',
        until: '2027-01-04T08:00:00+01:00',
        location: { file: 'agentform.yaml', line: 6, col: 9 },
      },
      {
        kind: 'weekly',
        name: 'nightly',
        reason: 'batch',
        days: ['monday'],
        start: '22:00',
        end: '06:00',
        timeZone: 'UTC',
        location: { file: 'agentform.yaml', line: 7, col: 9 },
      },
    ]);
    expect(changeWindowsOf(project, 'dev')).toEqual([]);
  });
});
