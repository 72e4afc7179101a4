"""The checks and datasources pages in Simplified Chinese: a browser that asks for zh-CN gets the
list's headers, its empty state, the bulk bar, the import dialog, a check's tabs and panels, the
datasources list, its catalog and its form in Chinese, and none of the English they replaced. At
1024 and 1440 px nothing is wider than the window, no button's words wrap or spill out of it, no
page's action buttons fall onto a second row and no column header takes two lines. Screenshots:
test-artifacts/browser/zh-<page>-<width>.png."""

from __future__ import annotations

import re

import pytest
import yaml
from playwright.sync_api import expect

from watching.tests import conftest as watching_fixtures

from .conftest import ARTIFACTS, sign_in, unexpected
from .test_rules_as_code import VERDICT

lake, make_check = watching_fixtures.lake, watching_fixtures.make_check

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

WIDTHS = (1024, 1440)

# What does not fit, measured in the page: the document wider than the window; a visible button
# whose words overflow it (Element Plus buttons have a fixed height, so wrapped words overflow
# downwards); a page header's action buttons on more than one row (a dialog they open aside); a column header on two lines.
MEASURE = """() => {
  const visible = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden'
  const text = (el) => el.textContent.trim().replace(/\\s+/g, ' ').slice(0, 40)
  const problems = []
  const overflow = document.documentElement.scrollWidth - document.documentElement.clientWidth
  if (overflow > 0) problems.push(`the document is ${overflow} px wider than the window`)
  for (const button of [...document.querySelectorAll('.el-button')].filter(visible)) {
    if (button.scrollWidth > button.clientWidth + 1 || button.scrollHeight > button.clientHeight + 1)
      problems.push(`button "${text(button)}" does not hold its words`)
  }
  for (const actions of [...document.querySelectorAll('.page-header .actions')].filter(visible)) {
    const tops = new Set([...actions.querySelectorAll('.el-button')].filter(visible).filter((b) => !b.closest('.el-overlay'))
      .map((b) => Math.round(b.getBoundingClientRect().top)))
    if (tops.size > 1) problems.push(`the page's buttons take ${tops.size} rows`)
  }
  for (const cell of [...document.querySelectorAll('.el-table__header .cell')].filter(visible)) {
    const lineHeight = parseFloat(getComputedStyle(cell).lineHeight) || 23
    if (text(cell) && cell.getBoundingClientRect().height > lineHeight * 1.5) problems.push(`column "${text(cell)}" wraps`)
  }
  return problems
}"""


@pytest.fixture
def chinese_page(browser, live_server, cast, built_app):
    """A browser whose language is Simplified Chinese (navigator.languages and Accept-Language)."""
    context = browser.new_context(locale="zh-CN", viewport={"width": 1440, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(f"pageerror: {error}"))
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.errors = errors
    sign_in(page, live_server.url, "admin", "admin-pass-123", "/checks")
    yield page
    context.close()


def settle(page) -> None:
    page.wait_for_load_state("networkidle")
    if page.locator(".el-skeleton").count():
        page.locator(".el-skeleton").first.wait_for(state="detached", timeout=15_000)
    page.wait_for_timeout(300)


def fits(page, name: str) -> list[str]:
    """The page at both widths: what does not fit, and a screenshot of each."""
    problems = []
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        page.wait_for_timeout(300)
        problems += [f"{name} at {width}: {p}" for p in page.evaluate(MEASURE)]
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"zh-{name}-{width}.png"), full_page=True)
    page.set_viewport_size({"width": 1440, "height": 900})
    return problems


def headers(page, testid: str) -> list[str]:
    return [h.strip() for h in page.get_by_test_id(testid).locator(".el-table__header th").all_inner_texts()]


def assert_no_english(page, *phrases: str) -> None:
    body = page.locator("body").inner_text()
    assert [p for p in phrases if p in body] == []


def test_an_empty_checks_list_says_so_in_chinese(chinese_page, lake):
    page = chinese_page
    settle(page)
    expect(page.get_by_test_id("page-title")).to_have_text("检查")
    expect(page.get_by_test_id("empty-state")).to_contain_text("还没有检查。从一个规则模板开始吧。")
    expect(page.get_by_test_id("new-check")).to_have_text("新建检查")
    assert_no_english(page, "No checks yet", "New check", "Run selected", "Search by name")
    assert fits(page, "checks-empty") == []


