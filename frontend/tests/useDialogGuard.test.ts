import { afterEach, describe, expect, it, vi } from 'vitest'
import { flushPromises } from '@vue/test-utils'
import { nextTick, reactive, ref } from 'vue'

const confirm = vi.fn()
vi.mock('element-plus', async (original) => ({
  ...(await original<typeof import('element-plus')>()),
  ElMessageBox: { confirm: (...args: unknown[]) => confirm(...args) },
}))
const { useDialogGuard } = await import('@/composables/useDialogGuard')

/** A dialog's frame as el-dialog renders it, with the attribute the guard binds. */
function frame(id: string, body: string) {
  const el = document.createElement('div')
  el.setAttribute('data-dialog-guard', id)
  el.innerHTML = `<header><button class="el-dialog__headerbtn">×</button></header><div class="el-dialog__body">${body}</div>`
  document.body.appendChild(el)
  return el
}

afterEach(() => {
  confirm.mockReset()
  document.body.innerHTML = ''
})

describe('useDialogGuard', () => {
  it('closes an untouched dialog at once, without asking', async () => {
    const open = ref(true)
    const form = reactive({ name: '', checks: [] as number[] })
    const guard = useDialogGuard(open, () => form)
    guard.dialog.onOpened()
    await guard.cancel()
    expect(confirm).not.toHaveBeenCalled()
    expect(open.value).toBe(false)
  })

  it('asks before discarding typed input and keeps it open when the user keeps editing', async () => {
    const open = ref(true)
    const form = reactive({ name: '' })
    const guard = useDialogGuard(open, () => form)
    guard.dialog.onOpened()
    form.name = 'nightly'
    confirm.mockRejectedValueOnce('cancel') // "Keep editing"
    await guard.cancel()
    expect(confirm).toHaveBeenCalledTimes(1)
    expect(confirm.mock.calls[0][1]).toBe('Discard your changes?')
    expect(open.value).toBe(true)
    expect(form.name).toBe('nightly')

    confirm.mockResolvedValueOnce('confirm') // "Discard"
    await guard.cancel()
    expect(open.value).toBe(false)
  })

  it('lets el-dialog close (Esc, ×, overlay) only once the user agreed', async () => {
    const open = ref(true)
    const form = reactive({ reason: '' })
    const guard = useDialogGuard(open, () => form)
    guard.dialog.onOpened()
    const done = vi.fn()
    guard.dialog.beforeClose(done)
    await flushPromises()
    expect(done).toHaveBeenCalledTimes(1) // untouched

    form.reason = 'checked by hand'
    confirm.mockRejectedValueOnce('close')
    guard.dialog.beforeClose(done)
    await flushPromises()
    expect(done).toHaveBeenCalledTimes(1) // still open
  })

  it('counts an emptied field as untouched: empty text, null and a missing value are the same', async () => {
    const open = ref(true)
    const form = reactive<{ port: number | null | undefined; name: string }>({ port: undefined, name: 'x' })
    const guard = useDialogGuard(open, () => form)
    guard.dialog.onOpened()
    form.port = null // an el-input-number cleared: nothing typed
    expect(guard.isDirty()).toBe(false)
    form.name = 'y'
    expect(guard.isDirty()).toBe(true)
    form.name = 'x' // typed back as it was
    expect(guard.isDirty()).toBe(false)
  })

  it('leaves the focus where the user put it before the opening ended, and counts what they typed', async () => {
    const open = ref(false)
    const form = reactive({ name: '', port: '' })
    const guard = useDialogGuard(open, () => form)
    open.value = true
    await nextTick()
    await nextTick()
    const el = frame(guard.dialog['data-dialog-guard'], '<input id="name"><input id="port">')
    const port = el.querySelector<HTMLInputElement>('#port')!
    port.focus()
    form.port = '70000' // typed while the dialog was still animating in
    guard.dialog.onOpened()
    expect(document.activeElement).toBe(port)
    expect(guard.isDirty()).toBe(true)
  })

  it('puts the focus on the first field of the body when the dialog has opened', () => {
    const open = ref(true)
    const guard = useDialogGuard(open, () => ({}))
    const el = frame(guard.dialog['data-dialog-guard'], '<input type="hidden"><input id="first"><textarea></textarea>')
    guard.dialog.onOpened()
    expect(document.activeElement).toBe(el.querySelector('#first'))
  })
})
