import { createClock } from '../../mocks/engine/clock.ts'
import type { ChangeSet } from '../../mocks/engine/state/change-set.ts'
import type { EngineState } from '../../mocks/engine/state/state.ts'
import type { StateStore } from '../../mocks/engine/state/store.ts'
import type { EngineRequest } from '../../mocks/engine/types.ts'
import { createMockPlatform, type MockPlatform, type MockPlatformOptions } from '../../mocks/platform.ts'
import { conformanceProblems } from '../checks/conformance.ts'
import { CheckSkipped, ContractFailure } from '../checks/failure.ts'
import type { CheckContext } from '../checks/types.ts'
import type { Exchange } from '../http/exchange.ts'
import type { Transport } from '../http/transport.ts'
import { createMockControl, type MockControl } from '../provision/mock-control.ts'
import { prismProblems } from '../runner/prism.ts'
import type { Answer } from './compare-answers.ts'

/** A v1 request as exploration sends it to either side (path relative to the base URL, with its query). */
export interface SideRequest {
  method: string
  path: string
  /** Lower-case names; `authorization` when a key is sent. */
  headers: Record<string, string>
  body?: string
  operationId?: string
}

/** An answer of either side. */
export interface SideAnswer extends Answer {
  /** The URL the request was sent to (a relative `Location` resolves against it). */
  url: string
  text: string
  /** The target's answer breaks the contract on its own (schema, headers): what is wrong. */
  problems: string[]
  /** Set when a proxy in front of the target answered in its place: the answer is not the target's. */
  notFromTarget?: string
}

/** One side of the comparison: the target, or the model (the engine in this process). */
export interface Side {
  send(request: SideRequest): Promise<SideAnswer>
  control: MockControl
}

/**
 * The target, reached through the check's context: every request counts in the run's budget, statistics and
 * API coverage, is never answered from the run's cache, and a 429 comes back as it is. Objects it creates are
 * left out of the run's teardown: exploration deletes its accounts whole.
 */
export function targetSide(ctx: CheckContext, secrets: () => string[]): Side {
  if (!ctx.mock) throw new Error('exploration needs the target control plane (--provision mock)')
  return {
    control: ctx.mock,
    async send(request) {
      const { authorization, ...headers } = request.headers
      let exchange: Exchange
      try {
        exchange = await ctx.call({
          method: request.method,
          path: request.path,
          key: null,
          authorization,
          headers,
          body: request.body,
          operationId: request.operationId,
          fresh: true,
          accept429: true,
          conformance: false,
        })
      } catch (error) {
        // The run's client recognises a proxy's own answers (Prism's) and its reports of broken answers.
        if (error instanceof CheckSkipped) return notFromTarget(error.reason)
        if (error instanceof ContractFailure && error.exchange)
          return judged(ctx, error.exchange, request, secrets())
        throw error
      }
      const body = exchange.response.json as { id?: unknown } | undefined
      const status = exchange.response.status
      if (request.method === 'POST' && status >= 200 && status < 300 && typeof body?.id === 'string')
        ctx.untrack(`${request.path.split('?')[0]}/${body.id}`)
      return judged(ctx, exchange, request, secrets())
    },
  }
}

/** An answer that something in front of the target gave in its place. */
function notFromTarget(reason: string): SideAnswer {
  return { status: 0, headers: {}, body: undefined, url: '', text: '', problems: [], notFromTarget: reason }
}

function judged(ctx: CheckContext, exchange: Exchange, request: SideRequest, secrets: string[]): SideAnswer {
  const { response } = exchange
  const answer: SideAnswer = {
    status: response.status,
    headers: response.headers,
    body: response.json,
    url: exchange.request.url,
    text: response.text,
    problems: [],
  }
  // The contract's answers are JSON; a problem document (RFC 9457) is a proxy's own (Prism's, even to a HEAD).
  if ((response.headers['content-type'] ?? '').startsWith('application/problem+json'))
    answer.notFromTarget = `a proxy answered ${response.status} itself (application/problem+json): the request never reached the implementation`
  // No operation of the contract answers 408: the request's body did not reach the target whole (a proxy or the
  // network held it back, as \`prism proxy\` does with a body of \`null\`), so there is no answer to compare.
  else if (response.status === 408)
    answer.notFromTarget =
      'the target answered 408: the request did not reach it whole (a proxy or the network held its body back)'
  else
    try {
      answer.problems.push(...prismProblems(exchange))
    } catch (error) {
      if (error instanceof CheckSkipped) answer.notFromTarget = error.reason
      else if (error instanceof ContractFailure) answer.problems.push(error.actual)
      else throw error
    }
  // A preflight is no operation of the contract: its answer is compared with the model's, not with a schema.
  if (request.method !== 'HEAD' && request.method !== 'OPTIONS' && !answer.notFromTarget)
    answer.problems.push(...conformanceProblems(ctx.contract, exchange, request.path, secrets))
  return answer
}

