// Errors the plan engine raises on purpose. They are user errors: the configuration (or the flags)
// asks for something the engine refuses to plan, and the message says what and how to proceed.
import { type ErrorCode, UserError } from '../errors.js';

export class PlanError extends UserError {
  override readonly name = 'PlanError';
  override code: ErrorCode = 'plan_refused';
}
