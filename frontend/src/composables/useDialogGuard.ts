import { nextTick, ref, watch, type Ref } from 'vue'
import { ElMessageBox } from 'element-plus'
import { translate } from '@/i18n'
/**
 * One behaviour for every form dialog (el-dialog) of the app:
 *
 * - when it has opened, its first field has the focus (not the dialog's frame), so a keyboard user
 *   types at once;
 * - Esc, the ×, a click beside it and its Cancel button close an untouched dialog at once, but ask
 *   "Discard your changes?" when something was typed: "Keep editing" keeps the input.
 *
 * Usage (`open` is the dialog's v-model, `form` is what the user edits):
 *
 *   const guard = useDialogGuard(open, () => form)
 *   <el-dialog v-model="open" v-bind="guard.dialog" ...>
 *     ...
 *     <template #footer><el-button @click="guard.cancel">Cancel</el-button> ...</template>
 *   </el-dialog>
 *
 * Closing after a successful save stays `open.value = false`: that never asks. "Untouched" is
 * measured against the form as the page filled it for this opening (a form reset on open counts as
 * clean); '', null and undefined count as the same empty value. A user who clicked into a field
 * before the opening animation ended keeps the focus there.
 */
export function useDialogGuard(open: Ref<boolean>, state: () => unknown) {
  const id = `dialog-${++counter}`
  let baseline = ''
  const asking = ref(false)

  const snapshot = () => JSON.stringify(state() ?? null, (_key, value) => (value === undefined || value === '' ? null : value))
  const isDirty = () => snapshot() !== baseline

  // The state to compare with: taken once the page has filled the form for this opening (its own
  // watchers and the render run first), and again when the opening animation ends unless the user
  // is already in a field by then (what they typed meanwhile counts as typed).
  watch(
    open,
    async (isOpen) => {
      if (!isOpen) return
      await nextTick()
      baseline = snapshot()
    },
    { flush: 'post', immediate: true },
  )

  function onOpened() {
    const frame = document.querySelector(`[data-dialog-guard="${id}"]`)
    const body = frame?.querySelector('.el-dialog__body')
    if (body && document.activeElement && body.contains(document.activeElement)) return // never pull the focus away
    baseline = snapshot()
    firstField(frame)?.focus()
  }

  /** Resolves true when the dialog may close: untouched, or the user chose to discard. */
  async function mayClose(): Promise<boolean> {
    if (!isDirty()) return true
    if (asking.value) return false
    asking.value = true
    try {
      await ElMessageBox.confirm(translate('common.discard.message'), translate('common.discard.title'), {
        confirmButtonText: translate('common.discard.confirm'),
        cancelButtonText: translate('common.discard.keepEditing'),
        type: 'warning',
        distinguishCancelAndClose: false,
        appendTo: 'body',
      })
      return true
    } catch {
      return false // "Keep editing", Esc or the ×: the input stays
    } finally {
      asking.value = false
    }
  }

  /** el-dialog's before-close: Esc, the × and a click on the overlay come through here. */
  function beforeClose(done: (cancel?: boolean) => void) {
    void mayClose().then((ok) => ok && done())
  }

  /** The footer's Cancel button. */
  async function cancel() {
    if (await mayClose()) open.value = false
  }

  return {
    dialog: { beforeClose, onOpened, 'data-dialog-guard': id },
    cancel,
    isDirty,
  }
}

let counter = 0

const FIELDS = [
  'input:not([type=hidden]):not([disabled]):not([readonly])',
  'textarea:not([disabled])',
  'select:not([disabled])',
  // el-select's filterable input is readonly until clicked; it still takes the focus.
  '.el-select__wrapper input',
  '[contenteditable=true]',
].join(',')

/** The first field of the dialog's body a user can type into or tick. */
function firstField(frame: Element | null): HTMLElement | null {
  const body = frame?.querySelector('.el-dialog__body') ?? frame
  if (!body) return null
  for (const field of Array.from(body.querySelectorAll<HTMLElement>(FIELDS))) {
    if (field.getClientRects().length && field.tabIndex >= 0) return field
  }
  return null
}
