"""kubectl's ``-l`` selector syntax (``k8s.io/apimachinery/pkg/labels.Parse``) as a LabelSelector. Pure.

Supported, as kubectl: ``k=v``, ``k==v``, ``k!=v``, ``k in (a,b)``, ``k notin (a,b)``, ``k`` (exists) and
``!k`` (does not exist), joined by commas. ``k!=v`` matches objects without ``k``, as in Kubernetes.
"""

from __future__ import annotations

import re

from gitops_karmada.model.base import LabelSelector, LabelSelectorRequirement, SelectorOperator


class SelectorSyntaxError(ValueError):
    """A ``-l`` value kubectl would refuse; the message names the part."""


_SET = re.compile(r"^\s*(?P<key>[^\s!=,()]+)\s+(?P<op>in|notin)\s*\((?P<values>[^()]*)\)\s*")
_EQUALITY = re.compile(r"^\s*(?P<key>[^\s!=,()]+)\s*(?P<op>==|=|!=)\s*(?P<value>[^\s,()!=]*)\s*")
_EXISTS = re.compile(r"^\s*(?P<not>!?)\s*(?P<key>[^\s!=,()]+)\s*")


def parse_label_query(text: str) -> LabelSelector:
    """The selector ``text`` means; an empty text selects everything."""
    if text.count("(") != text.count(")"):
        raise SelectorSyntaxError(f"unbalanced parentheses in the selector {text!r}")
    requirements: list[LabelSelectorRequirement] = []
    rest = text.strip()
    while rest:
        if match := _SET.match(rest):
            values = tuple(v.strip() for v in match["values"].split(",") if v.strip())
            operator = SelectorOperator.IN if match["op"] == "in" else SelectorOperator.NOT_IN
            requirements.append(LabelSelectorRequirement(key=match["key"], operator=operator, values=values))
        elif match := _EQUALITY.match(rest):
            operator = SelectorOperator.NOT_IN if match["op"] == "!=" else SelectorOperator.IN
            requirement = LabelSelectorRequirement(
                key=match["key"], operator=operator, values=(match["value"],)
            )
            requirements.append(requirement)
        elif match := _EXISTS.match(rest):
            operator = SelectorOperator.DOES_NOT_EXIST if match["not"] else SelectorOperator.EXISTS
            requirements.append(LabelSelectorRequirement(key=match["key"], operator=operator))
        else:
            raise SelectorSyntaxError(f"cannot parse {rest!r} of the selector {text!r}")
        rest = rest[match.end() :]
        if rest.startswith(","):
            rest = rest[1:].lstrip()
            if not rest:
                raise SelectorSyntaxError(f"the selector {text!r} ends with a comma")
        elif rest:
            raise SelectorSyntaxError(f"expected a comma before {rest!r} in the selector {text!r}")
    selector = LabelSelector(match_expressions=tuple(requirements))
    for requirement in requirements:
        problem = requirement.problem()
        if problem is not None:
            raise SelectorSyntaxError(f"{problem} (in the selector {text!r})")
    return selector
