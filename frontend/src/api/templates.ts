import { API, fetchAllPages, http } from '@/http'
import type { ComparisonType, FormRule, RuleTemplate } from './types'

export const listTemplates = () => fetchAllPages<RuleTemplate>(`${API}/rule-templates/`)
export const getTemplate = (key: string) => http.get<RuleTemplate>(`${API}/rule-templates/${encodeURIComponent(key)}/`)
/** The form-create rule array for a template, rendered as served. */
export const getTemplateForm = (key: string) =>
  http.get<FormRule[]>(`${API}/rule-templates/${encodeURIComponent(key)}/form/`)
export const listComparisonTypes = () => fetchAllPages<ComparisonType>(`${API}/comparison-types/`)
