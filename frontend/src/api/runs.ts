import { API, http, type Page, type Paging } from '@/http'
import type { Run, RunListRow } from './types'

export interface RunFilters {
  /** One status or several, comma-separated: `queued,running`. */
  status?: string
  check?: number | ''
  since?: string
  /** A run's number (`123`, `#123`), part of one of its checks' names, or its author. */
  search?: string
}

/** Answers 202 at once with the queued run; the run page polls getRun until it ends. */
export const startRun = (checks: number[]) => http.post<Run>(`${API}/runs/`, { checks, trigger: 'manual' })
export const getRun = (id: number, signal?: AbortSignal) => http.get<Run>(`${API}/runs/${id}/`, undefined, signal)
/** A new attempt of a finished run: the same check versions and frozen batches (202, queued). */
export const retryRun = (id: number) => http.post<Run>(`${API}/runs/${id}/retry/`)
/** One page of runs, newest first, filtered by the server. */
export const listRuns = (filters: RunFilters & Paging = {}) => http.get<Page<RunListRow>>(`${API}/runs/`, { ...filters })

export const FINISHED = ['passed', 'failed', 'error', 'unknown', 'cancelled']
export const ACTIVE = 'queued,running'
export const isFinished = (run: Pick<Run, 'status'>) => FINISHED.includes(run.status)
