import { httpJson } from './http-json.ts'
import { agentBody } from './targets.ts'

/** Every write the server acknowledged (2xx), by object; the state after a restart must show all of them. */
export interface Acknowledged {
  agents: Map<string, string>
  deletedAgents: Set<string>
  members: Map<string, string>
  keys: Map<string, { value: string; revoked: boolean }>
  /** The largest clock offset a clock advance answered with. */
  clockOffset: number
  /** Objects whose last write got no answer (the server died): either state is right. */
  uncertain: Set<string>
  /** Count of acknowledged writes and their latencies (ms). */
  writes: number
  latencies: number[]
}

export function emptyAcknowledged(): Acknowledged {
  return {
    agents: new Map(),
    deletedAgents: new Set(),
    members: new Map(),
    keys: new Map(),
    clockOffset: 0,
    uncertain: new Set(),
    writes: 0,
    latencies: [],
  }
}

interface LoadContext {
  origin: string
  key: string
  accountId: string
  acked: Acknowledged
}

/** A create refused because the collection holds all the mock keeps (a documented answer; nothing was created). */
const isFull = (r: { status: number; body: { error?: { code?: string } } }) =>
  r.status === 409 && r.body?.error?.code === 'limit_reached'

/** One write by a worker: creates, renames, deletes, invites, key creation and revocation, clock advances. */
async function step(ctx: LoadContext, worker: number, n: number, own: { agents: string[]; keys: string[] }) {
  const { origin, key, accountId, acked } = ctx
  const label = `w${worker}-${n}-${Math.random().toString(36).slice(2, 8)}`
  const kind = n % 7
  let target: string | undefined
  const started = performance.now()
  const ack = () => {
    acked.writes++
    acked.latencies.push(performance.now() - started)
  }
  try {
    if (kind === 0 || kind === 1 || (kind === 2 && own.agents.length === 0)) {
      const r = await httpJson(origin, 'POST', '/v1/agents', { key, body: agentBody(label) })
      if (isFull(r)) return
      if (r.status !== 201) throw new Error(`createAgent ${r.status}`)
      acked.agents.set(r.body.id, label)
      own.agents.push(r.body.id)
      ack()
    } else if (kind === 2) {
      target = own.agents[n % own.agents.length] as string
      const r = await httpJson(origin, 'PATCH', `/v1/agents/${target}`, { key, body: { name: label } })
      if (r.status !== 200) throw new Error(`updateAgent ${r.status}`)
      acked.agents.set(target, label)
      ack()
    } else if (kind === 3 && own.agents.length > 1) {
      target = own.agents.shift() as string
      const r = await httpJson(origin, 'DELETE', `/v1/agents/${target}`, { key })
      if (r.status !== 200) throw new Error(`deleteAgent ${r.status}`)
      acked.agents.delete(target)
      acked.deletedAgents.add(target)
      ack()
    } else if (kind === 3 || kind === 4) {
      const email = `${label}@example.com`
      const r = await httpJson(origin, 'POST', '/v1/team-members', { key, body: { email, role: 'viewer' } })
      if (isFull(r)) return
      if (r.status !== 201) throw new Error(`inviteTeamMember ${r.status}`)
      acked.members.set(r.body.id, email)
      ack()
    } else if (kind === 5 || own.keys.length === 0) {
      const r = await httpJson(origin, 'POST', `/_mock/accounts/${accountId}/keys`, {
        body: { type: 'secret', name: label },
      })
      if (isFull(r)) return
      if (r.status !== 201) throw new Error(`createKey ${r.status}`)
      acked.keys.set(r.body.id, { value: r.body.value, revoked: false })
      own.keys.push(r.body.id)
      ack()
    } else if (n % 2 === 0) {
      target = own.keys.shift() as string
      const r = await httpJson(origin, 'POST', `/_mock/keys/${target}/revoke`)
      if (r.status !== 200) throw new Error(`revokeKey ${r.status}`)
      const stored = acked.keys.get(target)
      if (stored) stored.revoked = true
      ack()
    } else {
      const r = await httpJson(origin, 'POST', '/_mock/clock/advance', { body: { seconds: 1 } })
      if (r.status !== 200) throw new Error(`advanceClock ${r.status}`)
      acked.clockOffset = Math.max(acked.clockOffset, r.body.offset_seconds)
      ack()
    }
  } catch (error) {
    if (target) acked.uncertain.add(target)
    throw error
  }
}

/** Runs `workers` sequential writers until `stop()`; a writer ends at its first failed request. */
export function startWriteLoad(ctx: LoadContext, workers: number) {
  let stopped = false
  const failures: string[] = []
  const done = Promise.all(
    Array.from({ length: workers }, async (_, worker) => {
      const own = { agents: [] as string[], keys: [] as string[] }
      for (let n = 0; !stopped; n++) {
        try {
          await step(ctx, worker, n, own)
        } catch (error) {
          failures.push((error as Error).message)
          return
        }
      }
    }),
  )
  return {
    done,
    failures,
    stop() {
      stopped = true
    },
  }
}
