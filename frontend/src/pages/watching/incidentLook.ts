import type { IncidentSeverity, IncidentStatus } from '@/api/watching'

// How an incident's status and severity look wherever it is shown (list, drawer).
export const STATUS_TAG: Record<IncidentStatus, 'danger' | 'warning' | 'success'> = {
  open: 'danger',
  acknowledged: 'warning',
  resolved: 'success',
}
export const SEVERITY_TAG: Record<IncidentSeverity, 'danger' | 'warning' | 'primary' | 'info'> = {
  critical: 'danger',
  high: 'warning',
  medium: 'primary',
  low: 'info',
}
