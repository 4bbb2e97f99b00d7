// A small stand-in for the GitLab REST API, on 127.0.0.1: the calls the shipped GitLab recipe
// makes (merge-request notes, the merge requests of a commit, one artifact file of a job on a ref),
// with the project access token checked. It records the notes so a test can read the comments a
// reviewer would see.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { listenOnLoopback } from './loopback-listen.js';

export interface FakeNote {
  id: number;
  body: string;
  /** Who wrote it: the project token's user (FAKE_GITLAB_USER), or a test's planted author. */
  author: { id: number };
  /** A system note (GitLab's own: "added 1 commit"), never the plan's. */
  system: boolean;
}

/** The user the project access token acts as (what `GET /user` answers). */
export const FAKE_GITLAB_USER = { id: 900, username: 'project_42_bot' };

/** The notes GitLab returns on one page unless per_page says otherwise. */
const NOTES_PAGE = 20;

export interface FakeGitLab {
  /** `CI_API_V4_URL` for the jobs. */
  apiUrl: string;
  token: string;
  projectId: string;
  /** Notes by merge request iid, in creation order. */
  notes: Map<number, FakeNote[]>;
  /** The merge request a commit came from (what `commits/:sha/merge_requests` answers). */
  mergeRequestOfCommit: Map<string, number>;
  /** Artifact files by `<ref>\n<job>\n<path>` (what `jobs/artifacts/:ref/raw/*path?job=` serves). */
  artifacts: Map<string, Buffer>;
  close(): Promise<void>;
}

export function artifactKey(ref: string, job: string, path: string): string {
  return `${ref}\n${job}\n${path}`;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => resolve(body));
    request.on('error', reject);
  });
}

function json(response: ServerResponse, status: number, value: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(value));
}

export async function startFakeGitLab(): Promise<FakeGitLab> {
  const token = 'glpat-fake-project-token';
  const projectId = '42';
  const notes = new Map<number, FakeNote[]>();
  const mergeRequestOfCommit = new Map<string, number>();
  const artifacts = new Map<string, Buffer>();
  let nextNoteId = 1;

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    if (request.headers['private-token'] !== token) return json(response, 401, { message: '401 Unauthorized' });
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/api/v4/user' && request.method === 'GET') return json(response, 200, FAKE_GITLAB_USER);
    const prefix = `/api/v4/projects/${projectId}/`;
    if (!url.pathname.startsWith(prefix)) return json(response, 404, { message: '404 Project Not Found' });
    const rest = url.pathname.slice(prefix.length);

    const notesPath = /^merge_requests\/(\d+)\/notes(?:\/(\d+))?$/.exec(rest);
    if (notesPath) {
      const list = notes.get(Number(notesPath[1])) ?? [];
      notes.set(Number(notesPath[1]), list);
      if (request.method === 'GET' && !notesPath[2]) {
        // Paged as GitLab pages: x-next-page names the next page, empty on the last.
        const page = Number(url.searchParams.get('page') ?? 1);
        const perPage = Number(url.searchParams.get('per_page') ?? NOTES_PAGE);
        const next = page * perPage < list.length ? String(page + 1) : '';
        response.writeHead(200, { 'content-type': 'application/json', 'x-next-page': next });
        response.end(JSON.stringify(list.slice((page - 1) * perPage, page * perPage)));
        return;
      }
      const body = new URLSearchParams(await readBody(request)).get('body');
      if (body === null) return json(response, 400, { message: 'body is missing' });
      if (request.method === 'POST' && !notesPath[2]) {
        const note = { id: nextNoteId++, body, author: { id: FAKE_GITLAB_USER.id }, system: false };
        list.push(note);
        return json(response, 201, note);
      }
      const note = list.find((item) => item.id === Number(notesPath[2]));
      if (request.method === 'PUT' && note) {
        note.body = body;
        return json(response, 200, note);
      }
      return json(response, 404, { message: '404 Not found' });
    }

    const commitPath = /^repository\/commits\/([0-9a-f]+)\/merge_requests$/.exec(rest);
    if (commitPath && request.method === 'GET') {
      const iid = mergeRequestOfCommit.get(commitPath[1]!);
      return json(response, 200, iid === undefined ? [] : [{ iid }]);
    }

    // The path arrives with the ref's slashes encoded (refs%2Fmerge-requests%2F1%2Fhead).
    const artifactPath = /^jobs\/artifacts\/([^/]+)\/raw\/(.+)$/.exec(rest);
    if (artifactPath && request.method === 'GET') {
      const file = artifacts.get(artifactKey(decodeURIComponent(artifactPath[1]!), url.searchParams.get('job') ?? '', decodeURIComponent(artifactPath[2]!)));
      if (!file) return json(response, 404, { message: '404 Not found' });
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      response.end(file);
      return;
    }
    return json(response, 404, { message: '404 Not found' });
  };

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => json(response, 500, { message: String(error) }));
  });
  const listening = await listenOnLoopback(server);
  return {
    apiUrl: `http://127.0.0.1:${listening.port}/api/v4`,
    token,
    projectId,
    notes,
    mergeRequestOfCommit,
    artifacts,
    close: () => listening.close(),
  };
}
