// What changed between two versions of a check, field by field, in the form's own words.
import type { CheckVersion } from '@/api/types'
import { translate } from '@/i18n'

export interface DiffRow {
  field: string
  title: string
  before: string
  after: string
  changed: boolean
}

export interface DiffLabels {
  titles?: Record<string, string>
  /** Per field, option value → label (datasource ids → names, `le` → "<= (at most)"). */
  options?: Record<string, Record<string, string>>
  /** Fields in the form's order; others follow alphabetically. */
  order?: string[]
}

export function displayValue(value: unknown, labels?: Record<string, string>): string {
  if (value === undefined || value === null || value === '') return '—'
  if (Array.isArray(value)) {
    if (value.every((v) => typeof v !== 'object')) return value.map((v) => labels?.[String(v)] ?? String(v)).join(', ')
    return value.map((v) => displayValue(v)).join('\n')
  }
  if (typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${k}: ${displayValue(v)}`)
      .join(', ')
  }
  return labels?.[String(value)] ?? String(value)
}

export function diffVersions(a: CheckVersion, b: CheckVersion, labels: DiffLabels = {}): DiffRow[] {
  const order = labels.order ?? []
  const fields = [...new Set([...Object.keys(a.params), ...Object.keys(b.params)])].sort((x, y) => {
    const ix = order.indexOf(x)
    const iy = order.indexOf(y)
    if (ix >= 0 && iy >= 0) return ix - iy
    if (ix >= 0) return -1
    if (iy >= 0) return 1
    return x.localeCompare(y)
  })
  const row = (field: string, title: string, before: unknown, after: unknown): DiffRow => ({
    field,
    title,
    before: displayValue(before, labels.options?.[field]),
    after: displayValue(after, labels.options?.[field]),
    changed: JSON.stringify(before ?? null) !== JSON.stringify(after ?? null),
  })
  return [
    row('name', translate('checks.versions.name'), a.name, b.name),
    ...fields.map((f) => row(f, labels.titles?.[f] ?? f, a.params[f], b.params[f])),
  ]
}
