// The mock's dashboard ("Settings, API Keys") running against the in-browser mock of this tab: the same page
// the standalone mock serves at /_mock/dashboard. Revoke a key here, go back to the app: it gets 401.
import { startMockWorker } from 'voice-api-kit/mocks/browser'
import { mountDashboard } from 'voice-api-kit/mocks/dashboard'
import 'voice-api-kit/mocks/dashboard.css'

const root = document.getElementById('dashboard')
if (root) {
  await startMockWorker({ quiet: true })
  await mountDashboard(root, { controlUrl: '/_mock', backLink: { href: '/', label: 'Back to the app' } })
    .ready
  document.body.dataset.ready = 'true'
}
