"""How acts number an article inserted between two others: a Latin suffix after the number ("226 bis", "369
terdecies", "369 septvicies quater"). One pattern for the chunker, the search titles, the cross-references and the
questions that name an article, so that they all read "Article 369 terdecies" as that article, never as Article 369
or Article 369 ter."""

# the compounds first: a regex alternation takes the first that matches, and "ter" is a prefix of "terdecies"
_TENS = r"(?:un|duo|ter|quater|quin|sex|sept|octo|novo)?(?:decies|vicies|tricies)"
_UNITS = r"(?:bis|ter|quater|quinquies|sexies|septies|octies|nonies|novies)"
# an article inserted after an inserted one takes a second suffix ("369 septvicies bis")
LATIN_SUFFIX = rf"(?:(?:{_TENS}|{_UNITS})(?:\s+(?:bis|ter|quater|quinquies)\b)?)"
