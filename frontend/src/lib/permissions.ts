/**
 * What the signed-in user may do with an object, as the API reports it in the object's
 * `permissions` (worked out on the server by the rules it enforces, accounts/rights.py). The
 * pages offer an action only when its name is there, so nobody learns their rights from a refusal.
 */
export type Action = 'change' | 'delete' | 'run' | 'clone' | 'cancel' | 'retry' | 'test' | 'release' | 'revalidate'

export interface WithPermissions {
  permissions?: readonly string[]
}

/** `can(check, 'change')`: false for an object that says nothing (an old answer, a missing one). */
export function can(obj: WithPermissions | null | undefined, action: Action): boolean {
  return Boolean(obj?.permissions?.includes(action))
}

/** The objects of a selection the user may do `action` to. */
export function allowed<T extends WithPermissions>(objects: readonly T[], action: Action): T[] {
  return objects.filter((o) => can(o, action))
}
