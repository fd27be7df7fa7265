"""The user's own figures, restated to them, need no page; what the answer makes of them still does."""

from __future__ import annotations

import pytest

from ragmon import Context, EvalConfig, Example, LexicalJudge, evaluate
from ragmon.text.own_figures import agreed, own_figures
from ragmon.text.passage_sentences import LONGEST
from ragmon.text.terms import profile

RENTAL = ("Swift Car Rental - Requirements. Drivers must be at least 21 years old and have held a full "
          "licence for 1 year. Drivers under 25 pay a young driver surcharge of $25 per day.")
CLIMBING = ("Urban Climb - Bouldering. Climbers under 16 must be accompanied by a paying adult. Climbers "
            "16 and over may climb alone after a safety induction.")
POOL = ("Harbour Suites - Pool. Guests under 14 must be accompanied by an adult in the pool area. Guests "
        "aged 14 and older may use the pool unaccompanied. The pool is open from 7 am to 10 pm.")
SPA = ("Linden Spa. The pool, sauna and steam room are open to guests aged 16 and over only. Massages cost "
       "£95 for 60 minutes.")
BAGGAGE = ("AeroJet - Checked bags. Bags may weigh up to 23 kg in Economy. Bags between 23 kg and 32 kg pay "
           "an overweight fee of €75. Bags over 32 kg are not accepted.")
PETS = "Cascade Hotel - Pets. Up to 2 dogs per room are allowed, each under 15 kg. A $30 pet fee applies."
DINNER = ("Olive & Ember - Reservations. Parties of 8 or more pay an automatic 18% service charge. Large "
          "parties must book at least 48 hours in advance.")
STORAGE = ("Nimbus storage. The Free plan includes 15 GB. Family includes 2 TB shared by up to 6 members. "
           "Accounts over their plan's storage are over quota and cannot upload.")
GROUPS = ("Le Pré Vert - Groupes. Pour les groupes de 8 personnes ou plus, un menu fixe à 35 euros est "
          "obligatoire. Les groupes de moins de 8 personnes commandent à la carte.")
REFUNDS = ("Lexington University - Refunds. Students who withdraw within the first 14 days of term get a "
           "full refund. Withdrawals from day 15 to day 30 receive a 50% refund. No refund is given after "
           "day 30.")
PARCELS = ("RapidParcel - Limits. Standard parcels may weigh up to 30 kg. Parcels over 30 kg and up to 50 kg "
           "must be sent as freight. We do not accept items over 50 kg.")
POLICIES = ("SafeHome - Multi-policy discount. Customers who hold 2 policies with us receive 10% off each "
            "policy. Customers with 3 or more policies receive 15% off each policy.")
LEAVE = ("Brightpath HR - Annual leave. Employees receive 25 days' annual leave. After 5 years of "
         "continuous service this rises to 27 days, and after 10 years to 30 days.")
GYM = ("Peak Fitness - Prices. Standard membership is £39 per month. Students aged 18 to 24 pay £27 per "
       "month, and members aged 60 and over pay £25 per month. Juniors from 14 to 17 can join for £19 per"
       " month with a parent's consent.")
PRESCRIPTIONS = ("Vitalis Pharmacy. A 12-month prepayment certificate costs £114.50 and saves money if "
                 "you need more than 11 items in 12 months. Patients aged 60 or over get free "
                 "prescriptions and don't need a certificate.")
LOYALTY = ("Ridgeway Hotels - Tiers. Members with 10 to 24 nights per year hold Silver status and receive"
           " free Wi-Fi. Members with 25 or more nights hold Gold status and also receive free breakfast.")
SIZES = ("Swift Couriers - Sizes. Small parcels are up to 2 kg, medium parcels from over 2 kg up to 10 "
         "kg, and large parcels from over 10 kg up to 30 kg.")
TICKETS = ("Gala Concerts - Limits. Customers may buy no more than 6 tickets per performance. Orders over"
           " the limit are cancelled.")
TRANSFERS = ("Keystone Card - Balance transfers. The 0% offer applies to transfers made within 60 days of"
             " account opening. Later transfers are charged at 24.9% APR.")
SAUNA = "Linden Health Club - Sauna. The sauna is limited to members 16 and older."
CABIN = ("Breeze Airways - Cabin bags. Each passenger may bring one cabin bag within the allowance. Cabin "
         "bags must not exceed 7 kg.")
RETURNS = "Orion Electronics - Returns. Items can be returned within 30 days of delivery for a full refund."


