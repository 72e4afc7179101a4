"""The functions user SQL may call: an allow-list of pure scalar, aggregate and window functions.

Filters (`src_filter`, `target_filter`) and custom SQL (`statistics_execute_sql`,
`comparison_execute_sql`) may call only what is listed here; sql_safety refuses anything else, at
save time and again in the engine before a query runs. Every engine (Spark, pushdown, DuckDB)
reads the same list, so a function is allowed or not in one place.

Outside the list, on purpose: anything that reads files or URLs (`from_xml` with its XSD options,
`xpath*`, `read_files`, `input_file_name`, Avro/Protobuf descriptors), calls the JVM (`reflect`,
`java_method`), reads the session or the environment (`current_user`, `version`, `secret`),
generates rows or unbounded values (`explode`, `posexplode`, `inline`, `stack`, `sequence`,
`range`, `array_repeat`, `repeat`, `space`), and user-defined or catalog functions. Regex functions
are listed: their patterns must be literals, are validated in Java's syntax and run through the
engine's bounded matcher (dq_engine/java_regex.py, dq_engine/spark/guarded_regex.py).

A function is known to SQLGLot either as an expression class (`exp.Upper`) or, when SQLGlot does
not model it, as `exp.Anonymous` with its written name. `allowed_call` answers for both: a class is
allowed when one of its SQL names is on the list or it is one of the syntax classes below (CASE,
CAST, EXTRACT ...); an anonymous call when its name is on the list.

Pure Python: imports SQLGlot only.
"""

from __future__ import annotations

import re
from functools import lru_cache

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

__all__ = ["ALLOWED_FUNCTIONS", "REGEX_FUNCTIONS", "allowed_call", "call_name"]

# Spark function names, lower-case, by kind. Adding one is a review of what it can reach: it must
# compute its value from its arguments alone, in time and memory bounded by their size.
_CONDITIONAL = {
    "coalesce", "nvl", "nvl2", "nullif", "ifnull", "if", "iff", "nanvl", "isnull", "isnotnull",
    "isnan", "greatest", "least", "zeroifnull", "nullifzero", "equal_null",
}  # fmt: skip
_CONVERSION = {
    "cast", "try_cast", "to_number", "try_to_number", "to_char", "to_varchar", "typeof", "string",
    "boolean", "tinyint", "smallint", "int", "bigint", "float", "double", "decimal", "date",
    "timestamp", "binary", "to_binary", "try_to_binary",
}  # fmt: skip
_MATH = {
    "abs", "ceil", "ceiling", "floor", "round", "bround", "sign", "signum", "sqrt", "cbrt", "exp",
    "expm1", "ln", "log", "log10", "log2", "log1p", "pow", "power", "mod", "pmod", "negative",
    "positive", "sin", "cos", "tan", "cot", "sec", "csc", "asin", "acos", "atan", "atan2", "sinh",
    "cosh", "tanh", "asinh", "acosh", "atanh", "degrees", "radians", "pi", "e", "hypot",
    "factorial", "rand", "random", "randn", "try_add", "try_subtract", "try_multiply",
    "try_divide", "try_mod", "width_bucket", "bin", "hex", "unhex", "conv", "shiftleft",
    "shiftright", "shiftrightunsigned", "bit_count", "bit_get", "getbit", "div",
}  # fmt: skip
_STRING = {
    "upper", "lower", "ucase", "lcase", "initcap", "length", "char_length", "character_length",
    "len", "bit_length", "octet_length", "trim", "ltrim", "rtrim", "btrim", "substring", "substr",
    "left", "right", "concat", "concat_ws", "replace", "translate", "instr", "locate", "position",
    "charindex", "lpad", "rpad", "reverse", "split_part", "startswith", "endswith", "starts_with",
    "ends_with", "contains", "ascii", "chr", "char", "format_string", "printf", "format_number",
    "levenshtein", "soundex", "overlay", "elt", "substring_index", "find_in_set", "encode",
    "decode", "base64", "unbase64", "md5", "sha", "sha1", "sha2", "crc32", "hash", "xxhash64",
    "luhn_check", "mask", "uuid", "is_valid_utf8", "make_valid_utf8", "validate_utf8",
    "try_validate_utf8", "collate", "collation", "quote",
}  # fmt: skip
# Regex functions: allowed with a literal pattern that passes dq_engine.java_regex; engines run them
# through a bounded matcher (the automaton, or a step budget against catastrophic backtracking).
REGEX_FUNCTIONS = frozenset({"rlike", "regexp", "regexp_like", "regexp_extract", "regexp_replace"})
_DATETIME = {
    "current_date", "current_timestamp", "now", "localtimestamp", "current_timezone", "date_trunc",
    "trunc", "date_format", "to_date", "try_to_date", "to_timestamp", "try_to_timestamp",
    "to_timestamp_ntz", "to_timestamp_ltz", "unix_timestamp", "from_unixtime", "to_unix_timestamp",
    "year", "quarter", "month", "day", "dayofmonth", "dayofweek", "dayofyear", "weekday",
    "weekofyear", "hour", "minute", "second", "extract", "date_part", "datepart", "date_add",
    "date_sub", "dateadd", "datediff", "date_diff", "add_months", "months_between", "last_day",
    "next_day", "make_date", "make_timestamp", "make_timestamp_ntz", "make_timestamp_ltz",
    "try_make_timestamp", "timestamp_seconds", "timestamp_millis", "timestamp_micros",
    "unix_seconds", "unix_millis", "unix_micros", "unix_date", "date_from_unix_date",
    "from_utc_timestamp", "to_utc_timestamp", "timestampadd", "timestampdiff", "convert_timezone",
    "make_interval", "make_dt_interval", "make_ym_interval", "monthname", "dayname",
}  # fmt: skip
_AGGREGATE = {
    "count", "count_if", "sum", "avg", "mean", "min", "max", "stddev", "stddev_pop",
    "stddev_samp", "std", "variance", "var_pop", "var_samp", "percentile", "percentile_approx",
    "approx_percentile", "percentile_cont", "percentile_disc", "median", "mode",
    "approx_count_distinct", "first", "first_value", "last", "last_value", "any_value",
    "bool_and", "bool_or", "every", "some", "any", "collect_list", "collect_set", "array_agg",
    "corr", "covar_pop", "covar_samp", "skewness", "kurtosis", "min_by", "max_by", "try_sum",
    "try_avg", "bit_and", "bit_or", "bit_xor", "regr_count", "regr_avgx", "regr_avgy",
    "regr_slope", "regr_intercept", "regr_r2", "listagg", "string_agg",
}  # fmt: skip
_WINDOW = {"row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile", "lag", "lead", "nth_value"}
# Collections whose size is bounded by their arguments' (no generators, no sequence/array_repeat).
_COLLECTION = {
    "array", "size", "cardinality", "array_size", "array_contains", "array_distinct", "array_max",
    "array_min", "array_position", "array_remove", "array_sort", "sort_array", "array_join",
    "array_union", "array_intersect", "array_except", "arrays_overlap", "array_compact",
    "element_at", "try_element_at", "get", "slice", "flatten", "arrays_zip", "map", "map_keys",
    "map_values", "map_entries", "map_contains_key", "map_from_arrays", "named_struct", "struct",
    "transform", "filter", "exists", "forall", "aggregate", "reduce", "zip_with",
    "get_json_object", "json_array_length", "json_object_keys", "to_json", "from_json",
}  # fmt: skip

