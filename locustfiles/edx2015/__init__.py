"""edX's 2015 ecommerce Locust client, re-created for today's Locust: locustfile.py says what it
re-creates and every departure."""
