// A small stand-in for the parts of GitHub the shipped workflows talk to: the issue comments the
// actions/github-script step lists, creates and updates (recorded per pull request, so a test reads
// what a reviewer sees), and the pull requests, workflow runs and artifacts the `gh` CLI of the
// apply workflow asks about (test/helpers/workflow-runner.ts writes them where its `gh` reads them).
import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';

export interface FakeComment {
  id: number;
  /** The pull request (issue) the comment is on. */
  issue: number;
  body: string;
  /** Who wrote it: the workflow's token posts as github-actions[bot] (a Bot); a test plants a User's. */
  user: { login: string; type: 'Bot' | 'User' };
}

/** The author of the comments the workflow's token posts. */
export const WORKFLOW_BOT = { login: 'github-actions[bot]', type: 'Bot' } as const;

/** A workflow run, as `gh run list --json databaseId` sees it. */
export interface FakeRun {
  databaseId: number;
  /** The workflow's file name, which `gh run list --workflow` matches. */
  workflow: string;
  headSha: string;
  status: 'success' | 'failure';
}

export interface FakeGitHub {
  token: string;
  repository: string;
  /** Every comment, in creation order; `comments.filter(c => c.issue === n)` is one pull request's. */
  comments: FakeComment[];
  /** How many times a comment was edited in place. */
  updates: number;
  /** The pull requests a commit belongs to (what `commits/:sha/pulls` answers). */
  pullsOfCommit: Map<string, number[]>;
  /** A pull request's head commit. */
  pullHeads: Map<number, string>;
  runs: FakeRun[];
  /** The REST client actions/github-script hands its script as `github.rest`. */
  rest: unknown;
  /** Octokit's `github.paginate(method, params)`: every page of a list method, concatenated. */
  paginate: (method: (params: Record<string, unknown>) => Promise<{ data: unknown[] }>, params: Record<string, unknown>) => Promise<unknown[]>;
  /** The state the `gh` stand-in reads, as JSON. */
  state(artifactsDir: string): string;
}

export function fakeGitHub(repository = 'acme/config'): FakeGitHub {
  const comments: FakeComment[] = [];
  const github: FakeGitHub = {
    token: 'ghs_fake-workflow-token',
    repository,
    comments,
    updates: 0,
    pullsOfCommit: new Map(),
    pullHeads: new Map(),
    runs: [],
    rest: undefined,
    async paginate(method, params) {
      const all: unknown[] = [];
      for (let page = 1; ; page += 1) {
        const { data } = await method({ ...params, page });
        all.push(...data);
        if (data.length < Number(params.per_page ?? 30)) return all;
      }
    },
    state(artifactsDir: string): string {
      return JSON.stringify({
        token: this.token,
        repository: this.repository,
        artifactsDir,
        pullsOfCommit: Object.fromEntries(this.pullsOfCommit),
        pullHeads: Object.fromEntries(this.pullHeads),
        runs: this.runs,
      });
    },
  };
  github.rest = {
    issues: {
      // One page, as GitHub answers (30 a page unless per_page says otherwise).
      listComments: async ({ issue_number, page = 1, per_page = 30 }: { issue_number?: number; page?: number; per_page?: number }) => ({
        data: comments
          .filter((comment) => issue_number === undefined || comment.issue === issue_number)
          .slice((page - 1) * per_page, page * per_page)
          .map((comment) => ({ id: comment.id, body: comment.body, user: comment.user })),
      }),
      createComment: async ({ issue_number, body }: { issue_number: number; body: string }) => {
        comments.push({ id: comments.length + 1, issue: issue_number, body, user: WORKFLOW_BOT });
        return { data: {} };
      },
      updateComment: async ({ comment_id, body }: { comment_id: number; body: string }) => {
        const comment = comments.find((candidate) => candidate.id === comment_id);
        if (!comment) throw new Error('no such comment');
        comment.body = body;
        github.updates += 1;
        return { data: {} };
      },
    },
  };
  return github;
}

export interface ScriptContext {
  repo: { owner: string; repo: string };
  issue: { number: number };
}

/** Runs an actions/github-script body as the action does: an async function of github, context, require. */
export async function runGithubScript(
  script: string,
  github: { rest: unknown; paginate: unknown },
  env: Record<string, string>,
  cwd: string,
  context: ScriptContext = { repo: { owner: 'acme', repo: 'config' }, issue: { number: 7 } },
): Promise<void> {
  const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor as new (...args: string[]) => (...values: unknown[]) => Promise<void>;
  const fn = new AsyncFunction('github', 'context', 'require', 'process', script);
  const fs = await import('node:fs');
  // The action runs in the workspace: a relative path is the workspace's.
  const scopedRequire = (name: string) => {
    if (name !== 'fs') throw new Error(`the script requires ${name}`);
    return { ...fs, readFileSync: (path: string, encoding: BufferEncoding) => readFileSync(isAbsolute(path) ? path : join(cwd, path), encoding) };
  };
  await fn(github, context, scopedRequire, { env });
}