# GROUP BY's grouping constructs, which SQLGlot parses as calls: pure, and bounded by the groups.
_GROUPING = {"rollup", "cube", "grouping_sets", "grouping", "grouping_id"}

ALLOWED_FUNCTIONS = frozenset(
    _CONDITIONAL
    | _CONVERSION
    | _MATH
    | _STRING
    | REGEX_FUNCTIONS
    | _DATETIME
    | _AGGREGATE
    | _WINDOW
    | _COLLECTION
    | _GROUPING
)

# SQLGlot classes that are syntax rather than a named function.
_SYNTAX_CLASSES = (exp.Case, exp.Cast, exp.TryCast, exp.If, exp.Extract)
# Operators SQLGlot models as Func subclasses; a Func that renders as a call is still checked on the
# rendered tokens.
_OPERATORS = (exp.Connector, exp.Binary, exp.Unary, exp.Predicate)


@lru_cache(maxsize=1)
def _allowed_classes() -> frozenset[type]:
    """The SQLGlot classes the listed functions parse into, found by parsing a call of each.

    SQLGlot models many Spark functions under its own names (Spark's `date_trunc` parses as
    TimestampTrunc, `year(d)` as Year over TsOrDsToDate), so the classes are learnt from SQLGlot's
    own Spark parser rather than listed by hand. Whatever a class renders as is still checked token
    by token against ALLOWED_FUNCTIONS (sql_safety._check_rendered).
    """
    from sqlglot.dialects.spark import Spark

    builders = Spark.Parser.FUNCTIONS
    classes: set[type] = set(_SYNTAX_CLASSES)
    for name in ALLOWED_FUNCTIONS:
        built = getattr(builders.get(name.upper()), "__self__", None)  # exp.X.from_arg_list
        if isinstance(built, type) and issubclass(built, exp.Func):
            classes.add(built)
            continue
        for arity in range(5):  # a builder function: learn its classes from a call it accepts
            args = ", ".join(f"c{i}" for i in range(arity))
            try:
                tree = sqlglot.parse_one(f"{name}({args})", read="spark")
            except (SqlglotError, ValueError, TypeError, IndexError):  # builders may raise on a wrong arity
                continue
            classes.update(type(node) for node in tree.walk() if isinstance(node, exp.Func))
            break
    classes.discard(exp.Anonymous)  # anonymous calls are judged by their written name
    return frozenset(classes)


def _class_names(cls: type) -> set[str]:
    try:
        return {name.lower() for name in cls.sql_names()}
    except NotImplementedError:
        return set()


def call_name(node: exp.Func) -> str:
    """The name to show for a call: as written for functions SQLGlot does not model, else the name
    Spark would see (SQLGlot's GenerateSeries is Spark's `sequence`)."""
    if isinstance(node, exp.Anonymous):
        return node.name.lower()
    try:
        rendered = re.match(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*\(", node.sql(dialect="spark"))
    except Exception:  # noqa: BLE001 - SQLGlot cannot render every malformed call
        rendered = None
    if rendered:
        return rendered.group(1).lower()
    names = sorted(_class_names(type(node)))
    return names[0] if names else type(node).__name__.lower()


def allowed_call(node: exp.Func) -> bool:
    """Whether a parsed call is on the allow-list (see the module docstring)."""
    if isinstance(node, exp.Anonymous):
        return node.name.lower() in ALLOWED_FUNCTIONS
    if isinstance(node, _OPERATORS):
        return True  # AND, OR, XOR ... are Func classes in SQLGlot but operators in SQL
    cls = type(node)
    if cls in _allowed_classes() or _class_names(cls) & ALLOWED_FUNCTIONS:
        return True
    # A class learnt from another arity (to_timestamp(a) vs to_timestamp(a, fmt)): judged by the name
    # Spark will be sent, which is what the rendered-SQL check reads too.
    return call_name(node) in ALLOWED_FUNCTIONS
