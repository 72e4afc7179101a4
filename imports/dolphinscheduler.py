"""A DolphinScheduler workflow export read and mapped to this platform's checks, without the database.

The export is the JSON array DolphinScheduler's "export workflow" writes, one element per workflow:
`{processDefinition, processTaskRelationList, taskDefinitionList, schedule}`. Each DATA_QUALITY task
becomes the params of the matching rule template; DolphinScheduler kept its rule model in codes
(rule ids, comparison types 1-8, check types 0-3, operators 0-5, failure strategies 0/1) where
this platform has keys, so the mapping is a table per code. Exports mix numbers and numeric strings
for the same key, and older ones hold `taskParams` as a JSON string: both are read.

What cannot be known here (which datasource a DolphinScheduler datasource id is, whether a table
still exists) is left to the caller (imports/importing.py), which validates each check exactly as
the API does.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.utils.translation import gettext as _

# Limits on what an export may be: a large project has a few hundred workflows.
MAX_EXPORT_BYTES = 5_000_000
MAX_DEPTH = 24
MAX_WORKFLOWS = 2_000
MAX_TASKS = 20_000

DATA_QUALITY = "DATA_QUALITY"
TEMPLATE_OF_RULE = {
    1: "null_check",
    2: "custom_sql",
    3: "multi_table_accuracy",
    4: "multi_table_value_comparison",
    5: "field_length_check",
    6: "uniqueness_check",
    7: "regexp_check",
    8: "timeliness_check",
    9: "enumeration_check",
    10: "table_count_check",
}
COMPARISON_TYPES = {
    1: "fix_value",
    2: "daily_avg",
    3: "weekly_avg",
    4: "monthly_avg",
    5: "last_7_day_avg",
    6: "last_30_day_avg",
    7: "src_table_total_rows",
    8: "target_table_total_rows",
}
CHECK_TYPES = {
    0: "comparison_minus_statistics",
    1: "statistics_minus_comparison",
    2: "statistics_comparison_percentage",
    3: "statistics_comparison_difference_comparison_percentage",
}
OPERATORS = {0: "eq", 1: "lt", 2: "le", 3: "gt", 4: "ge", 5: "ne"}
NEGATED = {"eq": "ne", "ne": "eq", "lt": "ge", "ge": "lt", "le": "gt", "gt": "le"}
FAILURE_STRATEGIES = {0: "alert", 1: "block"}
# Semantics: 3.2.x (and 3.0.4-3.0.6) pass when `formula operator threshold` holds; 3.0.0-3.0.3 and
# every 3.1.x fail when it holds, so importing from them negates the operator.
DS_VERSIONS = ("3.2", "3.1")
DATASOURCE_FIELDS = ("src_datasource_id", "target_datasource_id")

VERDICT = "verdict"
SINGLE = ("src_datasource_id", "src_table", "src_filter", "src_field", VERDICT)
# The DolphinScheduler inputs each template takes, in the template's order.
FIELDS_OF_TEMPLATE = {
    "null_check": SINGLE,
    "custom_sql": (
        "src_datasource_id",
        "src_table",
        "src_filter",
        "statistics_name",
        "statistics_execute_sql",
        VERDICT,
    ),
    "multi_table_accuracy": (
        "src_datasource_id",
        "src_table",
        "src_filter",
        "target_datasource_id",
        "target_table",
        "target_filter",
        "mapping_columns",
        VERDICT,
    ),
    "multi_table_value_comparison": (
        "src_datasource_id",
        "src_table",
        "statistics_name",
        "statistics_execute_sql",
        "target_datasource_id",
        "target_table",
        "comparison_name",
        "comparison_execute_sql",
        VERDICT,  # no comparison type: the comparison query is the expected value
    ),
    "field_length_check": (*SINGLE[:4], "logic_operator", "field_length", VERDICT),
    # DolphinScheduler's uniqueness SQL never applied src_filter: left out, as it ran.
    "uniqueness_check": ("src_datasource_id", "src_table", "src_field", VERDICT),
    "regexp_check": (*SINGLE[:4], "regexp_pattern", VERDICT),
    "timeliness_check": (*SINGLE[:4], "begin_time", "deadline", "datetime_format", VERDICT),
    "enumeration_check": (*SINGLE[:4], "enum_list", VERDICT),
    "table_count_check": ("src_datasource_id", "src_table", "src_filter", VERDICT),
}
PLAIN_TEXT = (
    "src_filter",
    "target_filter",
    "src_field",
    "statistics_name",
    "statistics_execute_sql",
    "comparison_name",
    "comparison_execute_sql",
    "regexp_pattern",
    "datetime_format",
)
TIME_FORMAT = "%Y-%m-%d %H:%M:%S"
# Java/Spark datetime letters → strptime, for the patterns DolphinScheduler users typed.
JAVA_TIME_LETTERS = [("yyyy", "%Y"), ("MM", "%m"), ("dd", "%d"), ("HH", "%H"), ("mm", "%M"), ("ss", "%S")]


class ExportInvalid(ValueError):
    """The file cannot be read as an export at all; the message says why."""


@dataclass
class Task:
    """One DolphinScheduler task of the export, mapped as far as the export alone allows."""

    workflow: str
    code: str
    name: str
    task_type: str
    template: str | None = None
    check_name: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    # The DolphinScheduler datasource id each datasource field named (mapped by the caller).
    ds_datasources: dict[str, str] = field(default_factory=dict)
    # The DolphinScheduler database of each table field (src_table → "public"), for table naming.
    databases: dict[str, str] = field(default_factory=dict)
    problems: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def is_data_quality(self) -> bool:
        return self.task_type == DATA_QUALITY


@dataclass
class Schedule:
    """A workflow's schedule as a five-field cron, or why it cannot be one."""

    workflow: str
    quartz: str
    timezone: str
    cron: str | None
    problem: str | None
    enabled: bool
    task_codes: list[str]


