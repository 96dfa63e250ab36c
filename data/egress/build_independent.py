"""Writes data/egress/independent.jsonl: the egress evaluation table written independently of the detector.

How it was written (see README "Egress evaluation"): from the list of personal-data types in issue 18 only,
before the Presidio detector existed. Each type gets values in several countries' formats and sentences in
several languages (EN/FR/DE/ES/IT/NL/PL); identifiers carry valid check digits computed here from the
published algorithms (not with the detector's code). Lookalikes are regulatory text that must stay untouched:
article numbers, CELEX and ECLI ids, OJ references, amounts, rates, dates of acts, names of authorities and acts.

Every row gets a split from a hash of its id: ``dev`` may be looked at while tuning, ``test`` is held back
(scored by the bench, never read row by row while tuning). Deterministic: ``python data/egress/build_independent.py``
rewrites the same file.

The session-89 rows (BE_NN, ID_NUMBER and their lookalikes, kinds ``be_nn``, ``id_number``, ``lookalike89``) were
written after the detector for those types existed, by a writer who did not read the detector.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

OUT = Path(__file__).with_name("independent.jsonl")
rng = random.Random(1818)


# --- identifiers with their published check algorithms ----------------------------------------------------------
def pesel() -> str:
    year, month, day = rng.randint(1950, 2005), rng.randint(1, 12), rng.randint(1, 28)
    month_code = month + (20 if year >= 2000 else 0)
    body = f"{year % 100:02d}{month_code:02d}{day:02d}{rng.randint(0, 9999):04d}"
    weights = (1, 3, 7, 9, 1, 3, 7, 9, 1, 3)
    check = (10 - sum(int(d) * w for d, w in zip(body, weights)) % 10) % 10
    return body + str(check)


def nir(spaced: bool) -> str:
    sex, yy, mm = rng.choice("12"), rng.randint(40, 99), rng.randint(1, 12)
    dept, commune, order = rng.randint(1, 95), rng.randint(1, 990), rng.randint(1, 999)
    if dept == 20:
        dept = 21
    body = f"{sex}{yy:02d}{mm:02d}{dept:02d}{commune:03d}{order:03d}"
    key = 97 - int(body) % 97
    if spaced:
        return f"{body[0]} {body[1:3]} {body[3:5]} {body[5:7]} {body[7:10]} {body[10:13]} {key:02d}"
    return f"{body}{key:02d}"


_CF_ODD = dict(zip("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ",
                   [1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8,
                    12, 14, 16, 10, 22, 25, 24, 23]))


def codice_fiscale() -> str:
    def part() -> str:  # surname and name codes: consonants first, then vowels (the official construction)
        consonants = rng.randint(1, 3)
        return "".join(rng.choice("BCDFGLMNPRSTVZ") for _ in range(consonants)) + "".join(
            rng.choice("AEIOU") for _ in range(3 - consonants))

    head = part() + part()
    day = rng.randint(1, 28) + rng.choice((0, 40))
    body = f"{head}{rng.randint(50, 99):02d}{rng.choice('ABCDEHLMPRST')}{day:02d}{rng.choice('ABCDEFGHLM')}{rng.randint(1, 999):03d}"
    total = 0
    for position, char in enumerate(body, start=1):
        total += _CF_ODD[char] if position % 2 else (int(char) if char.isdigit() else ord(char) - 65)
    return body + chr(65 + total % 26)


_DNI = "TRWAGMYFPDXBNJZSQVHLCKE"


def dni(hyphen: bool = False) -> str:
    number = rng.randint(10_000_000, 99_999_999)
    return f"{number}{'-' if hyphen else ''}{_DNI[number % 23]}"


def nie() -> str:
    prefix, number = rng.choice("XYZ"), rng.randint(0, 9_999_999)
    return f"{prefix}{number:07d}{_DNI[int(str('XYZ'.index(prefix)) + f'{number:07d}') % 23]}"


def bsn(dotted: bool = False) -> str:
    while True:
        digits = [rng.randint(1, 9)] + [rng.randint(0, 9) for _ in range(7)]
        total = sum(d * w for d, w in zip(digits, range(9, 1, -1)))
        last = total % 11
        if last <= 9:
            value = "".join(map(str, digits)) + str(last)
            return f"{value[:4]}.{value[4:6]}.{value[6:]}" if dotted else value


def de_steuer_id(spaced: bool = False) -> str:
    while True:
        digits = [rng.randint(1, 9)] + [rng.randint(0, 9) for _ in range(9)]
        counts = [digits.count(d) for d in set(digits)]
        if sorted(counts, reverse=True)[0] not in (2, 3) or sum(1 for c in counts if c > 1) != 1:
            continue
        product = 10
        for d in digits:
            total = (d + product) % 10 or 10
            product = (total * 2) % 11
        check = 11 - product
        check = 0 if check == 10 else check
        value = "".join(map(str, digits)) + str(check)
        return f"{value[:2]} {value[2:5]} {value[5:8]} {value[8:]}" if spaced else value


def nino(spaced: bool) -> str:
    first = rng.choice("ABCEGHJKLMNOPRSTWXYZ")
    second = rng.choice("ABCEGHJKLMNPRSTWXYZ")
    if first + second in {"BG", "GB", "NK", "KN", "TN", "NT", "ZZ"}:
        first, second = "A", "B"
    digits = f"{rng.randint(0, 999999):06d}"
    suffix = rng.choice("ABCD")
    return f"{first}{second} {digits[:2]} {digits[2:4]} {digits[4:]} {suffix}" if spaced else f"{first}{second}{digits}{suffix}"


def ppsn(second: bool) -> str:
    digits = f"{rng.randint(0, 9999999):07d}"
    total = sum(int(d) * w for d, w in zip(digits, range(8, 1, -1)))
    extra = ""
    if second:
        extra = rng.choice("AH")
        total += 9 * (ord(extra) - 64)
    remainder = total % 23
    return digits + ("W" if remainder == 0 else chr(64 + remainder)) + extra


_IBAN_BBAN = {"DE": "8n10n", "FR": "10n11c2n", "ES": "20n", "IT": "1a10n12c", "NL": "4a10n", "BE": "12n",
              "PL": "24n", "LU": "3n13c", "IE": "4a14n", "AT": "16n", "PT": "21n"}


def _ccc_digit(digits: str) -> str:
    weights = (1, 2, 4, 8, 5, 10, 9, 7, 3, 6)[-len(digits):]
    value = 11 - sum(int(d) * w for d, w in zip(digits, weights)) % 11
    return {11: "0", 10: "1"}.get(value, str(value))


def _national_check(country: str, bban: str) -> str:
    """Belgian and Spanish BBANs carry their own check digits besides the IBAN's."""
    if country == "BE":
        return bban[:10] + f"{int(bban[:10]) % 97 or 97:02d}"
    if country == "ES":
        return bban[:8] + _ccc_digit(bban[:8]) + _ccc_digit(bban[10:]) + bban[10:]
    return bban


