// A minimal Language Server Protocol client over stdio (Content-Length framing, JSON-RPC 2.0), enough
// to drive a real language server the way an editor does: initialize, open a document, read the
// diagnostics it publishes, ask for completions.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

interface Message {
  id?: number;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { message: string };
}

export interface Diagnostic {
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  message: string;
  severity?: number;
}

export class LspClient {
  private readonly child: ChildProcessWithoutNullStreams;
  private buffer = Buffer.alloc(0);
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private readonly diagnostics = new Map<string, Diagnostic[]>();
  private readonly diagnosticWaiters: Array<{ uri: string; resolve: (value: Diagnostic[]) => void }> = [];

  constructor(
    command: string,
    args: string[],
    private readonly settings: Record<string, unknown>,
  ) {
    this.child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.on('data', (chunk: Buffer) => this.receive(chunk));
  }

  private receive(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const headerEnd = this.buffer.indexOf('\r\n\r\n');
      if (headerEnd < 0) return;
      const length = Number(/Content-Length: (\d+)/i.exec(this.buffer.subarray(0, headerEnd).toString())?.[1]);
      if (this.buffer.length < headerEnd + 4 + length) return;
      const body = this.buffer.subarray(headerEnd + 4, headerEnd + 4 + length).toString('utf8');
      this.buffer = this.buffer.subarray(headerEnd + 4 + length);
      this.handle(JSON.parse(body) as Message);
    }
  }

  private handle(message: Message): void {
    if (message.id !== undefined && message.method === undefined) {
      const waiter = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (message.error) waiter?.reject(new Error(message.error.message));
      else waiter?.resolve(message.result);
      return;
    }
    if (message.method === 'textDocument/publishDiagnostics') {
      const { uri, diagnostics } = message.params as { uri: string; diagnostics: Diagnostic[] };
      this.diagnostics.set(uri, diagnostics);
      for (const waiter of this.diagnosticWaiters.filter((item) => item.uri === uri)) waiter.resolve(diagnostics);
      this.diagnosticWaiters.splice(0, this.diagnosticWaiters.length, ...this.diagnosticWaiters.filter((item) => item.uri !== uri));
      return;
    }
    // Requests from the server: answer configuration with our settings, anything else with null.
    if (message.id !== undefined && message.method !== undefined) {
      const result =
        message.method === 'workspace/configuration'
          ? (message.params as { items: Array<{ section?: string }> }).items.map((item) => (item.section === 'yaml' ? this.settings : null))
          : null;
      this.send({ id: message.id, result });
    }
  }

  private send(message: Record<string, unknown>): void {
    const body = JSON.stringify({ jsonrpc: '2.0', ...message });
    this.child.stdin.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  }

  request<T>(method: string, params: unknown): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.send({ id, method, params });
    });
  }

  notify(method: string, params: unknown): void {
    this.send({ method, params });
  }

  /** The next diagnostics published for `uri` (after an open or a change). */
  nextDiagnostics(uri: string): Promise<Diagnostic[]> {
    return new Promise((resolve) => this.diagnosticWaiters.push({ uri, resolve }));
  }

  async close(): Promise<void> {
    try {
      await Promise.race([this.request('shutdown', null), new Promise((resolve) => setTimeout(resolve, 2000))]);
      this.notify('exit', null);
    } finally {
      this.child.kill();
    }
  }
}
