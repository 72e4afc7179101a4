/**
 * Glue between the served form-create rules and the check form: which fields to clear when a
 * parent changes (the rules' `link` arrays), values in and out, and server errors placed under
 * the field they belong to. Used by pages/checks/CheckEditPage.vue.
 */
import type { FormRule, Params } from '@/api/types'
import { csrfToken } from '@/http'
import { translate } from '@/i18n'

/** {src_datasource_id: ['src_table', 'src_field'], src_table: ['src_field']} from each rule's `link`. */
export function dependentsOf(rules: FormRule[]): Record<string, string[]> {
  const dependents: Record<string, string[]> = {}
  for (const rule of rules) {
    for (const parent of rule.link ?? []) (dependents[parent] ||= []).push(rule.field)
  }
  return dependents
}

/** A deep copy of the served rules with the check's current values filled in (editing). */
export function rulesWithValues(rules: FormRule[], params: Params | null): FormRule[] {
  const copy = JSON.parse(JSON.stringify(rules)) as FormRule[]
  if (!params) return copy
  for (const rule of copy) {
    if (rule.field in params) rule.value = params[rule.field]
  }
  return copy
}

/** The params to send: the template's fields only, empty optional values left out. */
export function paramsFrom(rules: FormRule[], values: Record<string, unknown>): Params {
  const params: Params = {}
  for (const rule of rules) {
    const value = values[rule.field]
    if (value === undefined || value === null || value === '') continue
    if (Array.isArray(value) && value.length === 0) continue
    params[rule.field] = value
  }
  return params
}

/**
 * Splits a 400's flattened fields into messages for form fields and the rest:
 * `params.threshold` → threshold; `params.mapping_columns.0.src_field` → mapping_columns;
 * `name` → name; anything else (e.g. `params` itself, `template`) → general.
 */
export function placeErrors(
  flat: Record<string, string[]>,
  formFields: string[],
): { name: string[]; fields: Record<string, string[]>; general: string[] } {
  const placed = { name: [] as string[], fields: {} as Record<string, string[]>, general: [] as string[] }
  for (const [path, messages] of Object.entries(flat)) {
    const [head, field, ...rest] = path.split('.')
    if (head === 'name' && field === undefined) placed.name.push(...messages)
    else if (head === 'params' && field && formFields.includes(field)) {
      const detail = rest.length ? messages.map((m) => `${rest.join('.')}: ${m}`) : messages
      ;(placed.fields[field] ||= []).push(...detail)
    } else {
      const label = head === 'params' && field ? field : path
      placed.general.push(...messages.map((m) => (label ? `${label}: ${m}` : m)))
    }
  }
  return placed
}

/** form-create's own requests (effect.fetch for tables and columns) go out with the session and the CSRF token. */
export function beforeFetch(options: { headers?: Record<string, string>; withCredentials?: boolean }): void {
  options.withCredentials = true
  options.headers = { ...(options.headers ?? {}), 'X-CSRFToken': csrfToken(), Accept: 'application/json' }
}

/** A catalog request of the form answered: `message` is why it failed, or null when it succeeded. */
export interface CatalogAnswer {
  action: string
  query: Record<string, unknown>
  message: string | null
}

type FetchConfig = {
  headers?: Record<string, string>
  withCredentials?: boolean
  action?: string
  query?: Record<string, unknown>
  onSuccess?: (...args: unknown[]) => void
  onError?: (...args: unknown[]) => void
}

/**
 * beforeFetch that also reports how each catalog request ended. form-create keeps a failed fetch's
 * answer to itself (the select just says "No data", the reason goes to the console); the server's
 * 502 says why (a wrong password, an unreachable host), so the form can show it where the list is.
 */
export function reportingBeforeFetch(report: (answer: CatalogAnswer) => void) {
  return (config: FetchConfig): void => {
    beforeFetch(config)
    const action = String(config.action ?? '')
    const query = { ...(config.query ?? {}) }
    const { onSuccess, onError } = config
    config.onSuccess = (...args: unknown[]) => {
      report({ action, query, message: null })
      onSuccess?.(...args)
    }
    config.onError = (error: unknown, body?: unknown) => {
      const said = body && typeof body === 'object' ? (body as { message?: unknown }).message : undefined
      const fallback = error instanceof Error && error.message ? error.message : translate('checkForm.requestFailed')
      report({ action, query, message: typeof said === 'string' && said ? said : fallback })
      onError?.(error)
    }
  }
}

/** The form fields whose options this request loads: the rules fetching `action` whose
 * `{{$form.x}}` query values are the ones sent. */
export function fieldsFetching(rules: FormRule[], values: Record<string, unknown>, answer: CatalogAnswer): string[] {
  return rules
    .filter((rule) => {
      const fetch = rule.effect?.fetch as { action?: string; query?: Record<string, string> } | undefined
      if (!fetch || fetch.action !== answer.action) return false
      return Object.entries(fetch.query ?? {}).every(([key, template]) => {
        const parent = /^\{\{\$form\.(\w+)\}\}$/.exec(String(template))?.[1]
        return parent === undefined || String(values[parent] ?? '') === String(answer.query[key] ?? '')
      })
    })
    .map((rule) => rule.field)
}

/** What to show under a select whose options could not be loaded. */
export function catalogProblem(action: string, message: string): string {
  const what = action.includes('/columns/') ? 'columns' : action.includes('/tables/') ? 'tables' : 'options'
  return translate(`checkForm.notListed.${what}`, { message })
}

/** The bits of form-create's api the check form uses. */
export interface FormApi {
  mergeRule(field: string, rule: Record<string, unknown>): void
  getValue(field: string): unknown
  setValue(field: string, value: unknown): void
  validate(): Promise<unknown>
  formData(): Record<string, unknown>
  sync(field: string): void
  /** Every field read-only (true) or editable again (false). */
  disabled(disabled: boolean): void
}

/**
 * Shows a server's message under a field, the way Element Plus shows its own validation: the
 * form item's `error` prop (form-create passes `wrap` to the form item). '' clears it.
 */
export function showFieldError(api: FormApi, field: string, message: string): void {
  api.mergeRule(field, { wrap: { error: message } })
  api.sync(field) // form-create caches each field's rendering; redraw this one
}
