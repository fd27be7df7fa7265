"""Units of time in the other European languages (weeks, minutes), and a rate's period: "$5 per month" is
not stated by "$5 per week", nor "5 mg/kg" by "5 mg". Each expected value below is worked by hand from
`ragmon.text.units`' rules: a number written with a unit must come with one the context gives it; a period
is checked only where both the claim and the context give the number one (as a frequency word missing
from either is not held against the other)."""

from __future__ import annotations

import pickle

import pytest
from lexical_verdict import verdict

from ragmon.text.numbers import european_numbers
from ragmon.text.terms import prepare
from ragmon.text.units import Rate, clashes, units, written_with


def read(text: str) -> set[tuple[float, str, str | None]]:
    """`units` with each pair's period made visible (a `Rate` compares equal to its unit alone)."""
    return {(value, str(unit), getattr(unit, "period", None))
            for value, unit in units(prepare(european_numbers(text)))}


@pytest.mark.parametrize(("claim", "context", "lacks"), [
    # The claim's number is the context's, with another unit of time: weeks and minutes were no units in
    # these languages, so the claim's number had none to check and passed.
    ("Die Lieferung dauert 5 Tage.", "Die Lieferung dauert 5 Wochen.", "5 days"),
    ("La livraison prend 14 jours.", "La livraison prend 14 semaines.", "14 days"),
    ("La entrega tarda 5 días.", "La entrega tarda 5 semanas.", "5 days"),
    ("La consegna richiede 5 giorni.", "La consegna richiede 5 settimane.", "5 days"),
    ("A entrega demora 5 dias.", "A entrega demora 5 semanas.", "5 days"),
    ("Die Antwort kommt in 30 Minuten.", "Die Antwort kommt in 30 Stunden.", "30 minutes"),
    ("La respuesta llega en 30 minutos.", "La respuesta llega en 30 horas.", "30 minutes"),
    ("La risposta arriva in 30 minuti.", "La risposta arriva in 30 ore.", "30 minutes"),
    ("Die Lieferung dauert 5 Wochen.", "Die Lieferung dauert 5 Tage.", "5 weeks"),
    ("Die Antwort kommt in 2 Std.", "Die Antwort kommt in 2 Minuten.", "2 hours"),
    ("Die Lieferung dauert 2,5 Wochen.", "Die Lieferung dauert 2,5 Tage.", "2.5 weeks"),
    ("Die Lieferung dauert zwei Wochen.", "Die Lieferung dauert 2 Tage.", "2 weeks"),
    # Months and years were read before: the same rule, for comparison.
    ("A garantia vale 2 meses.", "A garantia vale 2 anos.", "2 months"),
])
def test_weeks_and_minutes_are_units_in_the_other_european_languages(claim: str, context: str,
                                                                     lacks: str) -> None:
    supported, reason = verdict(claim, context)
    assert not supported
    assert reason is not None and reason.endswith(f"lacks {lacks}")


@pytest.mark.parametrize(("claim", "context"), [
    ("Die Lieferung dauert 5 Wochen.", "Die Lieferung dauert 5 Wochen."),
    ("La livraison prend 14 semaines.", "La livraison prend 14 semaines."),
    ("La entrega tarda 1 semana.", "La entrega tarda 1 semana."),
    ("La consegna richiede 5 settimane.", "La consegna richiede 5 settimane."),
    ("Die Antwort kommt in 2 Std.", "Die Antwort kommt in 2 Stunden."),
    ("Die Antwort kommt in 30 Min.", "Die Antwort kommt in 30 Minuten."),
    ("La réponse arrive en 30 minutes.", "La réponse arrive en 30 min."),
    ("A resposta chega em 30 minutos.", "A resposta chega em 30 minutos."),
    ("Die Lieferung dauert zwei Wochen.", "Die Lieferung dauert 2 Wochen."),
])
def test_the_same_week_or_minute_in_another_spelling_is_supported(claim: str, context: str) -> None:
    assert verdict(claim, context) == (True, None)


def test_weeks_minutes_and_seconds_are_read_in_each_language() -> None:
    # By hand: each is its number with the unit's one name ("w", "min", "h", "s", "mo", "y"); "2,5
    # Wochen" is 2.5 (a decimal comma before a unit of time).
    assert units(prepare(european_numbers(
        "1 Woche, 2 Wochen, 3 semaine, 4 semaines, 5 semana, 6 semanas, 7 settimana, 8 settimane, "
        "9 Minute, 10 Minuten, 11 minuto, 12 minutos, 13 minuti, 14 Std., 15 ora, 16 mês, 17 années, "
        "18 Sekunden, 19 secondes, 20 segundos, 21 secondi, 2,5 Wochen"))) == {
        (1.0, "w"), (2.0, "w"), (3.0, "w"), (4.0, "w"), (5.0, "w"), (6.0, "w"), (7.0, "w"), (8.0, "w"),
        (9.0, "min"), (10.0, "min"), (11.0, "min"), (12.0, "min"), (13.0, "min"), (14.0, "h"), (15.0, "h"),
        (16.0, "mo"), (17.0, "y"), (18.0, "s"), (19.0, "s"), (20.0, "s"), (21.0, "s"), (2.5, "w")}
    assert european_numbers("2,5 Wochen, 1,5 semanas, 0,5 Std.") == "2.5 Wochen, 1.5 semanas, 0.5 Std."


