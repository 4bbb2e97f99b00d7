import type { ChangeAction, ResourceAddress } from '../model/resources.js';

/** What an apply reports as it goes; rendered as text lines or as JSON lines by the CLI. */
export type ApplyEvent =
  | { type: 'start'; address: ResourceAddress; action: ChangeAction }
  | { type: 'done'; address: ResourceAddress; action: ChangeAction; ms: number; note?: string }
  | { type: 'failed'; address: ResourceAddress; action: ChangeAction; ms: number; code: string; message: string }
  | { type: 'skipped'; address: ResourceAddress; action: ChangeAction; reason: string }
  | { type: 'info'; address?: ResourceAddress; message: string };

export interface ApplyResult {
  done: Array<{ address: ResourceAddress; action: ChangeAction; ms: number; note?: string }>;
  failed: Array<{ address: ResourceAddress; action: ChangeAction; code: string; message: string }>;
  skipped: Array<{ address: ResourceAddress; action: ChangeAction; reason: string }>;
  /** Interrupted (or stopped, see `stoppedBy`) before these started. */
  notStarted: Array<{ address: ResourceAddress; action: ChangeAction }>;
  /** Why the run stopped starting changes by itself (the first permission_denied). */
  stoppedBy?: string;
  counts: { added: number; changed: number; adopted: number; replaced: number; destroyed: number };
}
