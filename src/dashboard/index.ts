export { Dashboard, type DashboardOptions, type LiveState } from './dashboard.js';
export { isLoopback } from './dashboard-server.js';
export type { DashboardFrame } from './dashboard-frame.js';