@pytest.mark.parametrize(("claim", "context", "lacks"), [
    ("The plan costs $5/month.", "The plan costs $5/year.", "$5 per month"),
    ("The plan costs $5 per month.", "The plan costs $5 per week.", "$5 per month"),
    ("Take 10 mg/day.", "Take 10 mg/week.", "10 mg per day"),
    ("Take 10 mg per day.", "Take 10 mg per week.", "10 mg per day"),
    ("Take 10 mg of the drug per day.", "Take 10 mg of the drug per week.", "10 mg per day"),
    # A frequency word after the dose is its period too: "daily" against "per week".
    ("Take 10 mg daily.", "Take 10 mg per week.", "10 mg per day"),
    ("The plan costs $5 a month.", "The plan costs $5 a year.", "$5 per month"),
    ("The plan costs $15 an hour.", "The plan costs $15 a day.", "$15 per hour"),
    ("The plan costs $5 every week.", "The plan costs $5 each month.", "$5 per week"),
    ("The plan costs $10 per user per month.", "The plan costs $10 per user per year.", "$10 per month"),
    ("Storage costs $0.02/GB/month.", "Storage costs $0.02 per GB per day.", "$0.02 per month"),
    ("Employees work 8 hours a day.", "Employees work 8 hours a week.", "8 hours per day"),
    ("Employees get 5 days of leave a year.", "Employees get 5 days of leave a month.", "5 days per year"),
    ("Interest is 5% per annum.", "Interest is 5% per month.", "5% per year"),
    ("Give 10 mg/kg/day of the drug.", "Give 10 mg/kg weekly of the drug.", "10 mg/kg per day"),
    ("Das Abo kostet 5 € pro Monat.", "Das Abo kostet 5 € pro Jahr.", "€5 per month"),
    ("L'abonnement coûte 5 € par mois.", "L'abonnement coûte 5 € par an.", "€5 per month"),
    ("La suscripción cuesta 5 € al mes.", "La suscripción cuesta 5 € al año.", "€5 per month"),
    ("A assinatura custa 5 € por mês.", "A assinatura custa 5 € por ano.", "€5 per month"),
])
def test_a_rate_with_another_period_than_the_contexts_is_unsupported(claim: str, context: str,
                                                                    lacks: str) -> None:
    supported, reason = verdict(claim, context)
    assert not supported
    assert reason is not None and reason.endswith(f"lacks {lacks}")


@pytest.mark.parametrize(("claim", "context", "lacks"), [
    # A dose per kilogram of body weight is no dose: a unit of its own, either way round.
    ("Give the child 5 mg of ibuprofen.", "Give the child 5 mg/kg of ibuprofen.", "5 mg"),
    ("Give the child 5 mg/kg of ibuprofen.", "Give the child 5 mg of ibuprofen.", "5 mg/kg"),
    ("Give the child 5 mg per kg of ibuprofen.", "Give the child 5 mg of ibuprofen.", "5 mg/kg"),
    ("Give 10 mg/kg of the drug.", "Give 10 mg/m2 of the drug.", "10 mg/kg"),
])
def test_a_dose_per_body_weight_is_not_a_dose(claim: str, context: str, lacks: str) -> None:
    supported, reason = verdict(claim, context)
    assert not supported
    assert reason is not None and reason.endswith(f"lacks {lacks}")


