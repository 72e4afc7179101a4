import { API, http } from '@/http'

/** Checks of a scope by the status of their latest result; `score` = passed ÷ (passed + failed) × 100. */
export interface HealthTally {
  score: number | null
  checks: number
  passed: number
  failed: number
  errors: number
  unknown: number
  never_run: number
}

export interface DimensionTally extends HealthTally {
  dimension: string
}

export interface TrendDay {
  date: string
  score: number | null
  passed: number
  failed: number
  errors: number
  unknown: number
}

export interface CatalogState {
  datasource: number
  datasource_name: string
  tables: number
  tables_checked: number
  known: boolean
  taken_at: string | null
  message: string
}

export interface Coverage {
  definition: string
  tables: number
  tables_checked: number
  table_share: number | null
  columns: number
  columns_checked: number
  column_share: number | null
  catalogs: CatalogState[]
  /** The first tables of the catalog that no check reads. */
  unchecked_tables: { datasource: number; datasource_name: string; table: string }[]
}

export interface UnresolvedIncident {
  id: number
  rule_check_id: number
  check_name: string
  status: 'open' | 'acknowledged'
  outcome: string
  blocking: boolean
  opened_at: string
  partition_key: string
}

export interface IncidentTiming {
  definition: string
  statistic: string
  window_days: number
  open: number
  acknowledged: number
  opened_in_window: number
  acknowledged_in_window: number
  resolved_in_window: number
  median_seconds_to_acknowledge: number | null
  median_seconds_to_resolve: number | null
  unresolved: UnresolvedIncident[]
}

export interface TableHealthRow extends HealthTally {
  datasource: number
  datasource_name: string
  table: string
}

export interface Health {
  scope: { kind: 'platform' | 'datasource' | 'table'; datasource: number | null; datasource_name: string; table: string }
  formula: string
  overall: HealthTally
  dimensions: DimensionTally[]
  trend: { definition: string; days: TrendDay[] }
  coverage: Coverage
  incidents: IncidentTiming
  tables_with_checks: number
  worst_tables: TableHealthRow[]
  checks?: { id: number; name: string; dimension: string; status: string | null }[]
  /** The platform only: each datasource's tally, by name. */
  datasources?: (HealthTally & { datasource: number; datasource_name: string })[]
}

export const platformHealth = () => http.get<Health>(`${API}/health/`)
export const datasourceHealth = (id: number) => http.get<Health>(`${API}/health/datasources/${id}/`)
export const tableHealth = (datasource: number, table: string) => http.get<Health>(`${API}/health/tables/`, { datasource, table })
/** Reads the datasource's catalog again (tables and columns), answering its coverage. */
export const refreshCatalog = (id: number) => http.post<{ coverage: Coverage }>(`${API}/health/datasources/${id}/catalog/`)
