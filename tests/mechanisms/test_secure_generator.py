"""The cryptographic default generator (issue 29) and the streams derived from a fit's one.

``random_state=None`` must give ChaCha20 keyed with 256 bits from the operating system, and
every generator or stream a fit derives from its generator (Poisson batches, PATE's
partition, a search's runs) must stay cryptographic; an int ``random_state`` must give
exactly the draws it always gave (PCG64, Philox streams, default_rng seeds).
"""

import contextlib
import secrets

import numpy as np
import pytest

from skprivate import config_context
from skprivate._dpsgd import _sampling
from skprivate._dpsgd._sampling import BlockPoissonSampler, draw_sampling_key
from skprivate.mechanisms import check_rng, is_reproducible
from skprivate.mechanisms._rng import (
    KeyedStreams,
    derived_generator,
    describe_generator,
    draw_seed_words,
    draw_stream_key,
    is_cryptographic,
)
from skprivate.pate._partition import draw_partition_key, teacher_owners


def _chacha(key=1):
    from randomgen import ChaCha

    return np.random.Generator(ChaCha(key=key, rounds=20))


def test_none_is_chacha20_keyed_with_256_bits_from_secrets(monkeypatch):
    from randomgen import ChaCha

    rng = check_rng(None)
    assert isinstance(rng.bit_generator, ChaCha)
    assert rng.bit_generator.state["state"]["rounds"] == 20
    assert is_cryptographic(rng) and not is_reproducible(None)
    # The key is the 32 bytes from secrets, set directly (not through a SeedSequence).
    calls = []

    def token_bytes(n):
        calls.append(n)
        return bytes(range(n))

    monkeypatch.setattr(secrets, "token_bytes", token_bytes)
    got = check_rng(None)
    assert calls == [32]
    expected = np.random.Generator(
        ChaCha(key=int.from_bytes(bytes(range(32)), "little"), counter=0, rounds=20)
    )
    np.testing.assert_array_equal(got.integers(0, 2**64, 8, dtype=np.uint64),
                                  expected.integers(0, 2**64, 8, dtype=np.uint64))


def test_fresh_generators_differ():
    a, b = check_rng(None), check_rng(None)
    assert not np.array_equal(a.integers(0, 2**62, size=4), b.integers(0, 2**62, size=4))


def test_opt_out_gives_pcg64_and_int_is_unchanged():
    with config_context(secure_generator=False):
        rng = check_rng(None)
        assert type(rng.bit_generator).__name__ == "PCG64" and not is_cryptographic(rng)
    np.testing.assert_array_equal(check_rng(5).random(4), np.random.default_rng(5).random(4))
    assert not is_cryptographic(check_rng(5))


def test_is_cryptographic_needs_twenty_rounds():
    from randomgen import AESCounter, ChaCha

    assert is_cryptographic(np.random.Generator(AESCounter(key=3)))
    assert not is_cryptographic(np.random.Generator(ChaCha(key=3, rounds=8)))
    assert not is_cryptographic(np.random.default_rng(0))
    assert not is_cryptographic(np.random.Generator(np.random.Philox(0)))


def test_describe_generator():
    assert describe_generator(None).startswith("ChaCha20, 256-bit key")
    assert describe_generator(7) == "PCG64 from random_state=7 (reproducible)"
    assert "ChaCha (cryptographic)" in describe_generator(_chacha())
    assert "RandomState" in describe_generator(np.random.RandomState(0))


# --- keyed streams: Poisson batches and PATE's partition --------------------------------------


def test_keys_follow_the_fit_generator():
    assert draw_stream_key(_chacha()).shape == (4,)
    # an int random_state draws the 128-bit Philox key it always drew
    key = draw_stream_key(np.random.default_rng(0))
    np.testing.assert_array_equal(
        key, np.random.default_rng(0).integers(0, 2**64, size=2, dtype=np.uint64)
    )
    assert draw_sampling_key(check_rng(None)).shape == (4,)
    assert draw_partition_key(check_rng(None)).shape == (4,)


def test_philox_streams_are_the_old_ones():
    # The streams an int random_state always gave: Philox at the counter (0, 0, block, step).
    key = np.array([11, 22], dtype=np.uint64)
    streams = KeyedStreams(key)
    for block, step in [(0, 0), (3, 0), (1, 9)]:
        old = np.random.Generator(np.random.Philox(
            counter=np.array([0, 0, block, step], dtype=np.uint64), key=key))
        np.testing.assert_array_equal(streams.generator(block, step).random(5), old.random(5))


def test_chacha_streams_are_chacha_at_their_counter_and_distinct():
    from randomgen import ChaCha

    key = np.array([1, 2, 3, 4], dtype=np.uint64)
    streams = KeyedStreams(key)
    assert isinstance(streams.generator(0).bit_generator, ChaCha)
    full = 1 + (2 << 64) + (3 << 128) + (4 << 192)
    draws = {}
    for block, step in [(0, 0), (1, 0), (0, 1), (5, 7)]:
        got = streams.generator(block, step).integers(0, 2**64, 6, dtype=np.uint64)
        ref = np.random.Generator(
            ChaCha(key=full, counter=(step * 2**32 + block) << 64, rounds=20)
        ).integers(0, 2**64, 6, dtype=np.uint64)
        np.testing.assert_array_equal(got, ref)
        draws[block, step] = tuple(got)
    assert len(set(draws.values())) == len(draws)
    # repositioning after draws gives the stream's start again
    again = streams.generator(5, 7).integers(0, 2**64, 6, dtype=np.uint64)
    np.testing.assert_array_equal(again, draws[5, 7])


