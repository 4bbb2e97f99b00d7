// Capability test files (*.test.yaml, docs/capability-tests.md): found beside the resource files,
// parsed with locations, checked against schemas/agentform.test.schema.json and then for what a
// schema cannot say (exactly one of can / cannot, environments the project declares).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultAssertionName } from '../engine/capability-tests.js';
import type { CapabilityAssertion } from '../model/capability-test.js';
import { testFiles } from './files.js';
import { throwIfErrors } from './index.js';
import { ProblemList } from './problems.js';
import type { Project } from './project.js';
import { passesSchema } from './schema-errors.js';
import { validators } from './schemas.js';
import { didYouMean } from './suggest.js';
import { type LocatedDocument, locatedDocuments, parseYamlText } from './yaml-source.js';

export interface CapabilityTests {
  /** The test files read, relative to the project directory. */
  files: string[];
  assertions: CapabilityAssertion[];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringArray(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/** Every assertion of the project's test files; throws a ProblemsError with every located problem. */
export async function readCapabilityTests(project: Project): Promise<CapabilityTests> {
  const problems = new ProblemList();
  const tests = await checkCapabilityTests(project, problems);
  throwIfErrors(project.dir, problems, 'the capability tests are invalid');
  return tests;
}

/**
 * The test files read and checked, their problems (located relative to the project) added to
 * `problems` (validate reports them with the configuration's); only valid assertions are returned.
 */
export async function checkCapabilityTests(project: Pick<Project, 'dir' | 'root' | 'environments'>, problems: ProblemList): Promise<CapabilityTests> {
  const root = isObject(project.root.value) ? project.root.value : {};
  const files = await testFiles(project.dir, stringArray(root.exclude));
  const assertions: CapabilityAssertion[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(join(project.dir, file), 'utf8');
    } catch (error) {
      problems.error(`cannot read the file: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, { file, line: 1, col: 1 });
      continue;
    }
    const parsed = parseYamlText(file, text.startsWith('\uFEFF') ? text.slice(1) : text);
    for (const problem of parsed.problems) problems.add(problem);
    if (parsed.problems.some((problem) => problem.severity === 'error')) continue;
    const documents = locatedDocuments(parsed, join(project.dir, file));
    if (documents.length !== 1) {
      problems.error(`a test file holds one document (tests: [...]), not ${documents.length}`, documents[1]?.locate([]) ?? { file, line: 1, col: 1 });
      continue;
    }
    assertions.push(...assertionsOf(documents[0] as LocatedDocument, project, problems));
  }
  return { files, assertions };
}

function assertionsOf(document: LocatedDocument, project: Pick<Project, 'environments'>, problems: ProblemList): CapabilityAssertion[] {
  const locate = (path: ReadonlyArray<string | number>, target?: 'key' | 'value') => document.locate(path, target);
  if (!passesSchema(validators().documents.test, document.value, 'capability test file', locate, problems)) return [];
  const tests = (document.value as { tests: Array<Record<string, unknown>> }).tests;
  const known = Object.keys(project.environments);
  const out: CapabilityAssertion[] = [];
  for (const [index, item] of tests.entries()) {
    const location = document.locate(['tests', index]);
    const expects = (['can', 'cannot'] as const).filter((key) => typeof item[key] === 'string');
    if (expects.length !== 1) {
      problems.error(expects.length === 0 ? 'write one of can or cannot (the tool the assertion is about)' : 'write one of can or cannot, not both', location);
      continue;
    }
    const environments = stringArray(item.environments);
    let unknownEnvironment = false;
    for (const [position, name] of environments.entries()) {
      if (known.includes(name)) continue;
      unknownEnvironment = true;
      problems.error(
        `unknown environment "${name}"${didYouMean(name, known)} (agentform.yaml declares ${known.join(', ')})`,
        document.locate(['tests', index, 'environments', position]),
      );
    }
    if (unknownEnvironment) continue;
    const expect = expects[0] as 'can' | 'cannot';
    const fields = {
      agent: item.agent as string,
      expect,
      tool: item[expect] as string,
      ...(typeof item.withDecision === 'boolean' ? { withDecision: item.withDecision } : {}),
      ...(typeof item.as === 'string' ? { as: item.as } : {}),
    };
    out.push({
      name: typeof item.name === 'string' ? item.name : defaultAssertionName(fields),
      ...fields,
      ...(environments.length > 0 ? { environments } : {}),
      location,
    });
  }
  return out;
}
