import { describe, expect, it } from 'vitest'
import { allowed, can } from '@/lib/permissions'

describe('can', () => {
  it('offers an action only when the object lists it', () => {
    const mine = { permissions: ['change', 'delete', 'run', 'clone'] }
    const theirs = { permissions: ['run', 'clone'] }
    expect(can(mine, 'change')).toBe(true)
    expect(can(theirs, 'change')).toBe(false)
    expect(can(theirs, 'run')).toBe(true)
  })

  it('offers nothing for an object that says nothing about it', () => {
    expect(can({}, 'run')).toBe(false)
    expect(can(undefined, 'run')).toBe(false)
    expect(can({ permissions: [] }, 'retry')).toBe(false)
  })

  it('keeps the objects of a selection the user may act on, in order', () => {
    const a = { id: 1, permissions: ['change'] }
    const b = { id: 2, permissions: ['run'] }
    const c = { id: 3, permissions: ['change', 'delete'] }
    expect(allowed([a, b, c], 'change').map((o) => o.id)).toEqual([1, 3])
  })
})
