// Which V8 settings a CLI run picks: small (neither TurboFan nor Sparkplug) for the smallest
// projects, with almost nothing for the yaml library to parse afresh; lean (no TurboFan) for a project
// known to be small, with little for the library; parse (TurboFan at V8's own budget) for more YAML
// for the library (changed since the parse cache's last entry, and not plain); full otherwise.
// And that each mode's flags are really in force in the process that chose them.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CachePacks,
  chooseV8Mode,
  LEAN_MAX_COLD_YAML_BYTES,
  LIBRARY_YAML,
  LOOK_MAX_BYTES,
  LEAN_MAX_YAML_BYTES,
  projectYaml,
  SMALL_MAX_COLD_YAML_BYTES,
  SMALL_MAX_YAML_BYTES,
} from '../../src/util/v8-mode.js';
import { parseCachePack } from '../../src/config/parse-cache-dir.js';

let root: string;
const at = (...parts: string[]) => join(root, ...parts);
const KB = 1024;
const HOUR_AGO = new Date(Date.now() - 3600_000);
const IN_AN_HOUR = new Date(Date.now() + 3600_000);
/** A file of `bytes` bytes, last modified at `when`: plain text, or text that looks beyond the plain parser (a tab). */
function file(path: string, bytes: number, when: Date = HOUR_AGO, looks: 'plain' | 'library' = 'plain'): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, looks === 'plain' ? 'x'.repeat(bytes) : `\t${'x'.repeat(bytes - 1)}`);
  utimesSync(path, when, when);
}
/** A parse cache written now (after every HOUR_AGO file): the project's pack (or its lock's), in `env`'s cache directory. */
function parseCache(projectDir: string, env: NodeJS.ProcessEnv = {}, which: 'project' | 'lock' = 'project', when?: Date): void {
  const pack = parseCachePack(env, projectDir, which)!;
  mkdirSync(join(pack, '..'), { recursive: true });
  writeFileSync(pack, '');
  if (when) utimesSync(pack, when, when);
}
const IN_TWO_HOURS = new Date(Date.now() + 2 * 3600_000);

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'v8-mode-'));
  // small: 1,000 bytes of YAML, whatever else lies around; no parse cache yet.
  file(at('small', 'agentform.yaml'), 100);
  file(at('small', 'agents', 'a.yaml'), 400);
  file(at('small', 'agents', 'b.yml'), 500);
  file(at('small', 'agents', 'notes.md'), LEAN_MAX_YAML_BYTES * 2);
  file(at('small', '.agentform', 'cache', 'big.yaml'), LEAN_MAX_YAML_BYTES * 2);
  file(at('small', 'node_modules', 'pkg', 'big.yaml'), LEAN_MAX_YAML_BYTES * 2);
  // Dot-files are not resource files (config/files.ts): a CI recipe at the root is not counted.
  file(at('small', '.gitlab-ci.yml'), LEAN_MAX_YAML_BYTES * 2, HOUR_AGO, 'library');
  file(at('small', 'agents', '.draft.yaml'), LEAN_MAX_YAML_BYTES * 2, HOUR_AGO, 'library');
  // small-warm: at the small limit, in the cache; small-over: one byte more.
  for (const [name, bytes] of [
    ['small-warm', SMALL_MAX_YAML_BYTES],
    ['small-over', SMALL_MAX_YAML_BYTES + 1],
  ] as const) {
    file(at(name, 'agentform.yaml'), 0);
    file(at(name, 'agents.yaml'), bytes);
    parseCache(at(name));
  }
  // small-edited: small, one file changed since the cache that looks beyond the plain parser, at the
  // small cold limit; small-edited-more: one byte more; small-edited-plain: more, but plain.
  for (const [name, bytes, looks] of [
    ['small-edited', SMALL_MAX_COLD_YAML_BYTES, 'library'],
    ['small-edited-more', SMALL_MAX_COLD_YAML_BYTES + 1, 'library'],
    ['small-edited-plain', 30 * KB, 'plain'],
  ] as const) {
    file(at(name, 'agentform.yaml'), 0);
    file(at(name, 'old.yaml'), 10 * KB);
    file(at(name, 'new.yaml'), bytes, IN_AN_HOUR, looks);
    parseCache(at(name));
  }
  // cold: just over the cold limit for the library, no parse cache; cold-plain: much more, all plain.
  file(at('cold', 'agentform.yaml'), 10);
  file(at('cold', 'agents.yaml'), LEAN_MAX_COLD_YAML_BYTES + 1, HOUR_AGO, 'library');
  file(at('cold-plain', 'agentform.yaml'), 10);
  file(at('cold-plain', 'agents.yaml'), 5 * LEAN_MAX_COLD_YAML_BYTES);
  // warm: at the total limit, every file older than the cache's last entry.
  file(at('warm', 'agentform.yaml'), 0);
  for (let index = 0; index < 4; index++) file(at('warm', 'agents', `part-${index}.yaml`), LEAN_MAX_YAML_BYTES / 4);
  parseCache(at('warm'));
  // edited: warm but for one file changed since, at the cold limit; and one past it.
  file(at('edited', 'agentform.yaml'), 0);
  file(at('edited', 'old.yaml'), 300 * KB);
  file(at('edited', 'new.yaml'), LEAN_MAX_COLD_YAML_BYTES, IN_AN_HOUR, 'library');
  parseCache(at('edited'));
  file(at('edited-more', 'agentform.yaml'), 0);
  file(at('edited-more', 'old.yaml'), 300 * KB);
  file(at('edited-more', 'new.yaml'), LEAN_MAX_COLD_YAML_BYTES + 1, IN_AN_HOUR, 'library');
  parseCache(at('edited-more'));
  // large: more YAML than the total limit, spread over files, all of it in the cache.
  file(at('large', 'agentform.yml'), 10);
  for (let index = 0; index < 5; index++) file(at('large', 'agents', `part-${index}.yaml`), LEAN_MAX_YAML_BYTES / 4);
  parseCache(at('large'));
  // large-library: the same, each file looking beyond the plain parser.
  file(at('large-library', 'agentform.yml'), 10);
  for (let index = 0; index < 5; index++) file(at('large-library', 'agents', `part-${index}.yaml`), LEAN_MAX_YAML_BYTES / 4, HOUR_AGO, 'library');
  parseCache(at('large-library'));
  // looked-at: 10 changed files of 30 KB each, more than LOOK_MAX_BYTES: all looking beyond the plain parser, or none.
  for (const looks of ['library', 'plain'] as const) {
    file(at(`looked-at-${looks}`, 'agentform.yaml'), 0);
    for (let index = 0; index < 10; index++) file(at(`looked-at-${looks}`, 'agents', `part-${index}.yaml`), 30 * KB, HOUR_AGO, looks);
  }
  // late-edit: more YAML than the total limit, all of it cached, walked before a directory of edits.
  file(at('late-edit', 'agentform.yaml'), 10);
  for (let index = 0; index < 5; index++) file(at('late-edit', 'a-old', `part-${index}.yaml`), LEAN_MAX_YAML_BYTES / 4);
  file(at('late-edit', 'z-new', 'edited.yaml'), LEAN_MAX_COLD_YAML_BYTES + 1, IN_AN_HOUR, 'library');
  parseCache(at('late-edit'));
  // locked: warm, with a tool-surface lock rewritten (by an apply) after the project's pack, and
  // read since (its own pack is newer); stale-lock: the same, the lock not read since.
  for (const [name, lockRead] of [
    ['locked', true],
    ['stale-lock', false],
  ] as const) {
    file(at(name, 'agentform.yaml'), 0);
    file(at(name, 'old.yaml'), 300 * KB);
    parseCache(at(name));
    file(at(name, 'agentform.lock.yaml'), 2 * KB, IN_AN_HOUR);
    if (lockRead) parseCache(at(name), {}, 'lock', IN_TWO_HOURS);
  }
  // many entries: not walked to the end.
  file(at('wide', 'agentform.yaml'), 10);
  for (let index = 0; index < 5_100; index++) writeFileSync(at('wide', `f${index}.txt`), '');
  // a link to the large tree is not followed (as the project loader does not follow it).
  file(at('linked', 'agentform.yaml'), 10);
  symlinkSync(at('large', 'agents'), at('linked', 'agents'));
  mkdirSync(at('not-a-project'));
  file(at('not-a-project', 'big.yaml'), LEAN_MAX_YAML_BYTES * 2);
  // a parse cache kept elsewhere (AGENTFORM_PARSE_CACHE=<dir>), holding the warm project's pack
  parseCache(at('warm'), { AGENTFORM_PARSE_CACHE: at('elsewhere') });
  // a cache directory without the project's pack (the one-file-per-entry cache of earlier versions,
  // say): every file is cold, however new the directory
  file(at('upgraded', 'agentform.yaml'), 10);
  file(at('upgraded', 'agents.yaml'), LEAN_MAX_COLD_YAML_BYTES + 1, HOUR_AGO, 'library');
  mkdirSync(at('upgraded', '.agentform', 'cache', 'parse'), { recursive: true });
  writeFileSync(at('upgraded', '.agentform', 'cache', 'parse', `${'ab'.repeat(32)}.json`), '{}');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const cacheOf = (dir: string): CachePacks => ({ project: parseCachePack({}, at(dir))!, lock: parseCachePack({}, at(dir), 'lock')! });
