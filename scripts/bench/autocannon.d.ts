/** The part of autocannon's API the bench uses (the package ships no types). */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events'

  export interface Histogram {
    average: number
    mean: number
    stddev: number
    min: number
    max: number
    p50: number
    p99: number
    total: number
  }

  export interface Result {
    requests: Histogram & { sent: number }
    latency: Histogram
    throughput: Histogram
    errors: number
    timeouts: number
    non2xx: number
    duration: number
    statusCodeStats: Record<string, { count: number }>
  }

  export interface Options {
    url: string
    connections?: number
    duration?: number
    pipelining?: number
    method?: string
    headers?: Record<string, string>
    body?: string
    timeout?: number
    /** Called before each request is sent; what it returns is sent (e.g. another header). */
    requests?: { setupRequest?: (request: { headers?: Record<string, string> }) => object }[]
  }

  export interface Instance extends EventEmitter, PromiseLike<Result> {
    stop(): void
  }

  export default function autocannon(options: Options): Instance
}
