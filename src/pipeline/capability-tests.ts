// Runs the capability tests of a project (docs/capability-tests.md) against environments'
// configurations and agentform.lock.yaml: no request to any server. Used by `agentform test` and by
// `plan`, which shows the results of the environment it plans.
import { readFileSync } from 'node:fs';
import { readCapabilityTests } from '../config/capability-tests.js';
import { desiredStateFor, relativeToCwd, specLocator } from '../config/index.js';
import type { Project } from '../config/project.js';
import { LOCK_FILE, lockFilePath, readToolLock } from '../config/tool-lock-file.js';
import { type LocatedDocument, locatedDocuments, parseYamlText } from '../config/yaml-source.js';
import { appliesIn, type DefinitionRef, evaluateAssertion } from '../engine/capability-tests.js';
import { grantsOf } from '../engine/identity-reach.js';
import type { SourceLocation } from '../errors.js';
import type { CapabilityAssertion, CapabilityTestReport, CapabilityTestResult } from '../model/capability-test.js';
import type { DesiredState } from '../model/resources.js';
import type { ToolSurfaceLock } from '../model/tool-lock.js';
import { applyStrictTools } from './strict-tools.js';

export interface CapabilityTestRun {
  /** The test files, relative to the project directory. */
  files: string[];
  report: CapabilityTestReport;
}

/**
 * Every assertion checked in each of `environments` (the project's names), in that order. An
 * environment's configuration is built as plan builds it; `states` gives ones already built.
 */
export async function runCapabilityTests(
  project: Project,
  environments: readonly string[],
  states: ReadonlyMap<string, DesiredState> = new Map(),
): Promise<CapabilityTestRun> {
  const { files, assertions } = await readCapabilityTests(project);
  if (files.length === 0) return { files, report: { environments: [...environments], results: [], skipped: 0 } };
  const lock = await readToolLock(project.dir);
  const lockDocument = lock ? lockWithLocations(project.dir) : undefined;
  const located = assertions.map((assertion) => ({ ...assertion, location: relativeToCwd(project.dir, assertion.location) as SourceLocation }));
  const declaredAgents = project.documents.filter((document) => document.kind === 'Agent').map((document) => document.name);
  const results: CapabilityTestResult[] = [];
  let skipped = 0;
  for (const environment of environments) {
    const inEnvironment = located.filter((assertion) => appliesIn(assertion, environment));
    skipped += located.length - inEnvironment.length;
    if (inEnvironment.length === 0) continue;
    // Strict mode: the policy plan and apply send (derived from the lock) is the one tested.
    const desired = states.get(environment) ?? (await applyStrictTools(desiredStateFor(project, environment))).desired;
    for (const assertion of inEnvironment) {
      const result = evaluate(assertion, project, environment, desired, lock, lockDocument, declaredAgents);
      if (result) results.push(result);
      else skipped++;
    }
  }
  return { files, report: { environments: [...environments], results, skipped } };
}

/** The plan's section: the tests checked against the environment it plans, or undefined when the project has none. */
export async function planCapabilityTests(project: Project, desired: DesiredState): Promise<CapabilityTestReport | undefined> {
  const environment = desired.target.name;
  const { files, report } = await runCapabilityTests(project, [environment], new Map([[environment, desired]]));
  return files.length > 0 ? report : undefined;
}

function evaluate(
  assertion: CapabilityAssertion,
  project: Project,
  environment: string,
  desired: DesiredState,
  lock: ToolSurfaceLock | undefined,
  lockDocument: LocatedDocument | undefined,
  declaredAgents: readonly string[],
): CapabilityTestResult | undefined {
  const agents = desired.resources.filter((resource) => resource.kind === 'agent');
  const connections = new Set(desired.resources.filter((resource) => resource.kind === 'connection').map((resource) => resource.name));
  const inSpec = specLocator(project, environment);
  const locate = (ref: DefinitionRef): SourceLocation | undefined => {
    if (ref.kind === 'lock') {
      const path = ['environments', ref.environment, ref.connection, ...(ref.toolIndex >= 0 ? ['tools', ref.toolIndex] : [])];
      return relativeToCwd(project.dir, lockDocument?.locate(path));
    }
    if (ref.path.length === 0)
      return relativeToCwd(project.dir, desired.resources.find((resource) => resource.kind === ref.kind && resource.name === ref.name)?.location);
    return relativeToCwd(project.dir, inSpec({ kind: ref.kind, name: ref.name }, ref.path));
  };
  return evaluateAssertion(assertion, {
    environment,
    // What the policy rules judge: a promoted agent is its source's configuration as applied.
    agents: agents.map((resource) => ({ name: resource.name, spec: resource.judgedSpec ?? resource.spec })),
    connections,
    grants: grantsOf(desired.resources),
    surfaces: lock && Object.hasOwn(lock.environments, environment) ? lock.environments[environment] : undefined,
    declaredAgents,
    locate,
  });
}

/** The lock file parsed again with positions, for the chain's lock steps (readToolLock keeps none). */
function lockWithLocations(projectDir: string): LocatedDocument | undefined {
  const path = lockFilePath(projectDir);
  return locatedDocuments(parseYamlText(LOCK_FILE, readFileSync(path, 'utf8')), path)[0];
}