@dataclass
class Export:
    workflows: list[str]
    tasks: list[Task]
    schedules: list[Schedule]

    @property
    def data_quality(self) -> list[Task]:
        return [t for t in self.tasks if t.is_data_quality]

    @property
    def other(self) -> list[Task]:
        return [t for t in self.tasks if not t.is_data_quality]

    def ds_datasource_ids(self) -> list[str]:
        """Every DolphinScheduler datasource id a data-quality task names, in a stable order."""
        found = {ds_id for t in self.data_quality for ds_id in t.ds_datasources.values()}
        return sorted(found, key=lambda s: (len(s), s))


# --- reading --------------------------------------------------------------------------------------
def load_json(raw: bytes | str) -> Any:
    """The export's JSON within the size and depth limits, or ExportInvalid."""
    if isinstance(raw, bytes):
        if len(raw) > MAX_EXPORT_BYTES:
            raise ExportInvalid(_too_large())
        try:
            raw = raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise ExportInvalid(
                _("The file is not UTF-8 text; export the workflows again from DolphinScheduler.")
            ) from None
    if len(raw) > MAX_EXPORT_BYTES:
        raise ExportInvalid(_too_large())
    try:
        data = json.loads(raw)
    except RecursionError:
        raise ExportInvalid(_too_deep()) from None
    except ValueError as exc:
        raise ExportInvalid(_("The file is not JSON: %(error)s.") % {"error": exc}) from None
    check_depth(data)
    return data


def _too_large() -> str:
    return _("The export is larger than %(mb)s MB; export fewer workflows at a time.") % {
        "mb": MAX_EXPORT_BYTES // 1_000_000
    }


def _too_deep() -> str:
    return _("The export is nested more than %(depth)s levels deep; it is not a DolphinScheduler export.") % {
        "depth": MAX_DEPTH
    }