@pytest.mark.parametrize(("claim", "context"), [
    # One period in any spelling.
    ("The plan costs $5/month.", "The plan costs $5 per month."),
    ("The plan costs $5/month.", "The plan costs $5 a month."),
    ("The plan costs $5/month.", "The plan costs $5 monthly."),
    ("The plan costs $5 per month.", "The plan costs $5/mo."),
    ("Take 10 mg/day.", "Take 10 mg daily."),
    ("Take 10 mg/day.", "Take 10 mg per day."),
    ("Take 10 mg daily.", "Take 10 mg/d."),
    ("The plan costs $60 a year.", "The plan costs $60 per year."),
    ("The plan costs $60 annually.", "The plan costs $60 per year."),
    ("Employees work 8 hours a day.", "Employees work 8 hours per day."),
    ("Give the child 5 mg/kg of ibuprofen.", "Give the child 5 mg per kg of ibuprofen."),
    ("Give 10 mg/kg/day of the drug.", "Give 10 mg/kg daily of the drug."),
    ("Storage costs $0.02/GB/month.", "Storage costs $0.02 per GB per month."),
    ("Das Abo kostet 5 € pro Monat.", "Das Abo kostet 5 €/Monat."),
    ("La suscripción cuesta 5 € al mes.", "La suscripción cuesta 5 € por mes."),
    # A period given by one side only says nothing against the other: the policy of the frequency rule
    # (a claim's "monthly" against a page that names no frequency passes; so does a claim naming none).
    ("The plan costs $5.", "The plan costs $5 per month."),
    ("The plan costs $5 per month.", "The plan costs $5."),
    ("Take 10 mg daily.", "Take 10 mg."),
    # Either of two periods the context gives the number with will do.
    ("The plan costs $5 per month.", "The plan costs $5 per week, or $5 per month for students."),
    # A year's number after "im Jahr" is no period: only the 5 € is read.
    ("Das Abo kostet 5 € im Monat.", "Das Abo kostet 5 € im Jahr 2024."),
    # Speeds and "24/7" are no rates of these periods.
    ("The car drives 60 km/h on this road.", "The car drives 60 km/h on this road."),
    ("The car drives 60 km/h on this road.", "The car drives 60 km per hour on this road."),
    ("Support is available 24/7.", "Support is available 24/7."),
])
def test_a_rate_with_the_contexts_period_or_none_is_supported(claim: str, context: str) -> None:
    assert verdict(claim, context) == (True, None)


def test_a_rates_period_is_read_after_its_amount_or_its_unit() -> None:
    # By hand: "$5 per month" is $5 a month; "10 mg/kg/day" 10 mg/kg a day; "8 hours a day" 8 hours a day;
    # "$10 per user per month" $10 a month; "10 mg of the drug per day" 10 mg a day; "$99 annual" $99 a
    # year; "5-7 € pro Woche" 5 and 7 euros a week.
    assert read("$5 per month, 10 mg/kg/day, 8 hours a day, $10 per user per month, 10 mg of the drug per "
                "day, $99 annual fee, 5-7 € pro Woche") == {
        (5.0, "$", "/mo"), (10.0, "mg/kg", "/d"), (8.0, "h", "/d"), (10.0, "$", "/mo"), (10.0, "mg", "/d"),
        (99.0, "$", "/y"), (5.0, "€", "/w"), (7.0, "€", "/w")}


def test_no_period_is_read_where_none_is_the_numbers() -> None:
    # A bare number takes no period ("3 a day", "12 monthly payments": no unit to be per); a frequency word
    # is one only right after the unit ("20% of the annual fee"); no noun after "per" but a period ("$5 per
    # user"); no year's number ("im Jahr 2024"); no speed in km/h ("60 km/h" is a unit of its own) nor
    # "24/7".
    assert read("3 a day, 5 per day, 12 monthly payments, 20% of the annual fee, $5 per user, 5 € im Jahr "
                "2024, 60 km/h, 24/7") == {
        (20.0, "%", None), (5.0, "$", None), (5.0, "€", None), (60.0, "kph", None)}


def test_a_rate_is_its_unit_to_every_other_rule() -> None:
    # The moved-number rule compares units as they were: "$" of "$1,900 per month" is the "$" of "$1,900".
    [(value, unit)] = units(prepare("$1,900 per month"))
    assert (value, unit) == (1900.0, "$") and hash(unit) == hash("$")
    assert isinstance(unit, Rate) and unit.period == "/mo"
    copied = pickle.loads(pickle.dumps(unit))
    assert (copied, copied.period) == ("$", "/mo")
    # Written twice with one period, the claim's number keeps it; with two, neither is checked.
    [(_, once)] = units(prepare("$5, or $5 per month"))
    assert getattr(once, "period", None) == "/mo"
    [(_, twice)] = units(prepare("$5 per month or $5 per week"))
    assert not isinstance(twice, Rate)


def test_a_passage_gives_each_period_of_a_number_as_a_unit_of_its_own() -> None:
    # By hand: 5 is written with "$" twice, a month's and a week's; 10 with "mg" a day's.
    low = prepare("Basic is $5 per month, or $5 weekly. Take 10 mg/day.")
    assert written_with(low, [5.0, 10.0]) == {(5.0, "$"), (5.0, "$/mo"), (5.0, "$/w"), (10.0, "mg"),
                                              (10.0, "mg/d")}
    month, year = Rate("$", "/mo"), Rate("$", "/y")
    assert clashes(frozenset({(5.0, month)}), written_with(low, [5.0])) == []
    assert clashes(frozenset({(5.0, year)}), written_with(low, [5.0])) == ["$5 per year"]
    # A context giving the number no period says nothing against the claim's.
    assert clashes(frozenset({(5.0, year)}), written_with(prepare("Basic is $5."), [5.0])) == []
