/** Resource shapes as the engine stores them; the wire shapes are the contract's (openapi/generated). */
export interface Agent {
  id: string
  object: 'agent'
  created_at: string
  updated_at: string
  system_prompt?: string
  webhook_url?: string | null
  metadata?: Record<string, string>
  [field: string]: unknown
}

export interface CallLog {
  id: string
  object: 'call_log'
  agent_id: string
  channel: 'phone' | 'web'
  direction: 'inbound' | 'outbound'
  status: string
  started_at: string
  ended_at: string | null
  duration_seconds: number | null
  cost_usd: number | null
  analysis: { summary: string; sentiment: 'positive' | 'neutral' | 'negative'; successful: boolean } | null
  transcript: unknown[]
  created_at: string
  [field: string]: unknown
}

export interface IntegrationRecord {
  id: string
  object: 'integration'
  name: string
  enabled: boolean
  status: 'not_connected' | 'connected' | 'error'
  config: Record<string, string | number | boolean>
  credential_hint: string | null
  connected_at: string | null
  updated_at: string
}

export interface TeamMember {
  id: string
  object: 'team_member'
  email: string
  role: 'owner' | 'admin' | 'editor' | 'viewer'
  status: 'invited' | 'active'
  created_at: string
  [field: string]: unknown
}