const NO_LIMIT = { bytes: Infinity, libraryColdBytes: Infinity };

describe('projectYaml', () => {
  it.each([
    ['small', { bytes: 1_000, coldBytes: 1_000, libraryColdBytes: 0 }],
    ['warm', { bytes: LEAN_MAX_YAML_BYTES, coldBytes: 0, libraryColdBytes: 0 }],
    ['edited', { bytes: 300 * KB + LEAN_MAX_COLD_YAML_BYTES, coldBytes: LEAN_MAX_COLD_YAML_BYTES, libraryColdBytes: LEAN_MAX_COLD_YAML_BYTES }],
    ['cold', { bytes: 10 + LEAN_MAX_COLD_YAML_BYTES + 1, coldBytes: 10 + LEAN_MAX_COLD_YAML_BYTES + 1, libraryColdBytes: LEAN_MAX_COLD_YAML_BYTES + 1 }],
    ['wide', { bytes: Infinity, coldBytes: 10, libraryColdBytes: 0 }],
    ['linked', { bytes: 10, coldBytes: 10, libraryColdBytes: 0 }],
    // The lock file is judged against the lock's own pack, not the project's.
    ['locked', { bytes: 302 * KB, coldBytes: 0, libraryColdBytes: 0 }],
    ['stale-lock', { bytes: 302 * KB, coldBytes: 2 * KB, libraryColdBytes: 0 }],
  ])('%s', (dir, expected) => {
    expect(projectYaml(at(dir), cacheOf(dir), NO_LIMIT)).toEqual(expected);
  });

  // Only the first LOOK_MAX_BYTES of changed files are read; the rest count alike.
  it.each([
    ['library', 300 * KB],
    ['plain', 0],
  ])('reads enough changed files to tell, and counts the rest alike (%s)', (looks, expected) => {
    expect(LOOK_MAX_BYTES).toBeLessThan(300 * KB);
    expect(projectYaml(at(`looked-at-${looks}`), undefined, NO_LIMIT)).toEqual({ bytes: 300 * KB, coldBytes: 300 * KB, libraryColdBytes: expected });
  });

  it('counts every file as changed without a parse cache', () => {
    expect(projectYaml(at('warm'), undefined, NO_LIMIT)).toEqual({ bytes: LEAN_MAX_YAML_BYTES, coldBytes: LEAN_MAX_YAML_BYTES, libraryColdBytes: 0 });
  });

  it.each([
    ['in all', { bytes: 100 * KB, libraryColdBytes: Infinity }, 'bytes'],
    ['changed, for the library', { bytes: Infinity, libraryColdBytes: 100 * KB }, 'libraryColdBytes'],
  ] as const)('stops counting once past the limit (%s)', (_name, limits, figure) => {
    const counted = projectYaml(at('large-library'), undefined, limits)?.[figure] ?? 0;
    expect(counted).toBeGreaterThan(100 * KB);
    expect(counted).toBeLessThanOrEqual(100 * KB + LEAN_MAX_YAML_BYTES / 4);
  });

  it.each([['not-a-project'], ['missing'], ['small/agentform.yaml']])('%s: not a project', (dir) => {
    expect(projectYaml(at(dir), cacheOf(dir), NO_LIMIT)).toBeUndefined();
  });
});

