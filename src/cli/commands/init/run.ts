// `agentform init`: writes the scaffold (config/scaffold.ts) into a directory that is not a project
// yet. It never overwrites a file: every clash is listed and nothing is written.
import { existsSync, readFileSync } from 'node:fs';
import { appendFile, mkdir, readdir } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import type { ProjectFile } from '../../../config/editor-support.js';
import { GITIGNORE_LINE, scaffoldFiles } from '../../../config/scaffold.js';
import { schemasDir } from '../../../config/schemas.js';
import { UserError } from '../../../errors.js';
import { writeFileAtomic } from '../../../util/atomic-write.js';

/** The CI recipes shipped in the package (examples/), and where they go in a new project. */
const CI_RECIPES = {
  github: { from: 'examples/github-actions/.github/workflows', to: '.github/workflows' },
  gitlab: { from: 'examples/gitlab-ci', to: '.' },
} as const;

async function ciFiles(system: keyof typeof CI_RECIPES): Promise<ProjectFile[]> {
  const packageRoot = dirname(schemasDir());
  const { from, to } = CI_RECIPES[system];
  const names = (await readdir(join(packageRoot, from))).filter((name) => /\.ya?ml$/.test(name)).sort();
  return names.map((name) => ({ path: to === '.' ? name : `${to}/${name}`, content: readFileSync(join(packageRoot, from, name), 'utf8') }));
}

export async function runInit(dirArgument: string, options: { ci?: keyof typeof CI_RECIPES }): Promise<void> {
  const dir = resolve(dirArgument);
  const shown = relative(process.cwd(), dir) || '.';
  if (existsSync(join(dir, 'agentform.yaml'))) {
    throw new UserError(`${join(shown, 'agentform.yaml')} already exists: ${shown} is a project already`, 'run agentform validate there, or init a new directory');
  }
  const files = [...scaffoldFiles(), ...(options.ci ? await ciFiles(options.ci) : [])];
  const notes: string[] = [];
  const toWrite = files.filter((file) => {
    if (!existsSync(join(dir, file.path))) return true;
    if (file.path !== '.vscode/settings.json') return true;
    notes.push(`.vscode/settings.json exists, left as it is: add ${JSON.stringify(JSON.parse(file.content))} to it for completion in agentform.yaml`);
    return false;
  });
  const clashes = toWrite.filter((file) => existsSync(join(dir, file.path))).map((file) => file.path);
  if (clashes.length > 0) {
    throw new UserError(`init never overwrites a file, and these exist in ${shown}: ${clashes.join(', ')}`, 'move them away, or init another directory');
  }
  await mkdir(dir, { recursive: true });
  for (const file of toWrite) await writeFileAtomic(join(dir, ...file.path.split('/')), file.content);
  const gitignore = join(dir, '.gitignore');
  const ignored = existsSync(gitignore) ? readFileSync(gitignore, 'utf8') : undefined;
  if (ignored === undefined) await writeFileAtomic(gitignore, `${GITIGNORE_LINE}\n`);
  else if (!ignored.split(/\r?\n/).some((line) => line.trim() === GITIGNORE_LINE || line.trim() === '.agentform')) {
    await appendFile(gitignore, `${ignored.endsWith('\n') || ignored === '' ? '' : '\n'}${GITIGNORE_LINE}\n`);
  }

  const lines = [
    `Created an agentform project in ${shown}: ${toWrite.filter((file) => !file.path.startsWith('schemas/')).map((file) => file.path).join(', ')}, .gitignore, and the JSON Schemas in schemas/.`,
    '',
    'Next:',
    ...(shown === '.' ? [] : [`  cd ${shown}`]),
    '  agentform validate                    # check the files',
    '  agentform plan                        # what apply would create on the local control plane',
    '  OPENAI_API_KEY=… agentform apply      # create it (the provider secret is read only here)',
  ];
  if (options.ci) lines.push('', `The ${options.ci === 'github' ? 'GitHub Actions' : 'GitLab CI'} recipe plans staging and production: declare those environments in agentform.yaml (URL, token variable) before you push.`);
  for (const note of notes) lines.push(`Note: ${note}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}