def _supported(answer: str, page: str, question: str) -> bool:
    example = Example("q1", question, (Context("page", page),), answer)
    result = evaluate([example], LexicalJudge(), EvalConfig(k=1)).results[0]
    return all(verdict.supported for verdict in result.verdicts)


@pytest.mark.parametrize(("answer", "page", "question"), [
    # 9 is on no page; the page's "7 and older" lets it in, as the answer says.
    ("Yes, your 9-year-old can be vaccinated, since the pharmacy vaccinates anyone aged 7 and older.",
     "WellCare Pharmacy. Our pharmacists vaccinate anyone aged 7 and older. Children under 7 should see "
     "their doctor.", "Can you vaccinate my 9 year old?"),
    # "Guests under 14 must be accompanied" requires something of those it bounds: no bar to 15.
    ("Yes, at 15 your daughter may use the pool unaccompanied, since guests aged 14 and older can.",
     POOL, "Can my 15-year-old use the pool by herself?"),
    # The page keeps 15 out, and the answer says so.
    ("The pool, sauna and steam room are for guests aged 16 and over only, so your 15-year-old won't be "
     "able to join you there.", SPA, "Can my 15-year-old come to the spa with me?"),
    # 23 < 28 < 32, and "Bags over 32 kg are not accepted" says the answer's "accepted" of 28 kg.
    ("Your 28 kg suitcase will be accepted with the €75 overweight fee.", BAGGAGE,
     "My suitcase is 28 kg. What happens?"),
    # "book at least 48 hours in advance" is a deadline, not a bound on the party's size; 10 is 8 or more.
    ("For your party of 10, an automatic 18% service charge applies.", DINNER,
     "We're 10 people for dinner on Friday. Any extra charges?"),
    # 80 GB is of the kind of 15 GB, not of "up to 6 members".
    ("The Free plan includes 15 GB, so with 80 GB you're over quota.", STORAGE,
     "I use 80 GB and got moved to the Free plan. What happens?"),
    # A range: 12 <= 24 <= 25.
    ("At 24 you're within the Youth Pass's 12 to 25 range, with 30% off standard fares.",
     "Ferrovia Youth Fares. Travellers aged 12 to 25 can buy a Youth Pass for 30% off standard fares. "
     "Children under 12 travel at half price.", "I'm 24, can I get the youth pass?"),
    # Bounds in French: 6 is "moins de 8".
    ("Oui, à 6 personnes vous pouvez commander à la carte.", GROUPS,
     "Nous serons 6, pouvons-nous commander à la carte ?"),
    # Ranges with a word before the second number, and an "over ... and up to" (whose "over" reads both
    # ways for `units.bounds`, as a verb's might).
    ("Yes, on day 20 you qualify for the 50% refund.", REFUNDS,
     "I'm on day 20 of term. Do I get anything back if I withdraw?"),
    ("Your 40 kg parcel must go as freight.", PARCELS, "My parcel is 40 kg, how do I send it?"),
    # A figure the page states is checked as ever, here against the sentence stating it with 15%, not the
    # one sharing more of the claim's other words ("hold", "policies") with 10%.
    ("Holding three policies, you get 15% off each one.", POLICIES,
     "I have 3 policies with you: home, auto and boat. What's my discount?"),
    # The clause holding the answer's other number: 30 days is "after 10 years"'s, and 27 "after 5 years"'s
    # for 7 years, which no tighter bound overrules.
    ("With 11 years' service, you get 30 days of annual leave.", LEAVE,
     "I've been here 11 years, what's my leave entitlement?"),
    ("With 7 years' service, you get 27 days of annual leave.", LEAVE,
     "I've been here 7 years, what's my leave entitlement?"),
    ("At 16 you'd pay £19 a month with your parent's consent.", GYM, "I'm 16, how much would I pay?"),
    # "and don't need a certificate" negates its own clause, not the bound's.
    ("At 62, your prescriptions are free.", PRESCRIPTIONS, "I'm 62, do I pay for prescriptions?"),
    # The clause going on from a bound ("and also receive free breakfast") is the bound's.
    ("With 30 nights this year you hold Gold status, with free breakfast.", LOYALTY,
     "I've stayed 30 nights this year, do I get free breakfast?"),
    ("At 12 kg, your box counts as a large parcel.", SIZES, "My box weighs 12 kg, which size band is it?"),
    # How the user gives a figure: before "of us", four words after "I've", with "should" after it, after
    # "We'd".
    ("For your group of 20, each ticket is €12.",
     "Harbour Museum - Groups. Groups of 15 or more pay €12 per person.",
     "There are 20 of us, what's the price?"),
    ("With seven years of service you're entitled to 27 days of annual leave.", LEAVE,
     "I've worked here for seven years, how much leave do I get?"),
    ("At 62 your prescriptions are free.", PRESCRIPTIONS, "I'm 62 — should I buy a prepayment certificate?"),
    ("Yes, your 3 bikes fit on the rack.", "Valley Transit - Bikes. Each bus rack carries up to 4 bikes.",
     "We'd bring 3 bikes, is that allowed?"),
    # A party counted in words before "of us", and a Spanish verb in the first person.
    ("With five of you, you'll need a family cabin, which sleeps up to 6.",
     "Lakeside Lodges - Cabins. Standard cabins sleep up to 4 people; family cabins sleep up to 6.",
     "There are five of us. Which cabin should we book?"),
    ("Con 7 años de antigüedad te corresponden 25 días de vacaciones.",
     "Vacaciones. Cada empleado tiene 22 días al año; a partir de 5 años de antigüedad, 25 días.",
     "Llevo 7 años en la empresa. ¿Cuántos días de vacaciones tengo?"),
    # Not to the user, but the page's under-19 clause lets 14 in.
    ("At 14 she is under the age limit of 19, so orthodontia is covered at 50%.",
     "Plus dental plan. Orthodontia is covered at 50% for dependent children under age 19.",
     "My daughter is 14, is her orthodontia covered?"),
    # A range in French, closing its sentence: 9 is "de 8 à 11 ans", not "à partir de 12 ans".
    ("À 9 ans, votre fille peut faire le parcours bleu.",
     "Parc Les Cimes. Le parcours rouge est accessible à partir de 12 ans. Les enfants de 8 à 11 ans "
     "peuvent faire le parcours bleu.", "Ma fille a 9 ans, quel parcours peut-elle faire ?"),
    # "6 months to 5 years": the months are the first number's, not the second's; 18 months is under 2
    # years' kind only in years, which the page does not say of 2.
    ("At 18 months your son would be placed in the nursery room.",
     "Pinecone Daycare. We care for children from 6 months to 5 years old. Children under 2 are placed in"
     " the nursery room.", "My son is 18 months old, which room would he be in?"),
    # An age given as "is ten", restated as "10-year-old", is the page's "aged 8 and over"'s kind.
    ("Your 10-year-old cat qualifies for the Senior Wellness package.",
     "Orchard Vet Clinic. Cats aged 8 and over qualify for the Senior Wellness package at $120.",
     "My cat is ten, which checkup can I book?"),
    # Figures written with a thousands separator or a decimal point, and time gone by "it's been".
    ("Yes, your $7,500 of spending earns 1% cashback.",
     "Brightstar Card. Cardholders who spend over $5,000 a year earn 1% cashback.",
     "I spent $7,500 on my card this year, do I earn cashback?"),
    ("Yes, your 6.5 kg cabin bag is within the allowance.", CABIN, "My cabin bag is 6.5 kg, is that OK?"),
    # "year" and "old" spell the user's figure's unit out, and need no page any more than 15 does.
    ("Unfortunately your 15-year-old can't use the sauna yet, since it's limited to members 16 and older.",
     SAUNA, "Can my 15-year-old use the sauna with me?"),
    ("Since your puppy is 10 weeks old, he can join the puppy class.", "Paws Academy. The puppy class is "
     "open to puppies from 8 weeks up to 16 weeks.", "My puppy is 10 weeks old, can he join?"),
    # "kilos" is a unit, the question's as the answer's "kg".
    ("Yes, your 6 kg cabin bag is within the allowance.", CABIN, "My cabin bag weighs 6 kilos, is that OK?"),
    ("At 8.5 kg, your box counts as a medium parcel.", SIZES, "My box weighs 8.5 kg, which size band is it?"),
    ("Yes, at 20 days you're within the 30-day window for a full refund.", RETURNS,
     "It's been 20 days since my lamp was delivered. Can I return it?"),
])
def test_the_users_own_figure_restated_needs_no_page(answer: str, page: str, question: str) -> None:
    assert _supported(answer, page, question)


