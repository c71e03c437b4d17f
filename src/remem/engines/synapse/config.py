"""Every constant of the SYNAPSE engine, with the paper's value where it gives one.

Provenance (see the project's reading notes on the paper): **paper** = stated by
the paper; **choice** = the paper is silent or vague and remem chose (the reason is
given). Every field can be overridden with ``Memory(engine="synapse",
engine_options={...})``; what each accepts is declared with it (``remem/options.py``)
and checked when the Memory is made.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...options import choice, number, resolve, switch


@dataclass(frozen=True)
class SynapseConfig:
    # -- graph construction ------------------------------------------------------
    consolidate_every: int = number(5, low=1)
    """paper: concepts are consolidated every N = 5 turns of a user."""
    merge_threshold: float = number(0.92, low=0)
    """paper: a new concept merges into an existing one at cosine >= 0.92."""
    association_threshold: float = number(0.6, low=0)
    """choice: concept-concept association edges need cosine >= this. The paper's
    quoted 0.92 equals the merge threshold, so no two surviving concepts could ever
    be associated; 0.6 links near-synonyms and close topics (mom/mother, paint/art)."""
    max_in_edges: int = number(15, low=1)
    """paper: each node keeps only its top-15 incoming edges by weight."""
    temporal_rho: float = number(0.01, low=0)
    """paper: temporal edge weight exp(-rho * dt); choice: dt in hours, so turns of one
    conversation link at ~1 and sessions a week apart at exp(-1.68) = 0.19."""
    temporal_decay: bool = switch(True)
    """ablation switch "no temporal decay": temporal edges get weight 1."""
    dormancy_epsilon: float = number(0.01, low=0)
    """paper: a node whose activation stays below epsilon is dormant."""
    dormancy_windows: int = number(10, low=0)
    """paper: ... for W = 10 consolidation windows (a window = ``consolidate_every``
    memories of the user, counted by sequence number)."""
    max_active_nodes: int = number(10_000, low=0)
    """paper: the active graph stays <= 10,000 nodes per user. choice: the bound is
    enforced by archiving the least recently active nodes first (dormant ones go
    before any node active in the last W windows); 0 = unbounded."""
    archive_all_dormant: bool = switch(False)
    """choice: the paper archives every dormant node; read literally, a user who adds
    a month of chat and only then asks would search a graph of the last 50 memories
    (``synapse-dormant``, measured:
    docs/notes/benchmark-history.md#synapse-on-locomo-retrieval-no-llm).
    remem archives only to hold the bound, so
    the graph forgets by disuse only once it must."""
    concepts: bool = switch(True)
    """ablation switch "no concepts": no semantic nodes, so the graph holds only the
    episodes and their temporal edges; measures what concept extraction adds."""
    min_concept_chars: int = number(4, low=1)
    """choice: shorter words are rarely concepts (and are mostly function words)."""
    mention_budget: int = number(32, low=0)
    """choice: a memory links to at most this many of its labels, the most distinctive
    first (named entities, then by the user's own IDF), so the graph adapts to turn
    length: a chat turn rarely has more, while an assistant's long answer has several
    times as many, most of them ordinary words that would link it to everything.
    0 = no budget."""
    extractor: str = choice("lexical", "lexical", "llm")
    """choice: "lexical" (offline, the default: the bundled 135M model cannot extract
    concepts) or "llm" (the paper's way, through the Memory's LLM: one call per
    memory at consolidation)."""
    llm_attempts: int = number(3, low=1)
    """choice: consolidation rounds a failing LLM extractor is given before that
    batch falls back to the lexical extractor (with a logged warning). Until then the
    memories wait, stored and searchable, and are retried at the next consolidation."""

    # -- spreading activation -------------------------------------------------------
    anchors: int = number(30, low=1)
    """choice: top-k of BM25 and of dense each seed activation (dual trigger): wider
    seeding lets more of the graph take part, and lateral inhibition keeps the extra
    anchors from flooding (10, 20 and 30 measured:
    docs/notes/benchmark-history.md#synapse-on-locomo-retrieval-no-llm)."""
    concept_anchors: int = number(0, low=0)
    """choice: also seed the ``concept_anchors`` concepts most similar to the query
    (cosine >= ``concept_anchor_min``), so a query can enter the graph through a
    concept whose episodes use other words. 0 = episodes only, as in the paper."""
    concept_anchor_min: float = number(0.5, low=0)
    """choice: the cosine a concept needs to the query to be seeded (with
    ``concept_anchors`` above 0; off by default). Not tuned."""
    alpha: float = number(1.0, low=0)
    """paper: initial activation a_i(0) = alpha * sim(i, q) for anchors."""
    seed_scale: str = choice("raw", "raw", "top")
    """choice: "raw" seeds anchors with ``alpha * sim`` as the paper does; "top" divides
    by the best anchor's similarity, so the strongest anchor starts at ``alpha`` on any
    data. Cosines of long texts are lower (a long answer's best passage against a short
    question), and seeds of 0.3-0.5 fall below the firing threshold: activation then
    dies out within the three rounds, whatever the graph holds."""
    spread: float = number(0.8, low=0)
    """paper: S, the spreading factor."""
    retention: float = number(0.5, low=0, high=1)
    """paper: delta, the retention decay: u = (1 - delta) a + S * incoming."""
    iterations: int = number(3, low=0, high=100)
    """paper: T = 3 propagate -> inhibit -> fire rounds."""
    fan_effect: bool = switch(True)
    """paper: incoming activation is divided by the sender's out-degree."""
    inhibition: bool = switch(True)
    """paper: lateral inhibition on (the ablation "no inhibition" is
    ``synapse-noinhib``)."""
    inhibit_top: int = number(7, low=0)
    """paper: lateral inhibition from the M = 7 strongest nodes."""
    inhibit_beta: float = number(0.15, low=0)
    """paper: beta, the inhibition strength."""
    sigmoid_gamma: float = number(5.0, low=0)
    """third-party re-implementations: the firing sigmoid's slope gamma (see
    ``sigmoid_theta``)."""
    sigmoid_theta: float = number(0.5)
    """third-party re-implementations: firing a = 1 / (1 + exp(-gamma (u - theta))).
    choice: only nodes reached from the anchors fire, and a node inhibited to 0 stays
    silent, otherwise sigmoid(0) = 0.076 would light up the whole graph."""
    dynamics: bool = switch(True)
    """ablation switch "no activation dynamics": one linear spreading step, no
    inhibition, no firing nonlinearity."""
    graph: bool = switch(True)
    """ablation switch "no graph": activation stays on the anchors."""

    ann_above: int = number(20_000, low=0)
    """choice: from this many memories on, the dense anchors come from an IVF index
    (approximate; ``index/ivf.py``) and only the anchors and the episodes activation
    reaches are scored, so search time stops growing with the history; below it
    every memory is scored exactly. 0 = always exact."""

    # -- ranking -------------------------------------------------------------------
    w_similarity: float = number(0.5, low=0)
    """paper: the similarity's weight in the score (see ``w_pagerank``)."""
    w_activation: float = number(0.5, low=0)
    """choice: the activation's weight, 0.5 where the paper has 0.3 (see
    ``w_pagerank``)."""
    w_pagerank: float = number(0.2, low=0)
    """paper: score = 0.5 sim + 0.3 activation + 0.2 PageRank. choice: remem weighs
    activation 0.5, which ranked the evidence higher at the deeper cut-offs
    (docs/notes/benchmark-history.md#synapse-on-locomo-retrieval-no-llm);
    ``synapse-paper`` keeps 0.3."""
    lexical_similarity: float = number(0.3, low=0, high=1)
    """choice (remem's default departs from the paper here): the similarity term is
    (1 - x) * cosine + x * BM25 / max BM25 over the query's matches. On conversation
    data the lexical signal carries much of the evidence (names, rare words); the
    paper's cosine-only term is the ``synapse-paper`` variant (x = 0)."""
    lexical_peak: float = number(0.75, low=0, high=1)
    """choice (beyond the paper): the lexical share above adapts to each question.
    Its peak, 1 - (the ``anchors``-th best BM25 score) / (the best), says how far the
    best lexical match stands out; below ``lexical_peak`` the share falls in
    proportion (``engine.lexical_share``). The words of a generic request ("any
    advice?", "recommend a show for tonight") are in many memories, its BM25 ranking
    is flat and says little, and the dense channel should decide. The reference is
    about the median peak of questions, so about half keep the full share; it lifted
    the preference questions of long assistant histories, where generic requests
    are, and left the other data sets level
    (docs/notes/benchmark-history.md#flat-lexical-evidence-the-lexical-share-adapts-to-the-question-issue-17-seventh-round;
    0.75 since the lexical channel reads inflected forms:
    docs/notes/benchmark-history.md#inflected-forms-and-asking-words-the-lexical-channel-reads-what-a-question-asks-issue-17-eighth-round).
    0 = off (the fixed
    share)."""
    lexical_inflections: bool = switch(True)
    """choice (beyond the paper): the lexical channel matches a question word's other
    inflected forms too ("classes" finds "class", "doctors" "doctor", "baked"
    "baking"; ``BM25Index.scores(inflections=True)``, forms from
    ``index.tokenize.inflection_key``), all forms of a word counted as one term, as if
    the index were stemmed. People ask in the plural about what they told in the
    singular ("how many fitness classes do I attend?" of "a BodyPump class"); it
    ranked the evidence higher on the data sets measured
    (docs/notes/benchmark-history.md#inflected-forms-and-asking-words-the-lexical-channel-reads-what-a-question-asks-issue-17-eighth-round).
    The BM25 baseline
    keeps bm25s' words as written. False = the words as written."""
    lexical_asking: bool = switch(False)
    """choice (beyond the paper): whether the lexical channel keeps a question's asking
    words (``index.tokenize.ASKING``: "how", "many", "what", "did", "when", ...). Every
    question has some and they say nothing about what it asks, but bm25s' stopword
    list keeps them, so "How many ..." matched every memory that says "many" and
    flattened the lexical ranking the anchors and ``lexical_peak`` read. Dropped by
    default (the memories' own words are indexed as they are): dropping them ranked
    the evidence of conversations higher and left long assistant histories level
    (docs/notes/benchmark-history.md#inflected-forms-and-asking-words-the-lexical-channel-reads-what-a-question-asks-issue-17-eighth-round).
    True = the question's words as bm25s keeps them."""
    similarity: str = choice("linear", "linear", "rank")
    """choice: how the two channels make the similarity term. "linear": the weighted
    sum above; "rank": reciprocal-rank fusion of the dense and BM25 rankings (RRF's
    constant 60), scaled to 1 for a memory first in both - scale-free, so neither
    channel's score range decides how much it counts (what makes ``hybrid`` robust
    when one channel is weak)."""
    session_support: float = number(0.15, low=0)
    """choice: a memory's score gains this times the best score among the memories
    of its session (``session_id``; ``activation.session_best``): a turn inherits the
    evidence its conversation holds for the query, so the turns of the session the
    question is about rise together above equally scored turns of unrelated ones (the
    paper's graph spreads this only along temporal edges, and on long histories that
    activation dies out before it reaches the session's other turns). Memories without
    a session are unaffected (each is its own context). 0 = off (the paper; the
    ``synapse-nosession`` variant). Conversations gain over a plateau of weights, and
    0.15 is its end that leaves the held-out questions of long assistant histories
    level
    (docs/notes/benchmark-history.md#session-support-and-what-else-was-tried-for-synapse-issue-17-third-round)."""
    neighbour_context: float = number(0.5, low=0, high=1)
    """choice (beyond the paper): a memory's similarity is raised toward the better of
    the memories next to it in its session (the one before and the one after):
    ``sim + x * max(0, best neighbour's sim - sim)``. A chat turn often speaks of
    what its neighbour named - "The kids loved it!" after "What did you do with the
    family?", a reply to the turn that asked - and shares few words with a question
    about it. The paper's temporal edges link exactly these turns, but activation
    reaches them only divided by the sender's fan (about a twentieth) and then
    inhibited (docs/results/stop55/issue38-graph.md). A turn ``d`` steps away lends
    ``x ** d`` (``neighbour_reach``). Memories without a session have no
    neighbours. 0 = off (the paper; the ``synapse-noneighbours`` variant). 0.5
    raised LoCoMo's evidence recall at every k and category and MemoryBank's, and
    left long assistant histories level; 0.3 and 0.7 did about as well, 1 (a turn
    as good as its best neighbour) less (docs/results/stop59/issue38-neighbours.md)."""
    neighbour_length: float = number(0.25, low=0, high=2)
    """choice (beyond the paper): ``neighbour_context`` scaled per memory by its
    length against the median of its speaker's memories, ``x * (length / median) **
    e`` (at most 0.9; length in BM25 tokens): a long turn borrows more of its
    neighbours' relevance, a short one ("Cool!", "Thanks, you too") less, so the lift
    goes to turns that can hold an answer rather than to the small talk around one.
    The speaker's own median, because an assistant's replies are long whatever they
    hold: against the history's median, the user's turns of assistant histories lost
    (LongMemEval at k = 10 0.901 -> 0.894). 0 = one weight for all. 0.25 raised LoCoMo
    at every k and categories 1 and 3 most, and left LongMemEval and MemoryBank level;
    0.5 lost on MemoryBank and a negative exponent on LoCoMo
    (docs/results/stop62/issue38-length.md)."""
    neighbour_reach: int = number(2, low=1, high=10)
    """choice: how many turns each side ``neighbour_context`` reads (the reply to a
    reply is two away; a third lends ``x ** 3`` and measured level)."""
    feedback: float = number(3.0, low=0)
    """choice (beyond the paper): a search showing more than ``feedback_keep``
    memories ranks those first as it would alone, and the rest it shows by their score
    plus this times their score in a second search from the question moved toward its
    ``feedback_from`` best memories (pseudo-relevance feedback, Rocchio's): the turns
    of other sessions that speak as the best ones do, which a multi-hop question needs
    and its own words miss. The first ranks never change, so ``search(k=5)`` is
    ``search(k=20)[:5]`` for a question naming no time; the ranks a stage reads past
    those shown (the time window over the first 50) keep the search's own order
    (``Engine.shows``). Showing more than ten costs a second search. LoCoMo at
    k = 20: 0 0.827, 1 0.829, 2 0.830, 3 0.832, 5 to 100 0.831-0.832 (a plateau: past
    3 the second search orders the shown ranks alone); searches for ten or fewer are
    unchanged, so LongMemEval and MemoryBank at k = 5 and 10 are too
    (docs/results/stop64/issue38-feedback.md). 0: the paper's search
    (``synapse-nofeedback``)."""
    feedback_from: int = number(3, low=1)
    """choice: how many of the best memories move the second search's query (5
    measured lower, 0.824)."""
    feedback_keep: int = number(10, low=1)
    """choice: the ranks kept as the search alone gives them: the time stage's
    ``versions_depth``, so that versions are ordered among the same ten."""
    speaker_prior: float = number(0.6, low=0, high=1)
    """choice: in a history of a person and an assistant (``speakers.party``), the
    memories of the party the question is not about are weighed this (before
    session support): the assistant's replies for a question about the person's
    life, the person's turns for one about what the assistant said ("the hotel you
    recommended"; ``speakers.asks_assistant``); a request to be reminded of something
    said ("Can you remind me of the name of that store?"; ``speakers.asks_reminder``)
    weighs neither. An assistant's reply restates the
    person's words at length and outranks the turn that holds the fact. A history
    without assistant turns (people's names as speakers) is unaffected. 1 = off (the
    paper; ``synapse-nospeaker``). In a conversation between people (no assistant),
    the people a question does not name are that party when it names some of them
    (``speakers.named_weights``; the same factor, not refitted): the evidence of a
    question naming one of two friends is almost always that friend's own turn, and
    recall rises most on multi-hop questions (docs/results/stop50/issue38-verdict-prior.md).
    Histories with an assistant are unchanged."""
    w_anchored: float = number(0.0, low=0)
    """choice (beyond the paper), off by default: the ranking also weighs each
    episode's PageRank anchored at the question, a random walk over the graph's edges
    that restarts at the question's anchors (in proportion to their seeds) instead of
    anywhere (personalised PageRank, HippoRAG's retrieval), scaled to 1 for the best
    episode. Unlike the paper's PageRank it depends on the question, and unlike the
    spreading activation no threshold or lateral inhibition silences the weak
    episodes it reaches. Off: what conversations gained did not carry over to long
    assistant histories, and every search would pay for the walk
    (docs/notes/benchmark-history.md#the-questions-own-pagerank-and-session-diversity-issue-17-sixth-round-tried-not-adopted)."""
    damping: float = number(0.85, low=0, high=1)
    """choice: PageRank damping (the usual 0.85; the paper gives none)."""

    # -- knowing when you don't know ---------------------------------------------------
    gate_tau: float = number(0.05, low=0)
    """paper: refuse when the top-ranked node's activation is below tau (paper: 0.12,
    calibrated to keep false refusals under 2.5%). Calibrated here the same way: with
    remem's activation the paper's 0.12 refuses about half of the answerable
    questions, and 0.05 stays well under the paper's bound
    (docs/notes/benchmark-history.md#synapse-on-locomo-retrieval-no-llm)."""
    gate_depth: int = number(3, low=1)
    """choice (beyond the paper): the gate reads the highest activation among this many
    top-ranked hits (paper: the top one). remem ranks by similarity and PageRank too,
    and lateral inhibition may leave a memory ranked first by them at activation 0
    while the next ones, which the reader reads as well, are lit: the paper's gate
    then refuses a question memory answers ("Which unit does Rosa work on now?",
    docs/results/stop55/NOTE.md)."""

    @classmethod
    def for_engine(cls, variant: str, options: Mapping[str, Any]) -> SynapseConfig:
        """The settings of engine ``variant`` (a name of :data:`VARIANTS`) with the
        caller's ``options`` over its preset ones, every one checked."""
        return resolve(cls, {**VARIANTS[variant], **options}, f"engine {variant!r}")


#: Named variants: the default, the paper-faithful configuration and the ablations.
VARIANTS: dict[str, dict[str, Any]] = {
    "synapse": {},
    "synapse-paper": {
        "lexical_similarity": 0.0,
        "w_activation": 0.3,
        "anchors": 10,
        "session_support": 0.0,
        "neighbour_context": 0.0,
        "speaker_prior": 1.0,
        "lexical_inflections": False,
        "lexical_asking": True,
        "feedback": 0.0,
    },
    "synapse-nofan": {"fan_effect": False},
    "synapse-noinhib": {"inhibition": False},
    "synapse-nodecay": {"temporal_decay": False},
    "synapse-nodynamics": {"dynamics": False},
    "synapse-nograph": {"graph": False},
    "synapse-noconcepts": {"concepts": False},
    "synapse-nosession": {"session_support": 0.0},
    "synapse-noneighbours": {"neighbour_context": 0.0},
    "synapse-nofeedback": {"feedback": 0.0},
    "synapse-nospeaker": {"speaker_prior": 1.0},
    "synapse-anchored": {"w_anchored": 0.2},
    "synapse-dormant": {"archive_all_dormant": True},
    "synapse-llm": {"extractor": "llm"},
    # the large-history regime (IVF anchors, candidate scoring) forced on any size
    "synapse-approx": {"ann_above": 1},
    "synapse-vectors": {
        "graph": False,
        "lexical_similarity": 0.0,
        "w_activation": 0.0,
        "w_pagerank": 0.0,
        "session_support": 0.0,
        "neighbour_context": 0.0,
        "speaker_prior": 1.0,
    },
}