def check_depth(data: Any) -> None:
    """ExportInvalid when `data` nests deeper than MAX_DEPTH (walked without recursion)."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise ExportInvalid(_too_deep())
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value)


def read_export(data: Any, ds_version: str = "3.2") -> Export:
    """Every task of every workflow, the data-quality ones mapped to check params."""
    if ds_version not in DS_VERSIONS:
        raise ExportInvalid(_("Unknown DolphinScheduler version %(v)r; use 3.2 or 3.1.") % {"v": ds_version})
    check_depth(data)
    if isinstance(data, dict) and "processDefinition" in data:
        data = [data]  # one workflow exported on its own
    if not isinstance(data, list):
        raise ExportInvalid(
            _(
                "A DolphinScheduler export is a JSON array of workflows, each with processDefinition and taskDefinitionList."
            )
        )
    if len(data) > MAX_WORKFLOWS:
        raise ExportInvalid(
            _("The export holds more than %(n)s workflows; export fewer at a time.") % {"n": MAX_WORKFLOWS}
        )
    workflows, tasks, schedules = [], [], []
    for index, element in enumerate(data, start=1):
        if not isinstance(element, dict) or not isinstance(element.get("taskDefinitionList"), list):
            raise ExportInvalid(
                _("Workflow %(n)s of the export has no taskDefinitionList; is this a DolphinScheduler workflow export?")
                % {"n": index}
            )
        definition = element.get("processDefinition") if isinstance(element.get("processDefinition"), dict) else {}
        workflow = _text(definition.get("name")) or _("workflow %(n)s") % {"n": index}
        workflows.append(workflow)
        own = [_read_task(workflow, raw, ds_version) for raw in element["taskDefinitionList"]]
        tasks.extend(own)
        if len(tasks) > MAX_TASKS:
            raise ExportInvalid(_("The export holds more than %(n)s tasks; export fewer at a time.") % {"n": MAX_TASKS})
        if isinstance(element.get("schedule"), dict):
            codes = [t.code for t in own if t.is_data_quality]
            schedules.append(read_schedule(workflow, element["schedule"], codes))
    _name_checks(tasks)
    return Export(workflows, tasks, schedules)


def _read_task(workflow: str, raw: Any, ds_version: str) -> Task:
    raw = raw if isinstance(raw, dict) else {}
    task = Task(
        workflow=workflow,
        code=_text(raw.get("code")),
        name=_text(raw.get("name")) or _("(unnamed task)"),
        task_type=_text(raw.get("taskType")).upper() or _("(no task type)"),
    )
    if task.is_data_quality:
        _map_data_quality(task, raw.get("taskParams"), ds_version)
    return task


def _name_checks(tasks: list[Task]) -> None:
    """A check is named after its task; a task name used in two workflows gets the workflow's too."""
    counts: dict[str, int] = {}
    for task in tasks:
        if task.is_data_quality:
            counts[task.name] = counts.get(task.name, 0) + 1
    taken: set[str] = set()
    for task in tasks:
        if task.is_data_quality:
            name = task.name if counts[task.name] == 1 else f"{task.name} ({task.workflow})"
            task.check_name = name if name not in taken else f"{name} #{task.code}"
            taken.add(task.check_name)


# --- mapping one data-quality task -------------------------------------------------------------------
def _map_data_quality(task: Task, raw_params: Any, ds_version: str) -> None:
    params = raw_params
    if isinstance(params, str):
        try:
            params = json.loads(params)
        except (ValueError, RecursionError):
            task.problems["taskParams"] = _("taskParams is text that is not JSON; export the workflow again.")
            return
        try:
            check_depth(params)
        except ExportInvalid as exc:
            task.problems["taskParams"] = str(exc)
            return
    if not isinstance(params, dict):
        task.problems["taskParams"] = _("The task has no taskParams object.")
        return
    rule_id = _code(params.get("ruleId"))
    task.template = TEMPLATE_OF_RULE.get(rule_id) if rule_id is not None else None
    if task.template is None:
        task.problems["ruleId"] = _(
            "Rule id %(id)r is not one of DolphinScheduler's built-in rules 1-10; this task cannot be imported."
        ) % {"id": params.get("ruleId")}
        return
    given = params.get("ruleInputParameter")
    if isinstance(given, str):
        try:
            given = json.loads(given)
        except (ValueError, RecursionError):
            given = None
    if not isinstance(given, dict):
        task.problems["ruleInputParameter"] = _("The task has no ruleInputParameter object.")
        return
    if task.template == "uniqueness_check" and _text(given.get("src_filter")):
        task.notes.append(
            _("src_filter %(filter)r left out: DolphinScheduler's uniqueness check never applied it.")
            % {"filter": _text(given.get("src_filter"))}
        )
    for name in FIELDS_OF_TEMPLATE[task.template]:
        if name == VERDICT:
            _map_verdict(task, given, ds_version)
        else:
            _map_field(task, name, given)


def _map_field(task: Task, name: str, given: dict[str, Any]) -> None:
    value = given.get(name)
    if name in DATASOURCE_FIELDS:
        ds_id = _text(value)
        if ds_id:
            task.ds_datasources[name] = ds_id
        else:
            task.problems[name] = _("The task names no %(field)s.") % {"field": name}
        return
    if name in ("src_table", "target_table"):
        table = _text(value)
        database = _text(given.get(name.replace("_table", "_database")))
        if database:
            task.databases[name] = database
        if table:
            task.params[name] = f"{database}.{table}" if database and "." not in table else table
        return
    if name == "mapping_columns":
        _map_mapping_columns(task, value)
        return
    if name == "enum_list":
        try:
            task.params[name] = parse_enum_list(_text(value))
        except ValueError as exc:
            task.problems[name] = str(exc)
        return
    if name == "field_length":
        number = _number(value)
        task.params[name] = number if number is not None else value
        return
    if name == "logic_operator":
        # DolphinScheduler's form never sent logic_operator, so its length check always compared
        # with the seeded "=": an export without one ran that way, and imports that way.
        operator = _text(value) or "="
        if not _text(value):
            task.notes.append(
                _(
                    "No logic_operator in the export: DolphinScheduler compared lengths with '=', and so does the import."
                )
            )
        task.params[name] = operator
        return
    if name in ("begin_time", "deadline"):
        _map_time(task, name, value, _text(given.get("datetime_format")))
        return
    if name in PLAIN_TEXT:
        text = _text(value)
        if text:
            task.params[name] = text
        return
    raise AssertionError(name)  # every field of FIELDS_OF_TEMPLATE is handled above


