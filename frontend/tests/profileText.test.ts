import { describe, expect, it } from 'vitest'
import type { ColumnProfile, ProfileChanges } from '@/api/profiles'
import { bars, changeLinesOf, shown, topValue } from '@/lib/profile'

const none: Omit<ProfileChanges, 'previous'> = {
  row_count: null,
  columns_added: [],
  columns_removed: [],
  columns_retyped: [],
  moves: [],
  thresholds: { null_share_points: 0.05, relative: 0.1 },
}
const previous = { id: 1, finished_at: '2026-12-01T10:00:00Z', row_count: 10 }

describe('what changed since the previous profile, in lines a person reads', () => {
  it('says nothing without a previous profile', () => {
    expect(changeLinesOf(null)).toEqual([])
    expect(changeLinesOf({ ...none, previous: null })).toEqual([])
  })

  it('gives the rows, the columns added, removed and retyped, and one line per column that moved', () => {
    const lines = changeLinesOf({
      ...none,
      previous,
      row_count: { before: 10, after: 13, change: 3, relative: 0.3 },
      columns_added: [{ name: 'note', type: 'text' }],
      columns_removed: [{ name: 'old', type: 'int' }],
      columns_retyped: [{ name: 'amount', before: 'int', after: 'numeric(10,2)' }],
      moves: [
        { column: 'email', figure: 'null_share', before: 0.1, after: 2 / 13, change: 2 / 13 - 0.1 },
        { column: 'email', figure: 'distinct', before: 9, after: 11, change: 2 },
        { column: 'amount', figure: 'max', before: 90, after: 700.5, change: 610.5 },
        { column: 'created_at', figure: 'min', before: '2026-11-25T00:00:00', after: '2026-11-20T08:30:00', change: null },
      ],
    })
    expect(lines).toEqual([
      'Rows: 10 → 13 (+30.0%)',
      'Column added: note (text)',
      'Column removed: old (int)',
      'Column retyped: amount int → numeric(10,2)',
      'email: null share 10.0% → 15.4% · distinct values 9 → 11',
      'amount: max 90 → 700.5',
      'created_at: min 2026-11-25 → 2026-11-20 08:30:00',
    ])
  })

  it('words a shrinking table with a minus sign and an unchanged count not at all', () => {
    const shrunk = { before: 10, after: 5, change: -5, relative: -0.5 }
    expect(changeLinesOf({ ...none, previous, row_count: shrunk })).toEqual(['Rows: 10 → 5 (-50.0%)'])
    const same = { before: 10, after: 10, change: 0, relative: 0 }
    expect(changeLinesOf({ ...none, previous, row_count: same })).toEqual([])
  })
})

describe('a profile’s figures', () => {
  it('names NULL and the empty string among the top values', () => {
    expect([null, '', 'paid', 0].map(topValue)).toEqual(['NULL', '(empty)', 'paid', '0'])
  })

  it('shows times without the T and long fractions to 6 significant digits', () => {
    expect(shown('2026-12-04T13:05:00')).toBe('2026-12-04 13:05:00')
    expect(shown(172.69230769)).toBe('172.692') // 6 significant digits, as elsewhere
    expect(shown(undefined)).toBe('—')
  })

  it('draws each bin against the fullest one', () => {
    const column = { histogram: { edges: [0, 1, 2, 3], counts: [8, 2, 0] } } as unknown as ColumnProfile
    expect(bars(column)).toEqual([100, 25, 0])
  })
})
