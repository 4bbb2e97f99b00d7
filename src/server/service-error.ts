// The error answer of the local control plane: `{"error": {code, message, details?}}` with the
// status api-contract.md assigns to each code. Handlers throw these; http.ts renders them.
export type ErrorCode =
  | 'invalid_argument'
  | 'unauthenticated'
  | 'permission_denied'
  | 'not_found'
  | 'unimplemented'
  | 'method_not_allowed'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'already_exists'
  | 'failed_precondition'
  | 'resource_exhausted'
  | 'internal'
  | 'unavailable';

export const STATUS_OF: Record<ErrorCode, number> = {
  invalid_argument: 400,
  unauthenticated: 401,
  permission_denied: 403,
  not_found: 404,
  unimplemented: 404,
  method_not_allowed: 405,
  payload_too_large: 413,
  unsupported_media_type: 415,
  already_exists: 409,
  failed_precondition: 409,
  resource_exhausted: 429,
  internal: 500,
  unavailable: 503,
};

export class ServiceError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
  get status(): number {
    return STATUS_OF[this.code];
  }
}

export const notFound = (what: string): ServiceError => new ServiceError('not_found', `${what} not found`);
export const alreadyExists = (what: string): ServiceError => new ServiceError('already_exists', `${what} already exists`);
export const invalid = (field: string, message: string): ServiceError => new ServiceError('invalid_argument', `${field}: ${message}`, { field });