describe('LIBRARY_YAML: the guess at what the plain parser leaves to the library', () => {
  it.each([
    ['the quickstart', readFileSync(join(import.meta.dirname, '../../examples/quickstart/agents.yaml'), 'utf8'), false],
    ['literal blocks, flow collections, comments', 'a: |\n  x > y & z\n  # more\nb: [c, "d"] # e!\n', false],
    ['stars and bangs inside words', 'description: a*b, ok!, x&y\n', false],
    ['a tab', 'a:\tb\n', true],
    ['CRLF line ends: plain', 'a: b\r\nc: d\r\n', false],
    ['a CR alone', 'a: b\rc: d\n', true],
    ['an anchor', 'a: &base\n  b: 1\n', true],
    ['an alias in a sequence', 'a:\n  - *base\n', true],
    ['a tag', 'a: !!str 1\n', true],
    ['a folded block: plain', 'a: >\n  b\n', false],
    ['a folded block, stripped: plain', 'a: >- # c\n  b\n', false],
    ['a kept folded block', 'a: >+\n  b\n', true],
    ['a kept literal block', 'a: |+\n  b\n', true],
    ['an indentation indicator', 'a: |2\n   b\n', true],
    ['a directive', '%YAML 1.2\n---\na: 1\n', true],
    ['a complex key', '? a\n: b\n', true],
  ])('%s', (_name, text, expected) => {
    expect(LIBRARY_YAML.test(text)).toBe(expected);
  });
});

