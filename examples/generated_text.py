"""A generated English-like text for the language-model examples when no text is given.

Sentences from a small grammar (who does what to whom, where, when), drawn with a fixed seed: a
corpus with real structure to learn, written on the spot, so the examples run with no download.
For real results, give the examples a text of your own.

    >>> from generated_text import sentences
    >>> sentences(2, seed=0)
    ['a weaver mends a sail at the mill', 'a child finds a coin near the bridge']
"""

import random

SUBJECTS = (
    "miller",
    "fisherman",
    "baker",
    "child",
    "captain",
    "shepherd",
    "weaver",
    "fox",
    "dog",
    "crow",
    "girl",
    "old woman",
)
ADJECTIVES = ("old", "young", "tired", "clever", "quiet", "little", "brave", "hungry")
ACTIONS = (
    ("mends", ("net", "rope", "sail", "coat", "fence")),
    ("counts", ("stars", "sheep", "coins", "boats", "apples")),
    ("carries", ("bread", "water", "a lantern", "the letters", "firewood")),
    ("watches", ("the river", "the boats", "the sky", "the road", "the fire")),
    ("finds", ("a key", "a coin", "a feather", "the path", "an old map")),
    ("sings to", ("the sheep", "the child", "the sea", "the moon", "the dog")),
)
PLACES = (
    "near the bridge",
    "by the river",
    "at the mill",
    "on the hill",
    "in the market",
    "under the old tree",
)
TIMES = ("at dawn", "every morning", "before the rain", "after supper", "all night")


def sentence(rng):
    """The words of one sentence."""
    words = [rng.choice(("the", "a"))]
    if rng.random() < 0.5:
        words.append(rng.choice(ADJECTIVES))
    words.append(rng.choice(SUBJECTS))
    verb, objects = rng.choice(ACTIONS)
    thing = rng.choice(objects)
    words += [
        verb,
        thing if " " in thing or thing.endswith("s") else rng.choice(("the", "a")) + " " + thing,
    ]
    if rng.random() < 0.5:
        words.append(rng.choice(PLACES))
    if rng.random() < 0.3:
        words.append(rng.choice(TIMES))
    return " ".join(words).split()


def sentences(count, seed=0):
    """``count`` sentences drawn with ``seed``, lower case, words separated by spaces: the lines of
    a word-level corpus."""
    rng = random.Random(seed)
    return [" ".join(sentence(rng)) for _ in range(count)]


def paragraphs(count, seed=0, per_paragraph=5):
    """A text of ``count`` sentences in paragraphs, as the character GPT reads it."""
    written = [line[0].upper() + line[1:] + "." for line in sentences(count, seed)]
    return "\n\n".join(
        " ".join(written[i : i + per_paragraph]) for i in range(0, count, per_paragraph)
    )