def test_secure_poisson_sample_is_chunk_invariant_and_has_rate_q(monkeypatch):
    monkeypatch.setattr(_sampling, "SAMPLING_BLOCK", 1000)
    n, q, steps = 3001, 0.1, 300
    key = draw_sampling_key(_chacha(9))
    assert key.shape == (4,)
    whole = BlockPoissonSampler(key, n, q)
    counts = np.zeros(n)
    for step in range(steps):
        idx = whole.indices(step)
        counts[idx] += 1
        if step < 10:
            cuts = [0, 17, 999, 1000, 2500, n]
            pieces = [BlockPoissonSampler(key, n, q).indices(step, a, b)
                      for a, b in zip(cuts[:-1], cuts[1:])]
            np.testing.assert_array_equal(np.concatenate(pieces), idx)
    z = (counts.sum() - n * steps * q) / np.sqrt(n * steps * q * (1 - q))
    assert abs(z) < 5
    # blocks are not copies of each other (distinct streams)
    assert not np.array_equal(whole.indices(0, 0, 1000), whole.indices(0, 1000, 2000) - 1000)


def test_secure_partition_is_chunk_invariant_and_uniform():
    key = draw_partition_key(_chacha(4))
    owners = teacher_owners(key, 7, 0, 7000)
    np.testing.assert_array_equal(
        np.concatenate([teacher_owners(key, 7, 0, 123), teacher_owners(key, 7, 123, 7000)]),
        owners,
    )
    counts = np.bincount(owners, minlength=7)
    chi2 = float(np.sum((counts - 1000.0) ** 2 / 1000.0))
    assert chi2 < 30  # 6 degrees of freedom: far in the tail


# --- generators of a search's runs ------------------------------------------------------------


def test_run_generators_are_chacha_from_a_secure_search():
    words = draw_seed_words(check_rng(None), (3, 2))
    assert words.shape == (3, 2, 4) and words.dtype == np.uint64
    a, b = derived_generator(words[0, 0]), derived_generator(words[0, 0], 1)
    assert is_cryptographic(a) and is_cryptographic(b)
    assert a.random() != b.random()
    np.testing.assert_array_equal(derived_generator(words[1, 1]).random(3),
                                  derived_generator(words[1, 1]).random(3))


def test_run_generators_from_an_int_seed_are_the_old_ones():
    rng, old = np.random.default_rng(8), np.random.default_rng(8)
    words = draw_seed_words(rng, (2, 2))
    seeds = old.integers(0, 2**63 - 1, size=(2, 2, 4), dtype=np.int64)
    np.testing.assert_array_equal(words, seeds)
    np.testing.assert_array_equal(derived_generator(words[0, 0]).random(3),
                                  np.random.default_rng(seeds[0, 0]).random(3))
    np.testing.assert_array_equal(
        derived_generator(words[1, 0], 2).random(3),
        np.random.default_rng(np.append(seeds[1, 0], 2)).random(3),
    )


@pytest.mark.parametrize("state", [None, 0])
def test_linear_fit_draws_batches_from_streams_of_its_generator_kind(state, monkeypatch):
    # A default fit keys ChaCha20 streams; an int random_state keys the Philox ones.
    from skprivate import DPLSSGDClassifier

    seen = []
    original = _sampling.KeyedStreams

    def spy(key):
        seen.append(np.asarray(key).shape)
        return original(key)

    monkeypatch.setattr(_sampling, "KeyedStreams", spy)
    X = np.random.default_rng(0).normal(size=(300, 3))
    y = (X[:, 0] > 0).astype(int)
    with pytest.warns(Warning) if state is not None else contextlib.nullcontext():
        DPLSSGDClassifier(classes=[0, 1], max_iter=1, random_state=state).fit(X, y)
    assert seen and set(seen) == ({(4,)} if state is None else {(2,)})



def test_search_runs_draw_from_chacha_and_the_released_run_says_so(monkeypatch):
    from skprivate import DPLSSGDClassifier
    from skprivate.model_selection import PrivateRandomSearchCV
    from skprivate.model_selection import _search_base

    given = []
    original = _search_base.derived_generator

    def spy(words, stream=0):
        rng = original(words, stream)
        given.append(is_cryptographic(rng))
        return rng

    monkeypatch.setattr(_search_base, "derived_generator", spy)
    X = np.random.default_rng(0).uniform(0, 1, size=(400, 3))
    y = (X[:, 0] > 0.5).astype(int)
    search = PrivateRandomSearchCV(DPLSSGDClassifier(classes=[0, 1], max_iter=1),
                                   {"smoothing": [0.0, 1.0]}, epsilon=2.0, mean_candidates=4)
    for _ in range(4):  # a Poisson number of runs is 0 with probability exp(-4): fit again
        try:
            search.fit(X, y)
            break
        except ValueError as error:
            assert "came out 0" in str(error)
    assert given and all(given)
    assert search.privacy_report_["generator"].startswith("ChaCha20")
    released = search.best_estimator_.privacy_report_["generator"]
    assert released.startswith("ChaCha20") and "keyed from it" in released
