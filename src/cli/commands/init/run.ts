// `agentform init`: writes the scaffold (config/scaffold.ts) into a directory that is not a project
// yet; `init --ci X` in an existing project adds only the CI recipe. It never overwrites a file:
// every clash is listed and nothing is written.
import { existsSync, readFileSync } from 'node:fs';
import { appendFile, mkdir, readdir } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import type { ProjectFile } from '../../../config/editor-support.js';
import { ROOT_FILE, ROOT_FILE_ALTERNATIVE } from '../../../config/files.js';
import { GITIGNORE_LINE, scaffoldFiles } from '../../../config/scaffold.js';
import { schemasDir } from '../../../config/schemas.js';
import { UserError } from '../../../errors.js';
import { writeFileAtomic } from '../../../util/atomic-write.js';

/** The CI recipes shipped in the package (examples/), and where they go in a new project. */
const CI_RECIPES = {
  github: { from: 'examples/github-actions/.github/workflows', to: '.github/workflows', label: 'GitHub Actions' },
  gitlab: { from: 'examples/gitlab-ci', to: '.', label: 'GitLab CI' },
} as const;

type CiSystem = keyof typeof CI_RECIPES;

function ciNote(system: CiSystem): string {
  return `The ${CI_RECIPES[system].label} recipe plans staging and production: declare those environments in agentform.yaml (URL, token variable) before you push.`;
}

async function ciFiles(system: CiSystem): Promise<ProjectFile[]> {
  const packageRoot = dirname(schemasDir());
  const { from, to } = CI_RECIPES[system];
  const names = (await readdir(join(packageRoot, from))).filter((name) => /\.ya?ml$/.test(name)).sort();
  return names.map((name) => ({ path: to === '.' ? name : `${to}/${name}`, content: readFileSync(join(packageRoot, from, name), 'utf8') }));
}

/**
 * `init --ci X` in an existing project: writes the recipe's files and nothing else (not even
 * .gitignore). A recipe file already there with the recipe's content is left as it is; one with
 * other content is a clash, and then nothing is written, so a recipe is never half added.
 */
async function addCiRecipe(dir: string, shown: string, system: CiSystem): Promise<void> {
  const files = await ciFiles(system);
  const present = files.filter((file) => existsSync(join(dir, file.path)));
  const clashes = present.filter((file) => readFileSync(join(dir, file.path), 'utf8') !== file.content).map((file) => file.path);
  if (clashes.length > 0) {
    const from = CI_RECIPES[system].from;
    throw new UserError(
      `init never overwrites a file, and these exist in ${shown} with other content: ${clashes.join(', ')}; nothing was written`,
      `merge the recipe by hand (${from}/ in the agentform package), or move them away and run init --ci ${system} again`,
    );
  }
  const toWrite = files.filter((file) => !present.includes(file));
  for (const file of toWrite) {
    // exclusive: a file that appeared since the check is still not replaced.
    await writeFileAtomic(join(dir, ...file.path.split('/')), file.content, { exclusive: true }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
      throw new UserError(`init never overwrites a file, and ${file.path} appeared in ${shown} while the recipe was written`, 'run init --ci again');
    });
  }
  const { label } = CI_RECIPES[system];
  const lines =
    toWrite.length === 0
      ? [`The ${label} recipe is in ${shown} already: ${present.map((file) => file.path).join(', ')}. Nothing was written.`]
      : [
          `Added the ${label} recipe to the project in ${shown}: ${toWrite.map((file) => file.path).join(', ')}. No other file was changed.`,
          ...(present.length > 0 ? [`Already there, left as they are: ${present.map((file) => file.path).join(', ')}.`] : []),
          '',
          ciNote(system),
        ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

export async function runInit(dirArgument: string, options: { ci?: CiSystem }): Promise<void> {
  const dir = resolve(dirArgument);
  const shown = relative(process.cwd(), dir) || '.';
  const rootFile = [ROOT_FILE, ROOT_FILE_ALTERNATIVE].find((name) => existsSync(join(dir, name)));
  if (rootFile !== undefined) {
    // A CI recipe can be added to a project later; the scaffold cannot (it would clash with it).
    if (options.ci) return addCiRecipe(dir, shown, options.ci);
    throw new UserError(
      `${join(shown, rootFile)} already exists: ${shown} is a project already`,
      'run agentform validate there, init a new directory, or add a CI recipe with init --ci github|gitlab',
    );
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
    `Created an agentform project in ${shown}: ${toWrite
      .filter((file) => !file.path.startsWith('schemas/'))
      .map((file) => file.path)
      .join(', ')}, .gitignore, and the JSON Schemas in schemas/.`,
    '',
    'Next:',
    ...(shown === '.' ? [] : [`  cd ${shown}`]),
    '  agentform validate                    # check the files',
    '  agentform plan                        # what apply would create on the local control plane',
    '  OPENAI_API_KEY=… agentform apply      # create it (the provider secret is read only here)',
  ];
  if (options.ci) lines.push('', ciNote(options.ci));
  for (const note of notes) lines.push(`Note: ${note}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}
