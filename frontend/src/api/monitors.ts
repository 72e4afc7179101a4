import { API, http, type Page } from '@/http'

/** monitors/: volume, freshness and schema-change checks switched on for a table, on one schedule. */
export type MonitorKind = 'volume' | 'freshness' | 'schema'

export interface Monitor {
  id: number
  datasource: number
  datasource_name: string
  table: string | null
  kinds: MonitorKind[]
  time_column: string | null
  volume_by_date: boolean
  volume_comparison: string
  freshness_max_age: number
  freshness_unit: 'hours' | 'minutes'
  failure_strategy: string
  enabled: boolean
  /** null while the monitor has no schedule (made paused). */
  schedule: string | null
  timezone: string | null
  schedule_id: number | null
  schedule_description: string | null
  next_runs: string[]
  checks: { id: number; name: string; kind: MonitorKind; table: string; template: string }[]
  owner: string | null
  may_change: boolean
  created_at: string
  updated_at: string
  skipped?: { table: string; kind: string; reason: string }[]
}

export interface MonitorRequest {
  datasource: number
  table: string
  kinds: MonitorKind[]
  time_column?: string
  freshness_max_age?: number
  freshness_unit?: 'hours' | 'minutes'
  schedule?: string
}

export const listMonitors = (datasource: number, table: string) =>
  http.get<Page<Monitor>>(`${API}/monitors/`, { datasource, table })
export const switchOnMonitor = (body: MonitorRequest) => http.post<Monitor>(`${API}/monitors/`, body)
export const pauseMonitor = (id: number, enabled: boolean) => http.patch<Monitor>(`${API}/monitors/${id}/`, { enabled })
export const deleteMonitor = (id: number) => http.delete<void>(`${API}/monitors/${id}/`)
