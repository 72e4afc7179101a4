import { API, http } from '@/http'
import type { Run } from './types'

/** Answers 202 at once with the queued run; the run page polls getRun until it ends. */
export const startRun = (checks: number[]) => http.post<Run>(`${API}/runs/`, { checks, trigger: 'manual' })
export const getRun = (id: number, signal?: AbortSignal) => http.get<Run>(`${API}/runs/${id}/`, undefined, signal)
export const listRuns = (params: { status?: string; check?: number | ''; limit?: number } = {}) =>
  http.get<Run[]>(`${API}/runs/`, { ...params })

export const FINISHED = ['passed', 'failed', 'error', 'cancelled']
export const isFinished = (run: Pick<Run, 'status'>) => FINISHED.includes(run.status)
