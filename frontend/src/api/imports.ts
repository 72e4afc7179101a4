import { API, http } from '@/http'
import type { components } from './schema'

type Schemas = components['schemas']
export type DolphinSchedulerImport = Schemas['DolphinSchedulerImport']
export type DolphinSchedulerImported = Schemas['DolphinSchedulerImported']
export type DolphinSchedulerSkipped = Schemas['DolphinSchedulerSkipped']

export interface DolphinSchedulerOptions {
  /** The export as DolphinScheduler wrote it (parsed JSON). */
  export: unknown
  /** DolphinScheduler datasource id → a datasource id here. */
  datasource_map: Record<string, number>
  dry_run: boolean
  accept_partial: boolean
  ds_version: '3.2' | '3.1'
  create_schedules: boolean
}

/** 200 with a dry run's answer, 201 when the checks were created; 400 when refused (nothing created). */
export const importDolphinScheduler = (body: DolphinSchedulerOptions) =>
  http.post<DolphinSchedulerImport>(`${API}/imports/dolphinscheduler/`, body)

/** The DolphinScheduler datasource ids the export's DATA_QUALITY tasks name, to map each one here. */
export function dolphinSchedulerDatasourceIds(exported: unknown): string[] {
  const ids = new Set<string>()
  const workflows = Array.isArray(exported) ? exported : [exported]
  for (const workflow of workflows) {
    const tasks = (workflow as { taskDefinitionList?: unknown })?.taskDefinitionList
    if (!Array.isArray(tasks)) continue
    for (const task of tasks as Array<{ taskType?: unknown; taskParams?: unknown }>) {
      if (String(task?.taskType ?? '').toUpperCase() !== 'DATA_QUALITY') continue
      let params = task.taskParams
      if (typeof params === 'string') {
        try {
          params = JSON.parse(params)
        } catch {
          continue
        }
      }
      const given = (params as { ruleInputParameter?: Record<string, unknown> } | null)?.ruleInputParameter
      for (const key of ['src_datasource_id', 'target_datasource_id']) {
        const value = given?.[key]
        if (value !== undefined && value !== null && String(value).trim() !== '') ids.add(String(value).trim())
      }
    }
  }
  return [...ids].sort((a, b) => a.length - b.length || a.localeCompare(b))
}
