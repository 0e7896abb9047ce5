import { UsageError } from '../usage-error.ts'

/** Where the mock keeps its state, as the command was told. */
export type StoreSpec = { kind: 'memory' } | { kind: 'file'; path: string } | { kind: 'redis'; url: string }

/**
 * `--store memory | file:<path> | redis://host:port/db`, or `--state-file <path>` (the same as
 * `--store file:<path>`); not both.
 */
export function storeFlag(store: string | undefined, stateFile: string | undefined): StoreSpec {
  if (store !== undefined && stateFile !== undefined)
    throw new UsageError(
      'Give --store or --state-file, not both (--state-file <path> is --store file:<path>).',
    )
  if (stateFile !== undefined) {
    if (stateFile === '') throw new UsageError('--state-file needs a path.')
    return { kind: 'file', path: stateFile }
  }
  if (store === undefined || store === 'memory') return { kind: 'memory' }
  if (store.startsWith('file:')) {
    const path = store.slice('file:'.length)
    if (path === '') throw new UsageError('--store file:<path> needs a path after file:.')
    return { kind: 'file', path }
  }
  if (/^rediss?:\/\//.test(store)) {
    let url: URL
    try {
      url = new URL(store)
    } catch {
      throw new UsageError(`--store ${store} is not a URL; use redis://host:port/db.`)
    }
    if (url.pathname !== '' && url.pathname !== '/' && !/^\/\d+$/.test(url.pathname))
      throw new UsageError(
        `--store ${store}: the path names a database number, such as redis://127.0.0.1:6379/0.`,
      )
    return { kind: 'redis', url: store }
  }
  throw new UsageError(`--store takes memory, file:<path> or redis://host:port/db, got '${store}'.`)
}