describe('chooseV8Mode', () => {
  const cases: Array<[string, () => string[], () => NodeJS.ProcessEnv, () => string, string, RegExp]> = [
    [
      'a small project as the argument',
      () => ['plan', at('small'), '-e', 'dev'],
      () => ({}),
      () => root,
      'small',
      /a project of 1 KB of YAML, 1 KB of it changed/,
    ],
    [
      'a small project at the limit, in the cache',
      () => ['plan', at('small-warm')],
      () => ({}),
      () => root,
      'small',
      /a project of 48 KB of YAML, 0 KB of it changed/,
    ],
    ['past the small limit, in the cache', () => ['plan', at('small-over')], () => ({}), () => root, 'lean', /a project of 49 KB of YAML, 0 KB of it changed/],
    [
      'a small project edited since, up to the limit',
      () => ['plan', at('small-edited')],
      () => ({}),
      () => root,
      'small',
      /18 KB of YAML, 8 KB of it changed .*, 8 KB of that beyond the plain parser/,
    ],
    [
      'a small project edited since, past the limit',
      () => ['plan', at('small-edited-more')],
      () => ({}),
      () => root,
      'lean',
      /19 KB of YAML, 9 KB of it changed .*, 9 KB of that beyond/,
    ],
    [
      'a small project edited since, more but plain',
      () => ['plan', at('small-edited-plain')],
      () => ({}),
      () => root,
      'small',
      /40 KB of YAML, 30 KB of it changed .*, 0 KB of that beyond/,
    ],
    [
      'the smallest project without its cache: all of it plain',
      () => ['plan', at('small-warm')],
      () => ({ AGENTFORM_PARSE_CACHE: 'off' }),
      () => root,
      'small',
      /48 KB of it changed/,
    ],
    [
      'too much YAML for the library without the cache',
      () => ['validate', at('cold')],
      () => ({}),
      () => root,
      'parse',
      /over 96 KB of changed YAML that looks beyond the plain parser$/,
    ],
    [
      'more, plain YAML without the cache',
      () => ['validate', at('cold-plain')],
      () => ({}),
      () => root,
      'lean',
      /481 KB of it changed .*, 0 KB of that beyond/,
    ],
    ['a large project, all of it in the cache', () => ['plan', at('warm')], () => ({}), () => root, 'lean', /768 KB of YAML, 0 KB of it changed/],
    [
      'the same without its cache, plain',
      () => ['plan', at('warm')],
      () => ({ AGENTFORM_PARSE_CACHE: 'off' }),
      () => root,
      'lean',
      /768 KB of it changed .*, 0 KB of that beyond/,
    ],
    [
      'the same with its cache elsewhere',
      () => ['plan', at('warm')],
      () => ({ AGENTFORM_PARSE_CACHE: at('elsewhere') }),
      () => root,
      'lean',
      /0 KB of it changed/,
    ],
    ['a cache directory without its pack', () => ['plan', at('upgraded')], () => ({}), () => root, 'parse', /over 96 KB of changed YAML/],
    ['edits since the last run, up to the limit', () => ['plan', at('edited')], () => ({}), () => root, 'lean', /96 KB of it changed/],
    ['edits since the last run, past the limit', () => ['plan', at('edited-more')], () => ({}), () => root, 'parse', /over 96 KB of changed YAML/],
    ['over the total limit', () => ['apply', at('large'), '--auto-approve'], () => ({}), () => root, 'full', /over 768 KB/],
    // Regression: the walk stopped at the total limit, before the edited files, and ran full.
    ['over the total limit, edits found late in the walk', () => ['plan', at('late-edit')], () => ({}), () => root, 'parse', /over 96 KB of changed YAML/],
    ['a tree too wide to walk', () => ['plan', at('wide')], () => ({}), () => root, 'full', /over 768 KB/],
    ['-C DIR', () => ['plan', '-C', at('large')], () => ({}), () => at('small'), 'full', /over/],
    ['--dir DIR', () => ['plan', '--dir', at('small')], () => ({}), () => at('large'), 'small', /1 KB of YAML/],
    ['--dir=DIR', () => ['plan', `--dir=${at('small')}`], () => ({}), () => at('large'), 'small', /1 KB of YAML/],
    ['option values that are not projects are passed over', () => ['plan', '-e', 'dev', at('small')], () => ({}), () => at('large'), 'small', /1 KB of YAML/],
    ['no argument: the current directory', () => ['plan'], () => ({}), () => at('small'), 'small', /1 KB of YAML/],
    ['no argument, a large current directory', () => ['plan'], () => ({}), () => at('large'), 'full', /over/],
    ['no project anywhere', () => ['whoami'], () => ({}), () => at('not-a-project'), 'full', /no project directory/],
    ['a saved plan (not a directory)', () => ['apply', at('small', 'agentform.yaml')], () => ({}), () => at('not-a-project'), 'full', /no project/],
    ['forced lean', () => ['plan', at('large')], () => ({ AGENTFORM_V8_MODE: 'lean' }), () => root, 'lean', /AGENTFORM_V8_MODE/],
    ['forced full', () => ['plan', at('small')], () => ({ AGENTFORM_V8_MODE: ' full ' }), () => root, 'full', /AGENTFORM_V8_MODE/],
    ['forced parse', () => ['plan', at('small')], () => ({ AGENTFORM_V8_MODE: 'parse' }), () => root, 'parse', /AGENTFORM_V8_MODE/],
    ['forced small', () => ['plan', at('large')], () => ({ AGENTFORM_V8_MODE: 'small' }), () => root, 'small', /AGENTFORM_V8_MODE/],
    ['a large plain project parsed afresh: full', () => ['plan', at('large')], () => ({ AGENTFORM_PARSE_CACHE: 'off' }), () => root, 'full', /over 768 KB/],
    [
      'a large project for the library parsed afresh: parse, not full',
      () => ['plan', at('large-library')],
      () => ({ AGENTFORM_PARSE_CACHE: 'off' }),
      () => root,
      'parse',
      /over 256 KB of changed YAML .*; the young generation grows while parsing$/,
    ],
    ['an unknown forced mode is ignored', () => ['plan', at('small')], () => ({ AGENTFORM_V8_MODE: 'fast' }), () => root, 'small', /1 KB of YAML/],
  ];
  it.each(cases)('%s', (_name, args, env, cwd, mode, reason) => {
    const choice = chooseV8Mode(args(), env(), cwd());
    expect(choice.mode).toBe(mode);
    expect(choice.reason).toMatch(reason);
    // Only a parse run with over GROW_YOUNG_MIN_COLD_YAML_BYTES to parse afresh grows its young generation.
    expect(choice.growYoungGeneration === true).toBe(/young generation grows/.test(choice.reason));
  });
});

