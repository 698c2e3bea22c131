"""The per-learner purchase limit (ECOMMERCE_LEARNER_RATE): 429 in the JSON error shape with
Retry-After, nothing written, other learners unaffected, and "off" for load tests that reuse
their learners."""

import pytest
from django.core.exceptions import ImproperlyConfigured
from oscar.core.loading import get_model

from settings._env import parse_rate

pytestmark = pytest.mark.django_db

Basket = get_model("basket", "Basket")
Order = get_model("order", "Order")


def test_a_learner_over_the_limit_gets_429_and_nothing_is_written(api, seats, learner, settings):
    settings.ECOMMERCE_LEARNER_RATE = (2, 60)
    assert api.buy(learner, [seats[0].sku], checkout=False).status_code == 201
    assert api.buy(learner, [seats[1].sku], checkout=False).status_code == 201
    baskets = Basket.objects.count()

    response = api.buy(learner, [seats[2].sku], checkout=False)

    assert response.status_code == 429
    assert response.json()["error"] == "throttled"
    assert 1 <= int(response["Retry-After"]) <= 60
    assert Basket.objects.count() == baskets


def test_the_limit_is_per_learner(api, seats, learner, other_learner, settings):
    settings.ECOMMERCE_LEARNER_RATE = (1, 60)
    assert api.buy(learner, [seats[0].sku], checkout=False).status_code == 201
    assert api.buy(learner, [seats[1].sku], checkout=False).status_code == 429
    assert api.buy(other_learner, [seats[1].sku], checkout=False).status_code == 201


def test_purchases_older_than_the_period_do_not_count(api, seats, learner, settings):
    settings.ECOMMERCE_LEARNER_RATE = (1, 60)
    assert api.buy(learner, [seats[0].sku], checkout=False).status_code == 201
    Basket.objects.update(date_created=Basket.objects.get().date_created.replace(year=2020))
    assert api.buy(learner, [seats[1].sku], checkout=False).status_code == 201


def test_off_means_no_limit(api, seats, learner, settings):
    settings.ECOMMERCE_LEARNER_RATE = None
    for seat in seats:
        assert api.buy(learner, [seat.sku], checkout=False).status_code == 201


@pytest.mark.parametrize(
    "text, rate",
    [
        ("20/min", (20, 60)),
        ("5/s", (5, 1)),
        ("100/hour", (100, 3600)),
        ("1/day", (1, 86400)),
        ("off", None),
        ("", None),
    ],
)
def test_rates_are_read_as_count_per_period(text, rate):
    assert parse_rate(text) == rate


@pytest.mark.parametrize("text", ["20", "20/fortnight", "-1/min", "x/min", "0/min"])
def test_a_bad_rate_stops_the_service_with_the_reason(text, monkeypatch):
    from settings._env import env_rate

    monkeypatch.setenv("ECOMMERCE_LEARNER_RATE", text)
    with pytest.raises(ImproperlyConfigured, match="ECOMMERCE_LEARNER_RATE"):
        env_rate("ECOMMERCE_LEARNER_RATE")
