import { API, http, type Page } from '@/http'
import type { components } from './schema'
import { translate } from '@/i18n'
// Schedules, alert channels, incidents and notifications (watching/ on the server). Every list
// pages on the server: {count, next, previous, results}.

/** `checks` is write-only to the schema, yet every answer carries it (the serializer adds it). */
export type Schedule = components['schemas']['Schedule'] & { checks: number[] }

export interface ScheduleInput {
  name: string
  cron: string
  timezone: string
  checks: number[]
  enabled: boolean
  biz_date_offset_days: number
}

export interface CronPreview {
  cron: string
  timezone: string
  description: string
  next_runs: string[]
}

export type ChannelKind = 'email' | 'webhook' | 'slack' | 'dingtalk' | 'wecom' | 'feishu' | 'telegram' | 'apprise'
export type ChannelEvent = 'fail' | 'error' | 'recovery'

export interface AlertChannel {
  id: number
  name: string
  kind: ChannelKind
  has_target: boolean
  target_preview: string
  notify_on: ChannelEvent[]
  checks: number[]
  datasources: number[]
  /** What the signed-in user may do with it (lib/permissions.ts `can`). */
  permissions?: string[]
  created_at: string
  updated_at: string
}

export interface AlertChannelInput {
  name: string
  kind: ChannelKind
  target?: string
  notify_on: ChannelEvent[]
  checks: number[]
  datasources: number[]
}

export type IncidentStatus = components['schemas']['IncidentStatusEnum']
export type IncidentSeverity = components['schemas']['SeverityEnum']
export const SEVERITIES: IncidentSeverity[] = ['critical', 'high', 'medium', 'low']

export type Incident = components['schemas']['Incident']

export interface IncidentComment {
  id: number
  author: string | null
  created_at: string
  text: string
}

/** One change of an incident's status, assignee or severity; `actor` null: the platform. */
export interface IncidentChange {
  at: string
  actor: string | null
  field: 'status' | 'assignee' | 'severity'
  from_value: string
  to_value: string
  note: string
}

export interface IncidentDetail extends Incident {
  comments: IncidentComment[]
  history: IncidentChange[]
}

export interface IncidentFilters {
  search?: string
  status?: string
  severity?: string
  /** A user id, `me` or `none`. */
  assignee?: string
  datasource?: number | ''
  check?: number
  ordering?: string
}

/** A failing check of a run whose messages are muted now. */
export interface MutedCheck {
  check: number
  check_name: string
  until: string
  reason: string
  muted_by: string | null
  created_at: string
}

export interface Notification {
  id: number
  channel: number | null
  channel_name: string
  channel_kind: string
  run: number | null
  incidents: number[]
  event: 'run' | 'test'
  subject: string
  body: string
  status: 'queued' | 'sending' | 'retrying' | 'sent' | 'failed'
  attempt: number
  error: string
  created_at: string
  sent_at: string | null
  attempts: { number: number; at: string; ok: boolean; error: string }[]
}

export interface CheckMute {
  check: number
  until: string | null
  reason: string
  muted_by: string | null
  created_at: string | null
}

// Labels of the kinds that have words in them come from the catalogue (getters: read when shown).
export const CHANNEL_KINDS: { value: ChannelKind; readonly label: string; placeholder: string }[] = [
  {
    value: 'email',
    get label() {
      return translate('common.channel.email')
    },
    placeholder: 'ops@example.com, dba@example.com',
  },
  {
    value: 'webhook',
    get label() {
      return translate('common.channel.webhook')
    },
    placeholder: 'https://ci.example.com/hooks/data-quality?token=…',
  },
  { value: 'slack', label: 'Slack', placeholder: 'https://hooks.slack.com/services/T000/B000/XXXXXXXX' },
  { value: 'dingtalk', label: 'DingTalk', placeholder: 'https://oapi.dingtalk.com/robot/send?access_token=…' },
  { value: 'wecom', label: 'WeCom', placeholder: 'https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=…' },
  { value: 'feishu', label: 'Feishu / Lark', placeholder: 'https://open.feishu.cn/open-apis/bot/v2/hook/…' },
  { value: 'telegram', label: 'Telegram', placeholder: 'tgram://123456789:AAE…/-1001234567890' },
  {
    value: 'apprise',
    get label() {
      return translate('common.channel.apprise')
    },
    placeholder: 'msteams://…, discord://…, ntfys://…',
  },
]

/** A firing time as the server gives it (ISO, already in the schedule's timezone) → "2026-12-01 02:00". */
export const slotText = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)}`

const S = `${API}/schedules/`
export const listSchedules = (params: { check?: number; page?: number; page_size?: number } = {}) =>
  http.get<Page<Schedule>>(S, { ...params })
export const createSchedule = (body: ScheduleInput) => http.post<Schedule>(S, body)
export const updateSchedule = (id: number, body: Partial<ScheduleInput>) => http.patch<Schedule>(`${S}${id}/`, body)
export const deleteSchedule = (id: number) => http.delete(`${S}${id}/`)
export const previewCron = (cron: string, timezone: string, signal?: AbortSignal) =>
  http.get<CronPreview>(`${S}preview/`, { cron, timezone }, signal)

const C = `${API}/alert-channels/`
export const listChannels = (params: { check?: number; page?: number; page_size?: number } = {}) =>
  http.get<Page<AlertChannel>>(C, { ...params })
export const createChannel = (body: AlertChannelInput) => http.post<AlertChannel>(C, body)
export const updateChannel = (id: number, body: Partial<AlertChannelInput>) => http.patch<AlertChannel>(`${C}${id}/`, body)
export const deleteChannel = (id: number) => http.delete(`${C}${id}/`)
export const testChannel = (id: number) => http.post<{ ok: boolean; message: string }>(`${C}${id}/test/`)

const I = `${API}/incidents/`
export const listIncidents = (params: IncidentFilters & { page?: number; page_size?: number } = {}) =>
  http.get<Page<Incident>>(I, { ...params })
export const getIncident = (id: number) => http.get<IncidentDetail>(`${I}${id}/`)
export const acknowledgeIncident = (id: number) => http.post<IncidentDetail>(`${I}${id}/acknowledge/`)
export const resolveIncident = (id: number, note: string) => http.post<IncidentDetail>(`${I}${id}/resolve/`, { note })
export const updateIncident = (id: number, body: { assignee?: string | null; severity?: IncidentSeverity; note?: string }) =>
  http.patch<IncidentDetail>(`${I}${id}/`, body)
export const commentOnIncident = (id: number, text: string) => http.post<IncidentComment>(`${I}${id}/comments/`, { text })
export const incidentAssignees = (id: number, search = '') =>
  http.get<{ id: number; username: string }[]>(`${I}${id}/assignees/`, { search })
export const mutedChecksOfRun = (run: number) => http.get<MutedCheck[]>(`${API}/muted-checks/`, { run })

export const listNotifications = (params: { run?: number; page?: number; page_size?: number } = {}) =>
  http.get<Page<Notification>>(`${API}/notifications/`, { ...params })

export const getMute = (check: number) => http.get<CheckMute>(`${API}/checks/${check}/mute/`)
export const muteCheck = (check: number, until: string, reason = '') =>
  http.post<CheckMute>(`${API}/checks/${check}/mute/`, { until, reason })
export const unmuteCheck = (check: number) => http.delete(`${API}/checks/${check}/mute/`)
