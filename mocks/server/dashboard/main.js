// @ts-check
// Entry of the page the standalone mock serves at /_mock/dashboard: the control plane is on the same origin.
import { mountDashboard } from './dashboard.js'

const root = document.getElementById('dashboard')
if (root) mountDashboard(root, { controlUrl: '/_mock', docsUrl: '/_mock/docs' })
