/**
 * The datasource form's values in and out (pages/datasources/DatasourceForm.vue): what an admin
 * types, the body the API takes (only the fields of the chosen type; `password` only when typed,
 * so an edit keeps the stored one), and the API's 400 messages placed under their fields. The
 * server decides what is valid (`Datasource.validate_config`); nothing is re-checked here but the
 * options' JSON syntax, which must parse before it can be sent.
 */
import type { Datasource, DatasourceInput, DatasourceType } from '@/api/types'
import type { ApiError } from '@/http'
import { translate } from '@/i18n'

export const TYPES: Array<{ value: DatasourceType; label: string }> = [
  { value: 'postgresql', label: 'PostgreSQL' },
  { value: 'mysql', label: 'MySQL / MariaDB' },
  {
    value: 'file',
    get label() {
      return translate('datasources.form.typeFiles') // read at render: the current language's word
    },
  },
]
export const FORMATS = [
  { value: 'parquet', label: 'Parquet' },
  { value: 'csv', label: 'CSV' },
  {
    value: 'json',
    get label() {
      return translate('datasources.form.formatJsonLines')
    },
  },
  { value: 'orc', label: 'ORC' },
]
/** What the server fills in when the port is left empty (datasources/models.py DEFAULT_PORTS). */
export const DEFAULT_PORTS: Record<string, number> = { postgresql: 5432, mysql: 3306 }

export interface DatasourceDraft {
  name: string
  type: DatasourceType
  description: string
  host: string
  port: number | null
  database: string
  username: string
  /** Typed by the admin; '' leaves the stored password as it is. */
  password: string
  clearPassword: boolean
  path: string
  format: string
  optionsText: string
  allowed_groups: string[]
}

/** The fields the form shows errors under; anything else the API names goes above the form. */
export const FORM_FIELDS = [
  'name',
  'type',
  'description',
  'host',
  'port',
  'database',
  'username',
  'password',
  'path',
  'format',
  'options',
  'allowed_groups',
] as const

export function draftOf(datasource?: Datasource): DatasourceDraft {
  const options = datasource?.options ?? {}
  return {
    name: datasource?.name ?? '',
    type: (datasource?.type as DatasourceType) ?? 'postgresql',
    description: datasource?.description ?? '',
    host: datasource?.host ?? '',
    port: datasource?.port ?? null,
    database: datasource?.database ?? '',
    username: datasource?.username ?? '',
    password: '',
    clearPassword: false,
    path: datasource?.path ?? '',
    format: datasource?.format ?? '',
    optionsText: Object.keys(options).length ? JSON.stringify(options, null, 2) : '',
    allowed_groups: [...(datasource?.allowed_groups ?? [])],
  }
}

export type Built = { body: Partial<DatasourceInput>; problems: Record<string, string> }

/**
 * The body to send. A new datasource or a retyped password sends `password`; an edit that leaves
 * it empty sends none (the stored one stays, for saving and for "Test connection" alike).
 */
export function bodyOf(draft: DatasourceDraft, editing: boolean): Built {
  const problems: Record<string, string> = {}
  let options: DatasourceInput['options'] = {}
  if (draft.optionsText.trim()) {
    try {
      const parsed: unknown = JSON.parse(draft.optionsText)
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object')
      options = parsed as DatasourceInput['options']
    } catch {
      problems.options = translate('datasources.form.optionsNotObject', { example: '{"sslmode": "require"}' })
    }
  }
  const isFile = draft.type === 'file'
  const body: Partial<DatasourceInput> = {
    name: draft.name.trim(),
    type: draft.type,
    description: draft.description,
    host: isFile ? '' : draft.host.trim(),
    port: isFile ? null : draft.port,
    database: isFile ? '' : draft.database.trim(),
    username: isFile ? '' : draft.username.trim(),
    path: isFile ? draft.path.trim() : '',
    format: isFile ? draft.format : '',
    options,
    allowed_groups: draft.allowed_groups,
  }
  if (draft.clearPassword || isFile) {
    if (editing || draft.password) body.password = ''
  } else if (draft.password || !editing) {
    body.password = draft.password
  }
  return { body, problems }
}

/** A 400's messages by form field (`port` → under Port), and the rest for the alert above. */
export function placeErrors(error: ApiError): { fields: Record<string, string>; general: string[] } {
  const fields: Record<string, string> = {}
  const general: string[] = []
  const known = new Set<string>(FORM_FIELDS)
  for (const [path, messages] of Object.entries(error.flatFields())) {
    const field = path.split('.')[0]
    if (known.has(field)) fields[field] = [fields[field], ...messages].filter(Boolean).join(' ')
    else general.push(...messages.map((m) => (path ? `${path}: ${m}` : m)))
  }
  if (!Object.keys(fields).length && !general.length) general.push(error.message)
  return { fields, general }
}
