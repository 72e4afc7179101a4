import { API, http } from '@/http'
import type { components } from './schema'

export type Me = components['schemas']['Me']

/** Saves the user's language ('' = follow the browser); the answer is the saved state. */
export function saveLanguage(language: string): Promise<Me> {
  return http.patch<Me>(`${API}/me/`, { language })
}
