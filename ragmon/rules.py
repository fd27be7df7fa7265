"""The version of ragmon's scoring rules, which reports, baselines and captures record.

A figure moves when ragmon changes how it scores: how an answer is cut into claims, how the lexical judge
decides one, how a metric is computed. `ragmon.__version__` told none of it (it stayed "0.1.0" through
hundreds of such changes), so a baseline written by another build compared its figures with this one's as
if only the candidate had changed, and a capture replayed after an upgrade differed from the dashboard
without a word. `SCORING_RULES` is raised with every change that moves a figure of the deterministic path,
and a comparison across two values whose per-example figures differ (`PER_EXAMPLE_RULES`) says so.
tests/test_rules.py scores a corpus (the judge's corpora and every case the scoring tests pin, metric edge
cases, aggregates) with this code and with the commit that set the value: a change that moves a figure of it
and leaves this number alone fails there; one that moves none of it passes unseen, so raise the number by
hand for a change of scoring the corpus does not hold.

The Claude judge's verdicts have their own version (its `prompt_version` setting); this one covers what
every judge shares (claims, metrics) and the lexical judge.
"""

from __future__ import annotations

SCORING_RULES = 50
"""Raised by one for each change that moves any figure; 1 is the first build that recorded it, 2 the first
whose intervals hold the binomial bound (ragmon.metrics.aggregate), 3 the first whose bound takes the
values' variance at its upper confidence bound and mirrors a lower-is-better metric's exactly, 4 the first
that cuts claims keeping European abbreviations ("aprox.", "bzw.", "env. 5") inside a sentence and takes
no claim of an emoji-headed list of sources ("📚 Sources:") or of a nested list's titles ("- Pricing"), 5
the first that reads a field's label ("**Price:** $40", "Frist: 14 Tage") as no term of its claim and takes
no claim of a title in bold in sentence case ("**Key takeaways**") or of "Here's what I found.", 6 the
first whose answer_correctness drops every punctuation mark («», „“, ¡, 。) and reads Chinese and Japanese
a character a token, 7 the first that reads a Chinese "no need" (无需, 不用) beside the text's own 需要 rather
than in place of it, takes a question's measure after "how" ("how long", "how far", "how soon", "how old")
and "many" as no term, and drops every currency sign (€, £, ¥) from answer_correctness as SQuAD drops "$",
8 the first that reads a refusal going on to guess ("I'm not sure, refunds probably take 90 days.") as a
claim, not an abstention, and "I have no idea." and "よくわかりません。" as abstentions, 9 the first that
counts such a guess only when it states a figure and reads a short verdict ("- 不退款", "- Keine
Rückerstattung", "**Sin reembolsos**") as a claim, not a title, 10 the first that reads a refusal spliced to
a figure stated without a guess word ("I'm not sure, refunds take 90 days.") as a claim, and "I'm not sure"
in German, French, Spanish, Italian and Portuguese ("Ich bin mir nicht sicher.", "No estoy seguro.") as an
abstention, 11 the first that reads a figure after "that's", "as of 2024" or "as far as I know" (and "se",
"como", "come" in other languages), or after a figure and a comma, following a refusal, as a claim, a
refusal saying what its documents cover ("I don't know, the documents only cover 2023.") as an
abstention, cuts "...in the U.S. Refunds take 30 days." in two, keeps "am 3. Werktag" one sentence, reads
"**Refunds unavailable**" as a claim, not a title, and "15.03.2024" as a date, 12 the first that reads a
policy verdict turned by "not" ("not covered" against "covered") in the sentence a claim copies, keeps "The
U.S. Healthcare system ..." whole, cuts "up to 12. Tag each photo" in two, reads a refusal whose documents
"mention 90 days" as a claim and "whether it's 1, 2 or 3 weeks" as a refusal, a bold verdict over a list
as a title unless it denies, and "release 2.1.2024" as a version, 13 the first that leaves a negated
claim alone against a sentence stating an exception ("All parts are covered except the battery."), a time
("will be available from March"), a verdict both ways ("Phones are not covered, but laptops are.") or a
question (bold ones too), holds the copied sentence to every term but the verdict's own, and cuts "...shipped
for the U.S. Refunds are instant." in two, 14 the first that reads that veto in sentences of one clause alone
("Laptops are covered; phones are excluded." turns no claim), 15 the first that reads an answer's
citations of its retrieved ids out of its claims ("... for a full refund (KB-1234)." no longer lacks
1234), 16 the first that reads a claim's negation in words ("not refundable", "cannot be refunded", "isn't",
"no longer available") as the opposite word in the page-wide opposite rule ("Gift cards are not refundable"
no longer says the opposite of a page saying only "Gift cards are non-refundable."), 17 the first that also
reads out a citation's locator ("(KB-1234, p. 3)"), a lead-in or trailer in its bracket ("(see KB-1234 for
details)", "(as noted in doc-3)"), an attribution to retrieved ids ("According to KB-1234, ...", "...,
according to doc-3.", "As KB-1234 notes, ...") and a sentence that only points to them beside other claims
("See KB-1234 for details."), a document named by a path by its file's name too ("(returns_policy.md)" of
"docs/returns_policy.md"), and cuts no sentence after "para." before a digit, 18 the first that reads them
out in German, French, Spanish, Italian and Portuguese too ("(siehe KB-1234, S. 2)", "Laut KB-1234 ...",
"Selon doc-3, ...", "..., según faq_12.", "(vedi doc-3, art. 4)", "De acordo com doc-3, ...", "Weitere
Informationen finden Sie in KB-1234.") and cuts no sentence after "pág.", "pag.", "apdo.", "Kap." or
"sez." before a digit, nor after "cfr." before a small letter, 19 the first that reads a sentence naming
retrieved ids as a refusal when it is one with its citations read out and each id read as "the documents"
("HR-POL-007 doesn't mention foster care.", "The documents provided (doc-3, doc-4) do not say ..."), and an
answer that declines and only points to its sources ("I don't know. See KB-1234.") as one that abstains,
20 the first that reads a figure in a relative clause after a refusal ("The documents don't mention the
fee, which is 90 dollars.") as a claim, 21 the first that reads "Customer service or your dealer should
know.", "Nimbus support would be the place to ask." and "**What I'd suggest:** ask the sales team
directly." as pointers to someone to ask, no claims, and what such a party confirms, tells or helps with
as a statement ("Your bank can help you get a free replacement.") as a claim, 22 the first that reads
"There is nothing about X in the documents." and "I checked the documents, but they don't mention X." as
refusals (naming ids too, and German's "Leider erwähnt KB-1 ... nicht", "In KB-1 wird ... nicht
erwähnt"), and leaves citation_accuracy undefined for an answer that makes no claim, 23 the first that
reads a sentence opening "Neither document mentions X." or "No document mentions X.", and "There's
nothing in the documents about X.", "This isn't something the documents cover." and "I checked the
documents (or doc-3 and doc-4), but neither mentions X." as refusals, and in German, French, Spanish,
Italian and Portuguese the documents as the subject of a negated verb of saying ("Los documentos no hablan
de X.", "Die Dokumente erwähnen X nicht."), "none of the documents" and "no document" ("Aucun document
n'indique ..."), the answerer unable to say, finding nothing where it looked or rather not guessing ("Non
trovo questa informazione", "Prefiero no especular."), and a pointer asked politely ("Veuillez contacter le
service client.") as no claim; and the first that reads what comes before ", so" ("..., así que no lo
sé.") as a claim unless it declines or denies something of the answerer's sources, and a clause after a
party's help ("Le pharmacien pourra vous répondre, ce médicament est sans danger.") as one; 24 the first
that reads a refusal going on to what alone is said beside or to a reason with a figure as a claim ("I
can't tell you more than that the plan allows six members.", "..., solo che il nuovo orario parte in
primavera.", "... because the airline dropped it in 2023."), unless the clause is the refusal's own account
("... because the data only goes up to 2022"), and the sources not saying what a pronoun names ("Il
contesto non lo dice.") as a refusal; 25 the first that counts a claim's word negated by "not", "n't" or
"cannot" as held by the context's opposite word ("The product is not available." by "The product is
unavailable.") where one sentence holds every term of the claim so; 26 the first that reads a numbered title
in bold ("**1. Return window**") as a title, a lead-in whose number has a unit ("within 9 business days to:")
as a claim, and "EST." in capitals as the end of a sentence; 27 the first that reads "ca." and "env." before a
word, French months' abbreviations ("janv."), inches after a number ("12 in. wide") and a rate's period
("$4.99/mo. or") as no end of a sentence; 28 the first that ends a sentence at a mark its bold or italics
close after ("**Final sale.** Refunds ..."); 29 the first that reads a range's end after a date ("March 1-15")
as no negative number, an ISO date in a CSV cell ("Marketing,2022-09-19,18") as a date, a number closing a
parenthesis opened before it ("(defaults to 14) and") as a quantity, and a rate per second as a rate; 30
the first that reads brackets holding data (`["black", "white"]`, `[3.2.0]`, `[8080, 8443]`) as no
citation mark; 31 the first that reads a code after a numbered thing's "No." ("Model no. XR-200") as no
end of a sentence, and a street's "St." and "dept." before a capital as one; 32 the first that narrows 28
to 31 after an adversarial review of 165 pairs (47 false alarms and 16 misses gained for 24 fixes, then 5
and 14 for 23): a lead-in in bold of under three terms stays with the next sentence, only a setting's or a
limit's number closes a parenthesis as a quantity, "every second day" is no rate, only JSON lists and a
changelog heading's version are brackets holding data, and "St." ends a sentence only after a number; 33
the first that reads continental numbers in French typography (a non-breaking space before a unit or a sign,
"1\u202f500\u00a0€" as 1,500), one ending its sentence ("1.250,50."), an amount after "€" or "R$" ("R$
5,90"), "1.500 Euro" as 1,500, a page's full-width decimal point ("１．５公斤") and French "jamais" and
"plus" as negations; 34 the first that reads a German date written with spaces ("ab 1. 7. 2025", "am 3. 6.
und") as one date, not a sentence ending at the day and a list item's number; 35 the first that narrows 33
after an adversarial review of 241 verdicts (60 fixes for 35 false alarms and 5 misses, then 62 for 3 and
none): thousands grouped by spaces only before the euro (or by the narrow no-break space), dots before the
word or code "euro" only in a round number, thousands after "R$" and "€ ", a full-width comma between
numbers a list's, and "plus ... que" no negation; 36 the
first that narrows 34 and 35 after a second review of 195 fresh verdicts (rules 35: 42 fixes for 24 false
alarms and 2 misses; now 42 for 3 and none, and 35 sentences split as people would): a spaced date's month
before a capital only after a word a date follows ("Set the volume to 10. 2. Press play." is a step), a
two-digit year only ending its date, the date read only with spaces throughout ("4.8. 2024 was its best year"
is a decimal and a year), no thousands before a price per unit ("1.850 euros per litre"), "EUR 2.500" as
"€ 2.500", and "plus ... qu'" up to four words apart no negation; 37 the first that reads months named in
German, Dutch, French, Spanish, Italian and Portuguese as dates ("15. März 2024", "15 de octubre de 2024",
"1er mars", "1° maggio") and only English ones before their day ("March 15": "Mars 2" is a probe), a
claim's count per a period of one word ("2 tablets daily"), a verdict negated with "never", "no longer" or
"currently" as turned by the page's sentence stating it plainly, and a page's "no longer" as turning a
plain claim, megawatt- and gigawatt-hours as units, Japanese "私" before a particle as one refusing, the
ordinal indicators ("1.º", "2.ª") as no terms, and names the claim's count, not a header's number, in a
table cell's reason; 38 the first that reads a count before "may", "Mars" or "mayo" going on as the English
word ("3 may be returned", "2 Mars rovers") as no day of the month unless a word dates follow comes before
it ("after 31 May incur"), sets "no longer" and "currently" against a time only the other side states
(a "from" opening one: "from May", "from Q3 2026", "from the next release"), never takes a verdict said of
a subject ("Shipping is free!") for talk to the user, reads more filler ("Good news!", "In short, yes.",
"Here's a quick summary.", "This is based on the provided documents.", "This is not legal advice."), a
courtesy joined by a dash as by a comma when each part talks to the user, and a sentence or a courtesy's
tail telling what became of a thing of the user's or what they can do ("your claim was approved", "you can
cancel anytime") as a claim; 39 the first that reads a refusal saying narrowly what the answerer's own
sources are about ("The page I can see is about parking permits only.", "The information I have covers X
and Y, but it doesn't mention Z.") and "I checked our returns policy, but it doesn't mention X" as
declining, a disclaimer that prices or policies change before a pointer ("Policies can change, so
double-check on the airline's site.") and more pointers' words ("talking to", "I'd strongly encourage",
"for current rates") as no claims, short headings in bold over a paragraph as titles (a noun phrase joined
by determiners and prepositions, a question word's or "if"'s clause, a question; in the six languages read),
different figures added or taken away in the open ("€590 + €180 = €770") as checking the total through
them, a page's day and month in two digits each after a word dates follow ("ends 15/05") as that day of
the month, more refusals ("The documents I have don't go into that.") and lead-ins ("Here's how it
works.") as no claims, and refusals saying what their one source covers in the other five languages; 40
the first that reads what a red team's made-up facts had hidden in a no-claim's form as claims (a courtesy
or a pointer taking a fact for granted, "Enjoy your free breakfast!", "For the free shuttle, contact the
front desk.", in six languages, and the wrapper model's edge sentences; a lead-in stating a value or a
denial, "These items get a full refund:"; a title-case bold line, a list's title or a line over "---"
stating what holds; a Chinese or Japanese "一、" item over the next; a fact beside a source's name; a short
bold sentence with a value, a negation or "only"), refusal cues naming no one refusing ("No data is sold
to insurers.", "There is no evidence that ...") as declining only beside a refuser or alone, a time of a
day with minutes ("3:30 pm", "15:30") as one number, the teens and tens of five languages, "a thousand",
"a couple of", "fortnight", "noon" and "midnight" as numbers, "wks", "mos", "yrs" and "24h" as units, and
business or working days apart from calendar days; 41 the first that checks a percentage of a figure worked
out in the open ("60% × $13.50 = $8.10", "9% of £6,000 = £540", "€590 − 15% = €501.50", "£245 + 20% VAT =
£294") through its percentage, which a page must write as one, and its figure, which may be the user's own
from the question, and reads totals after "≈" and "→" (and, in a claim with a percentage, "is" or "works
out to") and a word naming the figures ("$310 balance"); 42 the first that reads a page's "off" and "plus"
as a percentage's way as whole words only ("Official figures: tuition will rise by 3%" is no "off") and
a figure in cents as no percentage ("30 cent + 20 cent = 50 cent"); 43 the first that reads a percentage
"off" a figure ("20% off $144"), its result in a table's next cell or after ", so that's", ", which is",
"soit", and up to two words naming its figure ("85% of the $41.40 scheduled fee"); 44 the first that
refuses a worked percentage the page gives to another row or tier than the one the question names ("20% of
£80" for a Silver member where Gold members get 20% and Silver members 10%); 45 the first that lets an
answer restate the user's own figure from the question ("so your 15-year-old qualifies") where the page's
bounds, ranges and tiers agree with what it makes of it, and reads "and older", "and younger" and "under
age 19" as bounds; 46 the first that lets an answer not speaking to the user restate the user's figure
too, where a clause of the page lets it in ("At 14 she is under the age limit of 19"), and takes no figure
the user supposes ("if I deposited ...") for theirs; 47 the first that reads a party counted in words
before "of us" ("There are five of us"), Spanish first-person verbs ("Llevo 7 años", "Somos cuatro") and
"a partir de" / "à partir de" as bounds there; 48 the first that reads a range closing its sentence ("for ages
4 to 14."), ranges in French, German and Spanish ("de 8 à 11 ans"), an age the user states without a unit
("My son is 11") as one in years, of the kind of a page's ages with or without a unit, the user's figures
written "$3,000" or "8.5 kg" or after "it's been", and "with no monthly fee" as no negation; 49 the first
that reads "exceed", "exceeds" ("Bags that exceed 23 kg pay a fee") and "not exceed", "cannot exceed"
("Cabin bags must not exceed 7 kg") as bounds, the latter no negation; 50 the first that reads "kilos", "kilo"
and "kgs" as kilograms and asks no page for the "year" and "old" of the user's own "15-year-old" ("your
15-year-old can't use the sauna yet")"""

