"""Row-level rules written as check.yaml: every row marked with `_dq` (how many checks
it fails) and `_dq_failed_checks` (their names).

- language.py: the text → its full form (every name expanded), or problems with line and entry;
- compile.py: the full form → dialect-neutral SQLGlot conditions over the batch's columns, which
  every engine renders in its own dialect like any other predicate of the vocabulary;
- contract.py: contract.yaml (column types, nullability, required, strict) for schema contracts.
"""

from dq_engine.rowchecks.language import Problem, RuleSet, RuleSetInvalid, expand, fields_used, parse_rule_set

__all__ = ["Problem", "RuleSet", "RuleSetInvalid", "expand", "fields_used", "parse_rule_set"]
