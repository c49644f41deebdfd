"""oneoffurls.stable_key: which GET URLs carry values new at every request (a nonce, a
token, a signature, with or without the current time), and what they asked for once
those are set aside."""

from geventperf.oneoffurls import NOW_WITHIN_S, stable_key

NOW = 1_796_694_364.25
HMAC = "d99a8a417e324c2f6aedf0316b53a8d82966209bf22c762d62f17f09c8a3591d"


def test_a_time_with_a_nonce_and_a_signature_is_set_aside():
    url = f"/teams/t20?fields=name%2Cshort&key=k1&nonce=ea5137cf658e4ba585c1724b4eeb80ab" \
          f"&ts={NOW:.3f}&sig={HMAC}"
    assert stable_key(url, NOW) == ("/teams/t20?fields=name%2Cshort&key=k1&nonce=*&ts=*&sig=*",
                                    ["nonce", "ts", "sig"])


def test_milliseconds_a_uuid_and_base64_count_too():
    url = f"/s?t={int(NOW * 1000)}&rid=0b9f3c1e-8f6a-4c4e-9a51-3f0f6c2d7e11#top"
    assert stable_key(url, NOW) == ("/s?t=*&rid=*#top", ["t", "rid"])
    url = f"/s?X-Sig=QWxhZGRpbjpvcGVuIHNlc2FtZQ1x&X-Date={int(NOW)}"
    assert stable_key(url, NOW) == ("/s?X-Sig=*&X-Date=*", ["X-Sig", "X-Date"])


def test_a_tracking_token_alone_is_set_aside():
    assert stable_key("/media/118/8.mp3?_tk=9ac8c0b73c14", NOW) == ("/media/118/8.mp3?_tk=*",
                                                                      ["_tk"])


def test_what_names_something_is_asked_for_however_random_it_looks():
    assert stable_key(f"/events?since={int(NOW)}", NOW) is None  # a poll's cursor
    for name in ("sha", "id", "user_id", "userId", "objectKey", "cursor", "page", "etag"):
        assert stable_key(f"/objects?{name}=5f2b9c0d1e2f3a4b5c6d7e8f", NOW) is None, name
    assert stable_key(f"/users/7?ts={int(NOW)}&order=12345678901234567890", NOW) is None
    assert stable_key("/q?word=abcdefghijklmnopqrstu", NOW) is None  # letters only
    assert stable_key("/plain", NOW) is None
    assert stable_key("/q?a=b&c", NOW) is None


def test_a_time_far_from_the_clock_is_a_stored_one():
    far = NOW - 2 * NOW_WITHIN_S
    assert stable_key(f"/s?at={int(far)}&n=ea5137cf658e4ba585c1724b4eeb80ab", NOW) == (
        f"/s?at={int(far)}&n=*", ["n"])