def test_the_checks_pages_speak_chinese_and_fit_at_1024_and_1440_px(chinese_page, live_server, make_check):
    page, problems = chinese_page, []
    check = make_check("orders · statuses present")

    # The list: its headers, a check never run, its buttons; then filters that match nothing.
    page.goto(live_server.url + "/checks")
    settle(page)
    assert headers(page, "checks-table")[1:5] == ["检查", "检查对象", "规则", "最近结果"]
    row = page.get_by_test_id("checks-table").locator(".el-table__body .el-table__row").first
    expect(row).to_contain_text("从未运行")
    expect(row.get_by_test_id("run-check")).to_have_text("运行")
    expect(row.get_by_test_id("edit-check")).to_have_text("编辑")
    assert_no_english(page, "Looks at", "Last result", "Never run", "Clear filters")
    problems += fits(page, "checks")

    # The bulk bar of a selection.
    row.locator(".el-checkbox").first.click()
    bulk = page.get_by_test_id("bulk-actions")
    expect(bulk).to_contain_text("已选 1 个")
    expect(bulk.get_by_test_id("bulk-add-tag")).to_have_text("添加标签…")
    problems += fits(page, "checks-selected")

    page.get_by_test_id("check-search").fill("nothing is called this")
    expect(page.get_by_test_id("empty-state")).to_contain_text("没有符合这些筛选条件的检查。")
    assert_no_english(page, "No check matches")

    # The import dialog, and the dry run of a file with a new check and a broken one.
    page.get_by_test_id("import-checks").click()
    dialog = page.get_by_test_id("import-dialog")
    expect(dialog.locator(".el-dialog__title")).to_have_text("导入 check.yaml")
    expect(dialog.get_by_test_id("import-dry-run")).to_have_text("试运行")
    assert_no_english(page, "Dry run", "Upload a file")
    entry = {"template": "null_check", "params": {"src_datasource": "lake", "src_table": "orders", **VERDICT}}
    document = {
        "version": 1,
        "checks": [
            {"name": "void orders", **entry, "params": {**entry["params"], "src_field": "status"}},
            {"name": "typo", **entry, "params": {**entry["params"], "src_field": "stauts"}},
        ],
    }
    text = yaml.safe_dump(document, sort_keys=False)
    typo_line = next(n for n, line in enumerate(text.splitlines(), 1) if "stauts" in line)
    dialog.locator("textarea").fill(text)
    dialog.get_by_test_id("import-dry-run").click()
    expect(page.get_by_test_id("import-count-added")).to_have_text("新增 1")
    expect(page.get_by_test_id("import-count-refused")).to_have_text("拒绝 1")
    expect(page.get_by_test_id("outcome-void orders")).to_have_text("新增")
    expect(page.get_by_test_id("outcome-typo")).to_have_text("拒绝")
    expect(page.get_by_test_id("errors-typo")).to_contain_text(f"第 {typo_line} 行 · params.src_field")
    expect(page.get_by_test_id("import-plan")).to_contain_text("请修正或删除被拒绝的检查，然后再次试运行。")
    assert headers(page, "import-plan-table") == ["检查", "结果", "将发生的变更"]
    assert_no_english(page, "Refused", "What would change", "Fix or remove")
    problems += fits(page, "checks-import")
    page.keyboard.press("Escape")

    # A check: its header buttons, tabs, form footer and side panels; then its versions.
    page.goto(live_server.url + f"/checks/{check.pk}")
    settle(page)
    page.get_by_test_id("form-create").wait_for()
    tabs = [t.strip() for t in page.locator(".el-tabs__item").all_inner_texts()]
    assert tabs[0] == "设置" and tabs[1].startswith("版本") and tabs[2:] == ["趋势", "调度与告警"]
    expect(page.get_by_test_id("run-now")).to_have_text("立即运行")
    expect(page.get_by_test_id("save-check")).to_have_text("保存修改")
    expect(page.get_by_test_id("check-team")).to_contain_text("负责人")
    expect(page.get_by_test_id("versions-aside")).to_contain_text("当前")
    assert_no_english(page, "Run now", "Save changes", "Quality dimension", "Schedules & alerts", "This check will")
    problems += fits(page, "check")
    page.locator(".el-tabs__item", has_text="版本").click()
    expect(page.get_by_test_id("version-diff")).to_contain_text("目前只有一个版本：保存一次修改后即可对比。")
    assert headers(page, "versions-table") == ["版本", "保存时间", "变更说明", "内容哈希"]
    problems += fits(page, "check-versions")

    # A new check's first step.
    page.goto(live_server.url + "/checks/new")
    settle(page)
    expect(page.locator(".panel-title", has_text="1. 规则模板")).to_be_visible()
    expect(page.get_by_test_id("page-title")).to_have_text("新建检查")
    problems += fits(page, "check-new")

    assert problems == [], "\n".join(problems)
    assert unexpected(page.errors) == []


def test_the_datasources_pages_speak_chinese_and_fit_at_1024_and_1440_px(chinese_page, live_server, lake):
    page, problems = chinese_page, []
    page.goto(live_server.url + "/datasources")
    settle(page)
    expect(page.get_by_test_id("page-title")).to_have_text("数据源")
    assert headers(page, "datasources-table")[1:] == ["名称", "类型", "位置", "连接"]
    expect(page.get_by_test_id("test-datasource")).to_have_text("测试")

    # The catalog of lake, opened on a table's columns.
    page.locator(".el-table__expand-icon").first.click()
    expect(page.get_by_text("选择一个数据表以查看其字段。")).to_be_visible()
    page.get_by_role("button", name="orders", exact=True).click()
    page.get_by_test_id("table-page-link").wait_for()
    expect(page.get_by_text(re.compile(r"orders\s*的字段"))).to_be_visible()
    assert_no_english(page, "Pick a table", "Columns of", "Connection", "Where")
    problems += fits(page, "datasources")

    # The form of a new datasource.
    page.get_by_test_id("new-datasource").click()
    dialog = page.get_by_test_id("datasource-dialog")
    expect(dialog.locator(".el-dialog__title")).to_have_text("新建数据源")
    labels = [label.strip() for label in dialog.locator(".el-form-item__label").all_inner_texts()]
    assert labels[:6] == ["名称", "类型", "主机", "端口", "数据库", "用户名"]
    expect(dialog.get_by_test_id("ds-test")).to_have_text("测试连接")
    expect(dialog.get_by_test_id("ds-type")).to_contain_text("文件")
    assert_no_english(page, "Test connection", "Who may use it", "User name")
    problems += fits(page, "datasource-form")

    assert problems == [], "\n".join(problems)
    assert unexpected(page.errors) == []
