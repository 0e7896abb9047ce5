import { fileURLToPath } from 'node:url'

/** Absolute path of the repository root (this file is `scripts/lib/repo-root.ts`). */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url))
