"""The wrapper model: where it may take a sentence for talk to the user, and that its weights are what the
training script makes of the listed corpora."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragmon.text import wrapper_model, wrapper_training
from ragmon.text.claims import split_claims
from ragmon.text.wrapper_model import THRESHOLD, features, reads_as_wrapper, wrapper_probability

CORPORA = Path(__file__).parents[1] / "judges" / "corpora"


@pytest.mark.parametrize("sentence", [
    "Herzlichen Glückwunsch zur bestandenen Prüfung!",
    "Je vous en prie, c'est tout naturel.",
    "Si lo desea, puedo ayudarle a redactar la reclamación.",
    "Ti ho risposto, o intendevi qualcos'altro?",
    "Oi! Em que posso te ajudar hoje?",
    "Right, let me pull together the relevant bits for you.",
])
def test_wrappers_no_phrase_knows_are_no_claims(sentence: str) -> None:
    # From the set written after the model (wrapper_sentences_3.jsonl), in five languages.
    assert split_claims(sentence) == ()


@pytest.mark.parametrize("claim", [
    # Courtesies the model rates a wrapper, each kept a claim by what a claim rides on: a number, a
    # contrast, a colon, a reason.
    "Have a wonderful trip and enjoy your 2 free drinks!",
    "Enjoy your stay, but check out by noon!",
    "Have a great weekend: the office reopens Monday!",
    "Enjoy the concert since doors open early!",
])
def test_a_courtesy_carrying_a_fact_stays_a_claim_however_sure_the_model_is(claim: str) -> None:
    assert wrapper_probability(claim) >= THRESHOLD
    assert [c.text for c in split_claims(claim)] == [claim]


@pytest.mark.parametrize("claim", ["Shipping is free!", "It's covered!", "You're covered!"])
def test_a_verdict_said_of_a_subject_is_a_claim_however_sure_the_model_is(claim: str) -> None:
    # Opening an answer, "Shipping is free!" was talk to the user, checked by no judge, wherever its page
    # said shipping costs $5. "Feel free to ask!" says "free" of no subject and stays the model's.
    assert wrapper_probability(claim) >= THRESHOLD
    assert [c.text for c in split_claims(f"{claim} Orders arrive in 3 days.")] == [
        claim, "Orders arrive in 3 days."]
    assert [c.text for c in split_claims("Feel free to ask! Orders arrive in 3 days.")] == [
        "Orders arrive in 3 days."]


@pytest.mark.parametrize("claim", [
    # A fact spoken as a wish, opening or closing an answer (the red team's seventh report, shape D): an
    # idiom, a compound or a Chinese word says what the thing costs where no copula says a verdict.
    "Shipping is always on the house for you!", "Happy shopping, and shipping's on us!",
    "Ihre Bestellung ist versandkostenfrei, viel Spaß beim Einkaufen!", "所有订单均免运费，祝您购物愉快！",
    "祝您购物愉快，享受免费送货！",
])
def test_what_a_wish_takes_for_granted_is_a_claim_at_an_answers_edge(claim: str) -> None:
    assert not reads_as_wrapper(claim)
    assert [c.text for c in split_claims(claim)] == [claim]


@pytest.mark.parametrize("wrapper", ["Viel Spaß beim Einkaufen!", "祝您购物愉快！", "Enjoy your order!"])
def test_the_same_wishes_alone_stay_wrappers(wrapper: str) -> None:
    assert split_claims(wrapper) == ()


@pytest.mark.parametrize("pointer", [
    "Your local branch should be able to tell you whether e-books are available.",
    "Happy to check what's refundable for you!", "Let me know which items are covered, and I'll check!",
])
def test_a_verdict_asked_after_leaves_a_pointer_the_models(pointer: str) -> None:
    # "whether e-books are available" says no verdict: the pointer closing the answer is talk to the user.
    assert [c.text for c in split_claims(f"Loans last 3 weeks. {pointer}")] == ["Loans last 3 weeks."]


@pytest.mark.parametrize("claim", ["You can cancel anytime!", "We've credited your account!",
                                   "Your claim was approved!"])
def test_what_the_user_can_do_or_what_became_of_a_thing_of_theirs_is_a_claim(claim: str) -> None:
    # Closing an answer, the model took each for talk to the user: a promise no judge checked.
    assert [c.text for c in split_claims(f"Refunds take 5 days. {claim}")] == ["Refunds take 5 days.", claim]
    assert [c.text for c in split_claims("Refunds take 5 days. You can ask me anytime!")] == [
        "Refunds take 5 days."]


def test_a_sentence_not_addressing_the_user_is_never_the_models() -> None:
    # No word for the user or the assistant, no "!" or "?": the model may not take it, however sure it is
    # (the phrases may: "Enjoy the concert!" is theirs).
    sentence = "Safe travels."
    assert wrapper_probability(sentence) >= THRESHOLD
    assert not reads_as_wrapper(sentence)


@pytest.mark.parametrize("claim", [
    "Thank-you vouchers are sent by email.",
    "Thank-you notes are optional for interviews.",
])
def test_the_you_of_thank_you_addresses_nobody(claim: str) -> None:
    # Before, "you" split out of the compound made the sentence talk to the user, and the model took it
    # for a wrapper: a statement of the policy that was never checked.
    assert not reads_as_wrapper(claim)
    assert [c.text for c in split_claims(claim)] == [claim]
    assert reads_as_wrapper("Thank you, and have a lovely day!")
    assert reads_as_wrapper("Si quelque chose n'est pas clair, dites-le-moi.")  # a pronoun in a compound


def test_a_long_sentence_is_never_the_models() -> None:
    wrapper = "Thank you so much for your patience with us!"
    longer = ("Thank you so much for your patience with us while we look into this for you and sort it out "
              "with the team over the next little while!")
    assert longer.count(" ") >= wrapper_model.MOST_WORDS
    assert reads_as_wrapper(wrapper) and not reads_as_wrapper(longer)


def test_the_model_is_asked_only_at_an_answers_opening_and_its_last_two_sentences() -> None:
    courtesy = "Herzlichen Glückwunsch zur bestandenen Prüfung!"
    facts = ["Die Urkunde kommt per Post.", "Sie gilt unbefristet.", "Eine Kopie kostet 10 Euro.",
             "Die Abholung ist montags möglich."]
    opening = " ".join([courtesy, *facts])
    middle = " ".join([facts[0], courtesy, *facts[1:]])
    closing = " ".join([*facts, courtesy])
    assert [c.text for c in split_claims(opening)] == facts
    assert [c.text for c in split_claims(closing)] == facts
    assert [c.text for c in split_claims(middle)] == [facts[0], courtesy, *facts[1:]]


def test_a_number_is_one_token_and_the_opening_and_closing_mark_are_features() -> None:
    assert features("You have 30 days!") == frozenset({
        "w:you", "w:have", "w:<d>", "w:days", "b:you have", "b:have <d>", "b:<d> days", "^you",
        "^^you have", "$!", "len:0", "digit"})


def test_the_shipped_weights_are_what_training_on_the_listed_corpora_gives() -> None:
    # Within one unit of 1/10,000 each: the training is plain Python in a fixed order, and only a platform's
    # last bit of exp() could move a weight across a rounding edge.
    weights, bias = wrapper_training.train(list(wrapper_training.labelled(CORPORA)))
    shipped = json.loads(wrapper_model.WEIGHTS.read_text(encoding="utf-8"))
    assert shipped["trained_on"] == list(wrapper_training.TRAINING)
    assert abs(bias - shipped["bias"]) <= 1
    for feature in weights.keys() | shipped["weights"].keys():
        assert abs(weights.get(feature, 0) - shipped["weights"].get(feature, 0)) <= 1, feature


def test_the_corpora_that_measure_the_model_are_not_trained_on() -> None:
    assert not set(wrapper_training.HELD_OUT) & set(wrapper_training.TRAINING)
    assert all((CORPORA / name).exists() for name in (*wrapper_training.TRAINING, *wrapper_training.HELD_OUT))


def test_training_needs_both_wrappers_and_claims() -> None:
    only_claims = [wrapper_training.Labelled("The fee is 5 euros.", False, "x")] * 3
    with pytest.raises(ValueError, match="needs wrappers and claims: 0 wrappers of 3 sentences"):
        wrapper_training.train(only_claims)


@pytest.mark.parametrize("sentence", [
    # A courtesy the phrases or the model know, then a fact after the last comma or semicolon.
    "Cheers for your patience, the outage has been fixed and all services are back online.",
    "Happy to help, and just so you know, the student discount also covers the premium tier.",
    "Auguri per il matrimonio; il congedo matrimoniale spetta per quindici giorni di calendario.",
])
def test_a_fact_after_a_courtesys_comma_is_a_claim(sentence: str) -> None:
    assert [c.text for c in split_claims(sentence)] == [sentence]


@pytest.mark.parametrize("sentence", [
    "If you have any other questions, feel free to ask!",
    "Guten Tag, womit kann ich Ihnen heute behilflich sein?",
    "Thanks so much for your patience, and have a great day!",
])
def test_a_courtesy_after_a_comma_keeps_the_sentence_a_wrapper(sentence: str) -> None:
    assert split_claims(sentence) == ()


@pytest.mark.parametrize("sentence", [
    "¿Te puedo ayudar con algo más el día 5?",
    "¡Gracias por tu paciencia; la tienda abre a las nueve!",
    "Thank you so much (really!) for your patience; the shop reopens Monday.",
])
def test_a_claims_mark_after_a_question_or_exclamation_mark_keeps_the_sentence_from_the_model(
        sentence: str) -> None:
    # One scan finds the first mark of either kind; after an address mark the rest must still be read (the
    # semicolon is the claim's mark no later rule looks for).
    assert reads_as_wrapper("¿Te puedo ayudar con algo más?")
    assert wrapper_probability(sentence) >= THRESHOLD
    assert not reads_as_wrapper(sentence)


@pytest.mark.parametrize("sentence", [
    "Is there anything else I can help you with, as long as it is quick?",
    "Enjoy your stay, and note that!",
])
def test_a_courtesy_going_on_with_a_condition_or_a_note_is_not_the_models(sentence: str) -> None:
    assert wrapper_probability(sentence) >= THRESHOLD
    assert not reads_as_wrapper(sentence)


def test_each_claim_phrase_is_whole_words_between_spaces() -> None:
    # A sentence none of whose words ends a phrase is spared the phrase search (`_PHRASE_ENDS`): sound while a
    # phrase can be found only at word boundaries, its words separated and padded by single spaces.
    for phrase in wrapper_model._CLAIM_PHRASES:
        assert phrase == f" {' '.join(phrase.split())} ", phrase
