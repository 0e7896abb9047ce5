import { startRedisCluster } from '../../../scripts/lib/redis-cluster.ts'
import { hasRedisServer, startRedis } from '../../../scripts/lib/redis-server.ts'

/** A Redis the test started for `--store`: one server, or a cluster. */
export interface SharedRedis {
  /** What `--store` takes: `redis://...` or `redis-cluster://...`. */
  url: string
  stop(): Promise<void>
}

/**
 * The topologies every shared-store test runs on: one Redis, and a three-master Redis Cluster the test starts
 * on loopback (`redis-server --cluster-enabled yes`, `redis-cli --cluster create`).
 */
export const REDIS_TOPOLOGIES: [name: string, start: () => Promise<SharedRedis>][] = [
  ['one Redis', () => startRedis()],
  ['a three-master Redis Cluster', () => startRedisCluster(3)],
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