def _map_mapping_columns(task: Task, value: Any) -> None:
    pairs = value
    if isinstance(value, str):
        try:
            pairs = json.loads(value) if value.strip() else []
        except (ValueError, RecursionError):
            task.problems["mapping_columns"] = _("mapping_columns is not JSON: %(v)r.") % {"v": value[:200]}
            return
    if not isinstance(pairs, list):
        task.problems["mapping_columns"] = _("mapping_columns is not a list of column pairs.")
        return
    cleaned = []
    for pair in pairs:
        if not isinstance(pair, dict):
            task.problems["mapping_columns"] = _("mapping_columns holds something that is not a column pair.")
            return
        # The form's operator input was free text: quotes and spaces around it are noise.
        operator = _text(pair.get("operator")).strip("\"' ") or "="
        cleaned.append(
            {
                "src_field": _text(pair.get("src_field")),
                "operator": operator,
                "target_field": _text(pair.get("target_field")),
            }
        )
    task.params["mapping_columns"] = cleaned


def _map_time(task: Task, name: str, value: Any, java_format: str) -> None:
    """begin_time and deadline were written in the task's datetime_format; here they are
    YYYY-MM-DD HH:MM:SS."""
    text = _text(value)
    if not text:
        return
    try:
        datetime.strptime(text, TIME_FORMAT)
        task.params[name] = text
        return
    except ValueError:
        pass
    pattern = java_format
    for java, python in JAVA_TIME_LETTERS:
        pattern = pattern.replace(java, python)
    try:
        task.params[name] = datetime.strptime(text, pattern).strftime(TIME_FORMAT)
    except ValueError:
        task.problems[name] = _("%(field)s %(value)r is not a time in the format %(format)r.") % {
            "field": name,
            "value": text,
            "format": java_format or "yyyy-MM-dd HH:mm:ss",
        }


def _map_verdict(task: Task, given: dict[str, Any], ds_version: str) -> None:
    """check_type, operator, threshold, failure_strategy and the expected value. A code the export
    leaves out takes DolphinScheduler's default (0), as its task did."""
    for name, table in (("check_type", CHECK_TYPES), ("operator", OPERATORS), ("failure_strategy", FAILURE_STRATEGIES)):
        raw = given.get(name)
        code = 0 if _text(raw) == "" else _code(raw)
        if code not in table:
            task.problems[name] = _("%(field)s %(value)r is not one of DolphinScheduler's codes %(codes)s.") % {
                "field": name,
                "value": raw,
                "codes": ", ".join(map(str, table)),
            }
            continue
        task.params[name] = table[code]
    if ds_version == "3.1" and "operator" in task.params:
        task.params["operator"] = NEGATED[task.params["operator"]]
    threshold = given.get("threshold")
    if _text(threshold) == "":
        task.problems["threshold"] = _("The task has no threshold.")
    else:
        number = _number(threshold)
        task.params["threshold"] = number if number is not None else threshold  # validation names it
    if task.template == "multi_table_value_comparison":
        return  # its expected value is its comparison query
    raw_type = given.get("comparison_type")
    comparison = COMPARISON_TYPES.get(_code(raw_type))
    if comparison is None:
        task.problems["comparison_type"] = _(
            "comparison_type %(value)r is not one of DolphinScheduler's types 1-8."
        ) % {"value": raw_type}
        return
    task.params["comparison_type"] = comparison
    if comparison == "fix_value":
        # DolphinScheduler's form carried the fixed value in comparison_name; some exports have comparison_value.
        raw = given.get("comparison_value")
        if _text(raw) == "":
            raw = given.get("comparison_name")
        if _text(raw) == "":
            task.problems["comparison_value"] = _("The expected value is a fixed value, but the task gives none.")
            return
        number = _number(raw)
        task.params["comparison_value"] = number if number is not None else raw


