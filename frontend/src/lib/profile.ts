// How the table page words a profile: its figures, top values, histogram bins and what changed
// since the previous profile (the API's `changes`), as short lines a person reads.
import type { ColumnProfile, ProfileChanges } from '@/api/profiles'
import { formatCount, formatValue } from '@/lib/format'
import { translate } from '@/i18n'
/** A figure for reading: numbers as the other pages show them; ISO times without the "T", a midnight as its date. */
export function shown(value: unknown): string {
  if (typeof value === 'number') return Number.isInteger(value) ? formatCount(value) : formatValue(value)
  if (value == null) return '—'
  const text = String(value)
  const time = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}(:\d{2})?)(\.\d+)?$/.exec(text)
  if (time) return /^00:00(:00)?$/.test(time[2]) ? time[1] : `${time[1]} ${time[2]}`
  return text
}

/** A top value as the data holds it: NULL and the empty string named, so neither looks like nothing. */
export function topValue(value: unknown): string {
  if (value === null) return 'NULL'
  if (value === '') return translate('tables.profile.emptyValue')
  return shown(value)
}

/** A share (0…1) as a percentage; tiny non-zero shares keep enough places not to read as 0. */
export function percent(share: number | null | undefined): string {
  return share == null ? '—' : `${(100 * share).toFixed(share > 0 && share < 0.001 ? 3 : 1)}%`
}

/** Bar heights in percent of the fullest bin. */
export function bars(column: ColumnProfile): number[] {
  const counts = column.histogram?.counts ?? []
  const top = Math.max(1, ...counts)
  return counts.map((c) => Math.round((100 * c) / top))
}

export function binTitle(column: ColumnProfile, i: number): string {
  const h = column.histogram
  if (!h) return ''
  const high = h.edges[i + 1] ?? h.edges.at(-1)
  return translate('tables.profile.bin', { low: shown(h.edges[i]), high: shown(high), rows: formatCount(h.counts[i]) })
}

const FIGURES = new Set(['distinct', 'null_share']) // with a name in tables.json's profile.figure

/** One line for the rows, one per column added, removed or retyped, and one per column whose
 *  figures moved (all of them on it), so the list stays short. Nothing without a previous profile. */
export function changeLinesOf(changes: ProfileChanges | null | undefined): string[] {
  if (!changes || !changes.previous) return []
  const lines: string[] = []
  const rows = changes.row_count
  if (rows && rows.change !== 0) {
    const share = rows.relative == null ? '' : ` (${rows.relative > 0 ? '+' : ''}${(100 * rows.relative).toFixed(1)}%)`
    lines.push(translate('tables.profile.rowsMoved', { before: formatCount(rows.before), after: formatCount(rows.after), share }))
  }
  for (const added of changes.columns_added) lines.push(translate('tables.profile.columnAdded', { name: added.name, type: added.type }))
  for (const removed of changes.columns_removed) lines.push(translate('tables.profile.columnRemoved', { name: removed.name, type: removed.type }))
  for (const retyped of changes.columns_retyped) {
    lines.push(translate('tables.profile.columnRetyped', { name: retyped.name, before: retyped.before, after: retyped.after }))
  }
  const byColumn = new Map<string, string[]>()
  for (const move of changes.moves) {
    const word = FIGURES.has(move.figure) ? translate(`tables.profile.figure.${move.figure}`) : move.figure
    const figure =
      move.figure === 'null_share'
        ? `${word} ${percent(move.before as number)} → ${percent(move.after as number)}`
        : `${word} ${shown(move.before)} → ${shown(move.after)}`
    byColumn.set(move.column, [...(byColumn.get(move.column) ?? []), figure])
  }
  for (const [column, figures] of byColumn) lines.push(translate('tables.profile.columnMoved', { column, figures: figures.join(' · ') }))
  return lines
}