PER_EXAMPLE_RULES = 50
"""The first scoring rules whose per-example figures (claims, verdicts, each example's metrics, and so every
mean and the paired changes a drop gate reads) are this build's: rules 4 and 5 cut some answers into other
claims, 5 also reads labels otherwise, 6 scores answer_correctness otherwise, 7 some verdicts,
answer_relevance and answer_correctness, 8 to 14 which answers abstain, 9, 11 to 14 also which lines are
titles, 12 to 14 also some verdicts, 15, 17 and 18 some claims' text and so their verdicts, 16 some
verdicts, 19 which sentences naming retrieved ids are claims and so which answers abstain, 20 which answers
abstain, 21 which sentences are claims, 22 which answers abstain and citation_accuracy, 23 and 24 which
sentences are claims and which answers abstain, 25 some verdicts, 26 to 28 and 31 which sentences are
claims, 29, 30 and 32 some verdicts and which sentences are claims, 33 some verdicts, 34 which sentences are
claims and some verdicts, 35 some verdicts, 36 which sentences are claims and some verdicts, 37 some verdicts,
which sentences are claims and which answers abstain, and answer_relevance, 38 some verdicts and which
sentences are claims, 39 and 40 which sentences are claims, which answers abstain and some verdicts, 41 to
50 some verdicts (rules 2 and 3 had moved only aggregates' intervals). A baseline or a capture scored with
rules from this one to `SCORING_RULES` differs from this run in no drop, gain or captured figure, so nothing
is said of them; warning of each interval's change had warned of every baseline an upgrade met. Set it to
the new `SCORING_RULES` with any change that moves a per-example figure (tests/test_rules.py scores the
corpus with the commit that set `SCORING_RULES` to this value and fails on such a change until it is
raised)."""


def scores_examples_alike(rules: int | None) -> bool:
    """Whether a build that recorded `rules` (None: one that recorded none) scored each example as this one
    does. Newer rules than this build's may have moved anything."""
    return rules is not None and PER_EXAMPLE_RULES <= rules <= SCORING_RULES
