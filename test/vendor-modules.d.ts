// Modules of dev dependencies that ship no types, as the tests use them.
declare module 'gitlab-ci-local/src/schema/schema.js' {
  /** GitLab's JSON Schema of .gitlab-ci.yml (draft-07), as gitlab-ci-local vendors it. */
  export const schema: Record<string, unknown>;
}