def iban(spaced: bool, country: str | None = None) -> str:
    country = country or rng.choice(sorted(_IBAN_BBAN))
    spec, bban, number = _IBAN_BBAN[country], "", ""
    for char in spec:
        if char.isdigit():
            number += char
            continue
        pool = {"n": "0123456789", "a": "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "c": "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"}[char]
        bban += "".join(rng.choice(pool) for _ in range(int(number)))
        number = ""
    bban = _national_check(country, bban)
    numeric = "".join(str(int(c, 36)) for c in bban + country + "00")
    value = f"{country}{98 - int(numeric) % 97:02d}{bban}"
    return " ".join(value[i:i + 4] for i in range(0, len(value), 4)) if spaced else value


def card(style: str) -> str:
    prefix, length = rng.choice([("4", 16), ("51", 16), ("55", 16), ("2221", 16), ("37", 15), ("34", 15)])
    body = prefix + "".join(str(rng.randint(0, 9)) for _ in range(length - len(prefix) - 1))
    total = 0
    for i, c in enumerate(reversed(body)):
        d = int(c) * (1 if i % 2 else 2)
        total += d - 9 if d > 9 else d
    value = body + str((10 - total % 10) % 10)
    if style == "plain":
        return value
    sep = " " if style == "spaced" else "-"
    groups = [value[:4], value[4:10], value[10:]] if length == 15 else [value[i:i + 4] for i in range(0, 16, 4)]
    return sep.join(groups)


def passport(country: str) -> str:
    digits = lambda n: "".join(str(rng.randint(0, 9)) for _ in range(n))  # noqa: E731
    letters = lambda n: "".join(rng.choice("ABCDEFGHJKLMNPRSTUVWXYZ") for _ in range(n))  # noqa: E731
    return {"FR": lambda: digits(2) + letters(2) + digits(5), "DE": lambda: "C" + letters(1) + digits(3) + letters(1) + digits(3),
            "IT": lambda: letters(2) + digits(7), "ES": lambda: letters(3) + digits(6), "UK": lambda: digits(9),
            "NL": lambda: letters(2) + letters(2) + digits(4) + digits(1), "PL": lambda: letters(2) + digits(7),
            "IE": lambda: letters(2) + digits(7)}[country]()


# --- building blocks ---------------------------------------------------------------------------------------------
FIRST = ["Jan", "Anna", "Marie", "Pierre", "Giulia", "Marco", "Lucía", "Javier", "Sophie", "Thomas", "Katarzyna",
         "Piotr", "Sean", "Aoife", "Lars", "Eva", "Hans", "Claire", "Francesca", "Pablo", "Maarten", "Femke",
         "Agnieszka", "Tomasz", "Elena", "Luca", "Isabel", "Jürgen", "Margot", "Dirk"]
LAST = ["Kowalski", "Nowak", "Dubois", "Lefèvre", "Rossi", "Bianchi", "García", "Fernández", "Müller", "Schmidt",
        "Wiśniewska", "Lewandowski", "O'Brien", "Murphy", "de Vries", "Jansen", "van den Berg", "Moreau",
        "Ferrari", "Martínez", "Bakker", "Zieliński", "Fischer", "Weber", "Colombo", "Romano", "Navarro",
        "Girard", "Kelly", "Wójcik"]


def full_name() -> str:
    return f"{rng.choice(FIRST)} {rng.choice(LAST)}"


def email_address() -> str:
    first, last = rng.choice(FIRST), rng.choice(LAST)
    local = f"{first}.{last}".lower().replace(" ", "").replace("'", "")
    local = local.translate(str.maketrans("áéíóúüöäłśńżźćęąèç", "aeiouuoalsnzzceaec"))
    domain = rng.choice(["example.com", "mail.example.de", "exemple.fr", "esempio.it", "ejemplo.es", "voorbeeld.nl",
                         "przyklad.pl", "client-mail.eu"])
    return f"{local}@{domain}"


ROWS: list[dict] = []


def add(group: str, kind: str, text: str, expected: list[tuple[str, str]]) -> None:
    for pii_type, value in expected:
        assert value in text, (kind, value, text)
    row_id = f"{kind}-{sum(1 for r in ROWS if r['kind'] == kind) + 1}"
    split = "dev" if int(hashlib.sha1(row_id.encode()).hexdigest(), 16) % 2 == 0 else "test"
    ROWS.append({"id": row_id, "kind": kind, "group": group, "split": split, "text": text,
                 "expected": [[t, v] for t, v in expected]})


def positives() -> None:  # noqa: C901 - one block per type, read top to bottom
    # PL_PESEL
    for template in ["Mój klient, PESEL {v}, pyta o art. 17 RODO.", "PESEL: {v} – proszę o analizę zgodności z DORA.",
                     "The Polish employee's PESEL number is {v}; may we store it under Article 6(1)(c)?",
                     "Numer PESEL {v} pojawił się w rejestrze incydentów.", "Can we keep PESEL {v} after the contract ends?",
                     "Dane pracownika (nr PESEL {v}) przekazano do ZUS."]:
        v = pesel()
        add("positive", "pl_pesel", template.format(v=v), [("PL_PESEL", v)])
    # FR_NIR
    for template, spaced in [("Mon numéro de sécurité sociale est {v}, puis-je refuser ?", True),
                             ("NIR {v} figure dans le fichier de paie.", False),
                             ("The French employee's social security number {v} was emailed to the auditor.", True),
                             ("N° INSEE : {v}", True), ("Le salarié (n° SS {v}) demande l'effacement.", False),
                             ("Numéro de sécu: {v}. Est-ce une donnée sensible au sens de l'article 9 ?", True)]:
        v = nir(spaced)
        add("positive", "fr_nir", template.format(v=v), [("FR_NIR", v)])
    # IT_FISCAL_CODE
    for template in ["Il mio codice fiscale è {v}: posso chiederne la cancellazione?", "Codice fiscale: {v}",
                     "The Italian client's codice fiscale {v} appears in the KYC file.", "C.F. {v} - richiesta di accesso ex art. 15 GDPR.",
                     "Please anonymise {v} before sending the file to the supervisor.", "Cliente con CF {v} segnalato all'UIF."]:
        v = codice_fiscale()
        add("positive", "it_fiscal_code", template.format(v=v), [("IT_FISCAL_CODE", v)])
    # ES_DNI (NIF) and ES_NIE
    for template, hyphen in [("Mi DNI es {v} y quiero ejercer mi derecho de supresión.", False), ("NIF: {v}", False),
                             ("The Spanish customer (DNI {v}) asked for a copy of his data.", True),
                             ("Con DNI {v}, ¿puede el banco conservar mis datos diez años?", False),
                             ("Titular: D.N.I. {v}, residente en Madrid.", True), ("El número {v} aparece en la factura.", False)]:
        v = dni(hyphen)
        add("positive", "es_dni", template.format(v=v), [("ES_DNI", v)])
    for template in ["Mi NIE es {v}.", "Foreign resident with NIE {v} asks about Article 20 portability.",
                     "NIE: {v} — comprobar la obligación de identificación del cliente.", "El trabajador extranjero ({v}) pidió acceso a sus datos.",
                     "Número de identidad de extranjero {v}"]:
        v = nie()
        add("positive", "es_nie", template.format(v=v), [("ES_NIE", v)])
    # NL_BSN
    for template, dotted in [("Mijn BSN is {v}, mag de werkgever dit bewaren?", False), ("BSN: {v}", True),
                             ("The Dutch employee's burgerservicenummer {v} was in the payroll export.", False),
                             ("Burgerservicenummer {v} staat op de loonstrook.", True), ("Sofinummer/BSN {v} graag verwijderen.", False),
                             ("Client BSN {v} requested erasure under Article 17.", False)]:
        v = bsn(dotted)
        add("positive", "nl_bsn", template.format(v=v), [("NL_BSN", v)])
    # DE_TAX_ID
    for template, spaced in [("Meine Steuer-ID ist {v}, darf die Bank sie speichern?", False),
                             ("Steueridentifikationsnummer: {v}", True),
                             ("The German client's tax ID {v} was copied into the CRM.", False),
                             ("IdNr. {v} laut Lohnsteuerbescheinigung.", False),
                             ("Persönliche Identifikationsnummer {v} bitte schwärzen.", True),
                             ("Steuer-IdNr {v} im Datensatz des Mitarbeiters.", False)]:
        v = de_steuer_id(spaced)
        add("positive", "de_tax_id", template.format(v=v), [("DE_TAX_ID", v)])
    # UK_NINO
    for template, spaced in [("My National Insurance number is {v}.", True), ("NI number: {v}", False),
                             ("Employee NINO {v} appears in the breach log.", False),
                             ("Can HMRC share {v} with the pension provider?", True), ("NINo {v} (UK resident)", True)]:
        v = nino(spaced)
        add("positive", "uk_nino", template.format(v=v), [("UK_NINO", v)])
    # IE_PPSN
    for template, second in [("My PPS number is {v}.", False), ("PPSN: {v}", True),
                             ("The Irish employee's PPSN {v} was sent to the wrong payroll bureau.", False),
                             ("Uimhir PSP {v} – please check under the Data Protection Act 2018.", False),
                             ("Revenue asked for PPS no. {v} for the VAT registration.", True)]:
        v = ppsn(second)
        add("positive", "ie_ppsn", template.format(v=v), [("IE_PPSN", v)])
    # IBAN
    for template, spaced, country in [("Please refund to IBAN {v}.", True, "DE"), ("IBAN: {v}", False, "FR"),
                                      ("Mi cuenta es {v}, ¿es un dato personal?", True, "ES"),
                                      ("Il conto {v} è intestato al cliente.", False, "IT"),
                                      ("Rekeningnummer {v} graag verwijderen.", True, "NL"),
                                      ("Numer rachunku {v} wyciekł w mailu.", True, "PL"),
                                      ("Transfer the deposit to {v} by Friday.", False, "IE"),
                                      ("Kontonummer {v} (Girokonto).", True, "AT"), ("Compte {v}", True, "LU"),
                                      ("Conta {v} do titular.", False, "PT")]:
        v = iban(spaced, country)
        add("positive", "iban", template.format(v=v), [("IBAN", v)])
    # CARD
    for template, style in [("My card {v} was charged twice.", "spaced"), ("Kartennummer: {v}", "plain"),
                            ("Numéro de carte {v}, expiration 09/27.", "spaced"), ("Tarjeta {v} bloqueada.", "dashed"),
                            ("The customer read out card number {v} on the recorded call.", "plain"),
                            ("Carta di credito {v}", "spaced"), ("Karta {v} została zastrzeżona.", "dashed")]:
        v = card(style)
        add("positive", "card", template.format(v=v), [("CARD", v)])
    # PASSPORT (in context)
    for template, country in [("Passport number {v} was scanned at onboarding.", "UK"),
                              ("Numéro de passeport : {v}", "FR"), ("Reisepassnummer {v} liegt vor.", "DE"),
                              ("Pasaporte n.º {v} caducado.", "ES"), ("Numero di passaporto {v}", "IT"),
                              ("Paspoortnummer {v} is verlopen.", "NL"), ("Numer paszportu: {v}", "PL"),
                              ("The client's passport no. {v} expires next year.", "IE"),
                              ("Passeport {v} délivré à Lyon.", "FR"), ("Reisepass Nr. {v}", "DE")]:
        v = passport(country)
        add("positive", "passport", template.format(v=v), [("PASSPORT", v)])
    # EMAIL: plain, obfuscated, split across a line break
    for template in ["Write to {v} about Article 15.", "Mon adresse est {v}.", "Schreiben Sie an {v}, bitte.",
                     "Correo: {v}", "Contattare {v} entro venerdì.", "Mail {v} voor vragen.", "Adres e-mail: {v}"]:
        v = email_address()
        add("positive", "email", template.format(v=v), [("EMAIL", v)])
    for sep_at, sep_dot in [(" [at] ", " [dot] "), ("(at)", "(dot)"), (" at ", " dot "), (" [at] ", "."),
                            (" (at) ", " (punto) "), (" [@] ", ".")]:
        local, domain = email_address().split("@")
        v = f"{local}{sep_at}{domain.replace('.', sep_dot)}"
        add("positive", "email_obfuscated", f"Contact the employee at {v} for the DSAR.", [("EMAIL", v)])
    for split in ["at", "dot"]:
        for template in ["Kontakt: {v} (Personalabteilung)", "Please reply to {v} today."]:
            local, domain = email_address().split("@")
            v = f"{local}@\n{domain}" if split == "at" else f"{local}\n@{domain}"
            add("positive", "email_split", template.format(v=v), [("EMAIL", v)])
    # PHONE
    for template, v in [("Call me on {v}.", "+48 601 234 567"), ("Mon portable : {v}", "06 12 34 56 78"),
                        ("Tel. {v}", "+49 30 12345678"), ("Erreichbar unter {v}.", "0171 2345678"),
                        ("Teléfono: {v}", "+34 612 34 56 78"), ("Llámame al {v}.", "612 345 678"),
                        ("Cellulare {v}", "+39 347 123 4567"), ("Telefoonnummer {v}", "06-12345678"),
                        ("Bel {v} voor een afspraak.", "+31 20 123 4567"), ("Phone: {v}", "+44 7700 900123"),
                        ("Mobile {v}", "+353 87 123 4567"), ("Numer telefonu: {v}", "601-234-567"),
                        ("Téléphone fixe {v}", "+33 (0)1 42 68 53 00"), ("Tel.: {v}", "+43 664 1234567")]:
        add("positive", "phone", template.format(v=v), [("PHONE", v)])
    # IP addresses
    for template, v in [("The login came from {v}.", "192.168.1.23"), ("Adresse IP de l'utilisateur : {v}", "81.56.201.14"),
                        ("IP-Adresse {v} im Logfile.", "2001:db8:85a3::8a2e:370:7334"), ("Dirección IP {v}", "203.0.113.42"),
                        ("Indirizzo IP {v} del dipendente", "10.0.0.15"), ("IP {v} geblokkeerd.", "fe80::1ff:fe23:4567:890a"),
                        ("Adres IP {v} zapisany w logach.", "172.16.254.1")]:
        add("positive", "ip", template.format(v=v), [("IP_ADDRESS", v)])
    # DATE_OF_BIRTH in context
    for template, v in [("Der Kunde, geb. {v}, ist seit 2010 bei uns.", "12.03.1985"), ("Geburtsdatum: {v}", "03.11.1972"),
                        ("Né le {v} à Lyon.", "4 mars 1979"), ("Date de naissance : {v}", "21/07/1990"),
                        ("Nacido el {v}.", "3 de mayo de 1982"), ("Fecha de nacimiento: {v}", "15/02/1968"),
                        ("Nato il {v} a Milano.", "15/07/1990"), ("Data di nascita {v}", "2 aprile 1981"),
                        ("Geboren op {v} te Utrecht.", "21-09-1975"), ("Geboortedatum: {v}", "08-01-1993"),
                        ("Urodzony {v} r. w Krakowie.", "14.02.1988"), ("Data urodzenia: {v}", "1988-02-14"),
                        ("Date of birth: {v}", "12 March 1985"), ("DOB {v}", "03/12/1985"),
                        ("She was born on {v} in Cork.", "July 4, 1979"), ("Née le {v}", "1er janvier 1960")]:
        add("positive", "dob", template.format(v=v), [("DATE_OF_BIRTH", v)])
    # ADDRESS
    for template, v in [("I live at {v}.", "Hauptstraße 12, 10115 Berlin"), ("Adresse : {v}", "12 rue de la Paix, 75002 Paris"),
                        ("Domicilio: {v}", "Calle Mayor 5, 28013 Madrid"), ("Residente in {v}.", "Via Roma 10, 00184 Roma"),
                        ("Woonadres: {v}", "Kerkstraat 25, 1017 GC Amsterdam"), ("Adres: {v}", "ul. Marszałkowska 84/92, 00-514 Warszawa"),
                        ("Send the letter to {v}.", "221B Baker Street, London NW1 6XE"),
                        ("Wohnhaft in der {v}.", "Goethestraße 7, 80336 München"), ("Il habite {v}.", "45 avenue Jean Jaurès, 69007 Lyon"),
                        ("Vive en {v}.", "Avenida de la Constitución 21, 41001 Sevilla"), ("Indirizzo: {v}", "Corso Buenos Aires 33, 20124 Milano"),
                        ("Postadres {v}", "Prinsengracht 263, 1016 GV Amsterdam"), ("Mieszka przy {v}.", "ul. Długa 5, 80-827 Gdańsk"),
                        ("Our client's home address is {v}.", "14 Main Street, Dublin 2, D02 XY45")]:
        add("positive", "address", template.format(v=v), [("ADDRESS", v)])
    # PERSON in running text
    for template in ["My colleague {v} asked whether the DPIA is mandatory.", "{v} a déposé une plainte auprès de la CNIL.",
                     "Herr {v} verlangt Auskunft nach Art. 15 DSGVO.", "La señora {v} solicitó la supresión de sus datos.",
                     "Il dottor {v} ha chiesto l'accesso ai propri dati.", "Mevrouw {v} wil haar gegevens laten verwijderen.",
                     "Pan {v} złożył skargę do Prezesa UODO.", "The complaint by {v} was forwarded to the lead authority.",
                     "Can we process the health data of {v} for the insurance claim?", "Notre client {v} conteste la décision.",
                     "Frau {v} ist seit 2019 bei uns beschäftigt.", "Según {v}, la empresa no respondió en plazo.",
                     "Secondo {v}, il titolare non ha informato gli interessati.", "Volgens {v} is het lek niet gemeld.",
                     "Według {v} administrator nie zgłosił naruszenia.", "Please remove {v} from the mailing list.",
                     "The employee {v} was dismissed after the monitoring.", "Mme {v} a demandé la portabilité de ses données.",
                     "Ich, {v}, widerspreche der Verarbeitung.", "Yo, {v}, autorizo el tratamiento.",
                     "{v} works in our Madrid branch and asked about her rights.", "We received a DSAR from {v} yesterday.",
                     "Does {v} have to consent to the background check?", "Il signor {v} vive a Torino."]:
        v = full_name()
        add("positive", "person", template.format(v=v), [("PERSON", v)])


def mixed() -> None:
    for i in range(26):
        name, mail, phone = full_name(), email_address(), rng.choice(["+33 6 98 76 54 32", "+49 151 23456789", "+48 512 345 678",
                                                                       "+34 699 123 456", "+39 333 987 6543"])
        choice = i % 6
        if choice == 0:
            v = iban(True)
            add("mixed", "mixed", f"{name} ({mail}) wants a refund to {v} under Article 17 GDPR.",
                [("PERSON", name), ("EMAIL", mail), ("IBAN", v)])
        elif choice == 1:
            v = pesel()
            add("mixed", "mixed", f"Klient {name}, PESEL {v}, tel. {phone}, pyta o art. 21 RODO.",
                [("PERSON", name), ("PL_PESEL", v), ("PHONE", phone)])
        elif choice == 2:
            v = codice_fiscale()
            add("mixed", "mixed", f"Il cliente {name} (codice fiscale {v}, nato il 3 maggio 1977) chiede l'accesso ex art. 15.",
                [("PERSON", name), ("IT_FISCAL_CODE", v), ("DATE_OF_BIRTH", "3 maggio 1977")])
        elif choice == 3:
            v = nir(True)
            add("mixed", "mixed", f"{name}, né le 12/04/1980, NIR {v}, demande l'effacement prévu à l'article 17.",
                [("PERSON", name), ("DATE_OF_BIRTH", "12/04/1980"), ("FR_NIR", v)])
        elif choice == 4:
            v, a = dni(), "Calle de Alcalá 48, 28014 Madrid"
            add("mixed", "mixed", f"Cliente: {name}, DNI {v}, domicilio {a}, correo {mail}.",
                [("PERSON", name), ("ES_DNI", v), ("ADDRESS", a), ("EMAIL", mail)])
        else:
            v, ip = bsn(), "85.144.23.7"
            add("mixed", "mixed", f"Werknemer {name} (BSN {v}) logde in vanaf {ip} volgens Artikel 32.",
                [("PERSON", name), ("NL_BSN", v), ("IP_ADDRESS", ip)])


LOOKALIKES = [
    # article numbers and references
    "Under Article 6(1)(f) GDPR the controller must balance its interests against those of the data subject.",
    "Article 33(1) requires notification within 72 hours.", "See Article 83(4) and (5) on administrative fines.",
    "Art. 17 Abs. 3 lit. b DSGVO regelt Ausnahmen vom Recht auf Löschung.", "L'article 9, paragraphe 2, point a) du RGPD.",
    "El artículo 22 del RGPD se refiere a las decisiones automatizadas.", "L'articolo 35, paragrafo 3, lettera b).",
    "Artikel 28 lid 3 AVG somt de verplichte bepalingen op.", "Art. 32 ust. 1 lit. a RODO wymienia pseudonimizację.",
    "Recital 47 mentions direct marketing as a legitimate interest.", "Annex III point 5(b) lists creditworthiness assessments.",
    "Article 28(3)(a) to (h) lists the processor terms.", "Articles 44 to 49 govern transfers to third countries.",
    "Article 226 of Directive 2006/112/EC lists the invoice details.", "Article 196 VAT Directive: reverse charge for B2B services.",
    "Section 4.2.1.3 of the guidelines discusses pseudonymisation.", "ESRS E1-6 paragraph 44 requires gross Scope 1 emissions.",
    "ESRS 2 BP-1 and BP-2 cover the basis for preparation.", "ESRS S1-16 paragraph 97(a) asks for the gender pay gap.",
    "DORA Article 19(1) on major ICT-related incident reporting.", "Article 28(2) DORA: register of information.",
    "Points 1 to 12 of Annex I apply.", "Chapter V, Section 3, Articles 46 and 47.", "Article L. 561-2 du Code monétaire et financier.",
    "Article 283-2 du code général des impôts.", "§ 25 Abs. 1 TTDSG verlangt eine Einwilligung.", "Art. 10 Ley Orgánica 3/2018.",
    "Article 4(1) defines personal data; Article 4(2) defines processing.", "Article 99(3) AI Act sets fines of up to 7 %.",
    "CRR Article 92(1)(a) sets a CET1 ratio of 4.5 %.",
    # CELEX, ECLI, OJ, document ids
    "CELEX 32016R0679", "CELEX number 32022R2554 (DORA).", "Document 32006L0112 consolidated on 1.1.2025.",
    "CELEX: 32011R0282", "OJ L 119, 4.5.2016, p. 1–88.", "OJ L 333, 27.12.2022, p. 1.", "JO L 347 du 11.12.2006, p. 1.",
    "ABl. L 119 vom 4.5.2016, S. 1.", "DO L 77 de 23.3.2011, p. 1.", "GU L 322 del 17.12.2022, pag. 15.",
    "ECLI:EU:C:2020:559", "ECLI:EU:C:2014:317", "Case C-131/12, judgment of 13 May 2014.", "Joined Cases C-92/09 and C-93/09.",
    "C(2023) 1234 final", "COM(2021) 206 final", "Procedure 2021/0106(COD)", "EBA/GL/2019/04", "ESMA74-362-2102",
    "JC 2023 86", "EDPB Guidelines 05/2020 on consent, version 1.1.", "WP 248 rev.01", "Opinion 28/2024 of the EDPB.",
    "ISO/IEC 27001:2022 Annex A.8.24", "ISO 20022 pacs.008.001.08", "RFC 5321 section 4.1.2", "NIS2 Directive (EU) 2022/2555",
    "Regulation (EU) 2016/679", "Regulation (EU) 2022/2554 of 14 December 2022", "Directive 2006/112/EC of 28 November 2006",
    "Council Implementing Regulation (EU) No 282/2011 of 15 March 2011", "Regulation (EU) No 575/2013",
    "Commission Delegated Regulation (EU) 2023/2772 of 31 July 2023", "Directive (EU) 2022/2464 (CSRD)",
    "Règlement (UE) 2016/679 du 27 avril 2016", "Verordnung (EU) 2016/679 vom 27. April 2016",
    "Reglamento (UE) 2016/679 de 27 de abril de 2016", "Regolamento (UE) 2016/679 del 27 aprile 2016",
    "Verordening (EU) 2016/679 van 27 april 2016", "Rozporządzenie (UE) 2016/679 z dnia 27 kwietnia 2016 r.",
    "Ustawa z dnia 10 maja 2018 r. o ochronie danych osobowych (Dz. U. 2019 poz. 1781).", "BOE-A-2018-16673",
    "Décret n° 2019-536 du 29 mai 2019", "Legge 8 ottobre 2021, n. 205", "D.Lgs. 196/2003 come modificato dal D.Lgs. 101/2018.",
    "Stb. 2018, 144", "BGBl. I S. 2097", "LEI 529900T8BM49AURSDO55", "ISIN DE0005140008", "ISIN FR0000131104",
    "SWIFT BIC DEUTDEFFXXX", "NACE code K64.19", "CPV 79212000-3", "HS code 8471.30.00", "EORI DE123456789012345",
    "ECB/2014/17", "SSM/2023/0123", "CNIL délibération n° 2020-091", "AEPD PS/00120/2021", "Garante doc. web n. 9870832",
    # amounts and rates
    "Fines of up to EUR 20 000 000 or 4 % of total worldwide annual turnover.", "Up to €10,000,000 or 2% of turnover.",
    "A threshold of EUR 10 000 000 000 in total assets.", "The standard VAT rate is 21 % in Belgium and 20 % in France.",
    "Reduced rate of 5,5 % on books.", "Interest at 4.25% per annum.", "A margin call of 100 000 000 EUR.",
    "EUR 35 000 000 or 7 % under Article 99(3).", "Turnover above € 50 million and a balance sheet above € 43 million.",
    "Haircut of 0.5 0.25 0.125 across the three buckets.", "The exemption threshold is EUR 85 000.", "CET1 of 10.5 % plus a 2.5 % buffer.",
    "Kapitalpuffer von 1,5 % ab dem 1. Februar 2023.", "Tipo impositivo del 10 % para la hostelería.", "Aliquota IVA del 22 %.",
    "BTW-tarief van 9 %.", "Stawka VAT 23 %.", "€ 1.234.567,89 total exposure.", "USD 2.5 billion notional.",
    "GBP 17.5 million fine (2020).", "1 000 000 000 EUR de bilan.", "Scope 3 emissions of 1 234 567 tCO2e.",
    "Emissions fell from 12 345 678 to 11 234 567 tonnes.", "Leverage ratio 3 %.", "The LCR must be at least 100 %.",
    # dates of acts, deadlines, times
    "Applies from 25 May 2018.", "Entry into force on 16 January 2023; application from 17 January 2025.",
    "Adopted on 14 December 2022 and published on 27 December 2022.", "Le règlement s'applique à partir du 25 mai 2018.",
    "Gilt ab dem 17.01.2025.", "En vigor desde el 25/05/2018.", "In vigore dal 2018-05-25.", "Van toepassing vanaf 25-05-2018.",
    "Obowiązuje od 25.05.2018 r.", "The reporting period ends on 31.12.2024.", "Deadline: 30/06/2025 at 12:00 CET.",
    "Financial year 2024/2025.", "Q3 2024 results.", "Between 1 January 2024 and 31 December 2024.", "Signed in Brussels, 27 April 2016.",
    "Published on 4.5.2016 in the Official Journal.", "Annual report 2023, page 112.", "Version 2.1 of 12.03.2024.",
    # names of authorities and bodies
    "The European Data Protection Board adopted the guidelines.", "The Commission nationale de l'informatique et des libertés (CNIL) fined the company.",
    "Die Bundesanstalt für Finanzdienstleistungsaufsicht (BaFin) prüft das.", "El Banco de España publicó una circular.",
    "La Commissione Nazionale per le Società e la Borsa (Consob).", "De Autoriteit Persoonsgegevens legde een boete op.",
    "Prezes Urzędu Ochrony Danych Osobowych nałożył karę.", "The European Securities and Markets Authority (ESMA) issued a Q&A.",
    "The European Banking Authority and EIOPA form the Joint Committee.", "The Data Protection Commission in Ireland is the lead authority.",
    "Der Europäische Datenschutzausschuss hat Leitlinien veröffentlicht.", "L'Autorité de contrôle prudentiel et de résolution (ACPR).",
    "La Agencia Española de Protección de Datos (AEPD).", "Il Garante per la protezione dei dati personali.",
    "De Nederlandsche Bank (DNB) houdt toezicht.", "Komisja Nadzoru Finansowego (KNF) wydała rekomendację.",
    "The Court of Justice of the European Union ruled on the transfer.", "The European Central Bank supervises significant institutions.",
    "HM Revenue & Customs and the Financial Conduct Authority.", "The Information Commissioner's Office (ICO) guidance.",
    "The Federal Trade Commission and the Securities and Exchange Commission.", "Der Bundesfinanzhof entschied 2021.",
    "Le Conseil d'État a annulé la délibération.", "El Tribunal Supremo confirmó la sanción.", "La Corte di Cassazione ha confermato.",
    "Het College van Beroep voor het bedrijfsleven.", "Naczelny Sąd Administracyjny oddalił skargę.",
    "The European Parliament and the Council of the European Union.", "The European Insurance and Occupational Pensions Authority.",
    "Service public fédéral Finances (SPF Finances).",
    # names of acts and instruments
    "The General Data Protection Regulation and the ePrivacy Directive.", "The Digital Operational Resilience Act (DORA).",
    "The Corporate Sustainability Reporting Directive.", "European Sustainability Reporting Standards (ESRS).",
    "The Markets in Crypto-Assets Regulation (MiCA).", "The Artificial Intelligence Act.", "The Anti-Money Laundering Directive (AMLD6).",
    "Loi Informatique et Libertés du 6 janvier 1978.", "Bundesdatenschutzgesetz (BDSG).", "Ley Orgánica de Protección de Datos y garantía de los derechos digitales.",
    "Codice in materia di protezione dei dati personali.", "Uitvoeringswet Algemene verordening gegevensbescherming.",
    "Ustawa o przeciwdziałaniu praniu pieniędzy oraz finansowaniu terroryzmu.", "The Payment Services Directive (PSD2).",
    "Markets in Financial Instruments Directive II (MiFID II).", "Basel III: finalising post-crisis reforms.",
    "The Sarbanes-Oxley Act and the Dodd-Frank Act.", "The Data Act and the Data Governance Act.", "Code des assurances, livre III.",
    "Wet op het financieel toezicht (Wft).", "Kreditwesengesetz (KWG) § 25a.", "Solvency II Delegated Regulation.",
    "The Network and Information Security Directive.", "The Digital Services Act and the Digital Markets Act.",
    # mixed regulatory sentences with numbers
    "Under ISO 3166-1 alpha-2, FR and DE are country codes.", "Field 36 of the DORA register template B_01.02.",
    "Template S.06.02.01 of Solvency II QRTs.", "Row 0010, column 0020 of COREP C 01.00.", "XBRL taxonomy 3.3.0.1.",
    "Table 1 shows 2019 2020 2021 2022 2023 figures.", "Reference number 2024-0815-0042.", "Ticket INC-2024-000123.",
    "Version 10.0.19045.3803 of the client software.", "Section 6.3.1.2 of the standard.", "Clause 12.1.4 of the outsourcing agreement.",
    "Template number 01 02 03 04 05 of the annex.", "Paragraph 3, sentence 2, no. 4.", "Box 1 to Box 9 of the VAT return.",
    "The SEPA credit transfer scheme rulebook 2023 version 1.0.", "Code 4711 in the chart of accounts.",
    "ICT third-party register entries 1-500.", "EBA ITS 2024/01 on templates.", "Guidelines EBA/GL/2022/05.",
    "Press release IP/24/1234.", "Council document 14084/22.", "PE-CONS 41/22", "2022/0094 (COD)",
]


def lookalikes() -> None:
    for text in LOOKALIKES:
        add("lookalike", "lookalike", text, [])


# --- session 89: BE_NN, ID_NUMBER and their lookalikes (own generator, so the rows above stay byte-identical) -----
rng89 = random.Random(89)


def _pesel_valid(digits: str) -> bool:
    weights = (1, 3, 7, 9, 1, 3, 7, 9, 1, 3)
    return len(digits) == 11 and (10 - sum(int(d) * w for d, w in zip(digits, weights)) % 10) % 10 == int(digits[10])


def _mod11_10(digits: str) -> int:
    """ISO 7064 MOD 11,10 check digit (German Steuer-ID and USt-IdNr)."""
    product = 10
    for d in digits:
        total = (int(d) + product) % 10 or 10
        product = (total * 2) % 11
    check = 11 - product
    return 0 if check == 10 else check


def _steuer_id_valid(digits: str) -> bool:
    return len(digits) == 11 and digits[0] != "0" and _mod11_10(digits[:10]) == int(digits[10])


def be_nn(style: str, year: int) -> str:
    """Belgian national register number YYMMDDSSSCC: CC = 97 - (YYMMDDSSS mod 97), with a leading 2 from 2000 on.

    Values that would also pass the PESEL or Steuer-ID check are drawn again, so each row has one expected type.
    """
    while True:
        month, day, serial = rng89.randint(1, 12), rng89.randint(1, 28), rng89.randint(1, 997)
        body = f"{year % 100:02d}{month:02d}{day:02d}{serial:03d}"
        check = 97 - int(("2" if year >= 2000 else "") + body) % 97
        value = f"{body}{check:02d}"
        if not (_pesel_valid(value) or _steuer_id_valid(value)):
            break
    if style == "dotted":
        return f"{value[:2]}.{value[2:4]}.{value[4:6]}-{value[6:9]}.{value[9:]}"
    if style == "spaced":
        return f"{value[:2]} {value[2:4]} {value[4:6]} {value[6:9]} {value[9:]}"
    return value


def at_svnr() -> str:
    """Austrian social security number: 3-digit serial, check digit, birth date DDMMYY (weights 3 7 9 . 5 8 4 2 1 6)."""
    day, month, year = rng89.randint(1, 28), rng89.randint(1, 12), rng89.randint(50, 99)
    while True:
        serial = f"{rng89.randint(100, 999)}"
        digits = serial + f"{day:02d}{month:02d}{year:02d}"
        check = sum(int(d) * w for d, w in zip(digits, (3, 7, 9, 5, 8, 4, 2, 1, 6))) % 11
        if check < 10:
            return f"{serial}{check} {digits[3:]}"


def de_rvnr() -> str:
    """German pension insurance number: area, DDMMYY, initial of the birth name, serial, check digit."""
    area, birth = rng89.choice(["12", "13", "24", "38", "53", "65"]), f"{rng89.randint(1, 28):02d}{rng89.randint(1, 12):02d}{rng89.randint(55, 99):02d}"
    letter, serial = rng89.choice("ABDFGHKLMNRSTW"), f"{rng89.randint(0, 99):02d}"
    digits = area + birth + f"{ord(letter) - 64:02d}" + serial
    check = sum(sum(map(int, str(int(d) * w))) for d, w in zip(digits, (2, 1, 2, 5, 7, 1, 2, 1, 2, 1, 2, 1))) % 10
    return f"{area} {birth} {letter} {serial}{check}"


def es_nss() -> str:
    """Spanish social security affiliation number PP/NNNNNNNN/CC, CC = PPNNNNNNNN mod 97."""
    province, number = rng89.choice(["08", "28", "41", "46"]), rng89.randint(10_000_000, 99_999_999)
    return f"{province}/{number}/{int(f'{province}{number}') % 97:02d}"


def pt_nif() -> str:
    """Portuguese personal tax number: 9 digits starting with 1-3, weights 9..2, check 11 - sum mod 11 (0 if >= 10)."""
    while True:
        body = str(rng89.randint(1, 3)) + "".join(str(rng89.randint(0, 9)) for _ in range(7))
        check = 11 - sum(int(d) * w for d, w in zip(body, range(9, 1, -1))) % 11
        value = body + str(0 if check >= 10 else check)
        bsn_sum = sum(int(d) * w for d, w in zip(value, range(9, 1, -1))) - int(value[8])
        if bsn_sum % 11:  # not also a valid BSN
            return f"{value[:3]} {value[3:6]} {value[6:]}"


def be_company_number() -> str:
    """Belgian enterprise (KBO/BCE) number 0NNN.NNN.NNN: last two digits = 97 - (first eight mod 97)."""
    body = "0" + "".join(str(rng89.randint(0, 9)) for _ in range(7))
    value = f"{body}{97 - int(body) % 97:02d}"
    return f"{value[:4]}.{value[4:7]}.{value[7:]}"


def fr_company_vat() -> str:
    """French VAT number: FR + key + SIREN (Luhn-valid), key = (12 + 3 * (SIREN mod 97)) mod 97."""
    while True:
        siren = "".join(str(rng89.randint(0, 9)) for _ in range(9))
        total = sum(int(c) if i % 2 == 0 else (2 * int(c) - 9 if 2 * int(c) > 9 else 2 * int(c)) for i, c in enumerate(siren))
        if total % 10 == 0 and siren[0] != "0":
            return f"FR{(12 + 3 * (int(siren) % 97)) % 97:02d}{siren}"


def de_company_vat() -> str:
    body = str(rng89.randint(1, 3)) + "".join(str(rng89.randint(0, 9)) for _ in range(7))
    return f"DE{body}{_mod11_10(body)}"


def it_partita_iva() -> str:
    """Italian VAT number: 7-digit company number, 3-digit office code, Luhn-style check digit."""
    while True:
        body = "".join(str(rng89.randint(0, 9)) for _ in range(7)) + f"{rng89.randint(1, 100):03d}"
        total = sum(int(c) if i % 2 == 0 else (2 * int(c) - 9 if 2 * int(c) > 9 else 2 * int(c)) for i, c in enumerate(body))
        value = body + str((10 - total % 10) % 10)
        if not (_pesel_valid(value) or _steuer_id_valid(value)
                or int(value[9:]) in (97 - int(value[:9]) % 97, 97 - int("2" + value[:9]) % 97)):
            return value


def session89() -> None:
    # BE_NN: some with the label word, some without any label (the number alone in a Belgian file)
    for template, style, year in [
            ("Mon numéro de registre national est {v}, la banque peut-elle le conserver ?", "dotted", 1985),
            ("NISS {v} : l'employeur peut-il l'utiliser comme identifiant dans le logiciel RH ?", "plain", 1972),
            ("Dossier {v} : le client demande l'effacement de ses données au titre de l'article 17.", "plain", 1991),
            ("{v} — ce numéro a été envoyé par erreur à un autre assuré, faut-il notifier l'APD ?", "spaced", 2003),
            ("Mijn rijksregisternummer is {v}; mag de verzekeraar het opvragen?", "spaced", 1968),
            ("Het INSZ-nummer {v} stond in de export naar de cloudprovider.", "dotted", 2001),
            ("Klantdossier {v} werd per vergissing met een andere klant gedeeld.", "plain", 1979),
            ("The Belgian employee's national register number {v} was included in the payroll file sent to the auditor.", "dotted", 1988),
            ("Can we store {v} in the CRM to identify our Belgian customers?", "plain", 2005),
            ("Case file {v}: the data subject asks for erasure under Article 17 GDPR.", "spaced", 1963),
            ("Die belgische Nationalregisternummer {v} des Mitarbeiters wurde im Ticket genannt.", "dotted", 1995),
            ("Akte {v}: Der Kunde verlangt Auskunft nach Art. 15 DSGVO.", "plain", 2000)]:
        v = be_nn(style, year)
        add("positive", "be_nn", template.format(v=v), [("BE_NN", v)])
    # ID_NUMBER: the number after a word naming a person's identifier, whatever its format or checksum
    for template, v in [
            ("Employee number {v} asked for a copy of his appraisal under Article 15; must we include the manager's notes?", "40217"),
            ("Can HR send the staff number {v} to the pension trustee without the employee's consent?", "AB123456"),
            ("Customer number {v} asked for erasure; do we still have to keep the invoices for ten years?", "2024-00871"),
            ("The patient number {v} was printed on a letter sent to the wrong address: is that a notifiable breach under Article 33?", "PT-00482913"),
            ("Our client's Portuguese tax ID {v} was copied into the onboarding spreadsheet; is that allowed under Article 5(1)(c)?", pt_nif()),
            ("The Austrian employee's social security number {v} appears in the sick-leave log shared with the works council.", at_svnr()),
            ("Client number {v} objected to the transfer of his data to our US parent company.", "C-10458"),
            ("Le salarié matricule {v} conteste son évaluation : peut-il obtenir les notes de son manager ?", "004512"),
            ("Numéro client {v} : le client demande la suppression de son compte, faut-il conserver les factures ?", "7845-2210-03"),
            ("Un adhérent (numéro d'adhérent {v}) demande la portabilité de ses données au titre de l'article 20.", "2023/045781"),
            ("Darf der Betriebsrat die Personalnummer {v} zusammen mit den Krankheitstagen erhalten?", "0815-4711"),
            ("Kundennummer {v}: Der Kunde verlangt Auskunft nach Art. 15 DSGVO, welche Frist gilt?", "KD-558104"),
            ("Die Sozialversicherungsnummer {v} des Mitarbeiters stand in der E-Mail an den externen Lohnabrechner.", de_rvnr()),
            ("Mitgliedsnummer {v} wurde im Newsletter-Verteiler offengelegt; ist das eine Datenpanne nach Art. 33 DSGVO?", "30 118 442"),
            ("Meine Steuernummer {v} steht auf dem Einkommensteuerbescheid; darf die Bank sie speichern?", "21/815/08150"),
            ("El trabajador con número de empleado {v} pide acceso a sus evaluaciones de desempeño.", "0045-7781"),
            ("Número de cliente {v}: ¿podemos conservar sus datos tras la baja del contrato?", "88120456"),
            ("¿Puede la empresa comunicar el número de la seguridad social {v} del empleado a la mutua sin su consentimiento?", es_nss()),
            ("Personeelsnummer {v} stond op de gedeelde lijst; moeten we dit melden als datalek?", "102938"),
            ("Klantnummer {v} vraagt om verwijdering van zijn gegevens op grond van artikel 17 AVG.", "4400-1187-2"),
            ("Il dipendente con numero di matricola {v} chiede l'accesso al proprio fascicolo personale.", "77A0312"),
            ("Codice cliente {v}: il cliente chiede la cancellazione ai sensi dell'art. 17 GDPR.", "CL-2024-3381")]:
        add("positive", "id_number", template.format(v=v), [("ID_NUMBER", v)])
    # lookalikes: identifier words without a person's number, company numbers, counts, rates, dates, act numbers
    for text in [
            "Customer number 3 in the sample file of Annex II is a placeholder.",
            f"VAT number BE{be_company_number()} of the supplier must appear on the invoice under Article 226(3).",
            f"Numéro de TVA intracommunautaire {fr_company_vat()} du fournisseur, à reporter sur la facture.",
            f"Umsatzsteuer-Identifikationsnummer {de_company_vat()} des Lieferanten gemäß § 14 Abs. 4 Nr. 2 UStG.",
            f"Partita IVA {it_partita_iva()} del fornitore, da indicare in fattura.",
            f"Ondernemingsnummer {be_company_number()} van de leverancier volgens de Kruispuntbank van Ondernemingen.",
            "Article 4 number 12 GDPR defines a personal data breach.",
            "Regulation (EU) No 2022/2554 applies to financial entities from 17 January 2025.",
            "Employee numbers above 250 count as a large undertaking under Article 3(4) of Directive 2013/34/EU.",
            "The number of employees (250) and a turnover of EUR 50 million are the SME thresholds.",
            "El número de empleados (1.250) supera el umbral del artículo 19 bis de la Directiva 2013/34/UE.",
            "Kundennummer und Personalnummer sind nach Art. 4 Nr. 1 DSGVO personenbezogene Daten.",
            "Le numéro client doit figurer sur la facture selon l'article 242 nonies A de l'annexe II au CGI.",
            "The client number field in template B_05.01, column 0050, must not be left empty.",
            "Het btw-tarief van 21 % geldt sinds 1 januari 1996; het verlaagde tarief is 6 %.",
            "CELEX 32022R2554 was published on 27.12.2022 (OJ L 333).",
            "Il numero di dipendenti (250) e il fatturato (50 milioni di euro) determinano la categoria dell'impresa.",
            "Social security contributions rose to 13.07 % on 1 January 2024.",
            "Mitgliedsnummer: siehe Feld 12 des Meldebogens 2024.",
            "Le numéro de sécurité sociale est une donnée encadrée par le décret n° 2019-341 du 19 avril 2019."]:
        add("lookalike", "lookalike89", text, [])


def main() -> None:
    positives()
    mixed()
    lookalikes()
    session89()
    ids = [r["id"] for r in ROWS]
    assert len(ids) == len(set(ids))
    with OUT.open("w", encoding="utf-8") as handle:
        for row in ROWS:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    groups = {g: sum(1 for r in ROWS if r["group"] == g) for g in ("positive", "mixed", "lookalike")}
    print(f"{len(ROWS)} rows -> {OUT.name}: {groups}")


if __name__ == "__main__":
    main()
