import { UsageError } from '../usage-error.ts'

/** Where the mock keeps its state, as the command was told. */
export type StoreSpec =
  | { kind: 'memory' }
  | { kind: 'file'; path: string }
  | { kind: 'redis'; url: string }
  | { kind: 'redis-cluster'; nodes: { host: string; port: number }[] }

const CLUSTER = 'redis-cluster://'

/** `redis-cluster://host:port[,host:port...]`: the nodes to reach the cluster through. */
function clusterNodes(store: string): { host: string; port: number }[] {
  const list = store.slice(CLUSTER.length).replace(/\/+$/, '')
  if (list === '')
    throw new UsageError(
      `--store ${CLUSTER} needs at least one node: ${CLUSTER}127.0.0.1:7000[,127.0.0.1:7001...].`,
    )
  return list.split(',').map((node) => {
    const match = /^(\[[0-9a-fA-F:.]+\]|[^:/\s[\]]+):(\d{1,5})$/.exec(node.trim())
    const port = Number(match?.[2])
    if (!match || port < 1 || port > 65535)
      throw new UsageError(
        `--store ${store}: '${node}' is not host:port; give the cluster's nodes as ${CLUSTER}host:port[,host:port...].`,
      )
    return { host: (match[1] as string).replace(/^\[|\]$/g, ''), port }
  })
}

/**
 * `--store memory | file:<path> | redis://host:port/db | redis-cluster://host:port[,host:port...]`, or
 * `--state-file <path>` (the same as `--store file:<path>`); not both.
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
  if (store.startsWith(CLUSTER)) return { kind: 'redis-cluster', nodes: clusterNodes(store) }
  throw new UsageError(
    `--store takes memory, file:<path>, redis://host:port/db or ${CLUSTER}host:port[,host:port...], got '${store}'.`,
  )
}
