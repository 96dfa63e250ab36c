"""The ingress guard lets our own concept ids through: a random UUID whose digits read like an ID number (the demo's
commit once failed on "Concept.id contains personal data (ES_DNI)") is not personal data; text still is."""

from __future__ import annotations

import pytest

from regintel.graph.guard import IngressGuard, IngressRejected
from regintel.graph.guard import find_pii

LOOKS_LIKE_DNI = "1288563b-7811-44cd-8de6-d8868d6617cb"  # a real uuid4 the detector reads as a Spanish DNI


def test_a_concept_id_that_looks_like_an_id_number_is_accepted():
    assert find_pii(LOOKS_LIKE_DNI)  # the premise: the detector alone flags it
    IngressGuard().check_node("Concept", "DATA_PROTECTION|BREACH|EU", {"id": LOOKS_LIKE_DNI})


def test_personal_data_around_an_id_or_in_other_properties_is_still_refused():
    with pytest.raises(IngressRejected, match="personal data"):
        IngressGuard().check_node("Concept", "k", {"id": LOOKS_LIKE_DNI + " 12345678Z"})
    with pytest.raises(IngressRejected, match="identifier"):
        IngressGuard().check_node("Concept", "k", {"definition": LOOKS_LIKE_DNI})