/** The model's base URL: nothing is ever sent there, it only names the model's answers. */
export const MODEL_BASE_URL = 'http://model.invalid/v1'

/** The model: a mock platform in this process, whose clock exploration sets (from the target's). */
export interface Model extends Side {
  /** Sets the model's clock (epoch ms). */
  setNow(ms: number): void
  /** Undoes what the last request changed (to run it again at another time). */
  undoLast(): void
  /**
   * From now on, keeps what the model's requests change, until `undo` (all of it undone, newest first: requests
   * sent at once, run again in another order) or `keep`.
   */
  mark(): { undo(): void; keep(): void }
  platform: MockPlatform
  close(): Promise<void>
}

/** How to make the model's platform (a fresh `createMockPlatform` by default; harnesses may give their own). */
export type ModelFactory = (options: MockPlatformOptions) => Promise<MockPlatform>

/**
 * A fresh in-process mock platform as the oracle, on a clock that moves only when exploration sets it, with
 * no demo data (each sequence makes its own accounts). Its control plane is reached like the target's.
 */
export async function createModel(
  startMs: number,
  factory: ModelFactory = createMockPlatform,
): Promise<Model> {
  let nowMs = startMs
  const store = undoableStore()
  const platform = await factory({
    clock: createClock({ realNow: () => nowMs }),
    seedSize: { agents: 0, callLogs: 0, teamMembers: 0 },
    store,
  })
  const root = new URL(MODEL_BASE_URL).origin
  const handle = async (method: string, url: string, headers: Record<string, string>, body?: string) => {
    const request: EngineRequest = {
      method,
      url,
      headers,
      // As the adapters do: an empty body is no body.
      body: body ? body : null,
      baseUrl: MODEL_BASE_URL,
      clientIp: '127.0.0.1',
    }
    return platform.handle(request)
  }
  const transport: Transport = async (request) => {
    const url = new URL(request.url)
    const response = await handle(
      request.method,
      url.pathname + url.search,
      lower(request.headers),
      request.body,
    )
    return { status: response.status, headers: response.headers, text: textOf(response.body) }
  }
  return {
    platform,
    control: createMockControl({ root: `${root}/_mock`, transport }),
    setNow(ms) {
      nowMs = ms
    },
    undoLast: () => store.undoLast(),
    mark: () => store.mark(),
    async send(request) {
      const response = await handle(request.method, `/v1${request.path}`, request.headers, request.body)
      const text = request.method === 'HEAD' ? '' : textOf(response.body)
      return {
        status: response.status,
        headers: response.headers,
        body: text === '' ? undefined : JSON.parse(text),
        url: `${MODEL_BASE_URL}${request.path}`,
        text,
        problems: [],
      }
    },
    close: () => platform.close(),
  }
}

/** The memory store, keeping each step's changes so that the last one, or all since a mark, can be undone. */
function undoableStore(): StateStore & Pick<Model, 'undoLast' | 'mark'> {
  let state: EngineState | undefined
  let last: ChangeSet | undefined
  let marked: ChangeSet[] | undefined
  return {
    description: 'memory (exploration model)',
    load: async () => undefined,
    async attach(engineState) {
      state = engineState
    },
    async run(step) {
      try {
        return step()
      } catch (error) {
        if (state) state.undo(state.take())
        throw error
      } finally {
        last = state?.take()
        if (last) marked?.push(last)
      }
    },
    undoLast() {
      if (state && last) state.undo(last)
      if (last && marked?.at(-1) === last) marked.pop()
      last = undefined
    },
    mark() {
      const kept: ChangeSet[] = []
      marked = kept
      const end = () => {
        if (marked === kept) marked = undefined
      }
      return {
        undo() {
          for (const changes of kept.reverse()) state?.undo(changes)
          kept.length = 0
          last = undefined
          end()
        },
        keep: end,
      }
    },
    async close() {},
  }
}

const lower = (headers: Record<string, string>) =>
  Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]))

function textOf(body: unknown): string {
  if (body === undefined) return ''
  return typeof body === 'string' ? body : JSON.stringify(body)
}
