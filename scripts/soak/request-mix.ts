import type { SequenceRequest } from './autocannon.ts'

const AGENT = JSON.stringify({
  name: 'soak agent',
  voice: { provider: 'elevenlabs', voice_id: 'rachel' },
  llm: { provider: 'openai', model: 'gpt-4o-mini' },
})

/**
 * The cycle every connection repeats: reads of each resource, an agent created, renamed and deleted
 * (so the stored state stays the same size), an unknown route. Nothing accumulates by design, so
 * memory that grows is memory that leaks.
 */
export function requestMix(): SequenceRequest[] {
  const agentPath = (request: SequenceRequest, context: { agentId?: string }) => ({
    ...request,
    path: `/v1/agents/${context.agentId ?? 'agt_missing'}`,
  })
  return [
    { method: 'GET', path: '/v1/user' },
    { method: 'GET', path: '/v1/agents?limit=10' },
    { method: 'GET', path: '/v1/call-logs?limit=10' },
    {
      method: 'POST',
      path: '/v1/agents',
      body: AGENT,
      onResponse: (status, body, context) => {
        context.agentId = status === 201 ? (JSON.parse(body) as { id: string }).id : undefined
      },
    },
    { method: 'PATCH', body: '{"name":"soak agent renamed"}', setupRequest: agentPath },
    { method: 'GET', setupRequest: agentPath },
    { method: 'DELETE', setupRequest: agentPath },
    { method: 'GET', path: '/v1/analytics/calls?granularity=day' },
    { method: 'GET', path: '/v1/integrations' },
    { method: 'GET', path: '/v1/team-members' },
    { method: 'GET', path: '/v1/no-such-route' },
  ]
}