# --- values ---------------------------------------------------------------------------------------
def _text(value: Any) -> str:
    if value is None or isinstance(value, (dict, list, bool)):
        return ""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value).strip()


def _code(value: Any) -> int | None:
    """A DolphinScheduler code given as 3, 3.0 or "3"."""
    text = _text(value)
    return int(text) if re.fullmatch(r"-?[0-9]{1,9}", text) else None


def _number(value: Any) -> int | float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    try:
        number = float(_text(value))
    except ValueError:
        return None
    if number != number or number in (float("inf"), float("-inf")):
        return None
    return int(number) if number.is_integer() else number


ENUM_TOKEN = re.compile(r"\s*(?:'((?:[^']|'')*)'|\"((?:[^\"]|\"\")*)\"|([^,'\"]+?))\s*(?:,|$)")


def parse_enum_list(text: str) -> list[str | int | float]:
    """DolphinScheduler pasted enum_list into `not in ( ... )`: a SQL list such as
    `'paid','void'` or `1, 2`. Quoted items are texts, bare ones numbers."""
    if not text:
        raise ValueError(_("enum_list is empty; DolphinScheduler needed at least one value."))
    values: list[str | int | float] = []
    position = 0
    while position < len(text):
        match = ENUM_TOKEN.match(text, position)
        if match is None or match.end() == position:
            raise ValueError(_("enum_list %(v)r is not a list of quoted texts or numbers.") % {"v": text[:200]})
        single, double, bare = match.groups()
        if single is not None:
            values.append(single.replace("''", "'"))
        elif double is not None:
            values.append(double.replace('""', '"'))
        else:
            number = _number(bare)
            if number is None:
                raise ValueError(
                    _("enum_list item %(v)r is neither quoted text nor a number; quote texts as 'paid'.") % {"v": bare}
                )
            values.append(number)
        position = match.end()
    return values


# --- schedules ------------------------------------------------------------------------------------
# Quartz's L (last), W (nearest weekday) and # (nth weekday), once day and month names are set aside.
QUARTZ_SPECIAL = re.compile(r"[LW#]")
NAMES = re.compile(r"[A-Za-z]{3}")


def read_schedule(workflow: str, raw: dict[str, Any], task_codes: list[str]) -> Schedule:
    quartz = " ".join(_text(raw.get("crontab")).split())
    timezone = _text(raw.get("timezoneId")) or "UTC"
    enabled = _text(raw.get("releaseState")).upper() != "OFFLINE"
    try:
        cron = quartz_to_cron(quartz)
        problem = None
    except ValueError as exc:
        cron, problem = None, str(exc)
    return Schedule(workflow, quartz, timezone, cron, problem, enabled, task_codes)


def quartz_to_cron(quartz: str) -> str:
    """A Quartz expression (seconds first, `?`, an optional year) as five cron fields, or
    ValueError saying what this platform's schedules cannot express."""
    parts = quartz.split()
    if len(parts) not in (6, 7):
        raise ValueError(_("%(cron)r is not a Quartz cron (six or seven fields, seconds first).") % {"cron": quartz})
    seconds, minute, hour, dom, month, dow = parts[:6]
    year = parts[6] if len(parts) == 7 else "*"
    if seconds != "0":
        raise ValueError(
            _("%(cron)r fires at seconds %(s)r; schedules here fire on whole minutes.") % {"cron": quartz, "s": seconds}
        )
    if year not in ("*", "?"):
        raise ValueError(
            _("%(cron)r is limited to the years %(y)r; schedules here repeat every year.") % {"cron": quartz, "y": year}
        )
    if any(QUARTZ_SPECIAL.search(NAMES.sub("", f)) for f in (dom, dow)):
        raise ValueError(
            _("%(cron)r uses Quartz's L, W or # (last day, nearest weekday, nth weekday), which cron cannot express.")
            % {"cron": quartz}
        )
    dom = "*" if dom == "?" else dom
    dow = "*" if dow == "?" else _quartz_weekdays(dow)
    return " ".join((minute, hour, dom, month, dow))


def _quartz_weekdays(field: str) -> str:
    """Quartz counts weekdays 1-7 from Sunday, cron 0-6 from Sunday; names stay names, and a step
    (`2/2`) shifts its start, not its step."""
    start, slash, step = field.partition("/")
    return re.sub(r"\d+", lambda m: str(int(m.group()) - 1), start) + slash + step
