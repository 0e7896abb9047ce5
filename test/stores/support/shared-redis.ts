import type { RedisTarget } from '../../../mocks/stores/redis/redis-store.ts'
import { startRedisCluster } from '../../../scripts/lib/redis-cluster.ts'
import { hasRedisServer, startRedis } from '../../../scripts/lib/redis-server.ts'

/** A Redis the test started for `--store`: one server, or a cluster. */
export interface SharedRedis {
  /** What `--store` takes: `redis://...` or `redis-cluster://...`. */
  url: string
  /** What `createRedisStore` takes. */
  target: RedisTarget
  /** The ports of its servers. */
  ports: number[]
  stop(): Promise<void>
}

/**
 * The topologies every shared-store test runs on: one Redis, and a three-master Redis Cluster the test starts
 * on loopback (`redis-server --cluster-enabled yes`, `redis-cli --cluster create`).
 */
export const REDIS_TOPOLOGIES: [name: string, start: () => Promise<SharedRedis>][] = [
  [
    'one Redis',
    async () => {
      const redis = await startRedis()
      return { ...redis, target: { kind: 'redis', url: redis.url }, ports: [redis.port] }
    },
  ],
  [
    'a three-master Redis Cluster',
    async () => {
      const cluster = await startRedisCluster(3)
      const nodes = cluster.ports.map((port) => ({ host: '127.0.0.1', port }))
      return { ...cluster, target: { kind: 'cluster', nodes } }
    },
  ],
]

/** Whether redis-server is installed; with REQUIRE_REDIS=1 (CI), its absence is an error. */
export function redisAvailable(): boolean {
  const available = hasRedisServer()
  if (!available && process.env.REQUIRE_REDIS === '1')
    throw new Error('REQUIRE_REDIS=1 but redis-server is not installed (apt-get install redis-server).')
  if (!available)
    console.warn('redis-server is not installed: the shared-store tests are skipped (CI installs it).')
  return available
}