// The built module, in a fresh process: the flags apply to the whole process, and only at start.
describe('v8-tuning applies the mode it chose', () => {
  const BUILT = join(import.meta.dirname, '..', '..', 'dist', 'src', 'util', 'v8-tuning.js');
  /**
   * The optimisation status V8 gives a function `exercise` ran (`fn`, defined by `define`), in a
   * process started under `mode`, with natives syntax allowed once the mode's flags are set.
   */
  function statusUnder(mode: string, define: string, exercise: string): number {
    const script = `
      const { v8Choice } = await import(${JSON.stringify(BUILT)});
      const { setFlagsFromString } = await import('node:v8');
      setFlagsFromString('--allow-natives-syntax');
      const natives = (body) => new Function('f', body);
      const fn = ${define};
      ${exercise}
      console.log(JSON.stringify({ mode: v8Choice.mode, status: natives('return %GetOptimizationStatus(f)')(fn) }));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: { ...process.env, AGENTFORM_V8_MODE: mode } });
    const result = JSON.parse(out) as { mode: string; status: number };
    expect(result.mode).toBe(mode);
    return result.status;
  }

  /** Whether a hot function ends up optimised by TurboFan, in a process started under `mode`. */
  function optimisedUnder(mode: string): boolean {
    const status = statusUnder(
      mode,
      "new Function('x', 'return x * 2 + 1')",
      "natives('%PrepareFunctionForOptimization(f)')(fn); fn(1); fn(2); natives('%OptimizeFunctionOnNextCall(f)')(fn); fn(3);",
    );
    return (status & (1 << 4)) !== 0; // V8's OptimizationStatus::kOptimized
  }

  /** Whether a function whose loop runs long gets baseline (Sparkplug) code, in a process started under `mode`. */
  function baselineUnder(mode: string): boolean {
    const status = statusUnder(
      mode,
      "new Function('n', 'let sum = 0; for (let i = 0; i < n; i++) sum += i; return sum')",
      'for (let round = 0; round < 20; round++) fn(100_000);',
    );
    return (status & (1 << 15)) !== 0; // V8's OptimizationStatus::kBaseline
  }

  // Regression: choosing the mode walks the project, and a walk through hundreds of files made V8
  // optimise Node's path helpers before --no-turbofan was set: the lean run paged TurboFan in anyway
  // and peaked as high as a full one (plan of 1,000 agents: 68.4 MB, against 64.5 MB forced lean).
  it('small and lean: nothing is optimised while the project is looked through', () => {
    const project = at('many-files');
    file(join(project, 'agentform.yaml'), 10);
    for (let index = 0; index < 1_500; index++) file(join(project, 'agents', `a-${index}.yaml`), 10);
    parseCache(project);
    // `node -e SCRIPT plan DIR`: as for `agentform plan DIR`, process.argv.slice(2) is [DIR].
    const script = `const { v8Choice } = await import(${JSON.stringify(BUILT)}); console.log('mode', v8Choice.mode);`;
    // Its parse cache where parseCache() put it, not the test run's shared one.
    const { AGENTFORM_V8_MODE: _forced, AGENTFORM_PARSE_CACHE: _cache, ...env } = process.env;
    const out = execFileSync(process.execPath, ['--trace-opt', '--input-type=module', '-e', script, 'plan', project], { encoding: 'utf8', env });
    expect(out).toContain('mode small');
    expect(out.split('\n').filter((line) => /optimiz/i.test(line))).toEqual([]);
  });

  it.each(['lean', 'small'])('%s: TurboFan never optimises', (mode) => {
    expect(optimisedUnder(mode)).toBe(false);
  });

  it('small: Sparkplug never compiles (lean: it does)', () => {
    expect(baselineUnder('small')).toBe(false);
    expect(baselineUnder('lean')).toBe(true);
  });

  it.each(['full', 'parse'])('%s: TurboFan optimises as usual', (mode) => {
    expect(optimisedUnder(mode)).toBe(true);
  });

  // V8 hashes the flags into every code cache: a parse run's hash must be that of a process whose
  // only changed flag is the young generation's growth, which shows that its interrupt budget and
  // TurboFan are V8's own.
  it('parse: a code cache made with only the young generation tuned is accepted', () => {
    const source = JSON.stringify('function add(a, b) { return a + b; } add(1, 2);');
    // Set as v8-tuning.ts sets it: V8 hashes the flags set at run time, not those on node's command line.
    const made = execFileSync(
      process.execPath,
      [
        '-e',
        `require('node:v8').setFlagsFromString('--semi-space-growth-factor=1'); process.stdout.write(new (require('node:vm').Script)(${source}).createCachedData().toString('base64'))`,
      ],
      { encoding: 'utf8' },
    );
    const script = `
      const { v8Choice } = await import(${JSON.stringify(BUILT)});
      const { Script } = await import('node:vm');
      const script = new Script(${source}, { cachedData: Buffer.from(${JSON.stringify(made)}, 'base64') });
      console.log(JSON.stringify({ mode: v8Choice.mode, rejected: script.cachedDataRejected }));`;
    const run = (mode: string) =>
      JSON.parse(
        execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: { ...process.env, AGENTFORM_V8_MODE: mode } }),
      ) as unknown;
    expect(run('parse')).toEqual({ mode: 'parse', rejected: false });
    // The check can fail: under the full mode's flags the same cache is rejected.
    expect(run('full')).toEqual({ mode: 'full', rejected: true });
  });
});
