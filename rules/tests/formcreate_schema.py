"""A JSON schema for the subset of form-create (`@form-create/element-ui` v3) rules we serve.

Strict on purpose (additionalProperties: false): a typo such as `option` for `options` or `valdiate`
would render silently wrong in the browser, so the test refuses it here.
"""

# form-create's own components, plus the SPA's registered dq-yaml-editor (frontend/src/components/YamlEditor.vue)
COMPONENTS = ["input", "inputNumber", "select", "group", "switch", "radio", "checkbox", "datePicker", "dq-yaml-editor"]

VALIDATE_ITEM = {
    "type": "object",
    "properties": {
        "required": {"type": "boolean"},
        "type": {"enum": ["string", "number", "integer", "array", "boolean"]},
        "message": {"type": "string", "minLength": 1},
        "trigger": {"enum": ["change", "blur"]},
        "min": {"type": "number"},
        "max": {"type": "number"},
        "pattern": {"type": "string"},
    },
    "required": ["message"],
    "additionalProperties": False,
}

OPTION = {
    "type": "object",
    "properties": {
        "label": {"type": "string"},
        "value": {"type": ["string", "number", "boolean"]},
        "disabled": {"type": "boolean"},
    },
    "required": ["label", "value"],
    "additionalProperties": False,
}

FETCH = {
    "type": "object",
    "properties": {
        "action": {"type": "string", "pattern": "^/api/v1/"},
        "method": {"enum": ["GET", "POST"]},
        "query": {"type": "object", "additionalProperties": {"type": "string"}},
        "parse": {"type": "string"},
        "to": {"type": "string"},
        "wait": {"type": "integer"},
    },
    "required": ["action"],
    "additionalProperties": False,
}

RULE = {
    "type": "object",
    "properties": {
        "type": {"enum": COMPONENTS},
        "field": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"},
        "title": {"type": "string", "minLength": 1},
        "info": {"type": "string"},
        "value": {},
        "props": {"type": "object"},
        "options": {"type": "array", "items": OPTION},
        "validate": {"type": "array", "items": VALIDATE_ITEM},
        "col": {
            "type": "object",
            "properties": {"span": {"type": "integer", "minimum": 1, "maximum": 24}},
            "additionalProperties": False,
        },
        "control": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"value": {}, "rule": {"type": "array", "items": {"type": "string"}, "minItems": 1}},
                "required": ["value", "rule"],
                "additionalProperties": False,
            },
        },
        "link": {"type": "array", "items": {"type": "string"}},
        "effect": {"type": "object", "properties": {"fetch": FETCH}, "additionalProperties": False},
    },
    "required": ["type", "field", "title"],
    "additionalProperties": False,
}

GROUP_PROPS = {
    "type": "object",
    "properties": {
        "rule": {"type": "array", "items": RULE, "minItems": 1},
        "min": {"type": "integer"},
        "max": {"type": "integer"},
        "expand": {"type": "integer"},
    },
    "required": ["rule"],
    "additionalProperties": False,
}

FORM = {"type": "array", "items": RULE, "minItems": 1}
