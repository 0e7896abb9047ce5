/** One request the load phase drives against every server. */
export interface LoadCase {
  id: 'list-agents' | 'get-user' | 'create-agent'
  label: string
  method: 'GET' | 'POST'
  /** Path on the mock, under `/v1`. */
  path: string
  body?: string
}

/** A valid `AgentCreateRequest` (required fields and a prompt; the rest takes the contract's defaults). */
const NEW_AGENT = {
  name: 'Bench front desk',
  system_prompt: 'You answer calls for Bright Smile Dental and book appointments.',
  voice: { provider: 'elevenlabs', voice_id: 'EXAVITQu4vr4xnSDxMaL' },
  llm: { provider: 'openai', model: 'gpt-4o-mini' },
}

/** The three authenticated requests of the issue, in the order they run (reads before the write). */
export const LOAD_CASES: readonly LoadCase[] = [
  { id: 'list-agents', label: 'GET /v1/agents', method: 'GET', path: '/v1/agents' },
  { id: 'get-user', label: 'GET /v1/user', method: 'GET', path: '/v1/user' },
  {
    id: 'create-agent',
    label: 'POST /v1/agents',
    method: 'POST',
    path: '/v1/agents',
    body: JSON.stringify(NEW_AGENT),
  },
]

/** Request headers of a case: the bearer key, and a JSON content type for a body. */
export function caseHeaders(loadCase: LoadCase, secretKey: string): Record<string, string> {
  const headers: Record<string, string> = { authorization: `Bearer ${secretKey}` }
  if (loadCase.body !== undefined) headers['content-type'] = 'application/json'
  return headers
}

/** Page sizes of the timed call-log pages: the contract's default and its maximum (the most work a page can be). */
export const LIST_PAGE_LIMITS = [20, 100] as const
