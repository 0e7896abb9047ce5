import { createRequire } from 'node:module'

/** The state autocannon keeps per connection between the requests of a sequence. */
export interface SequenceContext {
  agentId?: string
}

/** One request of the sequence each connection cycles through. */
export interface SequenceRequest {
  method?: string
  path?: string
  headers?: Record<string, string>
  body?: string
  setupRequest?: (request: SequenceRequest, context: SequenceContext) => SequenceRequest
  onResponse?: (status: number, body: string, context: SequenceContext) => void
}

interface Histogram {
  average: number
  p50: number
  p99: number
  max: number
  total: number
}

/** The part of autocannon's result the soak reports. */
export interface LoadResult {
  requests: Histogram
  latency: Histogram
  errors: number
  timeouts: number
  statusCodeStats?: Record<string, { count: number }>
}

interface LoadInstance extends PromiseLike<LoadResult> {
  on(event: 'response', listener: () => void): void
  stop(): void
}

/** The options of autocannon the soak uses. */
export interface LoadOptions {
  url: string
  connections: number
  /** Requests per second across all connections: a fixed load. */
  overallRate: number
  duration: number
  timeout: number
  headers: Record<string, string>
  requests: SequenceRequest[]
}

// autocannon ships no types: it is loaded through require and typed here, to the extent used.
const load = createRequire(import.meta.url)('autocannon') as (options: LoadOptions) => LoadInstance

/** Starts autocannon; the instance resolves with its result when the duration is over. */
export function startLoad(options: LoadOptions): LoadInstance {
  return load(options)
}
