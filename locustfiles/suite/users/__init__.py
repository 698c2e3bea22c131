"""What the Locust users import in every process, workers included: the paid journey, the open
model's arrivals, the load shape, the order numbers of edX's 2015 client. Nothing that reports."""
