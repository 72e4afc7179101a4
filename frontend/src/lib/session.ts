// The signed-in user, written into the page by Django (templates/spa.html, json_script "dq-user").
export interface SessionUser {
  username: string
  is_staff: boolean
  admin_url: string | null
  logout_url: string
  api_docs_url: string
  /** The saved language ('' = follow the browser): 'en' or 'zh-hans'. */
  language: string
}

const FALLBACK: SessionUser = {
  username: '',
  is_staff: false,
  admin_url: null,
  logout_url: '/logout/',
  api_docs_url: '/api/docs/',
  language: '',
}

export function readSessionUser(doc: Document = document): SessionUser {
  const script = doc.getElementById('dq-user')
  if (!script?.textContent) return FALLBACK
  try {
    return { ...FALLBACK, ...(JSON.parse(script.textContent) as Partial<SessionUser>) }
  } catch {
    return FALLBACK
  }
}

export const sessionUser = readSessionUser()