@pytest.mark.parametrize(("answer", "page", "question"), [
    # Made up around the user's figure: 17 fails "must be at least 21", a requirement, whichever sentence
    # the answer's words are closer to (the surcharge's).
    ("At 17 you can rent a car, though you'll pay a young driver surcharge.", RENTAL,
     "I'm 17, can I rent a car?"),
    # 15 is under 16; the answer applies what the page says of climbers 16 and over.
    ("Since you're 15 and have done the safety induction, you can climb alone.", CLIMBING,
     "I'm 15 and I did the safety induction. Can I climb alone?"),
    # 3 dogs are over "up to 2".
    ("Yes, your 3 dogs can all stay since each is under 15 kg.", PETS,
     "I have 3 small dogs, all under 10 kg. Can they all stay?"),
    # 22 passes "at least 21": the answer's "can't" disagrees with the page.
    ("At 22 you can't rent a car, since drivers must be at least 21.", RENTAL, "I'm 22. Can I rent a car?"),
    ("Oui, à 10 personnes vous pouvez commander à la carte.", GROUPS,
     "Nous serons 10, pouvons-nous commander à la carte ?"),
    ("Yes, on day 35 you still qualify for the 50% refund.", REFUNDS,
     "I'm on day 35 of term. Do I get anything back if I withdraw?"),
    ("Yes, your 55 kg parcel can be shipped as freight.", PARCELS,
     "My parcel is 55 kg, can it go as freight?"),
    ("With 11 years' service, you get 27 days of annual leave.", LEAVE,
     "I've been here 11 years, what's my leave entitlement?"),
    ("At 16 you'd pay £27 a month with your parent's consent.", GYM, "I'm 16, how much would I pay?"),
    ("That's right, at 58 your prescriptions are free.", PRESCRIPTIONS,
     "I'm 58, prescriptions are free from 55, aren't they?"),
    ("Yes, with 15 nights this year you get free breakfast.", LOYALTY,
     "I've stayed 15 nights this year, do I get free breakfast?"),
    ("At 12 kg, your box counts as a medium parcel.", SIZES, "My box weighs 12 kg, which size band is it?"),
    ("Yes, you can buy all 8 tickets in a single order.", TICKETS,
     "I need 8 tickets, can I get them in one order?"),
    ("Yes, 75 days after opening you can still transfer at 0%.", TRANSFERS,
     "I opened my card 75 days ago, can I still transfer a balance at 0%?"),
    # "no longer" is a negation ("no more than" is none): 45 days is within 60.
    ("Unfortunately, at 45 days since purchase you can no longer add the extended warranty.",
     "TechNest - Extended warranty. It can be added to any laptop within 60 days of purchase.",
     "I bought my laptop 45 days ago, is it too late to add the extended warranty?"),
    # The user's figure restated but not the user's fact: hearsay and a question about the page's figure.
    ("Yes, you can return your headphones within 40 days.", RETURNS,
     "Can I return my headphones within 40 days?"),
    ("Yes, you get 45 days to return it.", RETURNS, "I was told I get 45 days to return it, right?"),
    ("Oui, vous avez droit à 5 retraits gratuits par mois.",
     "Banque Azur. Les retraits aux distributeurs d'autres banques sont gratuits jusqu'à 3 par mois.",
     "J'ai droit à 5 retraits gratuits par mois, c'est bien ça ?"),
    # Asked to be confirmed: the user's belief, not their fact.
    ("Sí, tu permanencia es de 12 meses.",
     "Telefónica Sur - Permanencia. Las tarifas con terminal tienen una permanencia de 24 meses.",
     "Mi permanencia es de 12 meses, ¿verdad?"),
    # A range closing its sentence bounds as any: 30 is over "aged 17 to 25".
    ("Yes, at 30 you can open a Student Account as a full-time student.",
     "Cornerstone Bank - Student Account. The Student Account is open to full-time students aged 17 to 25.",
     "I'm 30 and a full-time student, can I open one?"),
    ("Your 15-year-old can use the sauna with you.", SAUNA, "Can my 15-year-old use the sauna with me?"),
    # "with no monthly fee" says what comes with the account, it denies nothing: 26 is over 24.
    ("Full-time students aged 26 can open a student account with no monthly fee.",
     "Summit Bank. Student accounts are open to full-time students aged 17 to 24. There is no monthly fee.",
     "I'm 26 and a full-time student. Can I open a student account?"),
    # "must not exceed" bounds: 7.4 kg is over 7 kg.
    ("Yes, your 7.4 kg cabin bag is within the allowance.", CABIN, "My cabin bag is 7.4 kg, is that OK?"),
    ("Yes, at 40 days you're within the window for a full refund.", RETURNS,
     "It's been 40 days since my lamp was delivered. Can I return it?"),
    # The answer states the user's figure as the page's rule, not to the user, and no clause of the page
    # lets it in.
    ("Items can be returned within 40 days for a full refund.",
     "Orion Electronics - Returns. Items can be returned for a full refund.",
     "I've had my headphones 40 days. Can I return them?"),
])
def test_what_an_answer_makes_of_the_users_figure_still_needs_the_page(answer: str, page: str,
                                                                       question: str) -> None:
    assert not _supported(answer, page, question)


