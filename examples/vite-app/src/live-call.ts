import type { ApiClient } from './api-client.ts'
import type { ApiTarget } from './connect.ts'
import { el } from './render.ts'

interface CallLog {
  id: string
  status: string
  transcript: { role: string; text: string }[]
}

const FINAL = new Set(['completed', 'no_answer', 'busy', 'failed', 'canceled'])

/**
 * "A live call in your UI": starts a simulated call on the in-browser mock, shows its status and transcript as
 * `GET /v1/call-logs/{id}` reports them, and lists its events as `mock.onEvent` hears them (no HTTP receiver).
 */
export function setUpLiveCall(
  target: ApiTarget,
  api: ApiClient,
  firstAgentId: () => string | undefined,
  onChange: () => void,
) {
  const section = document.getElementById('live-call') as HTMLElement
  const button = document.getElementById('start-call') as HTMLButtonElement
  const status = document.getElementById('live-call-status') as HTMLElement
  const transcript = document.getElementById('live-call-transcript') as HTMLElement
  const events = document.getElementById('live-call-events') as HTMLElement
  const calls = target.calls
  if (!calls) {
    section.hidden = true
    return
  }
  calls.onEvent((event) => {
    events.append(el('li', { 'data-type': event.type }, `${event.type} · ${event.data.object.status}`))
    onChange()
  })

  async function follow(id: string) {
    for (;;) {
      const result = await api.get<CallLog>(`/call-logs/${id}`)
      if (!result.ok) return
      const log = result.data
      status.dataset.callStatus = log.status
      status.textContent = `Call ${log.id}: ${log.status.replace('_', ' ')}`
      transcript.replaceChildren(
        ...log.transcript.map((line) => el('li', { class: line.role }, `${line.role}: ${line.text}`)),
      )
      if (FINAL.has(log.status)) return
      await new Promise((resolve) => setTimeout(resolve, 500))
    }
  }

  button.addEventListener('click', async () => {
    const agentId = firstAgentId()
    if (!agentId) return
    button.disabled = true
    events.replaceChildren()
    try {
      const log = await calls.calls.start({ agent_id: agentId, ring_seconds: 2, duration_seconds: 8 })
      onChange()
      await follow(log.id)
    } finally {
      button.disabled = false
    }
  })
}