def test_a_page_too_long_to_read_by_sentence_gives_no_figure() -> None:
    # Its bounds unread, the figure is checked against it as any number, as before: 9 is on no page.
    page = ("WellCare Pharmacy. Our pharmacists vaccinate anyone aged 7 and older. "
            + "Opening hours vary by branch and season. " * (LONGEST // 40))
    assert len(page) > LONGEST
    question = "Can you vaccinate my 9 year old?"
    assert not _supported("Yes, your 9-year-old can be vaccinated, since the pharmacy vaccinates anyone aged "
                          "7 and older.", page, question)
    assert _supported("Yes, your 9-year-old can be vaccinated, since the pharmacy vaccinates anyone aged 7 "
                      "and older.", page[:LONGEST - 100], question)


@pytest.mark.parametrize(("question", "own"), [
    ("I deposited 2 million dollars last week. Where does the interest come from?", {2_000_000.0}),
    # A supposition is no fact of the user's: an answer working from it states what no page does.
    ("How would a bank pay interest if I deposited 2 million dollars?", set()),
    ("Was passiert, wenn ich 5 Tage zu spät zahle?", set()),
])
def test_a_figure_the_user_supposes_is_not_their_own(question: str, own: set[float]) -> None:
    assert own_figures(question, profile("Your 2 million dollars or 5 Tage earn interest.")) == own


@pytest.mark.parametrize(("figure", "claim", "page", "agreeing"), [
    # An age against a page writing its ages without a unit, as pages often do: 8 is under "10 and
    # older", 12 is not.
    (8.0, "Your 8-year-old may swim without a parent.", "Swim School. Children 10 and older may swim "
     "without a parent.", False),
    (12.0, "Your 12-year-old may swim without a parent.", "Swim School. Children 10 and older may swim "
     "without a parent.", True),
    # Not so a weight: "a maximum of 4 people" bounds no 12 kg bike.
    (12.0, "Your 12 kg bike goes as luggage.", "Redline Trains. Folding bikes under 20 kg go as luggage. A "
     "maximum of 4 people may share a bike space.", True),
    # A range's unit, written once, is both ends': 20 kg is under "between 23 and 32 kg", $72 over "from $35
    # to 59".
    (20.0, "Your 20 kg bag pays the €75 overweight fee.", "AeroJet. Bags between 23 and 32 kg pay an "
     "overweight fee of €75.", False),
    (72.0, "Your $72 order pays the $4.99 delivery fee.", "Harvest Grocery. Orders from $35 to 59 pay a "
     "$4.99 delivery fee.", False),
    # A range in Spanish: 7 is "de 4 a 11 años", not "menores de 4" nor "a partir de 12".
    (7.0, "Su hija de 7 años paga 15 € por noche.", "Hotel Costa Azul. Los niños menores de 4 años se "
     "alojan gratis. Los niños de 4 a 11 años pagan 15 € por noche. A partir de 12 años se aplica la "
     "tarifa de adulto.", True),
])
def test_the_pages_bounds_on_the_figures_kind_decide(figure: float, claim: str, page: str,
                                                     agreeing: bool) -> None:
    given = agreed(frozenset((figure,)), profile(claim), denied=False, addressed=True, texts=[page])
    assert given == ({figure} if agreeing else set())


@pytest.mark.parametrize(("question", "own"), [
    ("My son is 9, what does he pay?", {9.0}),
    ("My daughter's 9 now. What does she pay?", {9.0}),
    ("Ich bin 9 und komme mit meinem Vater.", {9.0}),
    # A count, not an age: no "9-year-old" of the user's.
    ("My order is 9 items, what does it cost?", set()),
])
def test_an_age_the_user_states_without_a_unit_is_restated_in_years(question: str, own: set[float]) -> None:
    assert own_figures(question, profile("Your 9-year-old pays half.")) == own
